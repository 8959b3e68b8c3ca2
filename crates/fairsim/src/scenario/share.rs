//! One value for many ports or flows alike: the last few distinct keys met, each with the value
//! made for it, which the next equal key is given.
//!
//! A large fabric's ports name few components: a tier's discipline on every port of the tier.
//! Their order interleaves them (a host's line, then its ToR's port towards it), so comparing a
//! port's with only the one before found no two alike: a k = 64 fat-tree's scenario held a
//! component of its own for each of its 131,072 host-tier ports, and its report a table for each
//! (docs/performance.md, "A k = 64 fat-tree").

/// Distinct keys kept to compare with: more than the kinds of port that alternate in any
/// generated topology's order.
const RECENT: usize = 8;

pub struct Recent<K, V> {
    /// Most recently made last.
    kept: Vec<(K, V)>,
}

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Recent { kept: Vec::with_capacity(RECENT) }
    }
}

impl<K: PartialEq, V: Clone> Recent<K, V> {
    /// The value of a kept key equal to `key`, if any; else `make(&key, kept)`'s (which may
    /// share parts with the values kept, oldest first), kept from now on.
    pub fn get(&mut self, key: K, make: impl FnOnce(&K, &[(K, V)]) -> V) -> V {
        if let Some((_, same)) = self.kept.iter().rev().find(|(kept, _)| *kept == key) {
            return same.clone();
        }
        let value = make(&key, &self.kept);
        if self.kept.len() == RECENT {
            self.kept.remove(0);
        }
        self.kept.push((key, value.clone()));
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn share(recent: &mut Recent<i32, Arc<i32>>, key: i32) -> Arc<i32> {
        recent.get(key, |&key, _| Arc::new(key))
    }

    #[test]
    fn interleaved_equal_keys_share_one_value() {
        let mut recent = Recent::default();
        let made: Vec<Arc<i32>> = [1, 2, 1, 2, 3, 1].into_iter().map(|k| share(&mut recent, k)).collect();
        assert!(Arc::ptr_eq(&made[0], &made[2]) && Arc::ptr_eq(&made[0], &made[5]));
        assert!(Arc::ptr_eq(&made[1], &made[3]));
        assert!(!Arc::ptr_eq(&made[0], &made[1]) && !Arc::ptr_eq(&made[4], &made[0]));
    }

    #[test]
    fn only_the_last_few_distinct_keys_are_compared_with() {
        let mut recent = Recent::default();
        let first = share(&mut recent, 0);
        (1..RECENT as i32).for_each(|k| drop(share(&mut recent, k)));
        assert!(Arc::ptr_eq(&first, &share(&mut recent, 0)), "still kept");
        share(&mut recent, -1); // the oldest, 1, goes
        let again = share(&mut recent, 1);
        assert_eq!(Arc::strong_count(&again), 2, "a new one, kept");
    }

    #[test]
    fn a_new_value_may_take_parts_of_those_kept() {
        type Pair = (i32, i32);
        let mut recent: Recent<Pair, Arc<Pair>> = Recent::default();
        let make = |key: &Pair, kept: &[(Pair, Arc<Pair>)]| {
            assert_eq!(kept.len(), usize::from(key.1 == 2));
            Arc::new(*key)
        };
        recent.get((1, 1), make);
        recent.get((1, 2), make);
    }
}
