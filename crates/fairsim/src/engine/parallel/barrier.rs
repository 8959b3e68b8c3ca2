//! The threads of a parallel run meet at each window's end. A window is tens of microseconds of
//! work, and putting a waiting thread to sleep and waking it costs microseconds (tens in a
//! virtual machine), so a waiting thread first spins, but only while the threads it waits for
//! are running: a late thread that the system has taken off its core (more threads than free
//! cores) would only be held back further by a spinning one, so the waiter sleeps at once on a
//! condition variable. Whether a late thread runs is read from its CPU clock (`ThreadClock`):
//! one that gained less than half the wall time since the last look was not running. How long a
//! waiter spins while they run adapts, as an adaptive mutex's does: it doubles after a wait that
//! spinning ended, and halves after one that had to sleep, between 20 µs and 2 ms. On an idle
//! machine a window's wait is mostly a few microseconds but often tens (on the 2-core machine of
//! docs/performance.md, sleeping after about 40 µs made a k = 8 run 1.6 times as long as
//! spinning on).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

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
    /// By thread: the generation it last arrived in, plus one (so the late ones are known), and
    /// its CPU clock, once it has joined.
    arrivals: Vec<AtomicUsize>,
    clocks: Vec<OnceLock<ThreadClock>>,
}

/// Bounds of the time a waiting thread spins before it sleeps, in nanoseconds.
const MIN_SPIN: u64 = 20_000;
const MAX_SPIN: u64 = 2_000_000;
/// How often a spinning thread looks whether the threads it waits for are running: a look is a
/// system call of about a microsecond.
const LOOK_EVERY: Duration = Duration::from_micros(5);

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
            arrivals: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
            clocks: (0..threads).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Thread `me` will wait here: the others may read its CPU clock from now on.
    pub fn join(&self, me: usize) {
        if let Some(clock) = ThreadClock::of_this_thread() {
            let _ = self.clocks[me].set(clock);
        }
    }

    /// Waits until all the threads have called `wait`; what each wrote before it is seen by all
    /// after it. `me` is the caller's number, below the count of threads.
    pub fn wait(&self, me: usize) {
        let generation = self.generation.load(Ordering::SeqCst);
        self.arrivals[me].store(generation + 1, Ordering::Release);
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
        let mut late = Late::since(started);
        // the clock is read every 64 looks: a look is a few nanoseconds, a clock read tens
        for look in 1u32.. {
            if self.generation.load(Ordering::Acquire) != generation {
                self.spin_ns.store((spin * 2).min(MAX_SPIN), Ordering::Relaxed);
                return;
            }
            if look % 64 == 0 {
                let now = Instant::now();
                if now.duration_since(started).as_nanos() as u64 > spin || !late.running(self, generation, now) {
                    break;
                }
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

    /// How long `threads` threads take to meet here, now: the median of up to `rounds` meetings
    /// in a row, or `None` if they have not met that often within `limit` (their cores are
    /// busy). Measured on threads of its own, as a parallel run's would be.
    pub fn meeting_time(threads: usize, rounds: usize, limit: Duration) -> Option<Duration> {
        let barrier = SpinBarrier::new(threads);
        // the meeting after which all leave (each counts its meetings, the first at start)
        let last = AtomicUsize::new(usize::MAX);
        let mut times = Vec::with_capacity(rounds);
        std::thread::scope(|s| {
            for me in 1..threads {
                let (barrier, last) = (&barrier, &last);
                s.spawn(move || {
                    barrier.join(me);
                    for meeting in 0.. {
                        barrier.wait(me);
                        if last.load(Ordering::Relaxed) == meeting {
                            break;
                        }
                    }
                });
            }
            barrier.join(0);
            barrier.wait(0); // every thread has started
            let started = Instant::now();
            for meeting in 1.. {
                let round = Instant::now();
                let ending = times.len() + 1 == rounds || started.elapsed() >= limit;
                if ending {
                    last.store(meeting, Ordering::Relaxed);
                }
                barrier.wait(0);
                times.push(round.elapsed());
                if ending {
                    break;
                }
            }
        });
        if times.len() < rounds {
            return None;
        }
        times.sort_unstable();
        Some(times[times.len() / 2])
    }
}

/// What a spinning thread saw of the late threads' CPU clocks at its last look: a wait shorter
/// than `LOOK_EVERY` reads none (most waits of an idle machine are a few microseconds).
struct Late {
    at: Instant,
    cpu: Option<Vec<(usize, Duration)>>,
}

impl Late {
    fn since(started: Instant) -> Late {
        Late { at: started, cpu: None }
    }

    /// Whether every thread that has not yet arrived ran for at least half the time since the
    /// last look (the first look, `LOOK_EVERY` into the wait, only notes their clocks). A
    /// thread whose clock cannot be read counts as running.
    fn running(&mut self, barrier: &SpinBarrier, generation: usize, now: Instant) -> bool {
        if now.duration_since(self.at) < LOOK_EVERY {
            return true;
        }
        let late = (0..barrier.threads).filter(|&t| barrier.arrivals[t].load(Ordering::Acquire) != generation + 1);
        let cpu: Vec<(usize, Duration)> =
            late.filter_map(|t| Some((t, barrier.clocks[t].get()?.cpu_time()?))).collect();
        let running = match &self.cpu {
            None => true,
            Some(then) => {
                let half = now.duration_since(self.at) / 2;
                cpu.iter().all(|(t, now_cpu)| match then.iter().find(|(u, _)| u == t) {
                    Some((_, then)) => now_cpu.saturating_sub(*then) >= half,
                    None => true,
                })
            }
        };
        (self.at, self.cpu) = (now, Some(cpu));
        running
    }
}

/// A thread's CPU clock, which other threads of the process may read.
#[derive(Clone, Copy)]
struct ThreadClock(#[cfg(all(target_os = "linux", target_env = "gnu"))] libc::clockid_t);

impl ThreadClock {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn of_this_thread() -> Option<ThreadClock> {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_self is this thread, and `clock` is a place for the answer
        let failed = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        (failed == 0).then_some(ThreadClock(clock))
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn cpu_time(self) -> Option<Duration> {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a place for the answer; a clock of a thread that has ended is an error
        let failed = unsafe { libc::clock_gettime(self.0, &mut t) };
        (failed == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }

    /// Elsewhere no thread's clock is read, and a late thread counts as running.
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn of_this_thread() -> Option<ThreadClock> {
        None
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn cpu_time(self) -> Option<Duration> {
        None
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
                    barrier.join(me);
                    for round in 1..=rounds {
                        written[me].store(round, Ordering::Relaxed);
                        barrier.wait(me);
                        assert!(written.iter().all(|w| w.load(Ordering::Relaxed) >= round), "round {round}");
                        barrier.wait(me);
                    }
                });
            }
        });
    }

    #[test]
    fn a_thread_is_seen_running_while_it_spins_and_not_while_it_sleeps() {
        let Some(clock) = ThreadClock::of_this_thread() else { return }; // not read on this system
        let barrier = SpinBarrier::new(2);
        let _ = barrier.clocks[1].set(clock); // this thread plays the late one
        let start = Instant::now();
        let mut late = Late::since(start);
        let spin_until = |t: Instant| while Instant::now() < t {};
        assert!(late.running(&barrier, 0, start), "a short wait reads no clock");
        assert!(late.cpu.is_none());
        assert!(late.running(&barrier, 0, start + LOOK_EVERY), "the first look only notes the clocks");
        assert!(late.cpu.is_some());
        // while this thread runs its clock keeps up with the wall clock, unless the system
        // takes it off its core: the loop looks again until a look sees it ran (a busy machine
        // may take it off for a while, never for ever)
        let mut seen_running = false;
        while !seen_running {
            spin_until(Instant::now() + Duration::from_millis(2));
            seen_running = late.running(&barrier, 0, Instant::now());
        }
        std::thread::sleep(Duration::from_millis(5));
        assert!(!late.running(&barrier, 0, Instant::now()), "it slept: it was not running");
        barrier.arrivals[1].store(1, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(5));
        assert!(late.running(&barrier, 0, Instant::now()), "it has arrived: no one waits for it");
    }

    #[test]
    fn threads_on_free_cores_meet_and_the_meeting_time_is_measured() {
        let time = SpinBarrier::meeting_time(2, 20, Duration::from_secs(60));
        assert!(time.is_some_and(|t| t < Duration::from_secs(60)), "{time:?}");
        assert_eq!(SpinBarrier::meeting_time(2, 1_000_000, Duration::ZERO), None, "no time to meet that often");
    }
}
