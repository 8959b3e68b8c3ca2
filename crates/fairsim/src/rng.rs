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
    seeded(seed, stream_number(name))
}

fn stream_number(name: &str) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

fn seeded(seed: u64, number: u64) -> SimRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(number);
    rng
}

/// A component's random stream, made on its first draw: the numbers of `stream(seed, name)`,
/// whenever it is made. A ChaCha8 state takes about 300 bytes, and most ports (FCFS, drop-tail)
/// and many flows never draw: a 1,026-port dumbbell held 330 KB of streams it never used
/// (docs/performance.md, *Memory*), a 100,000-flow run tens of megabytes.
#[derive(Clone, Debug)]
pub struct LazyStream {
    seed: u64,
    number: u64,
    made: Option<Box<SimRng>>,
}

impl LazyStream {
    pub fn new(seed: u64, name: &str) -> LazyStream {
        LazyStream { seed, number: stream_number(name), made: None }
    }

    #[inline]
    pub fn get(&mut self) -> &mut SimRng {
        if self.made.is_none() {
            self.make();
        }
        self.made.as_deref_mut().expect("made above")
    }

    /// The generator, at the first draw. Out of line: inlined into the caller's draw, its
    /// making (a ChaCha key schedule) left the draw itself out of line where the compiler chose
    /// so, which moved RED's enqueue by 0.5% of the TCP dumbbell's instructions between builds.
    #[cold]
    #[inline(never)]
    fn make(&mut self) {
        self.made = Some(Box::new(seeded(self.seed, self.number)));
    }
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
    fn a_lazy_stream_draws_what_its_stream_draws_whenever_it_is_made() {
        let mut lazy = LazyStream::new(3, "port:x");
        assert!(lazy.made.is_none(), "nothing is made before the first draw");
        let mut eager = stream(3, "port:x");
        let drawn: Vec<u64> = (0..100).map(|_| lazy.get().random()).collect();
        assert_eq!(drawn, (0..100).map(|_| eager.random()).collect::<Vec<u64>>());
    }

    #[test]
    fn streams_are_portable() {
        // Pinned: if this changes (a dependency upgrade, say), every published result changes.
        assert_eq!(stream(1, "flow:a").random::<u64>(), PINNED);
    }
    const PINNED: u64 = 13938892382934596438;
}
