//! A split run keeps the pace of one thread at least: it goes in stretches of about `STRETCH`
//! (each starts its threads anew, some tens of microseconds), each on all its threads or on one (which then runs the partitions' windows in turn, with no
//! one to wait for), and measures each stretch's events per second. A stretch on all threads
//! slower than one thread's pace (the probe's at first, then that of the last stretch on one)
//! sends the run to one thread; from there it tries all threads again after one stretch, then
//! after twice as many each time the try loses, up to `LONGEST_WAIT`. The results are the same
//! either way: only the thread that runs a partition's window changes. A count of threads that
//! was given is obeyed: every stretch goes on all, as long as the caller asks.

use std::time::Duration;

/// The engine time of a stretch, between which the pace is weighed.
const STRETCH: Duration = Duration::from_millis(100);
/// The most stretches on one thread between two tries of all threads.
const LONGEST_WAIT: u32 = 16;

pub(super) struct Pace {
    parts: usize,
    /// Whether the threads were given, not chosen: then every stretch goes on all.
    given: bool,
    on_all: bool,
    /// One thread's events per second, once known.
    one: Option<f64>,
    /// Stretches on one thread before the next try of all, and the wait after a try that loses.
    wait: u32,
    next_wait: u32,
    /// Events per stretch, from the last stretch's pace.
    events: u64,
    /// Events run on all threads and on one.
    pub on_all_events: u64,
    pub on_one_events: u64,
}

impl Pace {
    /// A split into `parts` partitions; `one` is one thread's events per second, if measured.
    pub fn new(parts: usize, given: bool, one: Option<f64>) -> Pace {
        Pace {
            parts,
            given,
            on_all: true,
            one,
            wait: 0,
            next_wait: 1,
            events: 50_000,
            on_all_events: 0,
            on_one_events: 0,
        }
    }

    /// The threads for the next stretch, and its events at most: with threads given, as many
    /// as the caller asks for (each stretch starts its threads anew, which a busy machine may
    /// take a while to run).
    pub fn next(&self) -> (usize, u64) {
        match (self.given, self.on_all) {
            (true, _) => (self.parts, u64::MAX),
            (false, true) => (self.parts, self.events),
            (false, false) => (1, self.events),
        }
    }

    /// A stretch on `threads` threads ran `events` events in `took`.
    pub fn ran(&mut self, threads: usize, events: u64, took: Duration) {
        let pace = events as f64 / took.as_secs_f64().max(1e-9);
        // stretches of whole windows, not shorter than a thousand events
        self.events = ((pace * STRETCH.as_secs_f64()) as u64).max(1_000);
        if threads == 1 {
            self.on_one_events += events;
            self.one = Some(pace);
            self.wait = self.wait.saturating_sub(1);
            self.on_all = self.wait == 0;
            return;
        }
        self.on_all_events += events;
        if self.given || self.one.is_none_or(|one| pace >= one) {
            self.next_wait = 1;
            return;
        }
        self.on_all = false;
        self.wait = self.next_wait;
        self.next_wait = (self.next_wait * 2).min(LONGEST_WAIT);
    }

    /// How the run shared its events between all threads and one, for `-v`, if it went on one.
    pub fn fell_back(&self) -> Option<String> {
        let total = self.on_all_events + self.on_one_events;
        (self.on_one_events > 0).then(|| {
            format!(
                "{:.0}% of its events went on one thread, where all {} fell behind one thread's pace",
                100.0 * self.on_one_events as f64 / total.max(1) as f64,
                self.parts
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn all_threads_slower_than_one_go_on_one_and_try_again_ever_later() {
        let mut pace = Pace::new(2, false, Some(1e6));
        assert_eq!(pace.next().0, 2);
        pace.ran(2, 500, MS); // 0.5e6 a second: behind one thread's pace
        let mut waits = vec![];
        for _ in 0..8 {
            let mut wait = 0;
            while pace.next().0 == 1 {
                pace.ran(1, 1000, MS);
                wait += 1;
            }
            waits.push(wait);
            pace.ran(2, 500, MS); // the try loses
        }
        assert_eq!(waits, [1, 2, 4, 8, 16, 16, 16, 16]);
        pace.ran(1, 1000, MS);
        assert!(pace.fell_back().is_some());
    }

    #[test]
    fn all_threads_that_keep_up_stay_and_a_winning_try_resets_the_wait() {
        let mut pace = Pace::new(2, false, Some(1e6));
        for _ in 0..10 {
            pace.ran(2, 1_800, MS);
            assert_eq!(pace.next().0, 2);
        }
        assert_eq!(pace.fell_back(), None);
        pace.ran(2, 500, MS);
        pace.ran(1, 1000, MS);
        pace.ran(2, 500, MS); // lost: the next wait is 2
        pace.ran(1, 1000, MS);
        pace.ran(1, 1000, MS);
        pace.ran(2, 1_500, MS); // won: the wait after the next loss is 1 again
        pace.ran(2, 500, MS);
        pace.ran(1, 1000, MS);
        assert_eq!(pace.next().0, 2);
    }

    #[test]
    fn given_threads_stay_on_all_however_slow() {
        let mut pace = Pace::new(4, true, Some(1e6));
        pace.ran(4, 10, MS);
        assert_eq!(pace.next().0, 4);
        assert_eq!(pace.fell_back(), None);
    }
}
