use crate::engine::Simulation;
use crate::scenario::Scenario;
use crate::units::Time;

/// A source host on its own 1 Mb/s line to a router, a bottleneck to the sink, and a files flow
/// of 2-packet (2000-byte) files.
fn net(arrivals: f64, bottleneck: &str, transport: &str, qdisc: &str) -> Simulation {
    let text = format!(
        r#"
nodes = ["src", "r", "dst"]
[run]
duration = "60s"
[links]
access = {{ between = ["src", "r"], rate = "1Mbps", delay = "10ms" }}
bottleneck = {{ between = ["r", "dst"], rate = "{bottleneck}", delay = "10ms", buffer = 4, qdisc = "{qdisc}" }}
[flows]
files = {{ src = "src", dst = "dst", app = "files", arrivals = {arrivals}, size = "2000B", packet_size = "1000B", stop = "50s", transport = "{transport}" }}
"#
    );
    let sc = Scenario::parse(&text, "files.toml", &[]).unwrap();
    Simulation::new(&sc, None, Some(7)).unwrap()
}

fn responses(s: &Simulation) -> Vec<(f64, Option<f64>)> {
    let t = s.transfers();
    t.arrival_s.iter().zip(&t.finish_s).map(|(&a, f)| (a, f.map(|f| f - a))).collect()
}

#[test]
fn a_transfer_alone_takes_its_lines_times_by_hand() {
    // BLT paces at its own 1 Mb/s line: packet 0 leaves at 8 ms, crosses the 8 Mb/s bottleneck
    // (1 ms) and 20 ms of propagation, and its 40-byte ACK comes back in 0.04 + 0.32 ms of lines
    // and 20 ms; packet 1 follows 8 ms behind. R = 8 + 8 + 1 + 20 + 0.04 + 0.32 + 20 = 57.36 ms.
    let mut s = net(1.0, "8Mbps", "blt", "pushout");
    s.run();
    let rows = responses(&s);
    let alone: Vec<_> = rows.iter().filter(|(a, _)| rows.iter().all(|(b, _)| a == b || (a - b).abs() > 0.2)).collect();
    assert!(alone.len() >= 20, "{} transfers alone of {}", alone.len(), rows.len());
    for (a, r) in alone {
        let r = r.expect("a lone transfer finishes");
        assert!((r - 0.05736).abs() < 1e-9, "transfer at {a}: R = {r}");
    }
}

#[test]
fn finished_connections_free_their_slots_so_state_does_not_grow_with_the_transfers() {
    let mut s = net(50.0, "8Mbps", "blt", "pushout");
    s.run();
    let t = s.transfers();
    assert!(t.flow.len() > 2000, "{} transfers", t.flow.len());
    assert!(t.finish_s.iter().all(Option::is_some), "every transfer finishes");
    let slots = s.connections.slots.len();
    assert_eq!(s.flows.len(), s.connections.first, "an ended run lets go of its connections' states");
    assert_eq!(slots as u64, t.open_at_most().max(slots as u64), "no more slots than were ever needed");
    assert!(slots < 40, "{slots} slots for {} transfers ({} open at most)", t.flow.len(), t.open_at_most());
    assert_eq!(s.ports.len() - s.connections.first_own_port, slots, "one own access line per slot");
    assert_eq!(s.ports().len(), 4, "reports see the scenario's ports");
    // each own line is named after the line it copies and the connection it was made for
    let names: Vec<_> = (0..s.ports.len()).map(|p| s.port_name(crate::net::PortId::from_idx(p))).collect();
    let scenario: Vec<_> = (0..s.scenario().ports.len()).map(|p| s.scenario().port_name(p)).collect();
    assert_eq!(names[..4], scenario[..]);
    let (copied, first) = s.connections.own_lines[0];
    assert_eq!(names[4], format!("{}#{first}", scenario[copied.idx()]));
    assert!(names[4..].iter().all(|n| n.starts_with(&format!("{}#", scenario[copied.idx()]))), "{names:?}");
    let why = s.overflow_message(crate::net::PortId::from_idx(4));
    assert!(why.starts_with(&format!("the queue at port {} passed 4000000 packets at", names[4])), "{why}");
    assert_eq!(s.flows().len(), 1, "reports see the scenario's flow");
}

#[test]
fn every_packet_of_every_connection_is_accounted_for_under_losses_and_reuse() {
    // a slow bottleneck with a 4-packet buffer: bursts lose packets, connections restart and
    // slots are reused while stale copies are still draining (a slot waits for them)
    for transport in ["blt", "bully_tyrant", "reno"] {
        let mut s = net(10.0, "200kbps", transport, "pushout");
        s.run();
        let t = s.transfers().clone();
        let done = t.finish_s.iter().filter(|f| f.is_some()).count() as u64;
        assert!(done > 400, "{transport}: {done} finished");
        assert_eq!(done as usize, t.flow.len(), "{transport}: the load (80%) lets every transfer finish");
        let flow = &s.flows()[0];
        let mut all = flow.counters;
        // the connections' counts, folded into their flow's as its last interval closed
        for c in &flow.intervals {
            all.merge(c);
        }
        assert!(all.dropped > 50, "{transport}: the bottleneck drops ({})", all.dropped);
        let in_network = s.data_in_network()[0];
        assert_eq!(all.sent, all.delivered + all.dropped + in_network, "{transport}: data conserved");
        assert_eq!(all.sent, t.sent.iter().sum::<u64>(), "{transport}: transfers' packets add up");
        // each connection's sink took each of its 2 packets once; a stale copy handed to a
        // slot's next connection would show here
        assert_eq!(all.delivered_unique, 2 * done, "{transport}: one first copy per packet");
    }
}

#[test]
fn the_arrivals_are_a_poisson_process_of_the_given_rate() {
    let mut s = net(50.0, "8Mbps", "blt", "pushout");
    s.run();
    let a = &s.transfers().arrival_s;
    let n = a.len() as f64;
    // 50 s of arrivals at 50/s: 2500 expected, standard deviation 50
    assert!((n - 2500.0).abs() < 200.0, "{n} arrivals");
    let gaps: Vec<f64> = a.windows(2).map(|w| w[1] - w[0]).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
    assert!((mean - 0.02).abs() < 0.002, "mean gap {mean}");
    assert!((var.sqrt() / mean - 1.0).abs() < 0.1, "exponential gaps: cv {}", var.sqrt() / mean);
    assert!(a.iter().all(|&t| t < 50.0), "no arrival after the flow's stop");
    assert!(s.now() == Time::from_secs(60));
}

#[test]
fn a_data_packet_whose_ack_the_sink_holds_back_keeps_its_slot_until_the_ack_goes() {
    // 3-packet files under delayed ACKs: the last packet's ACK waits for the sink's timer
    let text = r#"
nodes = ["src", "r", "dst"]
[run]
duration = "2s"
[links]
access = { between = ["src", "r"], rate = "10Mbps", delay = "1ms" }
bottleneck = { between = ["r", "dst"], rate = "10Mbps", delay = "1ms" }
[flows]
files = { src = "src", dst = "dst", app = "files", arrivals = 20.0, size = "3000B", packet_size = "1000B", transport = { kind = "newreno", ack_every = 2 } }
"#;
    let sc = Scenario::parse(text, "held.toml", &[]).unwrap();
    let mut s = Simulation::new(&sc, None, Some(3)).unwrap();
    let mut held = 0;
    while !s.run_events(1) {
        for slot in &s.connections.slots {
            if slot.owes_ack {
                held += 1;
                assert!(slot.in_network >= 1 && !slot.released, "a slot owing an ACK is in the network");
            }
        }
    }
    assert!(held > 100, "the sinks held ACKs back {held} times");
    assert!(s.transfers().finish_s.iter().filter(|f| f.is_some()).count() > 20, "transfers finish");
}
