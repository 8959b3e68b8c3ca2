//! A flow's RACK-TLP state as the reliability layer keeps it (`reliable::rack` carries it out):
//! RACK's (`rack`), the open tail loss probe's episode (`tlp`), and the one timer both use.

use super::rack::Rack;
use super::tlp::Episode;
use super::window::SendWindow;
use crate::transport::sender::TimerId;
use crate::units::Time;

/// RACK's reordering timer and TLP's probe timeout (the retransmission timer is `TimerId(0)`,
/// pacing `TimerId(1)`, the sink's delayed ACK the last slot).
pub const RACK_TIMER: TimerId = TimerId(2);

/// What `RACK_TIMER` is armed for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Armed {
    Reorder,
    Probe,
}

/// RACK-TLP's state in a flow.
#[derive(Debug)]
pub struct RackState {
    pub rack: Rack,
    /// Tail loss probes are on.
    pub tlp: bool,
    /// The receiver's longest ACK delay, for the probe timeout of one packet.
    pub max_ack_delay: Time,
    /// The probe whose episode is open.
    pub episode: Option<Episode>,
    /// When RACK's reordering timer should fire, if packets wait for their deadline.
    pub reorder_at: Option<Time>,
    /// What the timer is armed for, and when.
    pub armed: Option<(Armed, Time)>,
    /// Every packet below this that is deemed lost has been retransmitted since.
    pub rxt_scan: u64,
}

impl RackState {
    pub fn new(tlp: bool, max_ack_delay: Time) -> RackState {
        RackState {
            rack: Rack::default(),
            tlp,
            max_ack_delay,
            episode: None,
            reorder_at: None,
            armed: None,
            rxt_scan: 0,
        }
    }

    /// The first packet deemed lost and not retransmitted since.
    pub fn first_lost(&mut self, win: &SendWindow) -> Option<u64> {
        if win.lost() == 0 {
            return None;
        }
        let from = self.rxt_scan.max(win.una());
        let found = (from..win.high()).find(|&s| {
            let p = win.packet(s);
            p.lost && !p.rxt_out
        });
        self.rxt_scan = found.unwrap_or(win.high());
        found
    }
}
