//! The flow-control protocols on whole runs: window dynamics, loss recovery, Vegas's operating
//! point, and several protocols sharing a gateway.

mod common;

use common::{flow, run};
use fairsim::report::Trace;
use fairsim::RunReport;

fn trace<'a>(r: &'a RunReport, name: &str, series: &str) -> &'a Trace {
    r.traces
        .iter()
        .find(|t| t.name == name && t.series == series)
        .unwrap_or_else(|| panic!("no {series} trace of {name}"))
}

/// One bulk transfer over a 10 Mb/s, 20 ms bottleneck (1000-byte packets: 1250 packets/s,
/// a bandwidth-delay product of about 55 packets), buffer 40.
const ONE_FLOW: &str = r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "20s"
trace = ["bulk"]
[links]
in = { between = ["src", "gw"], rate = "100Mbps", delay = "1ms" }
out = { between = ["gw", "dst"], rate = "10Mbps", delay = "20ms", buffer = 40 }
[flows]
bulk = { src = "src", dst = "dst", app = "ftp", transport = { kind = "reno", window = 1000, stack = "classic" } }
"#;

#[test]
fn the_window_grows_exponentially_then_linearly_and_halves_on_loss() {
    for kind in ["jk", "reno", "newreno"] {
        let r =
            run(ONE_FLOW, None, &[&format!("flows.bulk.transport.kind={kind}"), "flows.bulk.transport.window=1000"]);
        let cwnd = trace(&r, "bulk", "cwnd");
        let at = |t: f64| cwnd.value[cwnd.t_s.partition_point(|&x| x <= t).max(1) - 1];
        // slow start: about double every round trip (~44 ms) from 1 packet
        assert!(at(0.25) >= 16.0, "{kind}: cwnd {} after 0.25 s", at(0.25));
        // congestion avoidance: the longest stretch of small increases (1/cwnd per ACK)
        let (mut best, mut start) = ((0, 0), 0);
        for k in 1..cwnd.value.len() {
            let d = cwnd.value[k] - cwnd.value[k - 1];
            if !(0.0 < d && d < 0.5) {
                start = k;
            } else if k - start > best.1 - best.0 {
                best = (start, k);
            }
        }
        let (a, b) = best;
        let secs = cwnd.t_s[b] - cwnd.t_s[a];
        assert!(secs > 0.5, "{kind}: no congestion avoidance phase");
        // one packet per round trip of 0.044–0.076 s
        let per_second = (cwnd.value[b] - cwnd.value[a]) / secs;
        assert!((10.0..25.0).contains(&per_second), "{kind}: linear growth of {per_second} packets/s");
        // and losses halve it
        let drops = cwnd.value.windows(2).filter(|w| w[1] < 0.7 * w[0]).count();
        assert!(drops >= 2, "{kind}: {drops} window reductions");
        assert!(flow(&r, "bulk").run_totals.fast_retransmits > 0, "{kind}");
    }
}

/// Two transfers through a 1 Mb/s gateway; one of them loses chosen packets there.
#[test]
fn cubic_backs_off_to_beta_of_its_window_and_keeps_the_line_at_least_as_busy_as_newreno() {
    // slow start ends below the path's capacity, so that NewReno's slow recovery of a slow
    // start's many losses (what SACK is for) does not hide the steady state
    let calm = "flows.bulk.transport.initial_ssthresh=60";
    // β of the window, as Linux reads RFC 9438 §4.6's flight_size (the `linux` stack's default;
    // this flow names the classic stack, whose CUBIC takes β of the flight size)
    let by_cwnd = "flows.bulk.transport.ssthresh_from=cwnd";
    let cubic = run(ONE_FLOW, None, &["flows.bulk.transport.kind=cubic", calm, by_cwnd]);
    let (cwnd, ssthresh) = (trace(&cubic, "bulk", "cwnd"), trace(&cubic, "bulk", "ssthresh"));
    // each loss sets ssthresh to 0.7 of the window just before it (RFC 9438 §4.6)
    let mut cuts = 0;
    for (k, (&t, &s)) in ssthresh.t_s.iter().zip(&ssthresh.value).enumerate() {
        if k == 0 || ssthresh.value[k - 1] == s {
            continue; // the initial threshold, or recorded again unchanged
        }
        cuts += 1;
        let before = cwnd.value[cwnd.t_s.partition_point(|&x| x < t) - 1];
        assert!((s / before - 0.7).abs() < 0.01 || s == 2.0, "ssthresh {s} after a window of {before}");
    }
    assert!(cuts >= 2, "losses happened");
    let reno = run(ONE_FLOW, None, &["flows.bulk.transport.kind=newreno", calm]);
    let (c, r) = (flow(&cubic, "bulk").run_totals, flow(&reno, "bulk").run_totals);
    // 10 Mb/s of 1000-byte packets for 20 s is 25,000 packets; CUBIC's smaller cuts lose less
    assert!(c.delivered > r.delivered && c.delivered > 24_500, "CUBIC {c:?}, NewReno {r:?}");
}

const CHOSEN_LOSSES: &str = r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "60s"
trace = ["victim"]
[links]
in = { between = ["src", "gw"], rate = "100Mbps", delay = "1ms" }
out = { between = ["gw", "dst"], rate = "1Mbps", delay = "30ms", qdisc = { kind = "loss_list", flow = "victim", seqs = [200] } }
[flows]
victim = { src = "src", dst = "dst", app = "ftp", transport = { kind = "reno", window = 20, stack = "classic" } }
"#;

#[test]
fn a_single_loss_is_repaired_by_fast_retransmit_without_a_timeout() {
    for kind in ["reno", "newreno", "jk"] {
        let r = run(CHOSEN_LOSSES, None, &[&format!("flows.victim.transport.kind={kind}")]);
        let t = &flow(&r, "victim").run_totals;
        assert_eq!((t.dropped, t.retransmitted, t.fast_retransmits, t.timeouts), (1, 1, 1, 0), "{kind}");
        let cwnd = trace(&r, "victim", "cwnd");
        let lowest_after_start = cwnd.value.iter().skip(3).cloned().fold(f64::MAX, f64::min);
        if kind == "jk" {
            assert_eq!(lowest_after_start, 1.0, "Tahoe restarts from one packet");
        } else {
            assert!(lowest_after_start >= 2.0, "{kind}: fast recovery keeps the window open");
        }
    }
}

#[test]
fn delayed_acks_halve_the_acks_and_still_repair_a_loss_by_fast_retransmit() {
    let every = run(CHOSEN_LOSSES, None, &["flows.victim.transport.kind=newreno"]);
    let delayed =
        run(CHOSEN_LOSSES, None, &["flows.victim.transport.kind=newreno", "flows.victim.transport.ack_every=2"]);
    let (e, d) = (&flow(&every, "victim").run_totals, &flow(&delayed, "victim").run_totals);
    assert_eq!(e.acks_sent, e.delivered, "without delayed ACKs, one ACK a packet");
    // one ACK for two in-order packets, plus the immediate ACKs around the loss and the timer's
    let ratio = d.acks_sent as f64 / d.delivered as f64;
    assert!((0.5..0.52).contains(&ratio), "{} ACKs for {} packets", d.acks_sent, d.delivered);
    // duplicate ACKs are not delayed: the loss is still repaired without a timeout
    assert_eq!((d.dropped, d.retransmitted, d.fast_retransmits, d.timeouts), (1, 1, 1, 0), "{d:?}");
    // the same line carries the same data: the window is limited by the flow's 20 packets
    assert!((d.delivered as f64 / e.delivered as f64 - 1.0).abs() < 0.02, "{} vs {}", d.delivered, e.delivered);
}

#[test]
fn a_delayed_ack_that_waits_for_its_timer_shows_in_the_round_trip() {
    // a timed source far below the line: each packet is alone and its ACK waits the full delay
    let text = r#"
nodes = ["src", "dst"]
[run]
duration = "10s"
[links]
only = { between = ["src", "dst"], rate = "10Mbps", delay = "10ms" }
[flows]
slow = { src = "src", dst = "dst", app = "cbr", rate = "40kbps", transport = { kind = "newreno", ack_every = 2, ack_delay = "100ms" } }
"#;
    let r = run(text, None, &[]);
    let f = flow(&r, "slow");
    // 40 kb/s of 1000-byte packets: one every 0.2 s, so every ACK is sent by the timer
    let rtt = f.rtt_mean_s.unwrap();
    let expected = 0.0008 + 0.010 + 0.100 + 0.000032 + 0.010;
    assert!((rtt - expected).abs() < 1e-4, "rtt {rtt}, expected {expected}");
    assert_eq!(f.run_totals.acks_sent, f.run_totals.delivered);
}

#[test]
fn newreno_repairs_several_losses_of_one_window_and_reno_needs_a_timeout() {
    let three = "links.out.qdisc.seqs=[200, 202, 204]";
    let newreno = run(CHOSEN_LOSSES, None, &["flows.victim.transport.kind=newreno", three]);
    let t = &flow(&newreno, "victim").run_totals;
    assert_eq!((t.retransmitted, t.timeouts), (3, 0), "NewReno: {t:?}");
    let reno = run(CHOSEN_LOSSES, None, &["flows.victim.transport.kind=reno", three]);
    assert!(flow(&reno, "victim").run_totals.timeouts >= 1, "Reno: {:?}", flow(&reno, "victim").run_totals);
}

#[test]
fn sack_repairs_five_losses_of_one_window_in_one_round_trip_and_newreno_takes_a_round_trip_each() {
    let holes = [200, 202, 204, 206, 208];
    let five = "links.out.qdisc.seqs=[200, 202, 204, 206, 208]";
    // when each lost packet's retransmission left the bottleneck, from its event trace
    let resent = |sets: &[&str]| {
        let sc = common::parse_with(CHOSEN_LOSSES, &[sets, &[five, "run.events=[\"gw->dst\"]"]].concat());
        let mut sim = fairsim::Simulation::new(&sc, None, None).unwrap();
        sim.run();
        let t = flow(&sim.report(), "victim").run_totals;
        let (_, text) = &sim.event_traces()[0];
        let times: Vec<f64> = text
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                let resend = f[0] == "-" && f[4] == "data" && holes.contains(&f[5].parse::<u64>().unwrap());
                resend.then(|| f[1].parse().unwrap())
            })
            .collect();
        assert_eq!(times.len(), 5, "each hole sent again once: {times:?}");
        (t, times[4] - times[0])
    };
    let (newreno, slow) = resent(&["flows.victim.transport.kind=newreno"]);
    assert_eq!((newreno.retransmitted, newreno.timeouts), (5, 0));
    for prr in ["prr=false", "prr=true"] {
        let sack = ["flows.victim.transport.kind=newreno", "flows.victim.transport.sack=true"];
        let (t, fast) = resent(&[&sack[..], &[&format!("flows.victim.transport.{prr}")]].concat());
        assert_eq!((t.retransmitted, t.fast_retransmits, t.timeouts), (5, 1, 0), "SACK, {prr}: {t:?}");
        // the path's round trip is over 60 ms: RFC 6675 sends the holes within one, NewReno
        // one a round trip
        assert!(
            fast < 0.06 && slow > 4.0 * 0.06,
            "{prr}: holes resent over {fast:.3} s with SACK, {slow:.3} s without"
        );
    }
}

#[test]
fn window_transports_default_to_todays_linux_tcp_and_jk_and_stack_classic_to_the_papers() {
    let without_stack = ONE_FLOW.replace(", stack = \"classic\"", "");
    for kind in ["reno", "newreno", "cubic", "vegas"] {
        let r = run(&without_stack, None, &[&format!("flows.bulk.transport.kind={kind}")]);
        let t = &flow(&r, "bulk").run_totals;
        let ratio = t.acks_sent as f64 / t.delivered as f64;
        assert!((0.49..0.6).contains(&ratio), "{kind}: delayed ACKs, {ratio:.3} ACKs a packet");
        let outstanding = trace(&r, "bulk", "outstanding");
        assert_eq!(outstanding.value[0], 10.0, "{kind}: an initial window of 10 (RFC 6928)");
    }
    for (kind, stack) in [("jk", ""), ("newreno", "classic"), ("cubic", "classic")] {
        let mut sets = vec![format!("flows.bulk.transport.kind={kind}")];
        if !stack.is_empty() {
            sets.push(format!("flows.bulk.transport.stack={stack}"));
        }
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let r = run(&without_stack, None, &sets);
        let t = &flow(&r, "bulk").run_totals;
        assert_eq!(t.acks_sent, t.delivered, "{kind} {stack}: an ACK a packet");
        assert_eq!(trace(&r, "bulk", "outstanding").value[0], 1.0, "{kind} {stack}: one packet first");
    }
}

#[test]
fn vegas_settles_without_loss_with_alpha_to_beta_packets_queued_per_flow() {
    let text = r#"
nodes = ["a", "b", "gw", "dst"]
[run]
duration = "120s"
warmup = "30s"
interval = "30s"
[links]
a = { between = ["a", "gw"], rate = "100Mbps", delay = "5ms" }
b = { between = ["b", "gw"], rate = "100Mbps", delay = "5ms" }
out = { between = ["gw", "dst"], rate = "2Mbps", delay = "20ms", buffer = 200 }
[flows]
v1 = { src = "a", dst = "dst", app = "ftp", transport = { kind = "vegas", stack = "classic" } }
v2 = { src = "b", dst = "dst", app = "ftp", transport = { kind = "vegas", stack = "classic" } }
"#;
    let r = run(text, None, &[]);
    for f in ["v1", "v2"] {
        assert_eq!(flow(&r, f).totals.dropped, 0, "{f}: no loss once settled");
    }
    let q = r.queues.iter().find(|q| q.port == "gw->dst").unwrap();
    let occupancy = q.occupancy_pkts.unwrap().mean;
    // α = 1 and β = 3 packets each, two flows (one more may be on the line)
    assert!((2.0..=7.0).contains(&occupancy), "mean queue {occupancy}");
    assert!(q.utilisation.unwrap().mean > 0.95);
    assert!((flow(&r, "v1").goodput_bps.unwrap().mean / flow(&r, "v2").goodput_bps.unwrap().mean - 1.0).abs() < 0.2);
}

/// The 1989 paper's Scenario 4: two Generic and two JK transfers through one 56 kb/s gateway.
const MIXED: &str = r#"
nodes = ["s1", "s2", "s3", "s4", "gw", "sink"]
[run]
duration = "2000s"
warmup = "1500s"
[links]
l1 = { between = ["s1", "gw"], rate = "800kbps" }
l2 = { between = ["s2", "gw"], rate = "800kbps" }
l3 = { between = ["s3", "gw"], rate = "800kbps" }
l4 = { between = ["s4", "gw"], rate = "800kbps" }
out = { between = ["gw", "sink"], rate = "56kbps", buffer = 15 }
[flows]
g1 = { src = "s1", dst = "sink", app = "ftp", transport = "generic" }
g2 = { src = "s2", dst = "sink", app = "ftp", transport = "generic" }
jk3 = { src = "s3", dst = "sink", app = "ftp", transport = "jk" }
jk4 = { src = "s4", dst = "sink", app = "ftp", transport = "jk" }
[pairs]
FCFS = { qdisc = "fcfs" }
FQ = { qdisc = "fq" }
"#;

#[test]
fn several_protocols_share_a_gateway_and_the_line_stays_busy() {
    for pair in ["FCFS", "FQ"] {
        let r = run(MIXED, Some(pair), &[]);
        let total: f64 = r.flows.iter().map(|f| f.throughput_pps.unwrap().mean).sum();
        assert!((total - 7.0).abs() < 0.2, "{pair}: the 56 kb/s line carries 7 packets/s, got {total}");
        assert!(r.flows.iter().all(|f| f.transport == if f.name.starts_with('g') { "generic" } else { "jk" }));
    }
}

const DECBIT: &str = r#"
nodes = ["s1", "s2", "gw", "sink"]
[run]
duration = "600s"
warmup = "100s"
interval = "100s"
[links]
l1 = { between = ["s1", "gw"], rate = "10Mbps", delay = "20ms" }
l2 = { between = ["s2", "gw"], rate = "10Mbps", delay = "20ms" }
out = { between = ["gw", "sink"], rate = "1Mbps", delay = "30ms", buffer = 50 }
[flows]
f1 = { src = "s1", dst = "sink", app = "ftp", transport = { kind = "decbit", window = 40 } }
f2 = { src = "s2", dst = "sink", app = "ftp", transport = { kind = "decbit", window = 40 } }
[pairs]
"DEC/DEC" = { qdisc = "selective_decbit" }
"DEC/FCFS" = { qdisc = "fcfs" }
"#;

#[test]
fn decbit_sources_and_gateway_keep_the_queue_near_one_and_share_without_loss() {
    let r = run(DECBIT, Some("DEC/DEC"), &[]);
    let q = r.queues.iter().find(|q| q.port == "gw->sink").unwrap();
    // packets at the gateway: waiting ones plus the one on the line
    let in_system = q.occupancy_pkts.unwrap().mean + q.utilisation.unwrap().mean;
    assert!((0.8..2.0).contains(&in_system), "average queue {in_system}");
    assert!(q.utilisation.unwrap().mean > 0.9);
    assert_eq!(r.flows.iter().map(|f| f.run_totals.dropped).sum::<u64>(), 0);
    assert!(r.fairness.jain.unwrap() > 0.99, "{:?}", r.fairness);
    // without bits, the same sources fill the buffer and lose packets
    let fcfs = run(DECBIT, Some("DEC/FCFS"), &[]);
    assert!(fcfs.flows.iter().map(|f| f.run_totals.dropped).sum::<u64>() > 0);
}

#[test]
fn fqbit_gives_a_telnet_much_lower_delay_than_selective_decbit() {
    // the shape of the 1989 paper's DEC/DEC vs DEC/FQbit comparison: three FTPs and a Telnet
    let text = r#"
nodes = ["s1", "s2", "s3", "s4", "gw", "sink"]
[run]
duration = "2000s"
warmup = "500s"
[links]
l1 = { between = ["s1", "gw"], rate = "800kbps" }
l2 = { between = ["s2", "gw"], rate = "800kbps" }
l3 = { between = ["s3", "gw"], rate = "800kbps" }
l4 = { between = ["s4", "gw"], rate = "800kbps" }
out = { between = ["gw", "sink"], rate = "56kbps", buffer = 15 }
[flows]
f1 = { src = "s1", dst = "sink", app = "ftp" }
f2 = { src = "s2", dst = "sink", app = "ftp" }
f3 = { src = "s3", dst = "sink", app = "ftp" }
telnet = { src = "s4", dst = "sink", app = "telnet" }
[pairs]
"DEC/DEC" = { transport = "decbit", qdisc = "selective_decbit" }
"DEC/FQbit" = { transport = "decbit", qdisc = "fqbit" }
"#;
    let (dec, fqbit) = (run(text, Some("DEC/DEC"), &[]), run(text, Some("DEC/FQbit"), &[]));
    for r in [&dec, &fqbit] {
        assert_eq!(r.flows.iter().map(|f| f.run_totals.dropped).sum::<u64>(), 0, "{}", r.pair);
        let ftp: Vec<f64> = r.flows.iter().filter(|f| f.app == "ftp").map(|f| f.goodput_pps.unwrap().mean).collect();
        assert!(ftp.iter().all(|g| (g - ftp[0]).abs() < 0.05), "{}: {ftp:?}", r.pair);
    }
    let telnet = |r: &RunReport| flow(r, "telnet").rtt_mean_s.unwrap();
    assert!(telnet(&fqbit) < 0.5 * telnet(&dec), "Telnet RTT {} (FQbit) vs {} (DECbit)", telnet(&fqbit), telnet(&dec));
}

#[test]
fn packet_pair_probes_find_the_fair_share_behind_fair_queueing() {
    let text = r#"
nodes = ["a", "b", "c", "gw", "dst"]
[run]
duration = "200s"
warmup = "50s"
interval = "50s"
trace = ["p1", "p2"]
[links]
a = { between = ["a", "gw"], rate = "10Mbps", delay = "10ms" }
b = { between = ["b", "gw"], rate = "10Mbps", delay = "10ms" }
c = { between = ["c", "gw"], rate = "10Mbps", delay = "10ms" }
out = { between = ["gw", "dst"], rate = "1Mbps", delay = "20ms", buffer = 40 }
[flows]
p1 = { src = "a", dst = "dst", app = "ftp", transport = { kind = "pp", window = 20 } }
p2 = { src = "b", dst = "dst", app = "ftp", transport = { kind = "pp", window = 20 } }
g = { src = "c", dst = "dst", app = "ftp", transport = { kind = "generic", window = 20 } }
[pairs]
"PP/FQ" = { qdisc = "fq" }
"#;
    let r = run(text, None, &[]);
    let fair = 125.0 / 3.0; // packets/s: a third of 1 Mb/s in 1000-byte packets
    for f in ["p1", "p2"] {
        assert_eq!(flow(&r, f).totals.dropped, 0, "{f}: no loss once running (start-up may lose one)");
        assert!((flow(&r, f).goodput_pps.unwrap().mean - fair).abs() < 0.5, "{f}");
        let estimate = trace(&r, f, "rate_estimate").value.last().copied().unwrap();
        let rate = trace(&r, f, "rate").value.last().copied().unwrap();
        assert!((estimate - fair).abs() / fair < 0.02, "{f}: μ̂ = {estimate}");
        assert!((rate - fair).abs() / fair < 0.05, "{f}: λ = {rate}");
        // the window (20) is not what limits it: the control law holds it below
        let outstanding = trace(&r, f, "outstanding").value.last().copied().unwrap();
        assert!(outstanding < 15.0, "{f}: {outstanding} outstanding");
    }
}

#[test]
fn a_pair_with_a_lost_packet_is_no_probe() {
    // the second packet of pair after pair is lost: each pair's ACKs come back spaced by the
    // wait for the retransmission, which must not be taken for the line's rate
    let lost: Vec<String> = (201..300).step_by(2).map(|s| s.to_string()).collect();
    let qdisc = format!("links.out.qdisc={{ kind = \"loss_list\", flow = \"victim\", seqs = [{}] }}", lost.join(", "));
    let r = run(CHOSEN_LOSSES, None, &["flows.victim.transport={ kind = \"pp\", window = 20 }", &qdisc]);
    let line = 125.0; // packets/s of 1000 bytes on the 1 Mb/s line
    let estimates = trace(&r, "victim", "rate_estimate");
    let lowest = estimates.value.iter().skip(5).cloned().fold(f64::MAX, f64::min);
    assert!(lowest > line / 2.0, "the estimate fell to {lowest} packets/s");
    let rate = trace(&r, "victim", "rate").value.last().copied().unwrap();
    assert!((rate - line).abs() < 0.1 * line, "the rate ends at {rate} packets/s");
}

#[test]
fn packet_pair_with_per_packet_timers_resends_exactly_the_lost_packets() {
    // three single losses far apart: each packet's own timer (thesis §4.4) resends it once, and
    // no packet that arrived is sent again, whichever timers run
    let qdisc = "links.out.qdisc={ kind = \"loss_list\", flow = \"victim\", seqs = [200, 400, 600] }";
    for timers in ["per_packet", "single"] {
        let pp = format!("flows.victim.transport={{ kind = \"pp\", window = 20, timers = \"{timers}\" }}");
        let r = run(CHOSEN_LOSSES, None, &[&pp, qdisc]);
        let t = &flow(&r, "victim").run_totals;
        assert_eq!((t.dropped, t.retransmitted), (3, 3), "{timers}");
        assert_eq!(t.delivered, t.delivered_unique, "{timers}: no duplicates");
    }
}

#[test]
fn the_round_trip_from_first_transmission_counts_the_wait_for_a_retransmission() {
    // Generic with a window of 1: every packet's round trip is the same, except the lost one,
    // whose round trip from its first transmission includes the timeout (β·rtt ≈ 2 round trips)
    let sets = ["flows.victim.transport=generic", "flows.victim.window=1", "flows.victim.stop=20s"];
    let r = run(CHOSEN_LOSSES, None, &sets);
    let t = &flow(&r, "victim").run_totals;
    assert_eq!((t.dropped, t.retransmitted), (1, 1));
    assert_eq!(t.rtt_first_samples, t.delivered_unique, "one sample per packet");
    let per_tx = t.rtt_sum_ns as f64 / t.rtt_samples as f64;
    let extra = (t.rtt_first_sum_ns as f64 - per_tx * t.rtt_first_samples as f64) / per_tx;
    assert!((1.5..3.5).contains(&extra), "the lost packet waited {extra:.2} extra round trips");
    let clean = run(CHOSEN_LOSSES, None, &[&sets[..], &["links.out.qdisc=fcfs"]].concat());
    let t = &flow(&clean, "victim").run_totals;
    assert_eq!(t.rtt_first_sum_ns, t.rtt_sum_ns, "without loss the two round trips agree");
}

#[test]
fn rlm_joins_layers_up_to_what_its_path_carries_and_backs_off_above() {
    // layers of 32, 64, ... kb/s: five (992 kb/s) fit a 1.2 Mb/s line, six (2016 kb/s) do not
    let text = r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "900s"
warmup = "300s"
interval = "300s"
trace = ["video"]
[links]
in = { between = ["src", "gw"], rate = "100Mbps", delay = "1ms" }
out = { between = ["gw", "dst"], rate = "1.2Mbps", delay = "1ms", buffer = "64KB" }
[flows]
video = { src = "src", dst = "dst", app = "ftp", transport = "rlm" }
"#;
    let r = run(text, None, &[]);
    let rates = trace(&r, "video", "rate");
    let top = rates.value.iter().cloned().fold(0.0, f64::max);
    assert_eq!(top, 252.0, "it tries the sixth layer (252 packets/s) and no further");
    let goodput = flow(&r, "video").goodput_bps.unwrap().mean;
    assert!(goodput > 0.8e6 && goodput < 1.2e6, "it lives on five layers: {goodput} b/s");
    // a failed experiment doubles the join timer: the sixth layer is tried less and less often
    let tries: Vec<f64> = rates.t_s.iter().zip(&rates.value).filter(|(_, v)| **v == 252.0).map(|(t, _)| *t).collect();
    let gaps: Vec<f64> = tries.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.len() >= 2 && gaps.last().unwrap() > gaps.first().unwrap(), "join gaps {gaps:?}");
}
