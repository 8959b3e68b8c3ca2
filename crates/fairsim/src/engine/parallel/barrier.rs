//! The threads of a parallel run meet at each window's end. A window is tens of microseconds of
//! work, and putting a waiting thread to sleep and waking it costs microseconds (tens in a
//! virtual machine), so a waiting thread first spins. Past that it sleeps on a condition
//! variable: on a machine with other work (more threads than free cores), a thread that kept
//! spinning or only yielded its core would hold back the very thread it waits for, and each
//! window would cost a scheduler's time slice. How long it spins adapts, as an adaptive mutex's
//! does: it doubles after a wait that spinning ended, and halves after one that had to sleep,
//! between 20 µs and 2 ms. On an idle machine a window's wait is mostly a few microseconds but
//! often tens (on the 2-core machine of docs/performance.md, sleeping after about 40 µs made a
//! k = 8 run 1.6 times as long as spinning on).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

pub(super) struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    /// How many times all have met: a waiting thread watches it change.
    generation: AtomicUsize,
    /// Threads asleep or about to sleep, which the last to arrive must wake.
    sleepers: AtomicUsize,
    /// How long a waiting thread spins before it sleeps, in nanoseconds (`MIN_SPIN..=MAX_SPIN`).
    spin_ns: AtomicU64,
    lock: Mutex<()>,
    woken: Condvar,
}

/// Bounds of the time a waiting thread spins before it sleeps, in nanoseconds.
const MIN_SPIN: u64 = 20_000;
const MAX_SPIN: u64 = 2_000_000;

impl SpinBarrier {
    pub fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            spin_ns: AtomicU64::new(MAX_SPIN),
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
        let spin = self.spin_ns.load(Ordering::Relaxed);
        let started = Instant::now();
        // the clock is read every 64 looks: a look is a few nanoseconds, a clock read tens
        for look in 1u32.. {
            if self.generation.load(Ordering::Acquire) != generation {
                self.spin_ns.store((spin * 2).min(MAX_SPIN), Ordering::Relaxed);
                return;
            }
            if look % 64 == 0 && started.elapsed().as_nanos() as u64 > spin {
                break;
            }
            std::hint::spin_loop();
        }
        self.spin_ns.store((spin / 2).max(MIN_SPIN), Ordering::Relaxed);
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
