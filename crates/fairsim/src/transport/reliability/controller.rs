//! The congestion controller's contract: what a window-based protocol decides, and nothing else.
//!
//! Shaped after quinn-proto's `congestion::Controller` and ns-3's `TcpCongestionOps`: the
//! reliability layer (`reliable`) keeps the send window, detects losses (duplicate ACKs, the
//! retransmission timer), retransmits and recovers; it tells the controller what happened and
//! asks it how many packets may be outstanding. A controller never sends, never touches a timer
//! and never sees the network; it may record its variables (`AgentCtx::record`).
//!
//! Events, in the order the reliability layer calls them:
//! - `on_start` when the flow starts;
//! - `on_ack_arrival` for every ACK, before the window slides (DECbit reads its bit here);
//! - on an ACK that acknowledges new data: `on_rtt_sample`, then `on_ack` (outside recovery),
//!   `on_partial_ack` (a NewReno partial ACK) or `on_recovery_end` (the ACK that ends recovery);
//! - `on_recovery_dupack` for each duplicate ACK during fast recovery;
//! - `on_congestion` when a loss is detected, by duplicate ACKs or by the timer, after the
//!   retransmission was decided;
//! - `undo` when the retransmissions of a fast recovery proved spurious (`undo`, RFC 3708 /
//!   RFC 3522): the reduction its `on_congestion` made should be taken back;
//! - `trace` after any of those that may have changed the window, and `after_fill` each time
//!   the layer has sent what the window allows;
//! - `on_packet_sent` for every transmission, new or retransmitted, under the TCP family's
//!   timer (BBR's delivery-rate samples remember the sender's state per packet; Generic's
//!   averaged timer resends on its own, without it).
//!
//! A controller that returns a `pacing_rate` has the layer space its sends (`pacer`); the
//! default, none, leaves the layer sending a window's worth at once, as before.
//!
//! A controller may ask to be shown its connection (`Connection`: the round-trip estimate, the
//! timeout, what is in flight, whether it recovers) before an event (`observes`, `observe`):
//! the controllers written in Python read it from their context, before the events their class
//! defines. The built-in ones read what they need from their events; for them the layer builds
//! nothing.

use super::rto::{Rto, RtoConfig};
use super::window::SendWindow;
use crate::net::Packet;
use crate::transport::sender::AgentCtx;

/// An ACK that acknowledged new data.
#[derive(Copy, Clone, Debug)]
pub struct NewAck {
    /// Packets it newly acknowledged.
    pub count: u64,
}

/// A round-trip sample taken from an ACK's echo of its data packet's send time (fine-grained:
/// retransmissions give samples too, unlike the retransmission timer's Karn-filtered ones).
#[derive(Copy, Clone, Debug)]
pub struct RttSample {
    /// The round trip, seconds.
    pub rtt_s: f64,
    /// The cumulative ACK (next packet expected).
    pub ack: u64,
    /// The next packet the sender will send.
    pub next: u64,
}

/// The data outstanding when a loss is detected, which a new slow-start threshold is computed
/// from (a controller's `ssthresh_from` chooses which, or its own window).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Load {
    /// Packets sent and not acknowledged: RFC 5681's FlightSize.
    pub flight: u64,
    /// Of those, the packets still in the network: outstanding less those SACKed or deemed lost
    /// (RFC 6675's pipe; without SACK, less one per duplicate ACK, each a packet that left).
    pub pipe: u64,
}

/// The connection as the reliability layer keeps it, shown to a controller before the events
/// it `observes`.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub struct Connection {
    /// The smoothed round trip of the retransmission timer, seconds (`None` before a sample).
    pub srtt: Option<f64>,
    /// The retransmission timer's state, which gives its timeout (`Connection::rto`).
    pub timeout: Timeout,
    /// Packets sent and not cumulatively acknowledged (RFC 5681's FlightSize).
    pub flight: u64,
    /// The oldest unacknowledged packet: every packet below it was delivered.
    pub una: u64,
    /// The next new packet the sender will send.
    pub next: u64,
    /// Whether the layer is in fast recovery.
    pub in_recovery: bool,
}

impl Connection {
    /// The retransmission timeout now (backoff included), seconds.
    pub fn rto(&self) -> f64 {
        self.timeout.secs()
    }
}

/// What gives a retransmission timer's timeout: its state, from which the timeout is computed
/// only when it is read (computing it before every event a controller observes cost more than
/// its use).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Timeout {
    /// The TCP family's (`rto`): srtt, rttvar and backoff, under its configuration.
    Rto(Rto, RtoConfig),
    /// A timeout already known, seconds.
    Fixed(f64),
}

impl Default for Timeout {
    fn default() -> Self {
        Timeout::Rto(Rto::default(), RtoConfig::default())
    }
}

impl Timeout {
    /// The timeout, seconds (the TCP family's before its rounding to the nanosecond).
    pub fn secs(&self) -> f64 {
        match self {
            Timeout::Rto(rto, cfg) => rto.timeout_secs(cfg),
            Timeout::Fixed(secs) => *secs,
        }
    }
}

/// A controller's events, named as the methods that tell it of them (so that the layer's
/// `tell!` names each by its method): what `Controller::observes` is asked about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum Hook {
    on_start,
    on_ack_arrival,
    on_rtt_sample,
    on_ack,
    on_congestion,
    on_recovery_dupack,
    on_partial_ack,
    on_recovery_end,
    moderate,
    trace,
    after_fill,
    on_packet_sent,
    undo,
}

impl Hook {
    /// How many there are (`Hook as usize` is below it).
    pub const COUNT: usize = 13;
}

/// A loss the reliability layer detected.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Congestion {
    /// Duplicate ACKs: the missing packet was sent again. `recovering` says whether the layer
    /// entered fast recovery (Reno, NewReno) or not (Tahoe).
    FastRetransmit { dupacks: u32, recovering: bool },
    /// The retransmission timer expired; the layer goes back to the oldest unacknowledged packet.
    Timeout,
    /// An ACK echoed an ECN mark (RFC 3168): reduce as for a loss, but nothing was lost or resent.
    Ecn,
}

/// A congestion controller: it decides the window and nothing else (no sends, no timers), told
/// of ACKs, round trips and losses by the reliability layer in the order the module's
/// documentation gives; every event has an empty default but `window`.
pub trait Controller: Send + Sync + 'static {
    /// Packets that may be outstanding; the layer caps it by the flow's window and sends at
    /// least one.
    fn window(&self) -> u64;

    /// Whether the layer shows the controller its connection (`observe`) before `hook`. For a
    /// controller that never does (the default) the question is a constant, and the layer
    /// builds nothing.
    fn observes(&self, _hook: Hook) -> bool {
        false
    }

    /// The connection as it is when the next event is called (only where `observes`).
    fn observe(&mut self, _conn: &Connection) {}

    /// Whether the window is the flow's own and never adapts (Generic's): then the flow's
    /// window cannot hold the sender back below what its control allows, and no
    /// window-limited time is reported.
    fn fixed_window(&self) -> bool {
        false
    }

    fn on_start(&mut self, _win: &SendWindow, _ctx: &mut AgentCtx) {}

    fn on_ack_arrival(&mut self, _ack: &Packet, _win: &SendWindow, _ctx: &mut AgentCtx) {}

    fn on_rtt_sample(&mut self, _sample: RttSample, _ctx: &mut AgentCtx) {}

    /// New data acknowledged outside recovery: the window may grow.
    fn on_ack(&mut self, _ack: NewAck, _ctx: &mut AgentCtx) {}

    /// `load`: what was outstanding when the loss was detected; `win`: the window after the
    /// layer's retransmission.
    fn on_congestion(&mut self, _event: Congestion, _load: Load, _win: &SendWindow, _ctx: &mut AgentCtx) {}

    fn on_recovery_dupack(&mut self, _ctx: &mut AgentCtx) {}

    fn on_partial_ack(&mut self, _ack: NewAck, _ctx: &mut AgentCtx) {}

    fn on_recovery_end(&mut self, _ctx: &mut AgentCtx) {}

    /// At most `packets` may be outstanding from now on (RFC 6582 §3.2 step 3's first choice,
    /// a NewReno recovery ending with few packets outstanding): a window larger is cut to it.
    fn moderate(&mut self, _packets: u64, _ctx: &mut AgentCtx) {}

    /// The last fast recovery's retransmissions were all spurious (the packets were late, not
    /// lost): the window and threshold its `on_congestion` lowered may be restored (Linux's
    /// `tcp_undo_cwnd_reduction`). The default keeps them.
    fn undo(&mut self, _ctx: &mut AgentCtx) {}

    /// Records the controller's variables (cwnd, ssthresh, ...).
    fn trace(&self, _ctx: &mut AgentCtx) {}

    /// The layer has sent what the window allows; `in_flight` packets are outstanding.
    fn after_fill(&self, _in_flight: u64, _ctx: &mut AgentCtx) {}

    /// Packet `seq` left now (a retransmission too).
    fn on_packet_sent(&mut self, _seq: u64, _ctx: &mut AgentCtx) {}

    /// Packets per second to pace sends at, if the controller paces (BBR); `None`: a window's
    /// worth goes at once. Only ever positive and finite when given.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
}
