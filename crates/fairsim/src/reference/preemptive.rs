//! Preemptive Fair Queueing, the variant Demers, Keshav & Shenker 1989 (§2.2) use for analysis:
//! a newly arriving packet whose finish number is smaller than that of the packet being sent
//! preempts it, and the preempted packet later resumes where it stopped. Computed exactly from
//! a trace of arrivals; it is not a network discipline (the engine's transmissions are whole).

use super::arrival::Arrival;
use super::service::Service;
use crate::reference::round::RoundNumber;

/// The preemptive FQ service of `arrivals` (sorted by time) on a line of `rate_bps`.
pub fn preemptive_fq(arrivals: &[Arrival], weights: &[f64], rate_bps: f64) -> Service {
    let per_ns = rate_bps / 1e9;
    let mut round = RoundNumber::new(weights.to_vec());
    // queued packets: (finish number, arrival index, conversation, bits left)
    let mut queue: Vec<(f64, usize, usize, f64)> = vec![];
    let mut out = Service::default();
    let mut now = 0.0f64;
    let mut i = 0;
    loop {
        // serve the smallest finish number until the next arrival or until it is done
        let next_arrival = arrivals.get(i).map(|a| a.t_ns);
        let best =
            (0..queue.len()).min_by(|&a, &b| queue[a].0.total_cmp(&queue[b].0).then(queue[a].1.cmp(&queue[b].1)));
        match (best, next_arrival) {
            (None, None) => return out,
            (None, Some(t)) => now = now.max(t),
            (Some(k), next) => {
                let done_at = now + queue[k].3 / per_ns;
                let until = next.map_or(done_at, |t| t.min(done_at));
                if until > now {
                    let bits = (until - now) * per_ns;
                    out.pieces.push((now, until, queue[k].2, bits.min(queue[k].3)));
                    queue[k].3 -= bits;
                }
                now = until;
                if until >= done_at {
                    queue.swap_remove(k);
                }
            }
        }
        while let Some(a) = arrivals.get(i).filter(|a| a.t_ns <= now) {
            round.advance(a.t_ns, rate_bps);
            let f = round.last_finish(a.conv).max(round.r()) + a.bits / weights[a.conv];
            round.set_last_finish(a.conv, f);
            queue.push((f, i, a.conv, a.bits));
            i += 1;
        }
    }
}
