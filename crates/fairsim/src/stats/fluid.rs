//! How far a queue's service strays from the ideal fluid one, per flow.
//!
//! For the ports named in `[run] fluid_reference`, every arrival and every departure is
//! recorded; after the run, the packets that were sent are replayed through the exact GPS
//! reference (weighted by the flows' `weight`, data and ACKs of a flow being separate
//! conversations) and each packet's departure is compared with its GPS departure. Dropped
//! packets are left out of the reference: it shows how the accepted traffic was scheduled.
//!
//! Reported per flow, over packets that arrived after the warm-up:
//! - lag: departure (end of transmission) minus GPS departure — for PGPS/WFQ it never exceeds
//!   one maximum packet time (Parekh & Gallager);
//! - behind and ahead: the largest amount of the flow's data that GPS had served and the queue
//!   had not (or the other way round), at the queue's departure instants.

use crate::net::{FlowId, Packet, PacketKind};
use crate::reference::{Arrival, Gps};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct FluidRecord {
    /// (arrival ns, conversation, bytes, packet id)
    arrivals: Vec<(f64, usize, u32, u64)>,
    /// end of transmission by packet id
    departures: HashMap<u64, f64>,
}

/// The conversation of a packet in the reference: 2·flow, +1 for ACKs.
fn conv(flow: FlowId, kind: PacketKind) -> usize {
    2 * flow.idx() + usize::from(kind == PacketKind::Ack)
}

#[derive(Debug, Clone, Serialize)]
pub struct FluidFlow {
    pub flow: String,
    /// `data` or `ack`.
    pub kind: &'static str,
    pub packets: u64,
    pub mean_lag_s: f64,
    pub max_lag_s: f64,
    pub min_lag_s: f64,
    pub max_behind_bytes: f64,
    pub max_ahead_bytes: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FluidReport {
    pub port: String,
    pub flows: Vec<FluidFlow>,
}

impl FluidRecord {
    pub fn arrived(&mut self, t_ns: u64, pkt: &Packet) {
        self.arrivals.push((t_ns as f64, conv(pkt.flow, pkt.kind()), pkt.size, pkt.id));
    }

    pub fn departed(&mut self, t_ns: u64, pkt: &Packet) {
        self.departures.insert(pkt.id, t_ns as f64);
    }

    /// Compares the recorded service with GPS; `names` and `weights` are the flows'.
    pub fn analyse(&self, port: &str, rate_bps: f64, names: &[String], weights: &[f64], from_ns: f64) -> FluidReport {
        let sent: Vec<(f64, usize, u32, f64)> = self
            .arrivals
            .iter()
            .filter_map(|&(t, c, size, id)| self.departures.get(&id).map(|&d| (t, c, size, d)))
            .collect();
        let arrivals: Vec<Arrival> =
            sent.iter().map(|&(t, c, size, _)| Arrival { t_ns: t, conv: c, bits: size as f64 * 8.0 }).collect();
        let conv_weights: Vec<f64> = weights.iter().flat_map(|&w| [w, w]).collect();
        let gps = Gps::new(&arrivals, &conv_weights, rate_bps);

        // the queue's cumulative service per conversation, at its departure instants
        let mut order: Vec<usize> = (0..sent.len()).collect();
        order.sort_by(|&a, &b| sent[a].3.total_cmp(&sent[b].3));
        let mut done = vec![0.0; conv_weights.len()];
        let mut stats: HashMap<usize, (u64, f64, f64, f64, f64, f64)> = HashMap::new();
        for i in order {
            let (t, c, size, dep) = sent[i];
            done[c] += size as f64 * 8.0;
            if t < from_ns {
                continue;
            }
            let lag = (dep - gps.packets[i].3) / 1e9;
            let diff = (gps.served(c, dep) - done[c]) / 8.0;
            let e = stats.entry(c).or_insert((0, 0.0, f64::MIN, f64::MAX, 0.0, 0.0));
            e.0 += 1;
            e.1 += lag;
            e.2 = e.2.max(lag);
            e.3 = e.3.min(lag);
            e.4 = e.4.max(diff);
            e.5 = e.5.max(-diff);
        }
        let mut convs: Vec<usize> = stats.keys().copied().collect();
        convs.sort();
        let flows = convs
            .into_iter()
            .map(|c| {
                let (n, sum, max, min, behind, ahead) = stats[&c];
                FluidFlow {
                    flow: names[c / 2].clone(),
                    kind: if c % 2 == 0 { "data" } else { "ack" },
                    packets: n,
                    mean_lag_s: sum / n as f64,
                    max_lag_s: max,
                    min_lag_s: min,
                    max_behind_bytes: behind,
                    max_ahead_bytes: ahead,
                }
            })
            .collect();
        FluidReport { port: port.to_string(), flows }
    }
}
