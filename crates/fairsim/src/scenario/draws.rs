//! What each run of a scenario draws for itself: `web` transfers' starts and sizes, and start
//! jitter, each from its own stream of the run's seed.

use super::spec::Scenario;
use crate::units::Time;

impl Scenario {
    /// The start and size (packets) of every drawn flow (the transfers of `web` applications)
    /// in a run with `seed`; `None` for the other flows.
    pub fn draws(&self, seed: u64) -> Vec<Option<(Time, u64)>> {
        let mut out = vec![None; self.flows.len()];
        let mut group: Option<(&str, crate::rng::SimRng, Time)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            let Some(d) = &f.draw else { continue };
            if group.as_ref().is_none_or(|(g, _, _)| *g != d.group) {
                group = Some((&d.group, crate::rng::stream(seed, &format!("web:{}", d.group)), f.start));
            }
            let (_, rng, at) = group.as_mut().expect("set above");
            *at += Time::from_secs_f64(crate::traffic::exponential(d.mean_gap.as_secs_f64(), rng));
            let bytes = crate::traffic::pareto(d.mean_size.0 as f64, d.shape, rng);
            let packets = (bytes / f.payload_size as f64).ceil().max(1.0) as u64;
            out[i] = Some((*at, packets));
        }
        out
    }

    /// Each flow's start in a run with `seed`, and a `web` transfer's drawn size in packets: a
    /// transfer starts when its draw says, any other flow at its `start` delayed by a uniform
    /// draw from [0, start_jitter), in whole nanoseconds, from the flow's own stream (so a flow's
    /// jitter changes no other flow's).
    pub fn drawn(&self, seed: u64) -> Vec<(Time, Option<u64>)> {
        self.flows
            .iter()
            .zip(self.draws(seed))
            .map(|(f, drawn)| match drawn {
                Some((at, packets)) => (at, Some(packets)),
                None if f.start_jitter > Time::ZERO => {
                    let mut rng = crate::rng::stream(seed, &format!("start:{}", f.name));
                    (f.start + Time(rand::Rng::random_range(&mut rng, 0..f.start_jitter.0)), None)
                }
                None => (f.start, None),
            })
            .collect()
    }

    /// When each flow starts in a run with `seed` (see `drawn`).
    pub fn starts(&self, seed: u64) -> Vec<Time> {
        self.drawn(seed).into_iter().map(|(start, _)| start).collect()
    }

    /// What a run with `seed` draws, written out: the seed, and each flow's start (ns) and
    /// drawn size (packets) where they differ from the scenario's. The resolved scenario of a
    /// pair with one seed and this key of another determine that seed's resolved scenario (its
    /// seed and draws are all that differ), which is what sweeps' run ids need without writing
    /// a scenario per run.
    pub fn draws_key(&self, seed: u64) -> String {
        use std::fmt::Write;
        let mut key = format!("seed {seed}");
        for (i, (start, packets)) in self.drawn(seed).into_iter().enumerate() {
            if start != self.flows[i].start || packets.is_some() {
                let _ = write!(key, "; {i} {} {}", start.0, packets.map_or(-1, |n| n as i128));
            }
        }
        key
    }
}
