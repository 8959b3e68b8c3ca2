//! Bit-by-bit round robin (generalised processor sharing, weighted), computed exactly.
//!
//! Demers, Keshav & Shenker 1989 §2.2: with the round number R(t) (dR/dt = μ/N_ac, N_ac the
//! weight of the active conversations), packet i of conversation α starts service in the fluid
//! system at round S_i = max(F_{i−1}, R(t_i)) and ends at F_i = S_i + P_i/w_α. Its departure
//! time is when R reaches F_i, and by round R conversation α has received
//! Σ_i w_α·clamp(R − S_i, 0, P_i/w_α) bits. R is computed exactly by the same code as FQ's
//! (`qdisc::fq::round`), recording its trajectory, which is piecewise linear.

use super::arrival::Arrival;
use crate::reference::round::RoundNumber;

pub struct Gps {
    /// (time ns, R) breakpoints; R is linear between them and constant after the last.
    trajectory: Vec<(f64, f64)>,
    /// Per packet, in arrival order: (conversation, S, F, departure time ns).
    pub packets: Vec<(usize, f64, f64, f64)>,
    /// Per conversation, in order: (S, F, bits served before this packet).
    by_conv: Vec<Vec<(f64, f64, f64)>>,
    weights: Vec<f64>,
}

impl Gps {
    /// The fluid schedule of `arrivals` (sorted by time) on a line of `rate_bps`.
    pub fn new(arrivals: &[Arrival], weights: &[f64], rate_bps: f64) -> Gps {
        let mut round = RoundNumber::new(weights.to_vec());
        round.record();
        let mut starts = Vec::with_capacity(arrivals.len());
        for a in arrivals {
            round.advance(a.t_ns, rate_bps);
            round.note();
            let s = round.last_finish(a.conv).max(round.r());
            let f = s + a.bits / weights[a.conv];
            round.set_last_finish(a.conv, f);
            starts.push((a.conv, s, f));
        }
        round.advance(f64::INFINITY, rate_bps);
        let trajectory = round.trace().to_vec();
        let mut by_conv = vec![vec![]; weights.len()];
        let mut cumulative = vec![0.0; weights.len()];
        for (&(c, s, f), a) in starts.iter().zip(arrivals) {
            by_conv[c].push((s, f, cumulative[c]));
            cumulative[c] += a.bits;
        }
        let mut gps = Gps { trajectory, packets: vec![], by_conv, weights: weights.to_vec() };
        gps.packets = starts.into_iter().map(|(c, s, f)| (c, s, f, gps.time_of_round(f))).collect();
        gps
    }

    /// R at time `t_ns`.
    pub fn round_at(&self, t_ns: f64) -> f64 {
        let tr = &self.trajectory;
        let i = tr.partition_point(|&(t, _)| t <= t_ns);
        if i == 0 {
            return tr.first().map_or(0.0, |p| p.1);
        }
        let (t0, r0) = tr[i - 1];
        match tr.get(i) {
            Some(&(t1, r1)) if t1 > t0 => r0 + (r1 - r0) * (t_ns - t0) / (t1 - t0),
            _ => r0,
        }
    }

    /// The first time R reaches `round`.
    pub fn time_of_round(&self, round: f64) -> f64 {
        let tr = &self.trajectory;
        let i = tr.partition_point(|&(_, r)| r < round);
        if i == 0 {
            return tr.first().map_or(0.0, |p| p.0);
        }
        let Some(&(t1, r1)) = tr.get(i) else { return f64::INFINITY };
        let (t0, r0) = tr[i - 1];
        t0 + (t1 - t0) * (round - r0) / (r1 - r0)
    }

    /// Bits of conversation `conv` served by time `t_ns`. A conversation's packets occupy
    /// consecutive rounds ([S, F] intervals that do not overlap), so one search finds the
    /// packet in service at round R(t).
    pub fn served(&self, conv: usize, t_ns: f64) -> f64 {
        let r = self.round_at(t_ns);
        let packets = &self.by_conv[conv];
        let k = packets.partition_point(|&(s, _, _)| s <= r);
        if k == 0 {
            return 0.0;
        }
        let (s, f, before) = packets[k - 1];
        before + self.weights[conv] * (r.min(f) - s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_conversations_share_the_line_then_one_finishes_alone() {
        // the thesis's worked example (1 bit per ns): A's 100 bits at 0, B's 100 bits at 50
        let arrivals = [Arrival { t_ns: 0.0, conv: 0, bits: 100.0 }, Arrival { t_ns: 50.0, conv: 1, bits: 100.0 }];
        let g = Gps::new(&arrivals, &[1.0, 1.0], 1e9);
        assert_eq!(g.round_at(200.0), 150.0);
        // A alone until 50 (50 bits), then half the line: its last 50 bits take until 150
        assert_eq!(g.packets[0].3, 150.0);
        assert_eq!(g.packets[1].3, 200.0);
        assert_eq!(g.served(0, 100.0), 75.0);
        assert_eq!(g.served(1, 100.0), 25.0);
    }

    #[test]
    fn weights_split_the_line_in_proportion() {
        let arrivals = [Arrival { t_ns: 0.0, conv: 0, bits: 300.0 }, Arrival { t_ns: 0.0, conv: 1, bits: 300.0 }];
        let g = Gps::new(&arrivals, &[2.0, 1.0], 1e9);
        // conversation 0 gets 2/3 of the line until its 300 bits are done at 450
        assert_eq!(g.packets[0].3, 450.0);
        assert_eq!(g.packets[1].3, 600.0);
        assert!((g.served(1, 450.0) - 150.0).abs() < 1e-9);
    }
}
