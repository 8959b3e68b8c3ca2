//! Random loss on a link: a packet that has crossed the line may be lost on the
//! wire, independently of any queue.
//!
//! Two models:
//!
//! - **Bernoulli**: each packet is lost with probability `rate`, independently of the others:
//!   ns-3's `RateErrorModel` with `ErrorUnit = ERROR_UNIT_PACKET`, ns-2's `ErrorModel` with
//!   `unit_ pkt`.
//! - **Gilbert–Elliott**: a two-state Markov chain, good and bad, each with its own loss
//!   probability (E. N. Gilbert, "Capacity of a burst-noise channel", Bell System Technical
//!   Journal 39(5), 1960, with `loss_good` = 0 and `loss_bad` = 1 − h; E. O. Elliott,
//!   "Estimates of error rates for codes on burst-noise channels", BSTJ 42(5), 1963, with a
//!   loss probability in each state). `p` is the probability of going from good to bad, `r`
//!   from bad to good; the chain spends p/(p+r) of the packets in the bad state, and a stay in
//!   the bad state lasts 1/r packets on average (geometric), so with `loss_good` = 0 and
//!   `loss_bad` = 1 losses come in bursts of mean length 1/r at a long-run rate p/(p+r). ns-2's
//!   two-state `ErrorModel/TwoState`, Linux netem's `loss gemodel p r 1-h 1-k`.
//!
//! Choices the sources leave open:
//!
//! - **Per packet, not per bit**: a packet's chance of loss does not depend on its size (ns-3's
//!   and ns-2's packet unit; their byte and bit units model a bit error rate, which papers on
//!   congestion control rarely give), so a 40-byte ACK is as likely to be lost as a 1500-byte
//!   data packet.
//! - **Which packets**: every packet the port sends, data and ACKs alike; the model knows
//!   nothing of flows.
//! - **Where**: at the end of the packet's transmission, before it propagates. The packet used
//!   the line (it counts in the port's departures, bytes sent and utilisation, as a frame that
//!   the receiver's checksum discards does), so a loss frees no capacity for the packets behind
//!   it. Dropping it as its last bit leaves rather than when it would reach the far end keeps
//!   the propagation pipe free of dead packets and records the drop at the port that counts it;
//!   the ends cannot tell the difference, since the packet never arrives either way. (ns-3
//!   applies its error model at the receiving device, after propagation; ns-2's `lossmodel`
//!   before the line and its `link-lossmodel` after it.)
//! - **Gilbert–Elliott's state is evaluated per packet**: before each packet the chain takes one
//!   step from the previous packet's state (the first packet's predecessor is in the good
//!   state), then the packet is lost with the new state's probability. Time between packets
//!   plays no part. Two draws a packet, always both, so a run's draws do not depend on the
//!   probabilities' values.
//! - **Randomness**: each port draws from its own stream, `loss:<port>` (`engine::build`), made
//!   only when the port has a loss model; the discipline's stream is untouched, so enabling
//!   loss on one link changes no other random draw, and a scenario without loss draws nothing.

use crate::rng::SimRng;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// A link direction's loss model, as a scenario writes it (`loss = { model = "bernoulli", rate =
/// 0.01 }`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(
    tag = "model",
    rename_all = "snake_case",
    deny_unknown_fields,
    expecting = "a loss model, such as `{ model = \"bernoulli\", rate = 0.01 }`"
)]
pub enum LossModel {
    /// Each packet lost with probability `rate`.
    Bernoulli { rate: f64 },
    /// The Gilbert–Elliott chain: `p` good → bad and `r` bad → good per packet, and the loss
    /// probability in each state.
    GilbertElliott {
        p: f64,
        r: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "certain")]
        loss_bad: f64,
    },
}

fn certain() -> f64 {
    1.0
}

impl LossModel {
    /// The model's probabilities by field name, in the order the scenario format lists them.
    pub fn probabilities(&self) -> Vec<(&'static str, f64)> {
        match *self {
            LossModel::Bernoulli { rate } => vec![("rate", rate)],
            LossModel::GilbertElliott { p, r, loss_good, loss_bad } => {
                vec![("p", p), ("r", r), ("loss_good", loss_good), ("loss_bad", loss_bad)]
            }
        }
    }

    /// The model's name, as a scenario writes it.
    pub fn name(&self) -> &'static str {
        match self {
            LossModel::Bernoulli { .. } => "bernoulli",
            LossModel::GilbertElliott { .. } => "gilbert_elliott",
        }
    }

    /// Why the model cannot be used, if it cannot: the field and what is wrong with it. Every
    /// value is a probability, in [0, 1].
    pub fn problem(&self) -> Option<(&'static str, String)> {
        self.probabilities()
            .into_iter()
            .find(|(_, v)| !(0.0..=1.0).contains(v))
            .map(|(field, v)| (field, format!("`{field}` is a probability, between 0 and 1; found {v}")))
    }

    /// The long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::Bernoulli { rate } => rate,
            LossModel::GilbertElliott { p, r, loss_good, loss_bad } if p + r > 0.0 => {
                (r * loss_good + p * loss_bad) / (p + r)
            }
            // the chain never leaves the good state it starts in
            LossModel::GilbertElliott { loss_good, .. } => loss_good,
        }
    }
}

/// A port's loss model in a run: the model, its random stream, and the chain's state.
pub struct LinkLoss {
    model: LossModel,
    rng: SimRng,
    /// Gilbert–Elliott: whether the last packet found the chain in the bad state.
    bad: bool,
}

impl LinkLoss {
    pub fn new(model: LossModel, rng: SimRng) -> LinkLoss {
        LinkLoss { model, rng, bad: false }
    }

    /// Whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::Bernoulli { rate } => self.rng.random::<f64>() < rate,
            LossModel::GilbertElliott { p, r, loss_good, loss_bad } => {
                let leave = if self.bad { r } else { p };
                if self.rng.random::<f64>() < leave {
                    self.bad = !self.bad;
                }
                let loss = if self.bad { loss_bad } else { loss_good };
                self.rng.random::<f64>() < loss
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    const N: usize = 100_000;

    /// Whether each of `n` packets is lost under `model` with seed `seed`.
    fn losses(model: LossModel, seed: u64, n: usize) -> Vec<bool> {
        let mut l = LinkLoss::new(model, stream(seed, "loss:a->b"));
        (0..n).map(|_| l.lose()).collect()
    }

    /// The lengths of the runs of consecutive losses.
    fn bursts(lost: &[bool]) -> Vec<usize> {
        lost.split(|l| !l).map(<[bool]>::len).filter(|&n| n > 0).collect()
    }

    fn fraction(lost: &[bool]) -> f64 {
        lost.iter().filter(|&&l| l).count() as f64 / lost.len() as f64
    }

    #[test]
    fn bernoulli_loses_its_rate_within_four_standard_deviations() {
        for rate in [0.001, 0.01, 0.05, 0.3] {
            let got = fraction(&losses(LossModel::Bernoulli { rate }, 1, N));
            let sd = (rate * (1.0 - rate) / N as f64).sqrt();
            eprintln!("bernoulli {rate}: lost {got:.5} of {N} packets ({:+.2} sd)", (got - rate) / sd);
            assert!((got - rate).abs() < 4.0 * sd, "rate {rate}: lost {got} (4 sd = {})", 4.0 * sd);
        }
        assert!(!losses(LossModel::Bernoulli { rate: 0.0 }, 1, N).contains(&true));
        assert!(!losses(LossModel::Bernoulli { rate: 1.0 }, 1, N).contains(&false));
    }

    #[test]
    fn gilbert_elliott_losses_come_in_bursts_of_mean_one_over_r_at_rate_p_over_p_plus_r() {
        for (p, r) in [(0.01, 0.3), (0.02, 0.1), (0.05, 0.5)] {
            let model = LossModel::GilbertElliott { p, r, loss_good: 0.0, loss_bad: 1.0 };
            let lost = losses(model, 1, 10 * N);
            let b = bursts(&lost);
            let mean_burst = b.iter().sum::<usize>() as f64 / b.len() as f64;
            assert!((mean_burst * r - 1.0).abs() < 0.03, "p {p} r {r}: mean burst {mean_burst}, 1/r = {}", 1.0 / r);
            let (got, expected) = (fraction(&lost), p / (p + r));
            eprintln!(
                "gilbert_elliott p {p} r {r}: {} bursts of mean {mean_burst:.3} (1/r = {:.3}), lost {got:.5} \
                 (p/(p+r) = {expected:.5})",
                b.len(),
                1.0 / r
            );
            assert!((got / expected - 1.0).abs() < 0.05, "p {p} r {r}: lost {got}, p/(p+r) = {expected}");
            assert!((model.mean_loss() - expected).abs() < 1e-12);
        }
    }

    #[test]
    fn gilbert_elliott_loses_in_each_state_with_its_own_probability() {
        let model = LossModel::GilbertElliott { p: 0.05, r: 0.2, loss_good: 0.01, loss_bad: 0.5 };
        let (got, expected) = (fraction(&losses(model, 2, 10 * N)), model.mean_loss());
        assert!((expected - (0.2 * 0.01 + 0.05 * 0.5) / 0.25).abs() < 1e-12);
        assert!((got / expected - 1.0).abs() < 0.05, "lost {got}, expected {expected}");
        // never leaving the good state: only the good state's losses
        let stuck = LossModel::GilbertElliott { p: 0.0, r: 0.5, loss_good: 0.0, loss_bad: 1.0 };
        assert!(!losses(stuck, 2, N).contains(&true));
        assert_eq!(stuck.mean_loss(), 0.0);
    }

    #[test]
    fn the_same_seed_loses_the_same_packets_and_another_seed_others() {
        for model in [
            LossModel::Bernoulli { rate: 0.05 },
            LossModel::GilbertElliott { p: 0.01, r: 0.3, loss_good: 0.0, loss_bad: 1.0 },
        ] {
            assert_eq!(losses(model, 7, N), losses(model, 7, N));
            assert_ne!(losses(model, 7, N), losses(model, 8, N));
        }
    }

    #[test]
    fn a_probability_outside_zero_to_one_is_named() {
        assert_eq!(LossModel::Bernoulli { rate: 0.5 }.problem(), None);
        let bad = LossModel::Bernoulli { rate: 1.5 }.problem().unwrap();
        assert_eq!(bad, ("rate", "`rate` is a probability, between 0 and 1; found 1.5".to_string()));
        let nan = LossModel::GilbertElliott { p: 0.1, r: f64::NAN, loss_good: 0.0, loss_bad: 1.0 };
        assert_eq!(nan.problem().unwrap().0, "r");
        let neg = LossModel::GilbertElliott { p: 0.1, r: 0.2, loss_good: -0.1, loss_bad: 1.0 };
        assert_eq!(neg.problem().unwrap().0, "loss_good");
    }
}
