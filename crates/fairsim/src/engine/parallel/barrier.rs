//! The threads of a parallel run meet at each window's end. A window is tens of microseconds of
//! work, and putting a waiting thread to sleep and waking it costs several microseconds, so a
//! waiting thread first spins a while. Past that it sleeps on a condition variable: on a machine
//! with other work (more threads than free cores), a thread that kept spinning or only yielded
//! its core would hold back the very thread it waits for, and each window would cost a
//! scheduler's time slice.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

pub(super) struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    /// How many times all have met: a waiting thread watches it change.
    generation: AtomicUsize,
    /// Threads asleep or about to sleep, which the last to arrive must wake.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    woken: Condvar,
}

/// Spins before a waiting thread goes to sleep: some tens of microseconds, about a window's
/// imbalance on an idle machine.
const SPINS: u32 = 400;

impl SpinBarrier {
    pub fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            woken: Condvar::new(),
        }
    }

    /// Waits until all the threads have called `wait`; what each wrote before it is seen by all
    /// after it.
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::SeqCst);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::SeqCst);
            // a sleeper counted itself before it looked at the generation: either it sees the
            // new one, or it is counted here and woken
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                let _held = self.lock.lock().expect("no thread panicked");
                self.woken.notify_all();
            }
            return;
        }
        for _ in 0..SPINS {
            if self.generation.load(Ordering::Acquire) != generation {
                return;
            }
            std::hint::spin_loop();
        }
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut held = self.lock.lock().expect("no thread panicked");
        while self.generation.load(Ordering::SeqCst) == generation {
            held = self.woken.wait(held).expect("no thread panicked");
        }
        drop(held);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn no_thread_passes_a_round_before_every_thread_has_written_its_part_of_it() {
        // more threads than most machines have cores, so that some sleep
        let (threads, rounds) = (6, 2_000);
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
