//! The measurement intervals' clock: one interval end queued at a time, and every flow's and
//! port's counters closed when it comes.

use super::event::Event;
use super::sim::Simulation;
use crate::stats::DelayStats;
use crate::units::Time;

impl Simulation {
    /// Schedules the end of the interval under way, unless the run's end closes it. Intervals
    /// are scheduled one at a time so that the heap holds one such event, however many there are.
    pub(super) fn schedule_next_interval_end(&mut self) {
        let run = &self.scenario.run;
        // with a warm-up, interval 0 is the warm-up, and interval k ≥ 1 ends at warmup + k·interval
        let k = self.intervals_closed as u64 + u64::from(run.warmup == Time::ZERO);
        let end = run.warmup + Time(run.interval.0 * k);
        if end < run.duration {
            self.events.push(end, Event::IntervalEnd);
        }
    }

    /// Settles the ports whose intervals `close_interval` closes, as it does first: so that
    /// the run's end may count its packets in the network, and let them go, before the last
    /// records are made (`Simulation::ended`).
    pub(super) fn settle_closing_ports(&mut self) {
        let now = self.now;
        self.ports.iter_mut_below(self.connections.first_own_port).for_each(|p| p.settle(now, &mut self.pool));
    }

    pub(super) fn close_interval(&mut self) {
        self.intervals_closed += 1;
        // queueing delays are reported over the measurement intervals: the warm-up's are forgotten
        if self.intervals_closed == 1 && self.scenario.run.warmup > Time::ZERO {
            self.queueing.iter_mut().for_each(DelayStats::clear);
            // each port settled first: a chained port's dequeues up to now (node::port) belong to
            // the warm-up, as their end events, which come before an interval's end, would
            let now = self.now;
            self.ports.iter_mut().for_each(|p| {
                p.settle(now, &mut self.pool);
                p.stats.sojourn.clear();
            });
        }
        self.fold_connections();
        for flow in &mut self.flows[..self.connections.first] {
            flow.close_interval(self.now);
        }
        for port in self.ports.iter_mut_below(self.connections.first_own_port) {
            port.close_interval(self.now, &mut self.pool);
        }
    }
}
