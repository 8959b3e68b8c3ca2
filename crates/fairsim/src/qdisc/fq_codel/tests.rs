use super::*;
use crate::qdisc::testing::{pkt, port, with_ctx_at};

fn fq_codel(buffer: BufferLimit, flows: usize) -> FqCodel {
    FqCodel::new(&FqCodelConfig::default(), &port(buffer, &vec![(0, 1); flows])).unwrap()
}

fn at(t_ms: u64, seq: u64, flow: u32, size: u32) -> Packet {
    Packet { enqueued_at: Time::from_millis(t_ms), ..pkt(flow, seq, size) }
}

fn enqueue(q: &mut FqCodel, p: Packet) -> Vec<(Packet, DropReason)> {
    with_ctx_at(p.enqueued_at, |ctx| q.enqueue(p, ctx)).1
}

fn dequeue(q: &mut FqCodel, t_ms: u64) -> Option<Packet> {
    with_ctx_at(Time::from_millis(t_ms), |ctx| q.dequeue(ctx)).0
}

#[test]
fn flows_are_told_apart_and_the_test_flows_do_not_collide() {
    let mut q = fq_codel(BufferLimit::Unlimited, 4);
    enqueue(&mut q, at(0, 0, 0, 100));
    let queues: std::collections::BTreeSet<usize> =
        (0..4).map(|f| q.buckets.of(q.classifier.conv(&pkt(f, 0, 100)))).collect();
    assert_eq!(queues.len(), 4, "four flows in four of the 1024 queues");
}

#[test]
fn a_new_flow_is_served_before_the_backlogged_ones() {
    // RFC 8290 §4.2: the new list is served first
    let mut q = fq_codel(BufferLimit::Unlimited, 2);
    for seq in 0..10 {
        enqueue(&mut q, at(0, seq, 0, 1000));
    }
    // flow 0 spends its first quantum (1514 bytes: two packets) and moves to the old list
    assert_eq!(dequeue(&mut q, 1).map(|p| p.flow.0), Some(0));
    assert_eq!(dequeue(&mut q, 1).map(|p| p.flow.0), Some(0));
    enqueue(&mut q, at(2, 0, 1, 100));
    assert_eq!(dequeue(&mut q, 2).map(|p| (p.flow.0, p.seq)), Some((1, 0)), "the sparse flow jumps ahead");
    assert_eq!(dequeue(&mut q, 2).map(|p| p.flow.0), Some(0));
}

#[test]
fn backlogged_flows_share_bytes_equally_whatever_their_packet_sizes() {
    // deficit round robin with a quantum of 1514 bytes (RFC 8290 §4.2)
    let mut q = fq_codel(BufferLimit::Unlimited, 2);
    for seq in 0..300 {
        enqueue(&mut q, at(0, seq, 0, 1500));
        enqueue(&mut q, at(0, seq, 1, 300));
    }
    let mut bytes = [0u64; 2];
    // dequeue quickly (sojourn under CoDel's target) for a while, both staying backlogged
    for _ in 0..200 {
        let p = dequeue(&mut q, 0).unwrap();
        bytes[p.flow.idx()] += p.size as u64;
    }
    let ratio = bytes[0] as f64 / bytes[1] as f64;
    assert!((0.9..1.1).contains(&ratio), "bytes {bytes:?}");
}

#[test]
fn an_emptied_new_queue_goes_behind_the_old_ones_and_an_emptied_old_queue_leaves() {
    let mut q = fq_codel(BufferLimit::Unlimited, 2);
    for seq in 0..4 {
        enqueue(&mut q, at(0, seq, 0, 1000));
    }
    dequeue(&mut q, 0);
    dequeue(&mut q, 0); // flow 0's quantum spent: it moves to the old list on the next visit
    enqueue(&mut q, at(0, 0, 1, 100));
    assert_eq!(dequeue(&mut q, 0).map(|p| p.flow.0), Some(1));
    // flow 1 is empty now: the next dequeue finds it so and moves it behind flow 0
    assert_eq!(dequeue(&mut q, 0).map(|p| p.flow.0), Some(0));
    let i1 = q.buckets.of(q.classifier.conv(&pkt(1, 0, 1)));
    assert_eq!(q.queues[i1].list, List::Old, "kept on the old list: no new-flow priority by going idle");
    // drain everything: empty old queues leave the lists
    while dequeue(&mut q, 0).is_some() {}
    assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
    assert_eq!(q.queues[i1].list, List::None);
}

#[test]
fn on_overflow_the_fattest_queue_loses_packets_from_its_head_up_to_half_its_bytes() {
    // RFC 8290 §4.1.1; Linux's batch of up to 64 packets, at most half the queue's bytes
    let mut q = fq_codel(BufferLimit::Packets(10), 2);
    for seq in 0..8 {
        assert!(enqueue(&mut q, at(0, seq, 0, 1000)).is_empty());
    }
    enqueue(&mut q, at(0, 0, 1, 1000));
    enqueue(&mut q, at(0, 1, 1, 1000));
    let drops = enqueue(&mut q, at(0, 2, 1, 1000)); // the eleventh packet
    let dropped: Vec<(u32, u64)> = drops.iter().map(|(p, _)| (p.flow.0, p.seq)).collect();
    assert_eq!(dropped, vec![(0, 0), (0, 1), (0, 2), (0, 3)], "flow 0's head, half of its 8000 bytes");
    assert!(drops.iter().all(|(_, r)| *r == DropReason::LongestQueue));
    assert_eq!(q.len_packets(), 7);
    // the RFC's single packet
    let mut one =
        FqCodel::new(&FqCodelConfig { drop_batch: 1, ..Default::default() }, &port(BufferLimit::Packets(2), &[(0, 1)]))
            .unwrap();
    enqueue(&mut one, at(0, 0, 0, 1000));
    enqueue(&mut one, at(0, 1, 0, 1000));
    let drops = enqueue(&mut one, at(0, 2, 0, 1000));
    assert_eq!(drops.iter().map(|(p, _)| p.seq).collect::<Vec<_>>(), vec![0]);
}

#[test]
fn codel_drops_the_standing_queue_of_one_flow_and_spares_a_sparse_one() {
    let mut q = fq_codel(BufferLimit::Unlimited, 2);
    for seq in 0..5000 {
        enqueue(&mut q, at(0, seq, 0, 1000));
    }
    // a packet every millisecond for a second; the sparse flow sends one packet every 50 ms
    let (mut sparse_sent, mut sparse_got) = (0, 0);
    let mut drops = 0;
    for t in 0..1000u64 {
        if t % 50 == 0 {
            enqueue(&mut q, at(t, t, 1, 100));
            sparse_sent += 1;
        }
        let (p, dropped) = with_ctx_at(Time::from_millis(t), |ctx| q.dequeue(ctx));
        sparse_got += p.is_some_and(|p| p.flow.0 == 1) as u32;
        assert!(dropped.iter().all(|(p, r)| p.flow.0 == 0 && *r == DropReason::Early));
        drops += dropped.len();
    }
    assert_eq!(sparse_got, sparse_sent, "every sparse packet goes out, none dropped");
    assert!(drops >= 10, "CoDel controls the standing queue: {drops} drops");
    assert_eq!(q.stats()[0], ("codel_drops", drops as f64));
}
