//! DCQCN's reaction point: the rate law a RoCEv2 NIC applies to a flow on congestion
//! notifications (CNPs), and between them.
//!
//! Reference: Zhu, Eran, Firestone, Guo, Lipshteyn, Liron, Padhye, Raindel, Yahia and Zhang,
//! "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, §3 (the algorithm; its
//! reaction point follows QCN, IEEE 802.1Qau):
//! - on a CNP: `Rt = Rc`, `Rc = Rc·(1 − α/2)`, `α = (1 − g)·α + g`, and the increase counters
//!   start again;
//! - each `K` without a CNP: `α = (1 − g)·α`;
//! - a rate increase event each time the timer (every `T`) or the byte counter (every `B` bytes
//!   sent) expires, each counting its own stage: while both stages are below `F`, fast recovery
//!   `Rc = (Rt + Rc)/2`; once one reaches `F`, additive increase `Rt = Rt + R_AI` first; once both
//!   pass `F`, hyper increase `Rt = Rt + i·R_HAI` with `i = min(stages) − F`; then
//!   `Rc = (Rt + Rc)/2`.
//!
//! The defaults (g = 1/256, K = T = 55 µs, B = 10 MB, F = 5, R_AI = 40 Mb/s; the NP's CNP
//! interval N = 50 µs is the sink's, `roce::RoceConfig`), each a parameter, were checked against
//! the authors' own simulator (`bobzhuyb/ns3-rdma`, its sample `config.txt`) and htsim, the
//! paper's PDF not being reachable here: g, K, F, R_AI and N match the authors'; their sample
//! sets T = 60 µs and B = 300 MB (htsim 55 µs and 10 MB, kept); ns-3's QCN default T is 1.5 ms.
//! The authors' code enters hyper increase one stage earlier (at min(stages) = F, i = min − F +
//! 1) than the reading below, which htsim's fork shares (docs/decisions.md, DCQCN).
//!
//! Choices the paper leaves open:
//! - `R_HAI`: 10 × `R_AI` (400 Mb/s), the ratio of QCN's defaults (802.1Qau: 5 and 50 Mb/s);
//!   the authors' sample configuration uses 200 Mb/s, htsim's fork 2 × its R_AI;
//! - the rates never exceed the line's and never fall below `min_rate` (100 Mb/s, as NIC
//!   models use);
//! - α starts at 1, and its timer and the increase timer run from the first CNP on (a flow that
//!   never saw one sends at the line's rate, as the paper's flows start);
//! - a stage of the byte counter and one of the timer are separate events, each an increase.

use crate::units::Time;

/// DCQCN's reaction-point parameters.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DcqcnConfig {
    /// α's gain g.
    pub g: f64,
    /// K: α decays by (1 − g) each period without a CNP.
    pub alpha_timer: Time,
    /// T: the rate increase timer's period.
    pub rate_timer: Time,
    /// B: bytes sent per byte-counter stage.
    pub byte_counter: crate::units::Bytes,
    /// F: stages of fast recovery before the additive increase.
    pub fast_recovery: u32,
    /// R_AI: the additive increase of the target rate.
    pub rai: crate::units::Rate,
    /// R_HAI: the hyper increase's step.
    pub rhai: crate::units::Rate,
    /// The lowest rate a cut reaches.
    pub min_rate: crate::units::Rate,
}

impl Default for DcqcnConfig {
    fn default() -> Self {
        DcqcnConfig {
            g: 1.0 / 256.0,
            alpha_timer: Time::from_micros(55),
            rate_timer: Time::from_micros(55),
            byte_counter: crate::units::Bytes(10_000_000),
            fast_recovery: 5,
            rai: crate::units::Rate(40_000_000),
            rhai: crate::units::Rate(400_000_000),
            min_rate: crate::units::Rate(100_000_000),
        }
    }
}

/// A flow's rates and α, in bits per second.
#[derive(Clone, Debug, PartialEq)]
pub struct Dcqcn {
    /// The current rate Rc, which the NIC paces at.
    pub current: f64,
    /// The target rate Rt.
    pub target: f64,
    pub alpha: f64,
    line: f64,
    g: f64,
    rai: f64,
    rhai: f64,
    min_rate: f64,
    fast_recovery: u32,
    /// The increase stages counted by the timer and by the byte counter since the last CNP.
    timer_stage: u32,
    byte_stage: u32,
}

impl Dcqcn {
    /// A flow at the line's rate `line` (bit/s), α = 1.
    pub fn new(c: &DcqcnConfig, line: f64) -> Dcqcn {
        Dcqcn {
            current: line,
            target: line,
            alpha: 1.0,
            line,
            g: c.g,
            rai: c.rai.bits_per_sec() as f64,
            rhai: c.rhai.bits_per_sec() as f64,
            min_rate: (c.min_rate.bits_per_sec() as f64).min(line),
            fast_recovery: c.fast_recovery,
            timer_stage: 0,
            byte_stage: 0,
        }
    }

    /// A CNP arrived: the cut, α raised, the increase stages started again.
    pub fn on_cnp(&mut self) {
        self.target = self.current;
        self.current = (self.current * (1.0 - self.alpha / 2.0)).max(self.min_rate);
        self.alpha = (1.0 - self.g) * self.alpha + self.g;
        self.timer_stage = 0;
        self.byte_stage = 0;
    }

    /// A period K passed without a CNP.
    pub fn alpha_timer(&mut self) {
        self.alpha *= 1.0 - self.g;
    }

    /// The rate timer expired (period T).
    pub fn rate_timer(&mut self) {
        self.timer_stage += 1;
        self.increase();
    }

    /// The byte counter expired (B bytes sent).
    pub fn byte_counter(&mut self) {
        self.byte_stage += 1;
        self.increase();
    }

    /// Whether an increase would change nothing: both rates at the line's.
    pub fn at_line_rate(&self) -> bool {
        self.current >= self.line && self.target >= self.line
    }

    fn increase(&mut self) {
        let f = self.fast_recovery;
        let (low, high) = (self.timer_stage.min(self.byte_stage), self.timer_stage.max(self.byte_stage));
        if low > f {
            self.target += f64::from(low - f) * self.rhai; // hyper increase
        } else if high >= f {
            self.target += self.rai; // additive increase
        } // else fast recovery: the target stays
        self.target = self.target.min(self.line);
        self.current = ((self.target + self.current) / 2.0).min(self.line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 100e9;

    fn law() -> Dcqcn {
        Dcqcn::new(&DcqcnConfig::default(), LINE)
    }

    #[test]
    fn one_cnp_at_the_line_rate_halves_it_as_the_paper_says() {
        // α = 1: Rc = R·(1 − 1/2), Rt = R, α = (1 − g) + g = 1
        let mut d = law();
        d.on_cnp();
        assert_eq!((d.current, d.target, d.alpha), (LINE / 2.0, LINE, 1.0));
        // a second CNP at once: Rc·(1 − α/2) again
        d.on_cnp();
        assert_eq!((d.current, d.target), (LINE / 4.0, LINE / 2.0));
    }

    #[test]
    fn alpha_decays_by_one_minus_g_per_quiet_period_and_the_next_cut_is_smaller() {
        let g = 1.0 / 256.0;
        let mut d = law();
        d.on_cnp();
        for _ in 0..10 {
            d.alpha_timer();
        }
        let alpha = (1.0f64 - g).powi(10);
        assert!((d.alpha - alpha).abs() < 1e-12, "{} vs (1 − g)^n = {alpha}", d.alpha);
        let before = d.current;
        d.on_cnp();
        assert!((d.current - before * (1.0 - alpha / 2.0)).abs() < 1e-3);
        assert!((d.alpha - ((1.0 - g) * alpha + g)).abs() < 1e-12);
    }

    #[test]
    fn fast_recovery_then_additive_then_hyper_increase() {
        let c = DcqcnConfig::default();
        let mut d = law();
        d.on_cnp(); // Rc = 50 G, Rt = 100 G
                    // F = 5 timer stages of fast recovery: Rc halves its distance to Rt each time
        d.rate_timer();
        assert_eq!((d.current, d.target), (75e9, LINE));
        d.on_cnp(); // Rt = 75 G, Rc = 37.5 G
        for k in 1..5 {
            d.rate_timer();
            let want = 75e9 - 37.5e9 / f64::powi(2.0, k);
            assert!((d.current - want).abs() < 1.0, "stage {k}: {} vs {want}", d.current);
            assert_eq!(d.target, 75e9, "fast recovery keeps the target");
        }
        // the fifth timer stage reaches F: additive increase by R_AI
        let rc = d.current;
        d.rate_timer();
        assert_eq!(d.target, 75e9 + 40e6);
        assert!((d.current - (d.target + rc) / 2.0).abs() < 1e-3);
        // with the timer at stage 7, byte stages 1 to 5 are additive (one counter past F, not
        // both); stage 6 is hyper increase by (6 − F)·R_HAI, stage 7 by (7 − F)·R_HAI
        d.rate_timer();
        d.rate_timer();
        for _ in 0..5 {
            let rt = d.target;
            d.byte_counter();
            assert!((d.target - (rt + 40e6)).abs() < 1e-3);
        }
        for i in 1..=2 {
            let (rt, rc) = (d.target, d.current);
            d.byte_counter();
            assert!((d.target - (rt + f64::from(i) * c.rhai.bits_per_sec() as f64)).abs() < 1e-3, "i = {i}");
            assert!((d.current - (d.target + rc) / 2.0).abs() < 1e-3);
        }
    }

    #[test]
    fn rates_stay_between_the_floor_and_the_line() {
        let mut d = law();
        for _ in 0..100 {
            d.on_cnp();
        }
        assert_eq!(d.current, 100e6, "the floor");
        for _ in 0..200 {
            d.rate_timer();
            d.byte_counter();
        }
        assert!(d.at_line_rate() && d.current == LINE);
    }
}
