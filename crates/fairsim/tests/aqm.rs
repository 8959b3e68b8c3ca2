//! Active queue management on whole runs: CoDel, FQ-CoDel and PIE against a large drop-tail buffer.

mod common;

use common::{flow, run};

/// Four NewReno flows with delayed ACKs through a 10 Mb/s bottleneck with a bloated buffer
/// (1000 packets: 0.8 s of queue), round trips 24–84 ms.
const BLOATED: &str = r#"
nodes = ["a", "b", "c", "d", "left", "right", "sink"]
[run]
duration = "40s"
warmup = "10s"
interval = "10s"
fairness = ["fa", "fb", "fc", "fd"]
[links]
a = { between = ["a", "left"], rate = "100Mbps", delay = "1ms" }
b = { between = ["b", "left"], rate = "100Mbps", delay = "5ms" }
c = { between = ["c", "left"], rate = "100Mbps", delay = "15ms" }
d = { between = ["d", "left"], rate = "100Mbps", delay = "30ms" }
bottleneck = { between = ["left", "right"], rate = "10Mbps", delay = "10ms", buffer = 1000 }
exit = { between = ["right", "sink"], rate = "100Mbps", delay = "1ms" }
[flows]
fa = { src = "a", dst = "sink", app = "ftp", transport = { kind = "newreno", window = 10000, ack_every = 2 } }
fb = { src = "b", dst = "sink", app = "ftp", transport = { kind = "newreno", window = 10000, ack_every = 2 } }
fc = { src = "c", dst = "sink", app = "ftp", transport = { kind = "newreno", window = 10000, ack_every = 2 } }
fd = { src = "d", dst = "sink", app = "ftp", transport = { kind = "newreno", window = 10000, ack_every = 2 } }
[pairs]
fifo = { qdisc = "fcfs" }
codel = { qdisc = "codel" }
fq_codel = { qdisc = "fq_codel" }
pie = { qdisc = "pie" }
"#;

/// Mean one-way delay of the four flows, and their total goodput in Mb/s.
fn delay_and_goodput(pair: &str) -> (f64, f64, Option<f64>) {
    let r = run(BLOATED, Some(pair), &[]);
    let flows = ["fa", "fb", "fc", "fd"].map(|n| flow(&r, n).clone());
    let delay = flows.iter().map(|f| f.delay_s.as_ref().unwrap().mean).sum::<f64>() / 4.0;
    let goodput = flows.iter().map(|f| f.goodput_bps.as_ref().unwrap().mean).sum::<f64>() / 1e6;
    (delay, goodput, r.fairness.jain)
}

#[test]
fn codel_fq_codel_and_pie_keep_the_line_busy_with_a_short_queue_where_drop_tail_bloats() {
    let (fifo_delay, fifo_goodput, _) = delay_and_goodput("fifo");
    let (codel_delay, codel_goodput, _) = delay_and_goodput("codel");
    let (fq_delay, fq_goodput, fq_jain) = delay_and_goodput("fq_codel");
    let (pie_delay, pie_goodput, _) = delay_and_goodput("pie");
    // drop-tail keeps a standing queue of hundreds of milliseconds
    assert!(fifo_delay > 0.15, "FIFO one-way delay {fifo_delay}");
    // CoDel holds the standing queue near its 5 ms target (plus propagation, 12–41 ms one way)
    assert!(codel_delay < 0.06, "CoDel one-way delay {codel_delay}");
    assert!(fq_delay < 0.06, "FQ-CoDel one-way delay {fq_delay}");
    // PIE steers the queueing delay towards its 15 ms
    assert!(pie_delay < 0.075, "PIE one-way delay {pie_delay}");
    let goodputs = [("FIFO", fifo_goodput), ("CoDel", codel_goodput), ("FQ-CoDel", fq_goodput), ("PIE", pie_goodput)];
    for (name, g) in goodputs {
        assert!(g > 9.0, "{name}: {g} Mb/s of 10");
    }
    // per-flow queues share equally whatever the round trip
    assert!(fq_jain.unwrap() > 0.99, "FQ-CoDel Jain {fq_jain:?}");
}

/// Two bulk flows through a 10 Mb/s, 10 ms bottleneck with room for 200 packets.
const TWO_FLOWS: &str = r#"
nodes = ["a", "b", "left", "right", "sink"]
[run]
duration = "30s"
warmup = "5s"
interval = "5s"
[links]
a = { between = ["a", "left"], rate = "100Mbps", delay = "1ms" }
b = { between = ["b", "left"], rate = "100Mbps", delay = "3ms" }
bottleneck = { between = ["left", "right"], rate = "10Mbps", delay = "10ms", buffer = 200 }
exit = { between = ["right", "sink"], rate = "100Mbps", delay = "1ms" }
[flows]
fa = { src = "a", dst = "sink", app = "ftp" }
fb = { src = "b", dst = "sink", app = "ftp" }
[pairs]
red = { transport = { kind = "newreno", window = 10000 }, qdisc = { kind = "red", min_th = 20, max_th = 60, gentle = true } }
red_ecn = { transport = { kind = "newreno", window = 10000, ecn = true }, qdisc = { kind = "red", min_th = 20, max_th = 60, gentle = true, ecn = true } }
fq_codel_ecn = { transport = { kind = "newreno", window = 10000, ecn = true }, qdisc = "fq_codel" }
dctcp_k20 = { transport = { kind = "dctcp", window = 10000 }, qdisc = { kind = "red", min_th = 20, max_th = 21, max_p = 1.0, w_q = 1.0, ecn = true, hard_drop = false } }
ecn_k20 = { transport = { kind = "newreno", window = 10000, ecn = true }, qdisc = { kind = "red", min_th = 20, max_th = 21, max_p = 1.0, w_q = 1.0, ecn = true, hard_drop = false } }
"#;

fn bottleneck(r: &fairsim::RunReport) -> &fairsim::report::QueueReport {
    r.queues.iter().find(|q| q.port == "left->right").expect("the bottleneck")
}

#[test]
fn ecn_capable_flows_are_marked_instead_of_dropped_and_back_off_to_the_echo() {
    for pair in ["red_ecn", "fq_codel_ecn"] {
        let r = run(TWO_FLOWS, Some(pair), &[]);
        let q = bottleneck(&r);
        let (fa, fb) = (&flow(&r, "fa").totals, &flow(&r, "fb").totals);
        // RFC 3168: once slow start's overshoot is over, the queue marks, the senders reduce,
        // and nothing is lost
        assert!(q.totals.marks > 10, "{pair}: {} marks", q.totals.marks);
        assert_eq!((fa.dropped, fb.dropped, fa.timeouts, fb.timeouts), (0, 0, 0, 0), "{pair}");
        assert!(q.utilisation.as_ref().unwrap().mean > 0.9, "{pair}: {:?}", q.utilisation);
    }
    // the same flows and RED without ECN lose packets to early drops, and nothing is marked
    let plain = run(TWO_FLOWS, Some("red"), &[]);
    assert!(flow(&plain, "fa").totals.dropped + flow(&plain, "fb").totals.dropped > 0);
    assert_eq!(bottleneck(&plain).totals.marks, 0);
}

#[test]
fn dctcp_holds_the_queue_at_its_marking_threshold_and_the_line_full_without_loss() {
    // RFC 8257 (Alizadeh et al. 2010): marks above K = 20 packets, the window cut by α/2
    let r = run(TWO_FLOWS, Some("dctcp_k20"), &[]);
    let q = bottleneck(&r);
    let occupancy = q.occupancy_pkts.as_ref().unwrap().mean;
    assert!((15.0..25.0).contains(&occupancy), "mean queue {occupancy} packets, K = 20");
    assert!(q.utilisation.as_ref().unwrap().mean > 0.99, "{:?}", q.utilisation);
    assert_eq!((flow(&r, "fa").run_totals.dropped, flow(&r, "fb").run_totals.dropped), (0, 0));
    // classic ECN at the same threshold halves at each echo: the queue drains below K and the
    // line idles at times (97.5% busy, a mean queue of 10.6 packets)
    let classic = bottleneck(&run(TWO_FLOWS, Some("ecn_k20"), &[])).clone();
    assert!(classic.utilisation.as_ref().unwrap().mean < 0.99);
    assert!(classic.occupancy_pkts.as_ref().unwrap().mean < occupancy - 5.0);
}

#[test]
fn dctcp_retransmissions_and_acks_are_ecn_capable_so_a_marking_queue_marks_them() {
    // Linux's DCTCP sets ECT on every packet it sends (RFC 8257 §3.1; RFC 3168 §6.1.5's rule,
    // no ECT on retransmissions or pure ACKs, is classic ECN's): above K a marking queue then
    // marks a retransmission or an ACK instead of dropping it. Bulk flows both ways through a
    // bottleneck that marks above K = 5 in each direction: left to right its buffer of 8 is
    // overflowed by slow start (tail drops, so retransmissions); right to left its buffer of
    // 1,000 never is, so a packet lost there (an ACK of ac or bd, behind ca's and db's data)
    // could only have been dropped early, as not ECN-capable
    let text = r#"
nodes = ["a", "b", "left", "right", "c", "d"]
[run]
duration = "20s"
[links]
a = { between = ["a", "left"], rate = "100Mbps", delay = "1ms" }
b = { between = ["b", "left"], rate = "100Mbps", delay = "1ms" }
bottleneck = { between = ["left", "right"], rate = "10Mbps", delay = "5ms", buffer = 1000, forward = { buffer = 8 } }
c = { between = ["right", "c"], rate = "100Mbps", delay = "1ms" }
d = { between = ["right", "d"], rate = "100Mbps", delay = "1ms" }
[flows]
ac = { src = "a", dst = "c", app = "ftp" }
bd = { src = "b", dst = "d", app = "ftp" }
ca = { src = "c", dst = "a", app = "ftp" }
db = { src = "d", dst = "b", app = "ftp" }
[pairs]
dctcp = { transport = { kind = "dctcp", window = 10000 }, qdisc = { kind = "red", min_th = 5, max_th = 6, max_p = 1.0, w_q = 1.0, ecn = true, hard_drop = false } }
"#;
    let r = run(text, None, &[]);
    let early =
        |f: &fairsim::report::FlowReport| f.drops.iter().filter(|d| d.reason == "early").map(|d| d.count).sum::<u64>();
    let retransmitted: u64 = r.flows.iter().map(|f| f.run_totals.retransmitted).sum();
    assert!(retransmitted > 0, "slow start overflowed the buffer of 8: retransmissions crossed the queue");
    for f in &r.flows {
        assert_eq!(early(f), 0, "{}: no data packet of DCTCP's is dropped as not ECN-capable", f.name);
    }
    for name in ["ac", "bd"] {
        assert_eq!(flow(&r, name).run_totals.acks_dropped, 0, "{name}: its ACKs are marked, not dropped");
    }
    let back = r.queues.iter().find(|q| q.port == "right->left").unwrap();
    assert!(back.totals.marks > 100, "{} marks right to left", back.totals.marks);
}
