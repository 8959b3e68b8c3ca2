//! Making ECMP's next-hop tables (`net::multipath::EqualCost`): a fat-tree's every ToR's table,
//! as a run whose traffic reaches every rack makes them, one at its first packet toward it. At
//! k = 64 they were most of a 20 µs permutation's run (docs/performance.md, "A k = 64 fat-tree").
//! `cargo bench -p fairsim --bench ecmp_tables`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use fairsim::net::multipath::EqualCost;
use fairsim::net::NodeId;
use std::time::Duration;

/// A k-ary fat-tree's nodes and ports (hosts, then ToRs, aggregation and core switches; both
/// directions of each link), and its ToRs.
fn fat_tree(k: u32) -> (usize, Vec<(NodeId, NodeId)>, Vec<NodeId>) {
    let (hosts, per_pod) = (k * k * k / 4, k / 2);
    let (tor, agg, core) = (hosts, hosts + k * per_pod, hosts + 2 * k * per_pod);
    let mut links = vec![];
    links.extend((0..hosts).map(|h| (h, tor + h / per_pod)));
    for pod in 0..k {
        for i in 0..per_pod {
            for j in 0..per_pod {
                links.push((tor + pod * per_pod + i, agg + pod * per_pod + j));
                links.push((agg + pod * per_pod + i, core + i * per_pod + j));
            }
        }
    }
    let ends = links.iter().flat_map(|&(a, b)| [(NodeId(a), NodeId(b)), (NodeId(b), NodeId(a))]).collect();
    (core as usize + (per_pod * per_pod) as usize, ends, (tor..agg).map(NodeId).collect())
}

fn tables(c: &mut Criterion) {
    let mut group = c.benchmark_group("ecmp_tables");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    let k = 32;
    let (nodes, ends, tors) = fat_tree(k);
    // the first aggregation switch asks the way to each rack's first host: a table per ToR
    let (agg, first_host) = (tors[tors.len() - 1].0 + 1, |tor: NodeId| NodeId((tor.0 - tors[0].0) * k / 2));
    group.bench_function("fat-tree-k32/every-tor", |b| {
        b.iter_batched(
            || EqualCost::new(nodes, &ends),
            |mut paths| tors.iter().map(|&t| paths.choices(NodeId(agg), first_host(t)).len()).sum::<usize>(),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, tables);
criterion_main!(benches);
