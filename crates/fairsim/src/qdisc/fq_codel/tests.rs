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

/// The scheduler of RFC 8290 §4.2 one round at a time (CoDel idle: every packet is sent at once):
/// the flows and sequence numbers served, given batches of (flow, size) arrivals, each batch
/// enqueued then `serve` dequeued.
fn rounds_one_by_one(quantum: i64, batches: &[(Vec<(u32, u32)>, usize)]) -> Vec<(u32, u64)> {
    let mut queues = vec![VecDeque::<(u64, u32)>::new(); 4];
    let (mut deficit, mut list) = (vec![0i64; 4], vec![List::None; 4]);
    let (mut new, mut old) = (VecDeque::new(), VecDeque::new());
    let (mut served, mut seq) = (vec![], 0);
    for (arrivals, serve) in batches {
        for &(f, size) in arrivals {
            let f = f as usize;
            queues[f].push_back((seq, size));
            seq += 1;
            if list[f] == List::None {
                (list[f], deficit[f]) = (List::New, quantum);
                new.push_back(f);
            }
        }
        for _ in 0..*serve {
            loop {
                let (from_new, i) = match new.front() {
                    Some(&i) => (true, i),
                    None => match old.front() {
                        Some(&i) => (false, i),
                        None => break,
                    },
                };
                let to = if deficit[i] <= 0 {
                    deficit[i] += quantum;
                    List::Old
                } else if let Some((id, size)) = queues[i].pop_front() {
                    deficit[i] -= size as i64;
                    served.push((i as u32, id));
                    break;
                } else if from_new && !old.is_empty() {
                    List::Old
                } else {
                    List::None
                };
                if from_new {
                    new.pop_front()
                } else {
                    old.pop_front()
                };
                list[i] = to;
                if to == List::Old {
                    old.push_back(i);
                }
            }
        }
    }
    served
}

#[test]
fn rounds_in_which_no_queue_can_be_served_are_skipped_with_the_same_outcome() {
    let sizes = [1500, 40, 577, 1000, 9000, 1];
    let batch = |from: u64, n: u64| -> Vec<(u32, u32)> {
        (from..from + n).map(|i| ((i * 7 % 4) as u32, sizes[(i * 11 % 6) as usize])).collect()
    };
    let batches = vec![(batch(0, 40), 25), (batch(40, 30), 20), (batch(70, 10), 35)];
    for quantum in [1, 3, 7, 100, 1499, 1514, 4000] {
        let cfg = FqCodelConfig { quantum, ..Default::default() };
        let mut q = FqCodel::new(&cfg, &port(BufferLimit::Unlimited, &[(0, 1); 4])).unwrap();
        let mut served = vec![];
        for (arrivals, serve) in &batches {
            for &(f, size) in arrivals {
                let id = served.len() as u64 + q.len_packets() as u64;
                enqueue(&mut q, at(0, id, f, size));
            }
            served.extend((0..*serve).map_while(|_| dequeue(&mut q, 0)).map(|p| (p.flow.0, p.seq)));
        }
        assert_eq!(served, rounds_one_by_one(quantum as i64, &batches), "quantum {quantum}");
    }
}

#[test]
fn a_one_byte_quantum_against_gigabyte_packets_takes_no_billion_rounds() {
    // one round per byte was 4·10^9 turns of the lists for the second packet
    let cfg = FqCodelConfig { quantum: 1, ..Default::default() };
    let mut q = FqCodel::new(&cfg, &port(BufferLimit::Unlimited, &[(0, 1); 3])).unwrap();
    let started = std::time::Instant::now();
    for (f, size) in [(0, 4_000_000_000), (1, 3_999_999_999), (2, 4_000_000_000)] {
        for seq in 0..2 {
            enqueue(&mut q, at(0, seq, f, size));
        }
    }
    let order: Vec<u32> = (0..6).map(|_| dequeue(&mut q, 0).unwrap().flow.0).collect();
    assert_eq!(order, vec![0, 1, 2, 1, 0, 2], "a quantum each as new flows, then the smaller deficit first");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
}
