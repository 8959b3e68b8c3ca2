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
