//! The receiving host's side of a receiver-driven transport (NDP, Handley et al., SIGCOMM 2017):
//! each data packet or trimmed header that arrives asks for one pull, and the host's one pull
//! pacer sends the pulls of all its flows in turn, spaced so that the packets they pull arrive
//! at the rate of its line.
//!
//! As htsim's `NdpPullPacer` (Broadcom/csg-htsim 841d9e7, `sim/ndp.cpp`), which fairsim's NDP is
//! validated against: one pacer per receiving host; a round robin over its flows, one pull per
//! turn; after a pull for a packet of `s` bytes the next waits `s · 8 / (rate · pull_rate)`
//! (htsim: 99% of the line); a pull asked of an idle pacer goes at once; a flow whose data is
//! all in has its waiting pulls discarded, so they take no turn from the others. Each flow
//! numbers its pulls, and a sender serves every number up to the highest it has seen, so a
//! lost pull is made up by the next. htsim's ACK carries the pull when the pacer is idle; here
//! the pull is its own packet, sent at the same instant (a 64-byte packet more on the reverse
//! path).

use crate::net::FlowId;
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// A flow's pulls, at its receiving host.
#[derive(Clone, Debug, PartialEq)]
pub struct Pulls {
    /// The pacer's rate as a fraction of the receiver's line.
    pub fraction: f64,
    /// Tells this flow's turns apart from those of an earlier connection in the same slot.
    pub tag: u64,
    /// Pulls sent so far: the last pull's number.
    pub issued: u64,
    /// Pulls asked for and not yet sent.
    pub pending: u32,
    /// Whether the flow has a turn in its pacer's queue.
    pub queued: bool,
}

impl Pulls {
    pub fn new(fraction: f64) -> Pulls {
        Pulls { fraction, tag: 0, issued: 0, pending: 0, queued: false }
    }

    /// The flow's turn came: `None` if none of its pulls waits any more (discarded), else one
    /// is counted as sent and whether more wait (it then takes another turn).
    pub fn take_turn(&mut self) -> Option<bool> {
        if self.pending == 0 {
            self.queued = false;
            return None;
        }
        self.pending -= 1;
        self.issued += 1;
        self.queued = self.pending > 0;
        Some(self.queued)
    }
}

/// One receiving host's pull pacer.
#[derive(Clone, Debug, Default)]
pub struct PullPacer {
    /// Flows with pulls waiting (and their tags), one turn each.
    turns: VecDeque<(FlowId, u64)>,
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
    /// Flow `f` (its `pulls`) asks for one pull at `now`.
    pub fn ask(&mut self, f: FlowId, pulls: &mut Pulls, now: Time) -> Ask {
        pulls.pending += 1;
        if !pulls.queued {
            pulls.queued = true;
            self.turns.push_back((f, pulls.tag));
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
    pub fn turn(&mut self) -> Option<(FlowId, u64)> {
        self.armed = false;
        self.turns.pop_front()
    }

    /// Flow `f` has more pulls waiting: a turn at the back.
    pub fn again(&mut self, f: FlowId, tag: u64) {
        self.turns.push_back((f, tag));
    }

    /// A pull for a packet of `size` bytes left at `now`, on a line of `rate`: when the next may
    /// go, if any is waiting (the caller queues the pacing event).
    pub fn sent(&mut self, now: Time, size: u32, rate: Rate, fraction: f64) -> Option<Time> {
        let paced = Rate(((rate.0 as f64) * fraction).round().max(1.0) as u64);
        self.free_at = now + paced.tx_time(size);
        (!self.turns.is_empty()).then(|| {
            self.armed = true;
            self.free_at
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flows of the turns `pacer` gives, each turn taken as the engine takes it.
    fn serve(pacer: &mut PullPacer, pulls: &mut [Pulls]) -> Vec<u32> {
        let mut order = vec![];
        while let Some((f, tag)) = pacer.turn() {
            let p = &mut pulls[f.idx()];
            if p.tag != tag {
                continue;
            }
            if let Some(more) = p.take_turn() {
                if more {
                    pacer.again(f, tag);
                }
                order.push(f.0);
            }
        }
        order
    }

    #[test]
    fn an_idle_pacer_pulls_at_once_then_waits_a_packets_time_at_its_rate() {
        let mut pacer = PullPacer::default();
        let mut p = Pulls::new(0.99);
        assert_eq!(pacer.ask(FlowId(0), &mut p, Time(100)), Ask::Now);
        assert_eq!(pacer.turn(), Some((FlowId(0), 0)));
        assert_eq!(p.take_turn(), Some(false));
        // 9,064 bytes at 99 Gb/s: 732.44 ns, rounded up (htsim's drain time at 100 Gb/s)
        assert_eq!(pacer.sent(Time(100), 9064, Rate(100_000_000_000), 0.99), None);
        assert_eq!(pacer.ask(FlowId(0), &mut p, Time(500)), Ask::Arm(Time(833)));
        assert_eq!(pacer.ask(FlowId(0), &mut p, Time(600)), Ask::Wait);
        assert_eq!((p.pending, p.issued), (2, 1));
    }

    #[test]
    fn flows_take_turns_and_discarded_or_stale_turns_are_passed_over() {
        let mut pacer = PullPacer::default();
        let mut pulls = vec![Pulls::new(1.0); 4];
        pacer.armed = true; // a pacing event is queued: asks wait for it
        for f in [0, 0, 0, 3, 1, 2, 2] {
            pacer.ask(FlowId(f), &mut pulls[f as usize], Time::ZERO);
        }
        pulls[3].pending = 0; // flow 3's file is all in: its pull is discarded
        pulls[2].tag = 5; // slot 2 serves another connection now
        assert_eq!(serve(&mut pacer, &mut pulls), vec![0, 1, 0, 0], "one pull per turn, in turn");
        assert_eq!(pulls.iter().map(|p| p.issued).collect::<Vec<_>>(), vec![3, 1, 0, 0]);
        assert!(pulls.iter().enumerate().all(|(i, p)| i == 2 || !p.queued));
    }
}
