//! A switch egress that stamps INT records (`net::int`, HPCC). The port stamps as a
//! transmission starts, in `start_tx` (`start_tx_watched`): a stamping port ends every
//! transmission with an event and never lets a packet bypass its queue, so each start comes
//! through there. An arrival while a packet is on the line raises that packet's record if it is
//! of the queue as the packet ends. Both behind the port's one `watched` flag, so the hot path of
//! runs without telemetry never looks at the stamper.

use super::{OnLine, Port};
use crate::net::int::{FlowStamps, PortInt};
use crate::net::PacketPool;
use crate::qdisc::Qdisc;
use crate::units::Time;

impl Port {
    /// The port stamps INT records into the data packets of the flows `flows` asks it to.
    pub fn start_stamping(&mut self, flows: FlowStamps) {
        self.set_stamper(PortInt::new(flows));
        self.end_every_transmission();
        self.update_watched();
    }

    /// A packet joined the queue at `now`: the record of the packet on the line, if it is of
    /// the queue as that packet ends (`IntStamp::End`), counts it. Out of line: only paused or
    /// stamping ports come here.
    #[cold]
    #[inline(never)]
    pub(super) fn stamp_arrival(&mut self, now: Time) {
        if !self.records {
            return; // records nothing, so holds no stamper (a paused port); one is looked up once, below
        }
        let queued = self.qdisc.len_bytes();
        if let Some(int) = self.int_mut() {
            int.queued(now, queued);
        }
    }

    /// After a start at `now`: the packet that went on the line, if any, is stamped (every
    /// packet counts in the bytes sent), with the bytes that wait behind it.
    pub(super) fn stamp_line_start(&mut self, now: Time, pool: &PacketPool) {
        let Some(OnLine::Sending { started, .. }) = self.transmitting else { return };
        if started != now || !self.records {
            return;
        }
        let pkt = self.pipe.back(pool).expect(super::PACKET_ON_LINE).pkt;
        let (ends, queued, rate) = (now + self.rate.tx_time(pkt.size), self.qdisc.len_bytes(), self.rate);
        if let Some(int) = self.int_mut() {
            int.transmit(&pkt, now, ends, queued, rate);
        }
    }
}
