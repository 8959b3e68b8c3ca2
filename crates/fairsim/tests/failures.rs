//! Links that fail, come back and change rate (`[[events]]`) in whole runs: what a failed link
//! loses is counted, forwarding stops using it exactly when it learns of the failure and uses it
//! again once it learns it is back, a new rate is the line's rate, and the resolved scenario
//! repeats the run.

mod common;

use common::{parse, simulate};
use fairsim::stats::PortCounters;
use fairsim::{RunReport, Scenario, Simulation};

/// A CBR at 8 Mb/s over a 10 Mb/s line, and a NewReno FTP beside it (ACKs the other way), in
/// intervals of 100 ms; `events` after the flows.
fn line(events: &str) -> String {
    format!(
        r#"
nodes = ["a", "gw", "b"]
[run]
duration = "3s"
interval = "100ms"
[links]
in = {{ between = ["a", "gw"], rate = "100Mbps", delay = "1ms" }}
out = {{ between = ["gw", "b"], rate = "10Mbps", delay = "5ms", buffer = 100 }}
[flows]
cbr = {{ src = "a", dst = "b", app = "cbr", rate = "8Mbps", acks = false }}
bulk = {{ src = "a", dst = "b", app = "ftp", transport = "newreno", window = 20 }}
{events}"#
    )
}

fn port<'a>(r: &'a RunReport, name: &str) -> &'a PortCounters {
    &r.queues.iter().find(|q| q.port == name).unwrap_or_else(|| panic!("no port {name}")).totals
}

/// Port `name`'s counters in each interval.
fn by_interval<'a>(r: &'a RunReport, name: &str) -> Vec<&'a PortCounters> {
    r.queue_intervals.iter().filter(|q| q.port == name).map(|q| &q.counters).collect()
}

/// Every packet sent is delivered, dropped or still in the network; every drop of a flow is at
/// a port, in its drops or link_down.
fn conserved(r: &RunReport) {
    for f in &r.flows {
        let t = &f.run_totals;
        assert_eq!(t.sent, t.delivered + t.dropped + f.in_network, "{}", f.name);
        assert_eq!(f.drops.iter().map(|d| d.count).sum::<u64>(), t.dropped, "{}", f.name);
    }
    let at_ports: u64 =
        r.queue_intervals.iter().map(|q| q.counters.drops + q.counters.rare.losses + q.counters.rare.link_down).sum();
    let of_flows: u64 = r.flows.iter().map(|f| f.run_totals.dropped + f.run_totals.acks_dropped).sum();
    assert_eq!(at_ports, of_flows);
}

#[test]
fn a_link_that_fails_loses_what_is_on_it_and_what_comes_to_it_and_counts_every_packet() {
    let r = simulate(&parse(&line("[[events]]\nat = \"1s\"\nlink = \"out\"\naction = \"down\"\n[[events]]\nat = \"2s\"\nlink = \"out\"\naction = \"up\"\n")), None, None);
    conserved(&r);
    let out = by_interval(&r, "gw->b");
    // the CBR's 1,000 packets a second (100 an interval) come to the dead line for a second:
    // every one lost
    let lost: u64 = out[10..20].iter().map(|c| c.rare.link_down).sum();
    assert!(lost > 900, "{lost} lost while down");
    assert!(out[10..20].iter().all(|c| c.departures == 0 && c.drops == 0), "nothing sent or dropped by the queue");
    assert!(out[..10].iter().chain(&out[20..]).all(|c| c.rare.link_down == 0), "nothing lost while up");
    assert!(out[21..].iter().all(|c| c.departures >= 100), "the line carries the CBR again once it is back");
    let cbr = &r.flows[0];
    let link_down: u64 = cbr.drops.iter().filter(|d| d.reason == "link_down").map(|d| d.count).sum();
    assert_eq!(link_down, cbr.run_totals.dropped, "the CBR loses only to the failure");
    assert!(cbr.drops.iter().all(|d| d.queue == "gw->b"));
    // the other direction failed too: the FTP's ACKs in flight back were lost there
    assert!(port(&r, "b->gw").rare.link_down <= 20, "at most a window of ACKs");
    assert_eq!(
        port(&r, "gw->b").rare.link_down + port(&r, "b->gw").rare.link_down,
        r.flows.iter().map(|f| f.run_totals.dropped + f.run_totals.acks_dropped).sum::<u64>()
    );
    assert!(r.flows[1].run_totals.timeouts > 0, "the FTP waits for the line to come back");
    assert_eq!(r.network_events.len(), 2);
    assert_eq!(r.network_events[0].ports, ["gw->b", "b->gw"]);
}

#[test]
fn one_direction_fails_alone_and_a_node_takes_all_its_links() {
    let one = simulate(&parse(&line("[[events]]\nat = \"1s\"\nport = \"b->gw\"\naction = \"down\"\n")), None, None);
    assert_eq!(port(&one, "gw->b").rare.link_down, 0, "the data direction still works");
    assert!(port(&one, "b->gw").rare.link_down > 0, "the ACKs are lost");
    conserved(&one);
    let node = simulate(&parse(&line("[[events]]\nat = \"1s\"\nnode = \"gw\"\naction = \"down\"\n")), None, None);
    assert!(port(&node, "a->gw").rare.link_down > 900, "the sources' own line is the gateway's too");
    let after = |name: &str| by_interval(&node, name)[10..].iter().map(|c| c.departures).sum::<u64>();
    assert_eq!(["a->gw", "gw->a", "gw->b", "b->gw"].map(after), [0; 4], "none of its lines sends");
    conserved(&node);
}

/// A diamond, h0 – s1 – {s2, s3} – s4 – h5, with `n` CBR flows from h0 to h5 under ECMP (about
/// half of them hashed over s2), 1 Gb/s lines, intervals of 100 µs; `events` after the flows.
fn diamond(events: &str) -> String {
    let flows: String = (0..16)
        .map(|i| format!("c{i} = {{ src = \"h0\", dst = \"h5\", app = \"cbr\", rate = \"20Mbps\", packet_size = \"125B\", acks = false }}\n"))
        .collect();
    format!(
        r#"
nodes = ["h0", "s1", "s2", "s3", "s4", "h5"]
[run]
duration = "4ms"
interval = "100us"
forwarding = "ecmp"
failure_detection = "500us"
[links]
up = {{ between = ["h0", "s1"], rate = "1Gbps" }}
a = {{ between = ["s1", "s2"], rate = "1Gbps", delay = "10us" }}
b = {{ between = ["s1", "s3"], rate = "1Gbps", delay = "10us" }}
c = {{ between = ["s2", "s4"], rate = "1Gbps", delay = "10us" }}
d = {{ between = ["s3", "s4"], rate = "1Gbps", delay = "10us" }}
down = {{ between = ["s4", "h5"], rate = "1Gbps" }}
[flows]
{flows}{events}"#
    )
}

#[test]
fn ecmp_stops_sending_to_a_failed_link_exactly_when_it_learns_and_uses_it_again_once_back() {
    let events = "[[events]]\nat = \"1ms\"\nlink = \"a\"\naction = \"down\"\n[[events]]\nat = \"2ms\"\nlink = \"a\"\naction = \"up\"\n";
    let r = simulate(&parse(&diamond(events)), None, None);
    conserved(&r);
    let a = by_interval(&r, "s1->s2");
    let b = by_interval(&r, "s1->s3");
    // intervals of 100 µs: failed at 1 ms (interval 10), learnt at 1.5 ms (15), back at 2 ms
    // (20), learnt at 2.5 ms (25)
    assert!(a[..10].iter().all(|c| c.departures > 0 && c.rare.link_down == 0), "ECMP uses both ways");
    assert!(a[10..15].iter().all(|c| c.rare.link_down > 0 && c.departures == 0), "lost until forwarding learns");
    assert!(a[15..25].iter().all(|c| c.arrivals == 0), "forwarding avoids it from the instant it learns");
    assert!(a[25..].iter().all(|c| c.departures > 0), "and uses it again once it learns it is back");
    let (before, avoiding) = (b[5].departures, b[17].departures);
    assert!(avoiding > before, "the flows move to the other way: {before} then {avoiding}");
    // nothing lost once forwarding knows
    let lost_after: u64 =
        r.queue_intervals.iter().filter(|q| q.interval >= 15).map(|q| q.counters.rare.link_down).sum();
    assert_eq!(lost_after, 0);
}

#[test]
fn a_failure_shorter_than_its_detection_goes_unnoticed_by_forwarding() {
    // down for 200 µs, detected after 500: forwarding never moves the flows
    let events = "[[events]]\nat = \"1ms\"\nlink = \"a\"\naction = \"down\"\n[[events]]\nat = \"1.2ms\"\nlink = \"a\"\naction = \"up\"\n";
    let r = simulate(&parse(&diamond(events)), None, None);
    let a = by_interval(&r, "s1->s2");
    assert!(a[10..12].iter().all(|c| c.rare.link_down > 0));
    assert!(a[12..].iter().all(|c| c.departures > 0 && c.rare.link_down == 0), "used throughout");
    conserved(&r);
}

#[test]
fn a_destination_no_way_reaches_loses_its_packets_at_the_failed_link_without_stopping_the_run() {
    // both ways down: after detection the switches have no way, and keep sending the way they had
    let events = "[[events]]\nat = \"1ms\"\nnode = \"s4\"\naction = \"down\"\n";
    let mut sim = Simulation::new(&parse(&diamond(events)), None, None).unwrap();
    sim.run();
    let r = sim.report();
    assert!(r.complete);
    conserved(&r);
    let lost: u64 = ["s2->s4", "s3->s4"].iter().map(|p| port(&r, p).rare.link_down).sum();
    // 16 flows of 20 packets a millisecond, for 3 ms: every one lost but those still on their way
    assert!((16 * 20 * 3 - 32..=16 * 20 * 3 + 32).contains(&lost), "{lost}");
}

#[test]
fn a_new_rate_is_the_lines_rate_from_then_on() {
    let slower = simulate(
        &parse(&line("[[events]]\nat = \"1s\"\nport = \"gw->b\"\naction = \"rate\"\nrate = \"5Mbps\"\n")),
        None,
        None,
    );
    conserved(&slower);
    let out = by_interval(&slower, "gw->b");
    let bits = |c: &PortCounters| c.bytes_sent as f64 * 8.0 / 0.1;
    // saturated both before (8 Mb/s of CBR and the FTP on 10 Mb/s) and after (on 5 Mb/s)
    assert!(out[5..10].iter().all(|c| bits(c) > 9.5e6), "{:?}", out[5..10].iter().map(|c| bits(c)).collect::<Vec<_>>());
    assert!(
        out[11..].iter().all(|c| (bits(c) - 5e6).abs() < 0.1e6),
        "{:?}",
        out[11..].iter().map(|c| bits(c)).collect::<Vec<_>>()
    );
    assert!(port(&slower, "gw->b").drops > 0, "8 Mb/s into 5: the queue overflows");
    assert_eq!(slower.queues.iter().find(|q| q.port == "gw->b").unwrap().rate_bps, 10_000_000, "the rate as built");
}

#[test]
fn a_rate_set_to_what_it_was_changes_nothing() {
    let plain = simulate(&parse(&line("")), None, None);
    let same = simulate(
        &parse(&line("[[events]]\nat = \"1s\"\nlink = \"out\"\naction = \"rate\"\nrate = \"10Mbps\"\n")),
        None,
        None,
    );
    let numbers =
        |r: &RunReport| (serde_json::to_string(&r.flows).unwrap(), serde_json::to_string(&r.queue_intervals).unwrap());
    assert_eq!(numbers(&plain), numbers(&same));
}

#[test]
fn a_static_route_through_a_failed_link_loses_until_the_link_is_back() {
    // the flows here are static: forwarding learning of the failure changes nothing for them
    let r = simulate(
        &parse(
            &diamond("[[events]]\nat = \"1ms\"\nlink = \"a\"\naction = \"down\"\n")
                .replace("forwarding = \"ecmp\"", ""),
        ),
        None,
        None,
    );
    let a = by_interval(&r, "s1->s2");
    assert!(a[10..].iter().all(|c| c.rare.link_down > 0), "every flow takes s2, the first way: lost to the end");
    conserved(&r);
}

#[test]
fn a_run_with_events_repeats_from_its_resolved_scenario() {
    let sc = parse(&diamond("[[events]]\nat = \"1ms\"\nlink = \"a\"\naction = \"down\"\ndetection = \"200us\"\n[[events]]\nat = \"3ms\"\nport = \"s1->s3\"\naction = \"rate\"\nrate = \"500Mbps\"\n"));
    let text = sc.resolved_toml("default", 1).unwrap();
    assert!(text.contains("[[events]]"), "{text}");
    let again = Scenario::parse(&text, "resolved.toml", &[]).unwrap();
    assert_eq!(again.events, sc.events);
    let fingerprint = |mut r: RunReport| {
        r.wall_s = 0.0;
        r.scenario.clear();
        serde_json::to_string(&r).unwrap()
    };
    assert_eq!(fingerprint(simulate(&again, None, Some(1))), fingerprint(simulate(&sc, None, Some(1))));
}

#[test]
fn the_event_trace_of_a_failed_port_shows_every_arrival_and_loss_and_no_reception_of_a_cut_packet() {
    let events = "[[events]]\nat = \"1.0005s\"\nlink = \"out\"\naction = \"down\"\n[[events]]\nat = \"2s\"\nlink = \"out\"\naction = \"up\"\n";
    let text = line(events).replace("interval = \"100ms\"", "interval = \"100ms\"\nevents = [\"gw->b\"]");
    let mut sim = Simulation::new(&parse(&text), None, None).unwrap();
    sim.run();
    let r = sim.report();
    let (_, trace) = sim.event_traces().into_iter().next().unwrap();
    let lines: Vec<&str> = trace.lines().filter(|l| !l.starts_with('#')).collect();
    let count = |letter: &str| lines.iter().filter(|l| l.starts_with(letter)).count() as u64;
    let out = port(&r, "gw->b");
    assert_eq!(count("+ "), out.arrivals);
    assert_eq!(count("d "), out.drops + out.rare.losses + out.rare.link_down);
    let link_down: Vec<&&str> = lines.iter().filter(|l| l.ends_with(" link_down")).collect();
    assert_eq!(link_down.len() as u64, out.rare.link_down);
    // the packet on the line at 1.0005 s (sent from 1.0000 s, 8 kbit at 10 Mb/s: 0.8 ms) is cut
    let cut = link_down.first().unwrap();
    assert!(cut.starts_with("d 1.000500000 "), "{cut}");
    let (seq, flow) = (cut.split(' ').nth(5).unwrap(), cut.split(' ').nth(2).unwrap());
    let received = lines.iter().any(|l| {
        l.starts_with("r ")
            && l.split(' ').nth(2) == Some(flow)
            && l.split(' ').nth(5) == Some(seq)
            && l.contains(" 1.00")
    });
    assert!(!received, "a cut packet never reaches the far end");
}
