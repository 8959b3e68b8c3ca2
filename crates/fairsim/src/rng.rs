//! Seeded, portable random streams: one per component.
//!
//! A stream is ChaCha8 seeded with the run seed and switched to a stream number derived from
//! the component's *name* (FNV-1a of e.g. `flow:telnet1`), not its position in the file, so
//! adding a flow does not change the random numbers any other component draws. ChaCha8 gives
//! the same sequence on every platform.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hash::Hasher;

pub type SimRng = ChaCha8Rng;

/// The random stream of the component called `name` in a run seeded with `seed`.
pub fn stream(seed: u64, name: &str) -> SimRng {
    let mut h = fnv::FnvHasher::default();
    h.write(name.as_bytes());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(h.finish());
    rng
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_depend_on_seed_and_name_only() {
        let draw = |seed, name| stream(seed, name).random::<u64>();
        assert_eq!(draw(1, "flow:a"), draw(1, "flow:a"));
        assert_ne!(draw(1, "flow:a"), draw(2, "flow:a"));
        assert_ne!(draw(1, "flow:a"), draw(1, "flow:b"));
    }

    #[test]
    fn streams_are_portable() {
        // Pinned: if this changes (a dependency upgrade, say), every published result changes.
        assert_eq!(stream(1, "flow:a").random::<u64>(), PINNED);
    }
    const PINNED: u64 = 13938892382934596438;
}
