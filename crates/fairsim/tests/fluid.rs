//! The emulation bound of Demers, Keshav & Shenker 1989 §2.2 (proved by Greenberg & Madras):
//! for every conversation and at every instant, the bits sent by bit-by-bit round robin (GPS),
//! by preemptive FQ and by non-preemptive FQ are within one maximum-size packet of each other.
//! Checked on random arrival traces against the exact fluid reference.

use fairsim::net::{FlowId, NodeId, Packet, PacketKind};
use fairsim::qdisc::replay::replay;
use fairsim::qdisc::{FlowMeta, Fq, FqConfig, PortInfo};
use fairsim::reference::preemptive::preemptive_fq;
use fairsim::reference::{Arrival, Gps, Service};
use fairsim::units::{BufferLimit, Rate, Time};
use proptest::prelude::*;

const CONVS: usize = 5;
const RATE: u64 = 1_000_000;

fn port() -> PortInfo {
    let flows: Vec<FlowMeta> = (0..CONVS)
        .map(|i| FlowMeta { name: format!("f{i}"), src: NodeId(0), dst: NodeId(1), weight: 1.0, packet_size: 1000 })
        .collect();
    let crossing = (0..CONVS).map(|i| (FlowId(i as u32), PacketKind::Data)).collect();
    PortInfo {
        name: "a->b".into(),
        nodes: ["n0", "n1"].map(String::from).into(),
        buffer: BufferLimit::Unlimited,
        rate: Rate(RATE),
        flows: flows.into(),
        crossing,
        exact_crossing: false,
    }
}

fn packet(flow: usize, seq: u64, size: u32) -> Packet {
    Packet { id: seq, flow: FlowId(flow as u32), seq, size, dst: NodeId(1), ..fairsim::net::Packet::blank() }
}

/// (gap before the arrival in µs, conversation, size in bytes)
fn traces() -> impl Strategy<Value = Vec<(u64, usize, u32)>> {
    prop::collection::vec((prop_oneof![Just(0u64), 0u64..20_000], 0..CONVS, 40u32..1500), 1..80)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn fq_preemptive_fq_and_gps_stay_within_one_maximum_packet(trace in traces()) {
        let mut t = 0;
        let mut timed = vec![];
        let mut arrivals = vec![];
        for (i, &(gap, conv, size)) in trace.iter().enumerate() {
            t += gap * 1000;
            timed.push((Time(t), packet(conv, i as u64, size)));
            arrivals.push(Arrival { t_ns: t as f64, conv, bits: size as f64 * 8.0 });
        }
        let p_max = trace.iter().map(|x| x.2).max().unwrap() as f64 * 8.0;
        let weights = [1.0; CONVS];
        let gps = Gps::new(&arrivals, &weights, RATE as f64);
        let pre = preemptive_fq(&arrivals, &weights, RATE as f64);
        let mut fq = Fq::new(FqConfig::default(), &port()).unwrap();
        let sent = replay(&mut fq, Rate(RATE), &timed).sent;
        let non = Service { pieces: sent.iter().map(|(s, e, p)| (s.0 as f64, e.0 as f64, p.flow.idx(), p.size as f64 * 8.0)).collect() };

        let mut instants: Vec<f64> = arrivals.iter().map(|a| a.t_ns).collect();
        instants.extend(gps.packets.iter().map(|p| p.3));
        instants.extend(pre.instants());
        instants.extend(non.instants());
        let slack = 1e-6 * p_max;
        for &at in &instants {
            for c in 0..CONVS {
                let (g, p, n) = (gps.served(c, at), pre.served(c, at), non.served(c, at));
                prop_assert!((n - g).abs() <= p_max + slack, "non-preemptive vs GPS: conv {c} at {at}: {n} vs {g} (P_max {p_max})");
                prop_assert!((p - g).abs() <= p_max + slack, "preemptive vs GPS: conv {c} at {at}: {p} vs {g}");
                prop_assert!((n - p).abs() <= p_max + slack, "non-preemptive vs preemptive: conv {c} at {at}: {n} vs {p}");
            }
        }
        // and everything is eventually sent by all three
        let total = |s: &dyn Fn(usize) -> f64| (0..CONVS).map(s).sum::<f64>();
        let end = instants.iter().cloned().fold(0.0, f64::max) + 1e12;
        let bits: f64 = arrivals.iter().map(|a| a.bits).sum();
        prop_assert!((total(&|c| gps.served(c, end)) - bits).abs() < 1e-3);
        prop_assert!((total(&|c| non.served(c, end)) - bits).abs() < 1e-3);
        prop_assert!((total(&|c| pre.served(c, end)) - bits).abs() < 1e-3);
    }
}
