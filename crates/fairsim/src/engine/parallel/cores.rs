//! The cores a run could have to itself: those the process may use (its CPU affinity and its
//! control group's quota, as the standard library counts them) less the other work that wants
//! them now, the tasks the system counts as running or ready to run (Linux's `/proc/loadavg`,
//! its fourth field), sampled while the run goes on one thread. The count is of the whole
//! system, not of the process's cores alone: on a machine whose other cores are busy with work
//! that this process may not run beside anyway, it counts too few cores free, and the run stays
//! on one thread, which is never slower than one thread.

use std::time::{Duration, Instant};

/// Samples of the other tasks ready to run, taken at most every `EVERY`.
#[derive(Default)]
pub(super) struct Load {
    others: f64,
    samples: u32,
    last: Option<Instant>,
}

/// How often the load is sampled: a sample reads a small file, some microseconds (ten samples
/// in a probe of 20 ms).
const EVERY: Duration = Duration::from_millis(2);

impl Load {
    /// Takes a sample unless one was taken within `EVERY`; `mine` is how many of this
    /// process's threads are running now (the caller among them).
    pub fn sample(&mut self, mine: usize) {
        let now = Instant::now();
        if self.last.is_some_and(|last| now.duration_since(last) < EVERY) {
            return;
        }
        self.last = Some(now);
        if let Some(running) = running_tasks() {
            self.others += running.saturating_sub(mine) as f64;
            self.samples += 1;
        }
    }

    /// The cores free for this run, `None` if nothing could be sampled: the usable cores less
    /// the other tasks that were ready to run, on average.
    pub fn free_cores(&self) -> Option<f64> {
        let usable = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        (self.samples > 0).then(|| (usable - self.others / self.samples as f64).max(0.0))
    }
}

/// The tasks running or ready to run on the whole system now, the caller among them.
fn running_tasks() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let (running, _) = text.split_whitespace().nth(3)?.split_once('/')?;
    running.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_free_cores_are_at_most_the_usable_ones_and_unknown_without_a_sample() {
        let mut load = Load::default();
        assert_eq!(load.free_cores(), None);
        load.sample(1);
        let usable = std::thread::available_parallelism().unwrap().get() as f64;
        match running_tasks() {
            Some(_) => assert!(load.free_cores().is_some_and(|f| (0.0..=usable).contains(&f))),
            None => assert_eq!(load.free_cores(), None, "a system without /proc/loadavg"),
        }
    }

    #[test]
    fn a_busy_system_leaves_fewer_cores_free() {
        let load = Load { others: 6.0, samples: 2, last: None };
        let usable = std::thread::available_parallelism().unwrap().get() as f64;
        assert_eq!(load.free_cores(), Some((usable - 3.0).max(0.0)));
    }
}
