//! The fairness claims of the fair-queueing family, on whole runs.

mod common;

use common::flow;
use fairsim::RunReport;

fn run(text: &str, pair: &str) -> RunReport {
    common::run(text, Some(pair), &[])
}

fn goodput_mbps(r: &RunReport, name: &str) -> f64 {
    flow(r, name).goodput_bps.unwrap().mean / 1e6
}

/// Four open-loop flows asking 1, 2, 4 and 8 Mb/s of a 10 Mb/s line.
fn max_min_scenario(weights: [f64; 4], rates: [&str; 4]) -> String {
    let mut s = String::from(
        r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "40s"
warmup = "10s"
[links]
in = { between = ["src", "gw"], rate = "1Gbps" }
out = { between = ["gw", "dst"], rate = "10Mbps", buffer = 60 }
[flows]
"#,
    );
    for (i, (w, r)) in weights.iter().zip(rates).enumerate() {
        s += &format!(
            "f{i} = {{ src = \"src\", dst = \"dst\", app = \"cbr\", rate = \"{r}\", jitter = 0.5, weight = {w:.1} }}\n"
        );
    }
    s += "[pairs]\n";
    for q in ["fcfs", "fq", "wfq", "scfq", "wf2qplus", "drr", "virtual_clock", "nagle", "sfq"] {
        s += &format!("\"{q}\" = {{ qdisc = \"{q}\" }}\n");
    }
    s += "\"fq uncharged\" = { qdisc = { kind = \"fq\", charge_drops = false } }\n";
    s += "\"csfq\" = { qdisc = \"csfq\" }\n\"red\" = { qdisc = \"red\" }\n";
    s += "\"csfq byte labels\" = { qdisc = { kind = \"csfq\", label_format = \"byte\" } }\n";
    s
}

#[test]
fn csfq_approximates_max_min_and_weighted_shares_without_per_flow_queues() {
    // the CSFQ paper (§3.1) finds every flow within −11%…+5% of its share
    let text = max_min_scenario([1.0; 4], ["1Mbps", "2Mbps", "4Mbps", "8Mbps"]);
    // labels carried in the paper's 8-bit float (§2.7) keep the shares as well
    for pair in ["csfq", "csfq byte labels"] {
        let r = run(&text, pair);
        for (i, want) in [1.0, 2.0, 3.5, 3.5].iter().enumerate() {
            let got = goodput_mbps(&r, &format!("f{i}"));
            assert!(got > 0.89 * want && got < 1.05 * want, "{pair}: f{i} got {got:.3} Mb/s, fair share {want}");
        }
    }
    let unequal = text;
    let text = max_min_scenario([1.0, 2.0, 3.0, 4.0], ["10Mbps"; 4]);
    let r = run(&text, "csfq");
    for i in 0..4 {
        let (got, want) = (goodput_mbps(&r, &format!("f{i}")), (i + 1) as f64);
        assert!((got - want).abs() / want < 0.11, "weighted csfq: f{i} got {got:.3} Mb/s, share {want}");
    }
    // RED, for contrast, gives in proportion to demand
    let r = run(&unequal, "red");
    assert!(goodput_mbps(&r, "f3") > 4.5, "RED gives the 8 Mb/s flow {}", goodput_mbps(&r, "f3"));
}

#[test]
fn each_flow_gets_the_smaller_of_its_demand_and_the_fair_share() {
    let text = max_min_scenario([1.0; 4], ["1Mbps", "2Mbps", "4Mbps", "8Mbps"]);
    let fair = [1.0, 2.0, 3.5, 3.5];
    for q in ["fq uncharged", "wfq", "scfq", "wf2qplus", "drr", "virtual_clock", "nagle", "sfq"] {
        let r = run(&text, q);
        for (i, want) in fair.iter().enumerate() {
            let got = goodput_mbps(&r, &format!("f{i}"));
            assert!((got - want).abs() / want < 0.03, "{q}: f{i} got {got:.3} Mb/s, max-min fair share {want}");
        }
        assert!(r.fairness.jain.unwrap() > 0.999, "{q}: {:?}", r.fairness);
    }
    // FCFS, for contrast, gives in proportion to demand
    let r = run(&text, "fcfs");
    assert!(goodput_mbps(&r, "f3") > 4.5, "FCFS lets the heaviest flow take more than its share");
    // the 1989 paper's FQ charges the flows that overflow the buffer: the 8 Mb/s flow ends up
    // below its fair share, and the 4 Mb/s flow, which overflows less, gets what it asks
    let r = run(&text, "fq");
    assert!(goodput_mbps(&r, "f3") < 3.0, "charged: {}", goodput_mbps(&r, "f3"));
    assert!(goodput_mbps(&r, "f2") > 3.9, "charged: {}", goodput_mbps(&r, "f2"));
}

#[test]
fn weights_give_proportional_shares() {
    let text = max_min_scenario([1.0, 2.0, 3.0, 4.0], ["10Mbps"; 4]);
    for q in ["wfq", "scfq", "wf2qplus", "drr", "virtual_clock"] {
        let r = run(&text, q);
        for i in 0..4 {
            let (got, want) = (goodput_mbps(&r, &format!("f{i}")), (i + 1) as f64);
            assert!((got - want).abs() / want < 0.03, "{q}: f{i} got {got:.3} Mb/s, weighted share {want}");
        }
    }
}

#[test]
fn fq_is_a_firewall_against_an_ill_behaved_source() {
    let pps = |r: &RunReport, f: &str| r.flows.iter().find(|x| x.name == f).unwrap().goodput_pps.unwrap().mean;
    let rtt = |r: &RunReport, f: &str| r.flows.iter().find(|x| x.name == f).unwrap().rtt_mean_s;
    // the bundled example of the 1989 paper's Scenario 3 shape: an FTP and a Telnet against a
    // source at twice the 56 kb/s line rate, buffer 20, Generic flow control (window 5)
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples/firewall.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let (fcfs, fq, uncharged) = (run(&text, "G/FCFS"), run(&text, "G/FQ"), run(&text, "G/WFQ"));
    // 56 kb/s = 7 packets/s of 1000 bytes. FCFS: the firehose takes nearly all of it.
    assert!(
        pps(&fcfs, "bad") > 6.0 && pps(&fcfs, "ftp") < 1.0,
        "FCFS: bad {} ftp {}",
        pps(&fcfs, "bad"),
        pps(&fcfs, "ftp")
    );
    // FQ, charging drops as the paper does: the firehose gets almost nothing, the FTP the rest
    assert!(pps(&fq, "bad") < 0.1, "charged firehose: {}", pps(&fq, "bad"));
    assert!(pps(&fq, "ftp") > 6.5, "FTP under FQ: {}", pps(&fq, "ftp"));
    // without charging, the firehose is held to about its fair share: half the line
    let bad = pps(&uncharged, "bad");
    assert!((3.0..=3.6).contains(&bad), "uncharged firehose: {bad} packets/s of a 7 packets/s line");
    // the Telnet: prompt under FQ (a tenth of a second, the paper's .080 s), while under FCFS
    // it is shut out or waits seconds behind the full buffer
    let telnet_fq = rtt(&fq, "telnet").unwrap();
    assert!(telnet_fq < 0.15, "Telnet RTT under FQ: {telnet_fq}");
    match rtt(&fcfs, "telnet") {
        Some(t) => assert!(t > 10.0 * telnet_fq, "Telnet RTT {telnet_fq} (FQ) vs {t} (FCFS)"),
        None => assert!(pps(&fcfs, "telnet") < 0.1 * pps(&fq, "telnet")),
    }
}

#[test]
fn delta_helps_a_sparse_conversation_but_leaves_long_run_shares_alone() {
    let text = |delta: &str| {
        format!(
            r#"
nodes = ["src", "gw", "dst"]
[run]
duration = "300s"
warmup = "20s"
[links]
in = {{ between = ["src", "gw"], rate = "100Mbps" }}
out = {{ between = ["gw", "dst"], rate = "1Mbps", buffer = 100 }}
[flows]
a = {{ src = "src", dst = "dst", app = "cbr", rate = "600kbps", jitter = 0.5 }}
b = {{ src = "src", dst = "dst", app = "cbr", rate = "600kbps", jitter = 0.5 }}
c = {{ src = "src", dst = "dst", app = "cbr", rate = "600kbps", jitter = 0.5 }}
sparse = {{ src = "src", dst = "dst", app = "poisson", mean_gap = "500ms", packet_size = "1000B" }}
[pairs]
fq = {{ qdisc = {{ kind = "fq", delta = "{delta}", charge_drops = false }} }}
"#
        )
    };
    let (r0, r1) = (run(&text("0B"), "fq"), run(&text("1000B"), "fq"));
    for f in ["a", "b", "c"] {
        let (g0, g1) = (goodput_mbps(&r0, f), goodput_mbps(&r1, f));
        assert!((g0 - g1).abs() / g0 < 0.01, "{f}: {g0} vs {g1}");
    }
    let delay = |r: &RunReport| r.flows.iter().find(|x| x.name == "sparse").unwrap().delay_s.unwrap().mean;
    assert!(delay(&r1) < 0.8 * delay(&r0), "sparse delay {} (δ = P) vs {} (δ = 0)", delay(&r1), delay(&r0));
}

#[test]
fn fq_departures_stay_within_one_packet_time_of_gps_and_fcfs_do_not() {
    let text = r#"
nodes = ["a", "b", "gw", "dst"]
[run]
duration = "60s"
warmup = "5s"
fluid_reference = ["gw->dst"]
[links]
a = { between = ["a", "gw"], rate = "10Mbps" }
b = { between = ["b", "gw"], rate = "10Mbps" }
out = { between = ["gw", "dst"], rate = "1Mbps", delay = "5ms" }
[flows]
bulk1 = { src = "a", dst = "dst", app = "ftp", window = 30 }
bulk2 = { src = "a", dst = "dst", app = "ftp", window = 10 }
small = { src = "b", dst = "dst", app = "ftp", window = 2, packet_size = "200B" }
voice = { src = "b", dst = "dst", app = "cbr", rate = "64kbps", packet_size = "160B" }
[pairs]
fq = { qdisc = "fq" }
wf2q = { qdisc = "wf2qplus" }
fcfs = { qdisc = "fcfs" }
"#;
    let packet_time = 1000.0 * 8.0 / 1e6; // the largest packet on the 1 Mb/s line
    for (pair, bounded) in [("fq", true), ("wf2q", true), ("fcfs", false)] {
        let r = run(text, pair);
        assert_eq!(
            r.flows.iter().map(|f| f.run_totals.dropped).sum::<u64>(),
            0,
            "no drops, so GPS sees the same traffic"
        );
        let port = &r.fluid[0];
        assert_eq!(port.port, "gw->dst");
        let worst = port.flows.iter().filter(|f| f.kind == "data").map(|f| f.max_lag_s).fold(f64::MIN, f64::max);
        if bounded {
            assert!(worst <= packet_time * 1.0001, "{pair}: a packet left {worst} s after GPS would have finished it");
        } else {
            assert!(worst > 5.0 * packet_time, "{pair}: FCFS lags GPS by much more: {worst}");
        }
    }
}
