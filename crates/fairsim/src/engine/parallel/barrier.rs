//! The threads of a parallel run meet at each window's end: a window is tens of microseconds of
//! work, and a barrier that puts threads to sleep (`std::sync::Barrier`, a mutex and a condition
//! variable) costs a wake-up of several microseconds each time. This one spins a little, then
//! yields its core, so that on a machine with other work a waiting thread does not hold a core
//! the others need.

use std::sync::atomic::{AtomicUsize, Ordering};

pub(super) struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    /// How many times all have met: a waiting thread watches it change.
    generation: AtomicUsize,
}

/// Spins before a waiting thread starts to yield its core.
const SPINS: u32 = 2_000;

impl SpinBarrier {
    pub fn new(threads: usize) -> SpinBarrier {
        SpinBarrier { threads, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) }
    }

    /// Waits until all the threads have called `wait`; what each wrote before it is seen by all
    /// after it.
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn no_thread_passes_a_round_before_every_thread_has_written_its_part_of_it() {
        let (threads, rounds) = (4, 2_000);
        let barrier = SpinBarrier::new(threads);
        let written: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|s| {
            for me in 0..threads {
                let (barrier, written) = (&barrier, &written);
                s.spawn(move || {
                    for round in 1..=rounds {
                        written[me].store(round, Ordering::Relaxed);
                        barrier.wait();
                        assert!(written.iter().all(|w| w.load(Ordering::Relaxed) >= round), "round {round}");
                        barrier.wait();
                    }
                });
            }
        });
    }
}
