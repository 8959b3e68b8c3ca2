//! A switch egress that stamps INT records (`net::int`, HPCC). The port stamps as a
//! transmission starts, in `start_tx` (`start_tx_watched`): a stamping port ends every
//! transmission with an event and never lets a packet bypass its queue, so each start comes
//! through there. An arrival while a packet is on the line raises that packet's record if it is
//! of the queue as the packet ends. Both behind the port's one `watched` flag, so the hot path of
//! runs without telemetry never looks at the stamper.

use super::{OnLine, Port};
use crate::net::int::{FlowStamps, PortInt};
use crate::qdisc::Qdisc;
use crate::units::Time;

impl Port {
    /// The port stamps INT records into the data packets of the flows `flows` asks it to.
    pub fn start_stamping(&mut self, flows: FlowStamps) {
        self.int = Some(Box::new(PortInt::new(flows)));
        self.end_every_transmission();
        self.update_watched();
    }

    /// The port's INT stamper, if it stamps.
    #[inline]
    pub fn int_mut(&mut self) -> Option<&mut PortInt> {
        self.int.as_deref_mut()
    }

    /// A packet joined the queue at `now`: the record of the packet on the line, if it is of
    /// the queue as that packet ends (`IntStamp::End`), counts it. Out of line: only paused or
    /// stamping ports come here.
    #[cold]
    #[inline(never)]
    pub(super) fn stamp_arrival(&mut self, now: Time) {
        if let Some(int) = self.int.as_deref_mut() {
            int.queued(now, self.qdisc.len_bytes());
        }
    }

    /// After a start at `now`: the packet that went on the line, if any, is stamped (every
    /// packet counts in the bytes sent), with the bytes that wait behind it.
    pub(super) fn stamp_line_start(&mut self, now: Time) {
        let (Some(int), Some(OnLine::Sending { started, .. })) = (self.int.as_deref_mut(), self.transmitting) else {
            return;
        };
        if started == now {
            let pkt = &self.pipe.last().expect(super::PACKET_ON_LINE).pkt;
            int.transmit(pkt, now, now + self.rate.tx_time(pkt.size), self.qdisc.len_bytes(), self.rate);
        }
    }
}
