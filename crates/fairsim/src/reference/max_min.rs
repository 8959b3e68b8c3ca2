//! The max-min fair allocation that fairness is measured against: Demers, Keshav & Shenker
//! 1989 §1 (water-filling), generalised to a network: every link's capacity is shared, flows
//! are bottlenecked at their tightest link, demands cap what a flow is given.

/// Max-min fair rates by progressive filling.
///
/// `capacity[l]` is link l's rate; each flow is `(links it crosses, demand)` with `None` for
/// an unlimited demand. A flow that crosses no link gets its demand (or infinity).
pub fn max_min(capacity: &[f64], flows: &[(Vec<usize>, Option<f64>)]) -> Vec<f64> {
    let mut rate = vec![0.0; flows.len()];
    let mut frozen = vec![false; flows.len()];
    for (i, (links, d)) in flows.iter().enumerate() {
        if links.is_empty() {
            rate[i] = d.unwrap_or(f64::INFINITY);
            frozen[i] = true;
        }
    }
    let mut left = capacity.to_vec();
    while frozen.iter().any(|f| !f) {
        // the smallest equal increment that saturates a link or satisfies a demand
        let mut step = f64::INFINITY;
        for (l, cap) in left.iter().enumerate() {
            let users = flows.iter().zip(&frozen).filter(|((ls, _), f)| !**f && ls.contains(&l)).count();
            if users > 0 {
                step = step.min(cap / users as f64);
            }
        }
        for (i, (_, d)) in flows.iter().enumerate() {
            if let (false, Some(d)) = (frozen[i], d) {
                step = step.min(d - rate[i]);
            }
        }
        for (i, (links, _)) in flows.iter().enumerate() {
            if !frozen[i] {
                rate[i] += step;
                for &l in links {
                    left[l] -= step;
                }
            }
        }
        for (i, (links, d)) in flows.iter().enumerate() {
            let satisfied = d.is_some_and(|d| rate[i] >= d * (1.0 - 1e-12));
            let bottlenecked = links.iter().any(|&l| left[l] <= capacity[l] * 1e-12);
            if !frozen[i] && (satisfied || bottlenecked) {
                frozen[i] = true;
            }
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_link_water_filling_is_the_papers_min_of_fair_share_and_request() {
        // DKS89 §1: μ_i = min(μ_fair, ρ_i). 10 units shared by requests 1, 2, ∞, ∞: fair share 3.5.
        let flows = vec![(vec![0], Some(1.0)), (vec![0], Some(2.0)), (vec![0], None), (vec![0], None)];
        let r = max_min(&[10.0], &flows);
        for (got, want) in r.iter().zip([1.0, 2.0, 3.5, 3.5]) {
            assert!((got - want).abs() < 1e-9, "{r:?}");
        }
    }

    #[test]
    fn parking_lot_long_flow_gets_the_share_of_its_tightest_link() {
        // Two links of 10; flow 0 crosses both, flows 1 and 2 one each; link 1 also carries flow 3.
        let flows = vec![(vec![0, 1], None), (vec![0], None), (vec![1], None), (vec![1], None)];
        let r = max_min(&[10.0, 10.0], &flows);
        let want = [10.0 / 3.0, 10.0 - 10.0 / 3.0, 10.0 / 3.0, 10.0 / 3.0];
        for (got, w) in r.iter().zip(want) {
            assert!((got - w).abs() < 1e-9, "{r:?}");
        }
    }
}
