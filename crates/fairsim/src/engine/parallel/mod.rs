//! One run on several threads, with the results of one thread to the bit: a
//! conservative parallel engine in windows bounded by the lookahead, after Chandy and Misra's
//! conservative simulation (IEEE TSE 1979) in its synchronous-window form (Lubachevsky, CACM
//! 1989), and Unison (Bai et al., EuroSys 2024) for a network simulator's partitions and their
//! load-adaptive scheduling.
//!
//! The network is split into partitions (`plan`), each a copy of the run that handles only its
//! own events (`replica`) and, where copies of every port would be large, holds only its own
//! ports (`engine::port_table`). They advance in windows: a window starts at the earliest event
//! of any partition and lasts the lookahead, the smallest delay of a link between
//! partitions, so no packet sent in a window reaches another partition before the window's end.
//! At its end each partition hands the packets that entered its cut links to the partitions
//! they reach, which put them into their copies of the links' pipes. The events of one instant
//! run in the canonical order (kind, then target: `engine::event`), which is the same in every
//! partition as in one run, and no event reads what another partition holds, so each
//! partition's events do exactly what they do in one run; at the end the partitions are put
//! together (`merge`). The tests run fat-trees under several transports and disciplines and a
//! chain of switches on 1, 2 and 4 threads and compare the reports byte for byte;
//! `scripts/snapshot_results.py` under `FAIRSIM_THREADS` does the same for every example and
//! reproduction.
//!
//! Deviations from the sources, and choices they leave open: a partition is a copy of the run
//! whose ports are those it sends on or receives from (every port in a small network:
//! `Plan::own_ports_only`), but whose flows are all the run's (the loop's code stays as it was,
//! at the cost of a flow's state in every partition; a connection's sender only where its
//! source is), and whose ECMP tables are one copy they share; one partition per thread;
//! the window is the smallest cut delay for every partition (no per-pair lookahead); Unison's
//! finer partitions and its scheduling by the last round's processing time reduce here to a
//! partition per thread, each run by its own thread unless
//! that thread is late: with as many partitions as threads no order of them shortens a window,
//! and taking them busiest-first moved them between cores, their state with them (a k = 8
//! fat-tree's speed-up on two threads rose from 1.46–1.64× to 1.79–1.92× once each kept its
//! thread).
//!
//! A run advances in stretches of about a given number of events, between which the caller
//! draws progress and may stop it (`Threads`); the threads live for a stretch. A run with a
//! queue that outgrows memory in a partition is made again on one thread, which stops it as
//! one run does.

mod balance;
mod barrier;
mod choice;
mod cores;
mod merge;
mod pace;
pub(crate) mod partition;
mod plan;
mod replica;
mod slots;

use crate::engine::connections::SlotNote;
use crate::engine::sim::Simulation;
use crate::stats::DelayStats;
use crate::units::Time;
use barrier::SpinBarrier;
use choice::{Choice, Probe};
use pace::Pace;
use partition::DelaySample;
use plan::Plan;
use replica::{again, Mailbox, Own};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A parallel run under way, between two stretches: the other partitions (the run itself is
/// partition 0), where the next window starts, the populations' queueing delays so far, and
/// whether the next stretches go on all threads or one.
struct Parallel {
    plan: Plan,
    others: Vec<Simulation>,
    start: Time,
    delays: Vec<DelayStats>,
    pace: Pace,
}

/// How one run goes on up to a number of threads, stretch by stretch (`step`): on the threads
/// given, or on as many as pay (`choice`), or on one thread, for a reason.
pub struct Threads {
    threads: usize,
    /// Whether `threads` was given (obeyed), not a bound for the cost model to choose under.
    given: bool,
    probe: Option<Box<Probe>>,
    parallel: Option<Box<Parallel>>,
    serial_reason: Option<String>,
    /// What the cost model weighed, once it has.
    choice: Option<Choice>,
    /// Windows run so far, and the threads' time waiting at their ends (for the model of
    /// docs/performance.md).
    windows: u64,
    waited: Duration,
    /// The events each partition handled so far (an event every partition handles counts in
    /// partition 0's): how evenly the run split.
    handled: Vec<u64>,
    /// How the run went between all its threads and one, once it has split.
    fell_back: Option<String>,
    /// Engine time spent split.
    split_wall: Duration,
}

impl Simulation {
    /// Runs to the end on `threads` threads. Returns why the run went on one thread, if it did
    /// (one thread given, a network that does not split, a run under way).
    pub fn run_on(&mut self, threads: usize) -> Option<String> {
        let mut on = Threads::new(threads);
        while !on.step(self, u64::MAX) {}
        on.serial_reason
    }
}

impl Threads {
    /// Exactly `threads` threads, where the run splits (a count given by the user).
    pub fn new(threads: usize) -> Threads {
        Threads::with(threads, true)
    }

    /// As many threads as pay, up to `threads` (the cost model of `choice` decides).
    pub fn up_to(threads: usize) -> Threads {
        Threads::with(threads, false)
    }

    fn with(threads: usize, given: bool) -> Threads {
        // a partition per thread, each a copy of the run: beyond the scenario's limit (the
        // binding and the environment give counts too) none could help
        Threads {
            threads: threads.clamp(1, crate::limits::MAX_THREADS),
            given,
            probe: None,
            parallel: None,
            serial_reason: None,
            choice: None,
            windows: 0,
            waited: Duration::ZERO,
            handled: vec![],
            fell_back: None,
            split_wall: Duration::ZERO,
        }
    }

    /// Processes about `budget` events of `sim` (whole windows) with up to the threads given;
    /// returns whether the run has ended. The first call decides whether the run splits
    /// (`plan`) or, for threads not given, starts the probe that decides it (`choice`); a run
    /// that does not split goes on one thread, and `serial_reason` says why. Every call must be
    /// for the same run.
    pub fn step(&mut self, sim: &mut Simulation, budget: u64) -> bool {
        if self.parallel.is_none() && self.serial_reason.is_none() && self.probe.is_none() {
            match Plan::of(sim, self.threads) {
                Err(_) if self.threads == 1 && !self.given => {
                    self.serial_reason = Some("one thread was its share of the cores".into())
                }
                Err(why) => self.serial_reason = Some(why),
                Ok(plan) if self.given => self.parallel = Some(split(sim, balance::given(sim, plan))),
                Ok(plan) => self.probe = Some(Box::new(Probe::new(plan))),
            }
        }
        let mut budget = budget;
        if let Some(mut probe) = self.probe.take() {
            let ran = probe.run(sim, budget);
            if sim.is_done() {
                let ms = choice::PROBE.as_millis();
                self.serial_reason = Some(format!("it ended within its first {ms} ms, on one thread"));
                return true;
            }
            if !probe.over(sim) {
                self.probe = Some(probe);
                return false;
            }
            self.weigh(sim, *probe);
            budget = budget.saturating_sub(ran);
            if budget == 0 {
                return false;
            }
        }
        let Some(mut parallel) = self.parallel.take() else { return sim.run_events(budget) };
        let started = Instant::now();
        let mut left = budget;
        let failed = loop {
            let Parallel { plan, others, start, delays, pace } = &mut *parallel;
            let (threads, most) = pace.next();
            let mut parts: Vec<&mut Simulation> = std::iter::once(&mut *sim).chain(others.iter_mut()).collect();
            let stretched = Instant::now();
            let (failed, windows, waited, handled) =
                stretch(&mut parts, plan, (start, delays), most.min(left), threads);
            let done = handled.iter().sum::<u64>();
            pace.ran(threads, done, stretched.elapsed());
            self.windows += windows;
            self.waited += waited;
            self.handled.resize(handled.len(), 0);
            self.handled.iter_mut().zip(handled).for_each(|(sum, h)| *sum += h);
            left = left.saturating_sub(done);
            if failed || *start == Time::MAX || left == 0 {
                break failed;
            }
        };
        self.fell_back = parallel.pace.fell_back();
        if failed {
            *sim = again(sim, None);
            self.serial_reason =
                Some("a queue outgrew memory in a partition: the run was made again on one thread".into());
            return sim.run_events(budget);
        }
        sim.wall += started.elapsed();
        self.split_wall += started.elapsed();
        if parallel.start == Time::MAX {
            join(sim, parallel);
            sim.end_whole();
            return true;
        }
        self.parallel = Some(parallel);
        false
    }

    /// The probe of `sim` is over: the run splits, from its start again, where the cost model
    /// expects it to pay, or goes on on one thread.
    fn weigh(&mut self, sim: &mut Simulation, probe: Probe) {
        let choice = probe.weigh(sim, self.threads);
        if choice.parts < 2 {
            self.serial_reason = Some(choice.to_string());
        } else {
            let one = sim.events_processed() as f64 / sim.wall.as_secs_f64().max(1e-9);
            // the probe's plan is the split's where all the threads it was made for are taken
            let plan = match probe.plan {
                plan if plan.parts == choice.parts => Ok(plan),
                _ => Plan::weighed(sim, choice.parts, None),
            };
            let plan = plan.map(|plan| balance::balanced(sim, plan));
            self.split_again(sim, plan, one);
        }
        self.choice = Some(choice);
    }

    /// Splits `sim`, under way on one thread at `one` events a second, by `plan` (or stays on
    /// one thread, for its reason) from its start again: its results are the same on any
    /// number of threads, so only the time it ran is lost, and that counts in the run's.
    fn split_again(&mut self, sim: &mut Simulation, plan: Result<Plan, String>, one: f64) {
        let probed = sim.wall;
        *sim = again(sim, None);
        sim.wall = probed;
        let split_at = Instant::now();
        match plan {
            Ok(plan) => {
                let parts = plan.parts;
                let mut parallel = split(sim, plan);
                parallel.pace = Pace::new(parts, false, Some(one));
                self.parallel = Some(parallel);
            }
            Err(why) => self.serial_reason = Some(why),
        }
        sim.wall += split_at.elapsed();
    }

    /// Windows run so far, and the time all threads spent waiting at their ends.
    pub fn windows(&self) -> (u64, Duration) {
        (self.windows, self.waited)
    }

    /// The events each partition has handled so far, by partition (empty on one thread): the
    /// busiest one's share bounds the speed-up.
    pub fn handled(&self) -> &[u64] {
        &self.handled
    }

    /// Why the run goes on one thread, once it has started, if it does.
    pub fn serial_reason(&self) -> Option<&str> {
        self.serial_reason.as_deref()
    }

    /// How the run went, in a line for `-v`: on one thread and why, or on how many threads,
    /// how evenly its partitions shared its events, what the cost model weighed, and whether
    /// it went on one thread for a while; `None` before its first step.
    pub fn note(&self) -> Option<String> {
        if let Some(why) = &self.serial_reason {
            return Some(format!("on one thread: {why}"));
        }
        let total = self.handled.iter().sum::<u64>().max(1);
        let shares: Vec<String> =
            self.handled.iter().map(|h| format!("{:.1}%", 100.0 * *h as f64 / total as f64)).collect();
        let (last, most) = shares.split_last()?;
        let mut note =
            format!("on {} threads; its partitions handled {} and {last} of its events", shares.len(), most.join(", "));
        match &self.choice {
            Some(choice) => note += &format!("; {choice}"),
            None => note += &format!("; {}", self.given_cost(shares.len())),
        }
        if let Some(fell_back) = &self.fell_back {
            note += &format!("; {fell_back}");
        }
        Some(note)
    }

    /// What a split on a given count of threads cost: the events of a window in each partition
    /// and the share of the threads' time spent waiting at windows' ends; and, where their work
    /// at the model's cost of a partition against one thread (`choice::PARTITION_COST`) comes to
    /// less than the run took, that one thread would have been faster.
    fn given_cost(&self, threads: usize) -> String {
        let (n, wall) = (threads as f64, self.split_wall.as_secs_f64().max(1e-9));
        let per_window = self.handled.iter().sum::<u64>() as f64 / (self.windows.max(1) as f64 * n);
        let waited = self.waited.as_secs_f64();
        let mut note = format!(
            "{threads} threads given: {per_window:.1} events a window in each partition, {:.0}% of the threads' time spent waiting at windows' ends",
            100.0 * waited / (wall * n)
        );
        let one = (wall * n - waited) / choice::PARTITION_COST;
        if one < wall {
            note +=
                &format!("; the measured cost says one thread would be faster (about {one:.2} s against {wall:.2} s)");
        }
        note
    }

    /// A parallel run stopped before its end (Ctrl-C) is put together as it stands, for its
    /// report so far; it cannot go on.
    pub fn stop(&mut self, sim: &mut Simulation) {
        if self.probe.take().is_some() {
            self.serial_reason = Some("stopped on one thread before its threads were weighed".into());
        }
        if let Some(parallel) = self.parallel.take() {
            join(sim, parallel);
            self.serial_reason = Some("stopped".into());
        }
    }
}

/// `sim`'s partitions: the other partitions made as copies of it, each holding only its own
/// ports where that saves memory worth having (`Plan::own_ports_only`), and the first window.
fn split(sim: &mut Simulation, plan: Plan) -> Box<Parallel> {
    let own_only = plan.own_ports_only();
    split_holding(sim, plan, own_only)
}

/// `split`, each partition holding only its own ports (`port_table`) if `own_only`.
fn split_holding(sim: &mut Simulation, plan: Plan, own_only: bool) -> Box<Parallel> {
    let held = |me: usize| own_only.then(|| plan.held_by(me as u16));
    // the first partition lets go of the others' ports before they are made
    if let Some(held) = held(0) {
        sim.ports.keep_only(&held);
    }
    let mut others: Vec<Simulation> = (1..plan.parts).map(|i| again(sim, held(i).as_deref())).collect();
    // the partitions' pools number their chunks apart, so that they can be put together
    others.iter_mut().for_each(|other| other.pool = sim.pool.sibling());
    if let Some(forwarder) = sim.forwarder.as_deref_mut() {
        forwarder.share_paths(&sim.scenario, others.iter_mut().filter_map(|other| other.forwarder.as_deref_mut()));
    }
    let mut parts: Vec<&mut Simulation> = std::iter::once(&mut *sim).chain(others.iter_mut()).collect();
    let mut start = Time::MAX;
    for (i, part) in parts.iter_mut().enumerate() {
        part.become_partition(i as u16, &plan);
        start = start.min(part.next_own_event(Own { plan: &plan, me: i as u16 }));
    }
    let delays = vec![DelayStats::default(); plan.ends.len()];
    let pace = Pace::new(plan.parts, true, None);
    Box::new(Parallel { plan, others, start, delays, pace })
}

/// Puts the partitions together into `sim` (`merge`).
fn join(sim: &mut Simulation, mut parallel: Box<Parallel>) {
    let mut parts: Vec<&mut Simulation> = std::iter::once(&mut *sim).chain(parallel.others.iter_mut()).collect();
    merge::merge(&mut parts, &parallel.plan, std::mem::take(&mut parallel.delays));
}

/// A partition's run, with its mail to each partition and its notes of connection slots in the
/// window under way.
type Partition<'b> = (&'b mut Simulation, Vec<Mailbox>, Vec<SlotNote>);

/// The state the threads share in a stretch: each partition with its outgoing mail, and by
/// window parity the mail between partitions (`from * n + to`), each partition's notes of
/// connection slots (which every partition reads), next event and load in the window.
struct Shared<'a, 'b> {
    plan: &'a Plan,
    parts: Vec<Mutex<Partition<'b>>>,
    mail: [Vec<Mutex<Mailbox>>; 2],
    notes: [Vec<Mutex<Vec<SlotNote>>>; 2],
    next: [Vec<AtomicU64>; 2],
    load: [Vec<AtomicU64>; 2],
    /// By partition, then for the task of recording the window before's queueing delays: the
    /// windows whose run of it has been taken (window k's is taken when it goes from k to k + 1).
    taken: Vec<AtomicUsize>,
    barrier: SpinBarrier,
    failed: AtomicBool,
    /// By window parity, the queueing delays of connections' packets in the window, and each
    /// population flow's delays recorded from them in the run's order (`DelaySample`).
    samples: [Mutex<Vec<DelaySample>>; 2],
    delays: Mutex<Vec<DelayStats>>,
    budget: u64,
    /// Windows run, nanoseconds the threads waited at the barrier, and each partition's events.
    windows: AtomicU64,
    waited_ns: AtomicU64,
    handled: Vec<AtomicU64>,
    /// What a partition panicked with, if one did.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl Shared<'_, '_> {
    fn panicked(&self) -> bool {
        self.panic.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

/// Runs windows of the partitions, on `threads` threads (each partition on a thread of its own,
/// or all in turn on one), until about `budget` events are done or the run ends; returns
/// whether a partition failed. The last window's mail is
/// delivered, so the next stretch starts with none. Also returns the windows run, the threads' time waiting
/// and the events each partition handled.
fn stretch(
    parts: &mut [&mut Simulation],
    plan: &Plan,
    (start, delays): (&mut Time, &mut Vec<DelayStats>),
    budget: u64,
    threads: usize,
) -> (bool, u64, Duration, Vec<u64>) {
    let n = parts.len();
    let atomics = |v: u64| (0..n).map(|_| AtomicU64::new(v)).collect::<Vec<_>>();
    let boxes = || (0..n * n).map(|_| Mutex::new(Mailbox::default())).collect::<Vec<_>>();
    let notes = || (0..n).map(|_| Mutex::new(vec![])).collect::<Vec<_>>();
    let shared = Shared {
        plan,
        parts: parts
            .iter_mut()
            .map(|p| Mutex::new((&mut **p, (0..n).map(|_| Mailbox::default()).collect(), vec![])))
            .collect(),
        mail: [boxes(), boxes()],
        notes: [notes(), notes()],
        next: [atomics(u64::MAX), atomics(u64::MAX)],
        load: [atomics(0), atomics(0)],
        taken: (0..=n).map(|_| AtomicUsize::new(0)).collect(),
        barrier: SpinBarrier::new(threads),
        failed: AtomicBool::new(false),
        samples: [Mutex::new(vec![]), Mutex::new(vec![])],
        delays: Mutex::new(std::mem::take(delays)),
        budget,
        windows: AtomicU64::new(0),
        waited_ns: AtomicU64::new(0),
        handled: atomics(0),
        panic: Mutex::new(None),
    };
    let first = *start;
    let next = std::thread::scope(|s| {
        for me in 1..threads {
            let shared = &shared;
            s.spawn(move || work(shared, first, me));
        }
        work(&shared, first, 0)
    });
    if let Some(payload) = shared.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
        std::panic::resume_unwind(payload);
    }
    for boxes in &shared.mail {
        for (i, mail) in boxes.iter().enumerate() {
            let to = &mut shared.parts[i % n].lock().expect("no thread panicked").0;
            to.take_mail(&mut mail.lock().expect("no thread panicked"));
        }
    }
    // the last window's notes (the window before's were heard in it)
    let windows = shared.windows.load(Ordering::Relaxed) as usize;
    if windows > 0 {
        for part in &shared.parts {
            hear_slots(&shared, part.lock().expect("no thread panicked").0, (windows - 1) % 2);
        }
    }
    record_delays(&shared, 0);
    record_delays(&shared, 1); // the last window's (the other parity's were recorded in it)
    *start = next;
    *delays = shared.delays.into_inner().expect("no thread panicked");
    let waited = Duration::from_nanos(shared.waited_ns.load(Ordering::Relaxed));
    let handled = shared.handled.iter().map(|h| h.load(Ordering::Relaxed)).collect();
    (shared.failed.load(Ordering::Relaxed), shared.windows.load(Ordering::Relaxed), waited, handled)
}

/// Thread `me`'s share of a stretch: window after window, it runs partition `me` to the
/// window's end, then any partition no thread has taken yet (one whose thread is late: not
/// given a core, or slow to wake), then the window before's queueing delays if no thread has
/// taken them, then waits for the others. Each partition so keeps its thread while the threads
/// have their cores (moving between cores, its state would go with it), and a thread that has
/// none holds no window up for longer than the other threads take to do its work. Thread 0
/// counts the windows. Returns where the next window starts (`Time::MAX`: the run has ended).
fn work(shared: &Shared, mut start: Time, me: usize) -> Time {
    let n = shared.parts.len();
    shared.barrier.join(me);
    let (mut k, mut events) = (0, 0);
    while start != Time::MAX && events < shared.budget {
        let end = Time(start.0.saturating_add(shared.plan.lookahead.0));
        let (now, last) = (k % 2, 1 - k % 2);
        // a panic (a bug) ends the stretch for every thread, then goes on from the caller: left
        // here, it would leave the others waiting at the barrier for ever
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for task in (me..n).chain(0..me).chain([n]) {
                if shared.taken[task].compare_exchange(k, k + 1, Ordering::AcqRel, Ordering::Acquire).is_err() {
                    continue;
                }
                if task == n {
                    record_delays(shared, last);
                } else {
                    run_partition(shared, task, end, (now, last));
                }
            }
        }));
        if let Err(payload) = ran {
            shared.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(payload);
        }
        let waiting = Instant::now();
        shared.barrier.wait(me);
        shared.waited_ns.fetch_add(waiting.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if me == 0 {
            shared.windows.fetch_add(1, Ordering::Relaxed);
        }
        let next = shared.next[now].iter().map(|t| t.load(Ordering::Relaxed)).min().unwrap_or(u64::MAX);
        let stop = shared.failed.load(Ordering::Relaxed) || shared.panicked();
        start = if stop { Time::MAX } else { Time(next) };
        events += shared.load[now].iter().map(|l| l.load(Ordering::Relaxed)).sum::<u64>();
        k += 1;
    }
    start
}

/// Records the queueing delays of populations' packets of the window of parity `now`, in the
/// run's order; as one run does, without those of the warm-up (cleared at its end, after
/// everything else at that instant).
fn record_delays(shared: &Shared, now: usize) {
    let mut samples = shared.samples[now].lock().expect("no thread panicked");
    samples.sort_unstable();
    let warmup = shared.plan.warmup;
    let mut delays = shared.delays.lock().expect("no thread panicked");
    for s in samples.drain(..).filter(|s| warmup == crate::units::Time::ZERO || s.at > warmup) {
        delays[s.flow as usize].record(s.ns);
    }
}

/// Runs partition `i` to the window's `end`: its mail first, then its events, then its mail out
/// and where its next window could start (window parities `now` and `last`).
fn run_partition(shared: &Shared, i: usize, end: Time, (now, last): (usize, usize)) {
    let n = shared.parts.len();
    let own = Own { plan: shared.plan, me: i as u16 };
    let mut guard = shared.parts[i].lock().expect("no thread panicked");
    let (sim, outbox, notes) = &mut *guard;
    hear_slots(shared, sim, last);
    for from in 0..n {
        sim.take_mail(&mut shared.mail[last][from * n + i].lock().expect("no thread panicked"));
    }
    let done = sim.run_window(end, own);
    let mut samples = shared.samples[now].lock().expect("no thread panicked");
    let mut next = sim.close_window(end, own, outbox, &mut samples);
    drop(samples);
    sim.note_slots(notes);
    // every partition has read the notes of two windows ago, which come back here
    std::mem::swap(notes, &mut *shared.notes[now][i].lock().expect("no thread panicked"));
    notes.clear();
    if sim.failure.is_some() {
        shared.failed.store(true, Ordering::Relaxed);
        next = Time::MAX;
    }
    for (to, mail) in outbox.iter_mut().enumerate() {
        std::mem::swap(mail, &mut *shared.mail[now][i * n + to].lock().expect("no thread panicked"));
    }
    shared.next[now][i].store(next.0, Ordering::Relaxed);
    shared.load[now][i].store(done, Ordering::Relaxed);
    shared.handled[i].fetch_add(done, Ordering::Relaxed);
}

/// Every partition's notes of connection slots of the window of parity `last`, heard by `sim`
/// in the partitions' order, and the slots they free freed.
fn hear_slots(shared: &Shared, sim: &mut Simulation, last: usize) {
    if !shared.plan.finite {
        return;
    }
    for notes in &shared.notes[last] {
        sim.hear_slots(&notes.lock().expect("no thread panicked"));
    }
    sim.free_heard();
}

#[cfg(test)]
mod tests;
