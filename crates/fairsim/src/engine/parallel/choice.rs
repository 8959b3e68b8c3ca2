//! Whether a run that may split is faster split: a cost model fed by the run itself.
//!
//! The run starts on one thread, as a probe (`Probe`), for `PROBE` of engine time, while the
//! system's load is sampled (`cores`). A run that ends within it stays on one thread. Otherwise
//! the probe gives the run's events per simulated nanosecond and one thread's time per event,
//! so the events in each lookahead window of a split run and their work; the threads' meeting
//! time at a window's end is measured on the cores now (`SpinBarrier::meeting_time`). A split
//! run starts again from the beginning (its results are the same on any number of threads, so
//! nothing is lost but the probe's time) and costs, over the whole run, each window's work in
//! its busiest partition, plus the meeting and the handing over of packets at its end, plus the
//! copies' building; one thread costs the rest of the run at the probe's pace. The run splits
//! only where that is `MARGIN` faster, on as many threads as cores are free. The figures go to
//! `-v` (`Choice`'s text).
//!
//! The model's two constants were fitted to two split runs measured beside their one-thread
//! runs (docs/decisions.md and docs/performance.md, *A run's threads*): `PARTITION_COST`, a
//! partition's time per event against one thread's (its events are checked for their owner,
//! shared events are handled by each partition), and `WINDOW_COST`, a window's cost beyond its
//! events and the meeting (its mail, its cut links' pipes, and the partitions' shares of it,
//! which are never even within a window).

use super::barrier::SpinBarrier;
use super::cores::Load;
use super::plan::Plan;
use crate::engine::sim::Simulation;
use std::fmt;
use std::time::{Duration, Instant};

/// Engine time a run spends on one thread before it is weighed.
pub(super) const PROBE: Duration = Duration::from_millis(20);
/// The least time on one thread that the rest of a run must take for a split to be weighed: a
/// split saves at most part of it, and costs a meeting's measurement and copies.
const WORTH_WEIGHING: Duration = Duration::from_millis(50);
/// How much faster a split must be expected to be.
const MARGIN: f64 = 1.15;
/// A partition's time per event against one thread's, and a window's cost beyond its work and
/// the threads' meeting (its mail, its cut links' pipes, and the partitions' uneven shares of
/// it), in nanoseconds: fitted to two split runs of docs/performance.md (*A run's threads*).
pub(super) const PARTITION_COST: f64 = 1.13;
const WINDOW_COST: f64 = 5_800.0;
/// The threads' meeting is measured over this many meetings, or for at most `MEETING_LIMIT`.
const MEETINGS: usize = 64;
const MEETING_LIMIT: Duration = Duration::from_millis(5);

/// A run going on one thread while it is weighed.
pub(super) struct Probe {
    pub plan: Plan,
    load: Load,
    /// Events per piece between looks at the clock: about a millisecond's.
    piece: u64,
}

impl Probe {
    pub fn new(plan: Plan) -> Probe {
        Probe { plan, load: Load::default(), piece: 2_000 }
    }

    /// Runs `sim` on one thread for about `budget` events, or until its engine time reaches
    /// `PROBE`; returns the events run.
    pub fn run(&mut self, sim: &mut Simulation, budget: u64) -> u64 {
        let mut ran = 0;
        while ran < budget && !sim.is_done() && !self.over(sim) {
            let (before, started) = (sim.events_processed(), Instant::now());
            sim.advance(self.piece.min(budget - ran));
            let done = sim.events_processed() - before;
            ran += done;
            let took = started.elapsed().as_nanos().max(1) as u64;
            self.piece = (done * 1_000_000 / took).clamp(100, 1_000_000);
            self.load.sample(1);
        }
        sim.pause();
        ran
    }

    /// Whether the probe has run its time, and the run a lookahead window of simulated time at
    /// least (a burst of events at the start gives no density to weigh by).
    pub fn over(&self, sim: &Simulation) -> bool {
        sim.wall >= PROBE && sim.now() >= self.plan.lookahead
    }

    /// Weighs splitting `sim`, probed, over up to `threads` threads.
    pub fn weigh(&self, sim: &Simulation, threads: usize) -> Choice {
        let free = self.load.free_cores();
        // cores with under a quarter of their time taken count as free
        let parts = free.map_or(threads, |f| (f + 0.25) as usize).min(threads);
        let wall = sim.wall.as_nanos() as f64;
        let events = sim.events_processed().max(1) as f64;
        let per_event = wall / events;
        let density = events / sim.now().0.max(1) as f64;
        let (end, rest) = (sim.end_time().0 as f64, sim.end_time().0.saturating_sub(sim.now().0) as f64);
        let lookahead = self.plan.lookahead.0 as f64;
        let mut choice = Choice {
            parts: 1,
            free,
            events_per_window: density * lookahead / parts.max(1) as f64,
            per_event,
            meeting: None,
            one_thread: Duration::from_nanos((rest * density * per_event) as u64),
            split: None,
            why: Why::Pays,
        };
        if choice.one_thread < WORTH_WEIGHING {
            choice.why = Why::Short;
            return choice;
        }
        if parts < 2 {
            choice.why = Why::Busy;
            return choice;
        }
        // a window holds at least one event; windows without any are skipped
        let windows = (end / lookahead).min(end * density);
        let work = choice.events_per_window.max(1.0) * per_event * PARTITION_COST;
        let built = parts as f64 * sim.built_in.as_nanos() as f64;
        let split = |meeting: Duration| windows * (work + meeting.as_nanos() as f64 + WINDOW_COST) + built;
        let pays = |split: f64| split * MARGIN < choice.one_thread.as_nanos() as f64;
        // the meeting is measured only where a split could pay with threads that meet at once
        if !pays(split(Duration::ZERO)) {
            choice.split = Some(Duration::from_nanos(split(Duration::ZERO) as u64));
            choice.why = Why::Windows;
            return choice;
        }
        let Some(meeting) = SpinBarrier::meeting_time(parts, MEETINGS, MEETING_LIMIT) else {
            choice.why = Why::NoMeeting(parts);
            return choice;
        };
        choice.meeting = Some(meeting);
        choice.split = Some(Duration::from_nanos(split(meeting) as u64));
        if pays(split(meeting)) {
            choice.parts = parts;
        } else {
            choice.why = Why::Windows;
        }
        choice
    }
}

/// What a run's threads were chosen by, for `-v`.
pub(super) struct Choice {
    /// The threads chosen: 1, or the partitions of a split.
    pub parts: usize,
    /// The cores free for the run, if the load could be read.
    pub free: Option<f64>,
    /// Events in a window of each partition, on average.
    pub events_per_window: f64,
    /// One thread's time per event in the probe, in nanoseconds.
    pub per_event: f64,
    /// The threads' meeting time, if it was measured.
    pub meeting: Option<Duration>,
    /// The rest of the run on one thread, and the whole run split, expected.
    pub one_thread: Duration,
    pub split: Option<Duration>,
    why: Why,
}

/// Why a run split, or stayed on one thread.
enum Why {
    Pays,
    Short,
    Busy,
    NoMeeting(usize),
    Windows,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let free = match self.free {
            Some(free) => format!("{free:.1} cores free"),
            None => "the free cores unknown".to_string(),
        };
        let windows = || {
            format!(
                "{:.1} events a window in each partition ({:.1} µs of work at {:.0} ns an event) against {}",
                self.events_per_window,
                self.events_per_window * self.per_event * PARTITION_COST / 1e3,
                self.per_event,
                match self.meeting {
                    Some(m) =>
                        format!("{:.1} µs to meet and {:.1} to hand over", m.as_secs_f64() * 1e6, WINDOW_COST / 1e3),
                    None => format!("{:.1} µs to hand over", WINDOW_COST / 1e3),
                },
            )
        };
        match self.why {
            Why::Short => {
                write!(f, "the rest of it takes about {:.0} ms on one thread, too little to split", ms(self.one_thread))
            }
            Why::Busy => write!(f, "{free}, other work taking the rest"),
            Why::NoMeeting(n) => write!(
                f,
                "{n} threads did not meet {MEETINGS} times within {} ms: the cores are busy ({free})",
                ms(MEETING_LIMIT)
            ),
            Why::Windows | Why::Pays => {
                let verdict = if self.parts > 1 { "expected" } else { "splitting would take" };
                write!(
                    f,
                    "{}; {free}; {verdict} {:.0} ms against {:.0} ms more on one thread",
                    windows(),
                    self.split.map_or(0.0, ms),
                    ms(self.one_thread)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(why: Why, parts: usize) -> Choice {
        Choice {
            parts,
            free: Some(1.9),
            events_per_window: 0.6,
            per_event: 90.0,
            meeting: Some(Duration::from_micros(3)),
            one_thread: Duration::from_millis(800),
            split: Some(Duration::from_millis(2400)),
            why,
        }
    }

    #[test]
    fn a_choice_says_its_numbers() {
        let text = choice(Why::Windows, 1).to_string();
        assert_eq!(
            text,
            "0.6 events a window in each partition (0.1 µs of work at 90 ns an event) against 3.0 µs to meet \
             and 5.8 to hand over; 1.9 cores free; splitting would take 2400 ms against 800 ms more on one thread"
        );
        let unmet = Choice { meeting: None, ..choice(Why::Windows, 1) };
        assert!(unmet.to_string().contains("(0.1 µs of work at 90 ns an event) against 5.8 µs to hand over; "));
        assert!(choice(Why::Busy, 1).to_string().starts_with("1.9 cores free"));
        assert!(choice(Why::Short, 1).to_string().contains("800 ms on one thread, too little"));
    }
}
