//! In-band network telemetry in a run (`net::int`), made only in runs with a flow whose
//! transport asks for it (`Sender::telemetry`): then every switch egress (not a host's access
//! line) stamps those flows' data packets, and the run keeps their records beside them
//! (`IntRecords`, the simulation's `telemetry`).
//!
//! A record leaves its port's stamper as the far end takes the packet out of the pipe
//! (`collect_int`, from `arrive`); the sink moves the data packet's records to the ACK it sends
//! for it (`send_ack`; a data packet answered by no ACK of its own, held for a delayed ACK or
//! unacknowledged, has them dropped); the sender's `on_ack` reads them (`AgentCtx::int`), after
//! which they are gone; a packet dropped anywhere takes its records with it (`account_drops`).

use super::sim::Simulation;
use crate::net::int::{IntHop, IntRecords};
use crate::net::{Packet, PortId};

impl Simulation {
    /// The far end of port `p` took data packet `pkt` out of its pipe: the record the port
    /// stamped into it, if any, joins its others. Out of line: only telemetry runs come here.
    #[cold]
    #[inline(never)]
    pub(super) fn collect_int(&mut self, p: PortId, pkt: &Packet) {
        if let Some(hop) = self.stamp_of(p, pkt) {
            self.telemetry.as_deref_mut().expect("a telemetry run").stamped(pkt.id, hop);
        }
    }

    /// The record port `p` stamped into `pkt`, which leaves its pipe, taken from its stamper;
    /// `None` if it stamped none.
    pub(super) fn stamp_of(&mut self, p: PortId, pkt: &Packet) -> Option<IntHop> {
        let t = self.telemetry.as_deref()?;
        if !pkt.is_data() || !t.stamps(pkt.flow) {
            return None; // no port stamped it
        }
        self.ports[p.idx()].int_mut()?.take(pkt.id)
    }

    /// The INT records of the packets in the network, in runs with a telemetry flow.
    pub fn telemetry(&self) -> Option<&IntRecords> {
        self.telemetry.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use crate::Simulation;

    /// `n` HPCC senders s1..sn into r through one switch; every line 100 Gb/s, 1 µs.
    fn incast(n: usize, size: Option<&str>, duration: &str, hpcc: &str) -> Simulation {
        let hosts: Vec<String> = (1..=n).map(|i| format!("\"s{i}\"")).collect();
        let mut text = format!(
            "nodes = [{}, \"sw\", \"r\"]\n[run]\nduration = \"{duration}\"\nwarmup = \"1ms\"\ninterval = \"1ms\"\n\
             [pairs.hpcc]\ntransport = {{ kind = \"hpcc\"{hpcc} }}\nqdisc = \"fcfs\"\n[links]\n\
             out = {{ between = [\"sw\", \"r\"], rate = \"100Gbps\", delay = \"1us\" }}\n",
            hosts.join(", ")
        );
        for i in 1..=n {
            text += &format!("l{i} = {{ between = [\"s{i}\", \"sw\"], rate = \"100Gbps\", delay = \"1us\" }}\n");
        }
        text += "[flows]\n";
        let size = size.map_or(String::new(), |s| format!(", size = \"{s}\""));
        for i in 1..=n {
            text +=
                &format!("f{i} = {{ src = \"s{i}\", dst = \"r\", app = \"ftp\", packet_size = \"1000B\"{size} }}\n");
        }
        let sc = Scenario::parse(&text, "incast.toml", &[]).unwrap();
        Simulation::new(&sc, None, Some(1)).unwrap()
    }

    #[test]
    fn every_record_is_freed_by_the_end_of_a_run_whose_flows_all_finish() {
        for stamp in ["end", "dequeue"] {
            let mut sim = incast(2, Some("500000B"), "2ms", &format!(", int_stamp = \"{stamp}\""));
            sim.run();
            let flows = sim.flows();
            assert!(flows.iter().all(|f| f.completed_at.is_some()), "{stamp}: both files are in");
            assert!(sim.telemetry().unwrap().is_empty(), "{stamp}: {} records left", sim.telemetry().unwrap().len());
            let mut ports = std::mem::take(&mut sim.ports);
            for (i, p) in ports.iter_mut().enumerate() {
                let (name, rate) = (sim.port_name(crate::net::PortId::from_idx(i)), p.rate);
                let sent: u64 =
                    p.stats.intervals.iter().map(|c| c.bytes_sent).sum::<u64>() + p.stats.current.bytes_sent;
                match p.int_mut() {
                    Some(int) => {
                        assert!(name.starts_with("sw->"), "a switch egress: {name}");
                        assert_eq!(int.pending(), 0, "{name}");
                        assert_eq!(rate.0, 100_000_000_000);
                        if name == "sw->r" {
                            // every byte the port sent is in its counter: two files, no loss
                            assert_eq!((int.tx_bytes(), sent), (1_000_000, 1_000_000), "{name}");
                        }
                    }
                    None => assert!(!name.starts_with("sw->"), "every switch egress stamps: {name}"),
                }
            }
        }
    }

    #[test]
    fn a_run_without_a_telemetry_flow_has_no_table_and_no_stamping_port() {
        let sc = Scenario::parse(
            "nodes = [\"a\", \"sw\", \"b\"]\n[run]\nduration = \"1s\"\n[links]\nx = { between = [\"a\", \"sw\"], rate = \"1Mbps\", delay = \"1ms\" }\n\
             y = { between = [\"sw\", \"b\"], rate = \"1Mbps\", delay = \"1ms\" }\n[flows]\nf = { src = \"a\", dst = \"b\", app = \"ftp\" }\n",
            "t.toml",
            &[],
        )
        .unwrap();
        let mut sim = Simulation::new(&sc, None, Some(1)).unwrap();
        assert!(sim.telemetry().is_none());
        assert!(sim.ports.iter_mut().all(|p| p.int_mut().is_none()));
    }

    /// A whole-run check: eight HPCC flows into one 100 Gb/s port. After the first
    /// millisecond (the initial windows' burst), the port runs near η = 0.95 with a queue near
    /// zero (the paper's claim: utilisation at η, a queue of a few packets). Measured: 0.975,
    /// a mean of 1.0 packet.
    #[test]
    fn eight_flows_into_one_port_keep_its_queue_near_zero_at_utilisation_near_eta() {
        let mut sim = incast(8, None, "3ms", "");
        sim.run();
        assert!(sim.telemetry().unwrap().len() < 2_000, "only the packets in flight have records");
        let r = sim.report();
        let q = r.queues.iter().find(|q| q.port == "sw->r").unwrap();
        let util = q.utilisation.as_ref().unwrap().mean;
        let occupancy = q.occupancy_pkts.as_ref().unwrap().mean;
        // η plus what the eight additive steps add before each decrease: W_AI = W_init(1 − η)/10
        // per flow, so at most 0.95 + 8 · 0.005 = 0.99
        assert!((0.93..=0.99).contains(&util), "utilisation {util}");
        assert!(occupancy < 5.0, "mean queue {occupancy} packets");
        assert_eq!(q.totals.drops, 0);
        // and the eight share it: each within 25% of an eighth
        let goodputs: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps.as_ref().map_or(0.0, |s| s.mean)).collect();
        let fair = 100e9 * util / 8.0;
        assert!(goodputs.iter().all(|g| (g / fair - 1.0).abs() < 0.25), "{goodputs:?} against {fair}");
    }
}
