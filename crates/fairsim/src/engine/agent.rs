//! A flow's sender is called with its context, and what it asked for is carried out: packets
//! sent, timers set and cancelled, events counted, variables recorded.

use super::event::Event;
use super::sim::Simulation;
use crate::net::FlowId;
use crate::transport::{Action, AgentCtx, Sender};

impl Simulation {
    /// Calls the flow's sender (if it has one) and carries out its actions, in order.
    pub(super) fn with_sender(&mut self, f: FlowId, call: impl FnOnce(&mut dyn Sender, &mut AgentCtx)) {
        self.with_sender_options(f, &[], &[], call);
    }

    /// The same, for an ACK that carried SACK blocks `sack` and INT records `int`.
    pub(super) fn with_sender_options(
        &mut self,
        f: FlowId,
        sack: &[(u64, u64)],
        int: &[crate::net::int::IntHop],
        call: impl FnOnce(&mut dyn Sender, &mut AgentCtx),
    ) {
        let paused = self.line_paused(f);
        let flow = &mut self.flows[f.idx()];
        let Some(sender) = flow.sender.as_mut() else { return };
        let mut ctx = AgentCtx::new(self.now, flow.app_limit, &mut self.actions);
        ctx.paused = paused;
        if flow.trace.is_none() {
            ctx = ctx.without_records();
        }
        ctx.sack = sack;
        ctx.int = int;
        call(sender.as_mut(), &mut ctx);
        let mut actions = std::mem::take(&mut self.actions);
        for a in actions.drain(..) {
            self.carry_out(f, a);
        }
        self.actions = actions;
    }

    #[inline]
    fn carry_out(&mut self, f: FlowId, action: Action) {
        let now = self.now;
        let flow = &mut self.flows[f.idx()];
        match action {
            Action::Send { seq } => {
                let priority = flow.ends.priority;
                self.send_data(f, seq, priority)
            }
            Action::SendWithPriority { seq, priority } => self.send_data(f, seq, priority),
            Action::SetTimer(id, at) => self.arm(f, id, at),
            Action::SetTimeout(id, at) => {
                let at = flow.clock.late(at);
                self.arm(f, id, at)
            }
            Action::CancelTimer(id) => flow.timers[id.0 as usize].cancel(),
            Action::Count(event) => {
                let c = &mut flow.counters;
                match event {
                    crate::transport::Event::Timeout => c.timeouts += 1,
                    crate::transport::Event::FastRetransmit => c.fast_retransmits += 1,
                    crate::transport::Event::SpuriousRetransmit => c.spurious_retransmits += 1,
                    crate::transport::Event::LossProbe => c.loss_probes += 1,
                    crate::transport::Event::Abandoned => c.abandoned += 1,
                }
            }
            Action::ReducedForEcn => flow.cwr_pending = true,
            Action::WindowLimited(limited) => flow.window_limited(now, limited),
            Action::Record(series, value) => {
                if let Some(t) = &mut flow.trace {
                    // a value set twice at one instant keeps its last
                    match t.last_mut() {
                        Some(last) if last.0 == now && last.1 == series => last.2 = value,
                        _ => t.push((now, series, value)),
                    }
                }
            }
        }
    }

    pub(super) fn arm(&mut self, f: FlowId, id: crate::timer::TimerId, at: crate::units::Time) {
        if let Some(t) = self.flows[f.idx()].timers[id.0 as usize].set(at.max(self.now)) {
            self.events.push(t, Event::Timer(f, id));
        }
    }
}
