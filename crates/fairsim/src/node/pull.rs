//! The receiving host's side of a receiver-driven transport (NDP, Handley et al., SIGCOMM 2017;
//! EQDS, Olteanu et al., NSDI 2022): each data packet or trimmed header that arrives asks for
//! pulls (NDP: one; EQDS: up to the target its sender's packet names, and one urgent pull for a
//! header), and the host's one pull pacer sends the pulls of all its flows in turn, urgent ones
//! first, spaced so that what they pull arrives at the rate of its line.
//!
//! As htsim's `NdpPullPacer` (Broadcom/csg-htsim 841d9e7, `sim/ndp.cpp`), which fairsim's NDP is
//! validated against: one pacer per receiving host; a round robin over its flows, one pull per
//! turn; after a pull for a packet of `s` bytes the next waits `s · 8 / (rate · pull_rate)`
//! (htsim: 99% of the line); a pull asked of an idle pacer goes at once; a flow whose data is
//! all in has its waiting pulls discarded, so they take no turn from the others. Each flow
//! numbers its pulls, and a sender serves every number up to the highest it has seen, so a
//! lost pull is made up by the next. htsim's ACK carries the pull when the pacer is idle; here
//! the pull is its own packet, sent at the same instant (a 64-byte packet more on the reverse
//! path). EQDS's pacer (htsim's `EqdsPullPacer`, `sim/eqds.cpp` 1553–1621) is the same with a
//! slot of its own size per pull and its retransmission list served first; its idle senders'
//! slow pulls are left out.

use crate::net::FlowId;
pub use crate::transport::sender::PullSpec;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// A flow's pulls, at its receiving host.
#[derive(Clone, Debug, PartialEq)]
pub struct Pulls {
    pub spec: PullSpec,
    /// Tells this flow's turns apart from those of an earlier connection in the same slot.
    pub tag: u64,
    /// Pulls sent so far: the last pull's number.
    pub issued: u64,
    /// The highest pull number asked for.
    pub target: u64,
    /// Pulls asked for retransmissions, served ahead of the host's other pulls.
    pub urgent: u32,
    /// Whether the flow has a turn in its pacer's queue, and in its queue of urgent turns.
    pub queued: bool,
    pub queued_urgent: bool,
}

impl Pulls {
    pub fn new(spec: PullSpec) -> Pulls {
        Pulls { spec, tag: 0, issued: 0, target: 0, urgent: 0, queued: false, queued_urgent: false }
    }

    /// No pull waits any more (the flow's data is all in).
    pub fn discard(&mut self) {
        self.target = self.issued;
        self.urgent = 0;
    }

    /// Whether pulls of the kind (`urgent` or not) wait.
    fn waits(&self, urgent: bool) -> bool {
        if urgent {
            self.urgent > 0
        } else {
            self.target > self.issued
        }
    }

    /// Whether the flow has a turn of the kind in its pacer's queues.
    fn queued(&mut self, urgent: bool) -> &mut bool {
        if urgent {
            &mut self.queued_urgent
        } else {
            &mut self.queued
        }
    }

    /// The flow's turn came (an `urgent` one or not): `None` if none of those pulls waits any
    /// more, else one is counted as sent and whether more of the kind wait (it then takes
    /// another turn).
    pub fn take_turn(&mut self, urgent: bool) -> Option<bool> {
        let sent = self.waits(urgent);
        if sent {
            self.urgent -= u32::from(urgent);
            self.issued += 1;
        }
        let more = self.waits(urgent);
        *self.queued(urgent) = more;
        sent.then_some(more)
    }
}

/// One receiving host's pull pacer.
#[derive(Clone, Debug, Default)]
pub struct PullPacer {
    /// Flows with pulls waiting (and their tags), one turn each.
    turns: VecDeque<(FlowId, u64)>,
    /// The same for urgent pulls, served first.
    urgent: VecDeque<(FlowId, u64)>,
    /// When the next pull may go.
    free_at: Time,
    /// Whether a pacing event is queued.
    pub armed: bool,
}

/// What the pacer does when asked for a pull.
#[derive(Debug, PartialEq)]
pub enum Ask {
    /// Send a pull now.
    Now,
    /// Queue a pacing event at this instant.
    Arm(Time),
    /// One is queued already.
    Wait,
}

impl PullPacer {
    /// Flow `f`, whose `pulls` were just asked for more, takes a turn at `now` if it has none.
    pub fn ask(&mut self, f: FlowId, pulls: &mut Pulls, now: Time) -> Ask {
        for urgent in [false, true] {
            if pulls.waits(urgent) && !*pulls.queued(urgent) {
                *pulls.queued(urgent) = true;
                self.again(f, pulls.tag, urgent);
            }
        }
        if self.armed {
            Ask::Wait
        } else if self.free_at <= now {
            Ask::Now
        } else {
            self.armed = true;
            Ask::Arm(self.free_at)
        }
    }

    /// The next turn: a flow and the tag it had when it queued it (a turn queued by an earlier
    /// connection in a slot since taken by another has another tag, and is passed over).
    /// Urgent turns come first; the third value says whether the turn is one.
    pub fn turn(&mut self) -> Option<(FlowId, u64, bool)> {
        self.armed = false;
        match self.urgent.pop_front() {
            Some((f, tag)) => Some((f, tag, true)),
            None => self.turns.pop_front().map(|(f, tag)| (f, tag, false)),
        }
    }

    /// Flow `f` has (more) pulls of the kind waiting: a turn at the back.
    pub fn again(&mut self, f: FlowId, tag: u64, urgent: bool) {
        if urgent {
            self.urgent.push_back((f, tag));
        } else {
            self.turns.push_back((f, tag));
        }
    }

    /// A pull for a packet of `size` bytes left at `now`, on a line of `rate`: when the next may
    /// go, if any is waiting (the caller queues the pacing event).
    pub fn sent(&mut self, now: Time, size: u32, rate: Rate, fraction: f64) -> Option<Time> {
        let paced = Rate(((rate.0 as f64) * fraction).round().max(1.0) as u64);
        self.free_at = now + paced.tx_time(size);
        (!self.turns.is_empty() || !self.urgent.is_empty()).then(|| {
            self.armed = true;
            self.free_at
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NDP: PullSpec = PullSpec { fraction: 0.99, slot: None, per_arrival: true };

    #[test]
    fn urgent_pulls_go_first_and_count_toward_the_target() {
        let mut pacer = PullPacer::default();
        let mut pulls = vec![Pulls::new(PullSpec { per_arrival: false, ..NDP }); 2];
        pacer.armed = true;
        pulls[0].target = 3;
        pacer.ask(FlowId(0), &mut pulls[0], Time::ZERO);
        pulls[1].urgent = 2;
        pacer.ask(FlowId(1), &mut pulls[1], Time::ZERO);
        pulls[1].target = 3;
        pacer.ask(FlowId(1), &mut pulls[1], Time::ZERO);
        // flow 1's two urgent pulls first; they are two of the three its target asks for
        assert_eq!(serve(&mut pacer, &mut pulls), vec![1, 1, 0, 1, 0, 0]);
        assert_eq!((pulls[0].issued, pulls[1].issued), (3, 3));
    }

    /// The flows of the turns `pacer` gives, each turn taken as the engine takes it.
    fn serve(pacer: &mut PullPacer, pulls: &mut [Pulls]) -> Vec<u32> {
        let mut order = vec![];
        while let Some((f, tag, urgent)) = pacer.turn() {
            let p = &mut pulls[f.idx()];
            if p.tag != tag {
                continue;
            }
            if let Some(more) = p.take_turn(urgent) {
                if more {
                    pacer.again(f, tag, urgent);
                }
                order.push(f.0);
            }
        }
        order
    }

    #[test]
    fn an_idle_pacer_pulls_at_once_then_waits_a_packets_time_at_its_rate() {
        let mut pacer = PullPacer::default();
        let mut p = Pulls::new(NDP);
        p.target += 1;
        assert_eq!(pacer.ask(FlowId(0), &mut p, Time(100)), Ask::Now);
        assert_eq!(pacer.turn(), Some((FlowId(0), 0, false)));
        assert_eq!(p.take_turn(false), Some(false));
        // 9,064 bytes at 99 Gb/s: 732.44 ns, rounded up (htsim's drain time at 100 Gb/s)
        assert_eq!(pacer.sent(Time(100), 9064, Rate(100_000_000_000), 0.99), None);
        p.target += 1;
        assert_eq!(pacer.ask(FlowId(0), &mut p, Time(500)), Ask::Arm(Time(833)));
        p.target += 1;
        assert_eq!(pacer.ask(FlowId(0), &mut p, Time(600)), Ask::Wait);
        assert_eq!((p.target - p.issued, p.issued), (2, 1));
    }

    #[test]
    fn flows_take_turns_and_discarded_or_stale_turns_are_passed_over() {
        let mut pacer = PullPacer::default();
        let mut pulls = vec![Pulls::new(NDP); 4];
        pacer.armed = true; // a pacing event is queued: asks wait for it
        for f in [0, 0, 0, 3, 1, 2, 2] {
            pulls[f as usize].target += 1;
            pacer.ask(FlowId(f), &mut pulls[f as usize], Time::ZERO);
        }
        pulls[3].discard(); // flow 3's file is all in: its pull is discarded
        pulls[2].tag = 5; // slot 2 serves another connection now
        assert_eq!(serve(&mut pacer, &mut pulls), vec![0, 1, 0, 0], "one pull per turn, in turn");
        assert_eq!(pulls.iter().map(|p| p.issued).collect::<Vec<_>>(), vec![3, 1, 0, 0]);
        assert!(pulls.iter().enumerate().all(|(i, p)| i == 2 || !p.queued));
    }
}
