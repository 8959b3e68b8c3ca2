//! Which conversation uses the most buffer, kept up to date as queues change.
//!
//! Counted in packets, a queue's length changes by one at a time, so conversations can sit in
//! buckets by length with the largest non-empty bucket known: O(1) per change (this keeps DRR,
//! SFQ and Nagle's round robin at O(1) per packet with buffer stealing). Counted in bytes,
//! lengths jump, and a heap keyed by bytes does it in O(log n).
//!
//! Ties: in packets, the conversation that most recently reached the largest length; in bytes,
//! the lowest-numbered conversation. (Callers first prefer the arriving packet's conversation.)

use crate::heap::{IndexedHeap, Max};

const ABSENT: usize = usize::MAX;

#[derive(Debug)]
pub enum Longest {
    ByPackets { by_len: Vec<Vec<usize>>, pos: Vec<usize>, max: usize },
    ByBytes(IndexedHeap<Max<(u64, std::cmp::Reverse<usize>)>>),
}

impl Longest {
    pub fn new(count: usize, by_bytes: bool) -> Longest {
        if by_bytes {
            Longest::ByBytes(IndexedHeap::default())
        } else {
            Longest::ByPackets { by_len: vec![vec![]], pos: vec![ABSENT; count], max: 0 }
        }
    }

    /// Conversation `c`'s use went from `old` to `new` (packets or bytes, as created).
    pub fn update(&mut self, c: usize, old: u64, new: u64) {
        match self {
            Longest::ByBytes(h) => {
                if new == 0 {
                    h.remove(c);
                } else {
                    h.set(c, Max((new, std::cmp::Reverse(c))));
                }
            }
            Longest::ByPackets { by_len, pos, max } => {
                let (old, new) = (old as usize, new as usize);
                if old > 0 {
                    let bucket = &mut by_len[old];
                    let at = pos[c];
                    bucket.swap_remove(at);
                    if let Some(&moved) = bucket.get(at) {
                        pos[moved] = at;
                    }
                }
                if new > 0 {
                    if by_len.len() <= new {
                        by_len.resize_with(new + 1, Vec::new);
                    }
                    pos[c] = by_len[new].len();
                    by_len[new].push(c);
                    *max = (*max).max(new);
                } else {
                    pos[c] = ABSENT;
                }
                while *max > 0 && by_len[*max].is_empty() {
                    *max -= 1;
                }
            }
        }
    }

    /// The largest use and a conversation that has it.
    pub fn max(&self) -> Option<(u64, usize)> {
        match self {
            Longest::ByBytes(h) => h.peek().map(|(Max((m, std::cmp::Reverse(c))), _)| (m, c)),
            Longest::ByPackets { by_len, max, .. } => by_len[*max].last().map(|&c| (*max as u64, c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn both_trackers_find_a_longest_conversation(ops in prop::collection::vec((0usize..6, any::<bool>()), 0..300)) {
            let mut lens = [0u64; 6];
            let mut trackers = [Longest::new(6, false), Longest::new(6, true)];
            for (c, grow) in ops {
                let old = lens[c];
                if grow { lens[c] += 1 } else if old > 0 { lens[c] -= 1 } else { continue }
                for t in &mut trackers {
                    t.update(c, old, lens[c]);
                }
                let want = lens.iter().copied().max().unwrap();
                for t in &trackers {
                    match t.max() {
                        None => prop_assert_eq!(want, 0),
                        Some((m, c)) => {
                            prop_assert_eq!(m, want);
                            prop_assert_eq!(lens[c], want);
                        }
                    }
                }
            }
        }
    }
}
