use super::*;
use crate::qdisc::replay::replay;
use crate::qdisc::testing::{pkt, port};
use crate::units::{Rate, Time};

fn fq(cfg: FqConfig, buffer: BufferLimit, flows: usize) -> Fq {
    Fq::new(cfg, &port(buffer, &vec![(0, 1); flows])).unwrap()
}

fn order(r: &crate::qdisc::replay::Replay) -> Vec<(u32, u64)> {
    r.sent.iter().map(|(_, _, p)| (p.flow.0, p.seq)).collect()
}

const RATE: Rate = Rate(8_000_000); // one byte per microsecond

#[test]
fn serves_in_finish_number_order_so_short_packets_are_not_penalised() {
    // at t = 0: conversation 0 queues three 1000-byte packets, conversation 1 three of 500
    let mut q = fq(FqConfig::default(), BufferLimit::Unlimited, 2);
    let mut arrivals = vec![];
    for s in 0..3 {
        arrivals.push((Time::ZERO, pkt(0, s, 1000)));
        arrivals.push((Time::ZERO, pkt(1, s, 500)));
    }
    // finish numbers (bits): flow 0: 8000, 16000, 24000; flow 1: 4000, 8000, 12000
    let r = replay(&mut q, RATE, &arrivals);
    assert_eq!(order(&r), vec![(1, 0), (0, 0), (1, 1), (1, 2), (0, 1), (0, 2)]);
}

#[test]
fn a_new_conversation_starts_at_the_current_round() {
    // conversation 0 is backlogged; conversation 1 sends one packet later and is served after
    // at most one packet of conversation 0 (its finish number is R + P, not 0 + P)
    let mut q = fq(FqConfig::default(), BufferLimit::Unlimited, 2);
    let mut arrivals: Vec<_> = (0..10).map(|s| (Time::ZERO, pkt(0, s, 1000))).collect();
    arrivals.push((Time(5_500_000), pkt(1, 0, 1000))); // during the 6th transmission
    let r = replay(&mut q, RATE, &arrivals);
    let pos = order(&r).iter().position(|&(f, _)| f == 1).unwrap();
    assert_eq!(pos, 6, "{:?}", order(&r));
}

#[test]
fn overflow_drops_the_last_packet_of_the_longest_conversation() {
    let mut q = fq(FqConfig::default(), BufferLimit::Packets(4), 3);
    let arrivals = [
        (Time::ZERO, pkt(0, 0, 100)),
        (Time::ZERO, pkt(0, 1, 100)),
        (Time::ZERO, pkt(0, 2, 100)),
        (Time::ZERO, pkt(1, 0, 100)),
        (Time::ZERO, pkt(2, 0, 100)), // buffer of 4 overflows: flow 0 is longest, its seq 2 goes
        (Time::ZERO, pkt(1, 1, 100)), // again: flows 0 and 1 hold 2 each... 0 has 2, 1 has 2: tie → the arriving one's
    ];
    let r = replay(&mut q, Rate(1), &arrivals[..0]); // nothing sent yet: drive by hand below
    assert!(r.sent.is_empty());
    let (_, drops) = crate::qdisc::testing::with_ctx(|ctx| {
        for (_, p) in arrivals {
            q.enqueue(p, ctx);
        }
    });
    let dropped: Vec<_> = drops.iter().map(|(p, r)| (p.flow.0, p.seq, *r)).collect();
    assert_eq!(dropped, vec![(0, 2, DropReason::LongestQueue), (1, 1, DropReason::LongestQueue)]);
    assert_eq!(q.len_packets(), 4);
}

#[test]
fn dropped_packets_are_charged_or_not_as_configured() {
    // a flood of 21 packets into 5 buffers, nothing sent: charged, the flooding conversation's
    // finish number counts all 21 packets; uncharged, only the 5 kept
    for (charge, packets_counted) in [(true, 21.0), (false, 5.0)] {
        let cfg = FqConfig { charge_drops: charge, ..Default::default() };
        let mut q = fq(cfg, BufferLimit::Packets(5), 1);
        let (_, drops) = crate::qdisc::testing::with_ctx(|ctx| {
            for s in 0..20 {
                q.enqueue(pkt(0, s, 1000), ctx);
            }
        });
        assert_eq!(drops.len(), 15);
        let (_, drops) = crate::qdisc::testing::with_ctx(|ctx| q.enqueue(pkt(0, 20, 1000), ctx));
        assert_eq!(drops.len(), 1, "the buffer is still full");
        assert_eq!(q.round.last_finish(0), packets_counted * 8000.0, "charge_drops = {charge}");
    }
}

/// DKS 1989 §2.3 and Figure 1 at ρ → 0: one Telnet packet of the FTPs' size P reaches a
/// gateway where N = 3 FTPs are backlogged with evenly staggered finish numbers
/// (F_i^α = (i + α/N)·P). Averaged over its arrival time, its queueing delay is N/2 = 1.5 packet
/// times with δ = 0 and 1/2 with δ = P (non-preemptive), the paper's limits of both curves.
fn mean_telnet_wait(delta_bytes: u64) -> f64 {
    let p = 1000u32;
    let packet_time = RATE.tx_time(p).0 as f64;
    let phases = 240;
    let mut total = 0.0;
    for k in 0..phases {
        let cfg = FqConfig { delta: Bytes(delta_bytes), ..Default::default() };
        let mut q = fq(cfg, BufferLimit::Unlimited, 4);
        // staggering: conversations 1 and 2 first send P/3 and 2P/3
        let mut arrivals = vec![(Time::ZERO, pkt(1, 0, p / 3)), (Time::ZERO, pkt(2, 0, 2 * p / 3))];
        arrivals.extend((1..40).flat_map(|s| (0..3).map(move |c| (Time::ZERO, pkt(c, s, p)))));
        // the Telnet arrives somewhere in a later period of N packet times
        let t = Time((20.0 * packet_time + 3.0 * packet_time * (k as f64 + 0.5) / phases as f64) as u64);
        arrivals.push((t, pkt(3, 0, p)));
        arrivals.sort_by_key(|a| a.0);
        let r = replay(&mut q, RATE, &arrivals);
        let (start, _, _) = r.sent.iter().find(|(_, _, pk)| pk.flow.0 == 3).unwrap();
        total += (start.0 - t.0) as f64 / packet_time;
    }
    total / phases as f64
}

#[test]
fn telnet_delay_matches_the_papers_limits_for_delta_0_and_delta_p() {
    let (d0, dp) = (mean_telnet_wait(0), mean_telnet_wait(1000));
    assert!((d0 - 1.5).abs() < 0.05, "δ = 0: {d0} packet times, the paper says N/2 = 1.5");
    assert!((dp - 0.5).abs() < 0.05, "δ = P: {dp} packet times, the paper says 1/2");
}

#[test]
fn weights_give_proportional_service() {
    let mut port = port(BufferLimit::Unlimited, &[(0, 1), (0, 1)]);
    let mut metas: Vec<_> = port.flows.to_vec();
    metas[0].weight = 3.0;
    port.flows = metas.into();
    let mut q = Fq::new(FqConfig::default(), &port).unwrap();
    let arrivals: Vec<_> =
        (0..200).flat_map(|s| [(Time::ZERO, pkt(0, s, 1000)), (Time::ZERO, pkt(1, s, 1000))]).collect();
    let r = replay(&mut q, RATE, &arrivals);
    let first_100: Vec<_> = r.sent.iter().take(100).map(|(_, _, p)| p.flow.0).collect();
    let heavy = first_100.iter().filter(|&&f| f == 0).count();
    assert!((74..=76).contains(&heavy), "weight 3 against 1: {heavy} of 100");
}

#[test]
fn fqbit_marks_conversations_above_a_third_of_their_buffer_share() {
    let cfg = FqConfig { mark_threshold: Some(FQBIT_THRESHOLD), ..Default::default() };
    let mut q = fq(cfg, BufferLimit::Packets(30), 2);
    let mut marked = vec![];
    let (_, _) = crate::qdisc::testing::with_ctx(|ctx| {
        q.enqueue(pkt(1, 0, 100), ctx); // conversation 1 holds one packet
        for s in 0..8 {
            let before = *ctx_marks(ctx);
            q.enqueue(pkt(0, s, 100), ctx);
            marked.push(*ctx_marks(ctx) > before);
        }
    });
    // two busy conversations share 30 buffers: 15 each, a third is 5: the 6th packet is marked
    assert_eq!(marked, vec![false, false, false, false, false, true, true, true]);
}

fn ctx_marks<'a>(ctx: &'a QdiscCtx) -> &'a u64 {
    ctx.marks
}

#[test]
fn the_list_tree_and_double_heap_need_largest_bid_drops() {
    for s in [Structure::List, Structure::Tree, Structure::DoubleHeap] {
        let bad = FqConfig { buffer: s, ..Default::default() };
        assert!(Fq::new(bad, &port(BufferLimit::Packets(5), &[(0, 1)])).is_err());
        let ok = FqConfig { buffer: s, drop: FqDrop::LargestBid, ..Default::default() };
        assert!(Fq::new(ok, &port(BufferLimit::Packets(5), &[(0, 1)])).is_ok());
    }
}
