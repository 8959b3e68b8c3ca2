//! Per-packet cost of each queueing discipline: one enqueue plus one dequeue at steady state,
//! with 10 to 100,000 backlogged conversations (two packets queued in each). CSFQ's core
//! (packets arrive labeled, no per-flow state) against its edge, DRR and FQ is the point of the
//! CSFQ paper; RED and FRED are its other comparisons.
//!
//! Run: `cargo bench -p fairsim --bench qdisc_ops` (about a minute). Numbers in
//! docs/performance.md. The discipline is driven directly, without a network around it.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fairsim::net::{FlowId, NodeId, Packet, PacketKind};
use fairsim::params::Params;
use fairsim::qdisc::{self, FlowMeta, PortInfo, QdiscCtx};
use fairsim::rng::LazyStream;
use fairsim::units::{BufferLimit, Rate, Time};
use std::time::Duration;

const SIZES: [usize; 5] = [10, 100, 1_000, 10_000, 100_000];

/// (label, discipline, parameters)
fn disciplines() -> Vec<(&'static str, &'static str, Params)> {
    let largest_bid = |s: &str| -> Params {
        toml::from_str(&format!("drop = \"largest_bid\"\nbuffer = \"{s}\"\ncharge_drops = false")).unwrap()
    };
    vec![
        ("fcfs", "fcfs", Params::new()),
        ("fq", "fq", Params::new()),
        ("fq-list", "fq", largest_bid("list")),
        ("fq-tree", "fq", largest_bid("tree")),
        ("fq-double_heap", "fq", largest_bid("double_heap")),
        ("scfq", "scfq", Params::new()),
        ("virtual_clock", "virtual_clock", Params::new()),
        ("wf2qplus", "wf2qplus", Params::new()),
        ("drr", "drr", Params::new()),
        ("drr-tail", "drr", toml::from_str("drop = \"tail\"").unwrap()),
        ("sfq", "sfq", Params::new()),
        ("nagle", "nagle", Params::new()),
        ("csfq-core", "csfq", toml::from_str("role = \"core\"").unwrap()),
        ("csfq-edge", "csfq", toml::from_str("role = \"edge\"").unwrap()),
        ("red", "red", toml::from_str("min_th = 1_000_000\nmax_th = 2_000_000").unwrap()),
        ("fred", "fred", toml::from_str("min_th = 1_000_000\nmax_th = 2_000_000").unwrap()),
    ]
}

fn port(n: usize) -> PortInfo {
    let flows: Vec<FlowMeta> = (0..n)
        .map(|i| FlowMeta { name: format!("f{i}"), src: NodeId(0), dst: NodeId(1), weight: 1.0, packet_size: 1000 })
        .collect();
    let crossing = (0..n).map(|i| (FlowId(i as u32), PacketKind::Data)).collect();
    PortInfo {
        name: "a->b".into(),
        nodes: ["n0", "n1"].map(String::from).into(),
        buffer: BufferLimit::Unlimited,
        rate: Rate(10_000_000_000),
        flows: flows.into(),
        crossing,
        exact_crossing: false,
    }
}

/// A 1000-byte packet of `flow`, labeled with a rate as a CSFQ edge would have (a core reads
/// the label; the other disciplines ignore it).
fn packet(flow: usize, seq: u64) -> Packet {
    Packet {
        id: seq,
        flow: FlowId(flow as u32),
        seq,
        size: 1000,
        dst: NodeId(1),
        label: 1e5,
        ..fairsim::net::Packet::blank()
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("enqueue+dequeue");
    group.sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
    for (label, kind, params) in disciplines() {
        for n in SIZES {
            let info = port(n);
            let (mut q, _) = qdisc::find(kind).unwrap().build(&params, &info).unwrap();
            let mut rng = LazyStream::new(1, "bench");
            let (mut drops, mut marks, mut pool) = (vec![], 0u64, fairsim::net::PacketPool::standalone());
            // one 1000-byte packet takes 800 ns at 10 Gb/s
            let mut now = Time::ZERO;
            let mut seq = 0u64;
            for round in 0..2 {
                for f in 0..n {
                    let mut ctx = QdiscCtx::new(now, info.rate, &mut rng, &mut drops, &mut marks, &mut pool);
                    q.enqueue(packet(f, round * n as u64 + f as u64), &mut ctx);
                }
            }
            group.bench_with_input(BenchmarkId::new(label, n), &n, |b, &n| {
                b.iter(|| {
                    now += Time(800);
                    seq += 1;
                    let mut ctx = QdiscCtx::new(now, info.rate, &mut rng, &mut drops, &mut marks, &mut pool);
                    q.enqueue(packet(seq as usize % n, seq), &mut ctx);
                    std::hint::black_box(q.dequeue(&mut ctx));
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
