//! The max-min fair allocation that fairness is measured against: Demers, Keshav & Shenker
//! 1989 §1 (water-filling), generalised to a network: every link's capacity is shared, flows
//! are bottlenecked at their tightest link, demands cap what a flow is given.

/// Max-min fair rates by progressive filling.
///
/// `capacity[l]` is link l's rate; each flow is `(links it crosses, demand)` with `None` for
/// an unlimited demand. A flow that crosses no link gets its demand (or infinity).
///
/// Each round costs the links and the routes of the flows still growing: the flows still
/// growing on each link are counted as flows are frozen, not searched for per link (which made
/// a network of 100,000 flows and 200,000 ports take minutes). The arithmetic, and so every
/// bit of the result, is that of the plain algorithm (`tests::plain`).
pub fn max_min(capacity: &[f64], flows: &[(Vec<usize>, Option<f64>)]) -> Vec<f64> {
    let mut rate = vec![0.0; flows.len()];
    let mut frozen = vec![false; flows.len()];
    // the links a flow crosses, each once however often its list names it
    let distinct = |links: &[usize]| {
        let firsts = links.iter().enumerate().filter(|&(j, l)| !links[..j].contains(l));
        firsts.map(|(_, &l)| l).collect::<Vec<usize>>()
    };
    // each link's flows not frozen yet
    let mut users = vec![0usize; capacity.len()];
    for (i, (links, d)) in flows.iter().enumerate() {
        if links.is_empty() {
            rate[i] = d.unwrap_or(f64::INFINITY);
            frozen[i] = true;
        }
        for l in distinct(links) {
            users[l] += 1;
        }
    }
    let mut growing = frozen.iter().filter(|f| !**f).count();
    let mut left = capacity.to_vec();
    while growing > 0 {
        // the smallest equal increment that saturates a link or satisfies a demand
        let mut step = f64::INFINITY;
        for (l, cap) in left.iter().enumerate() {
            if users[l] > 0 {
                step = step.min(cap / users[l] as f64);
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
                growing -= 1;
                for l in distinct(links) {
                    users[l] -= 1;
                }
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

    /// The algorithm as first written: each round counts each link's growing flows afresh.
    fn plain(capacity: &[f64], flows: &[(Vec<usize>, Option<f64>)]) -> Vec<f64> {
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

    proptest::proptest! {
        #[test]
        fn the_counted_rounds_give_the_plain_algorithms_bits(
            capacity in proptest::collection::vec(1.0f64..1e9, 1..6),
            flows in proptest::collection::vec(
                (proptest::collection::vec(0usize..6, 0..5), proptest::option::of(0.0f64..1e9)),
                0..12,
            ),
        ) {
            let flows: Vec<(Vec<usize>, Option<f64>)> = flows
                .into_iter()
                .map(|(links, d)| (links.into_iter().map(|l| l % capacity.len()).collect(), d))
                .collect();
            let bits = |r: Vec<f64>| r.into_iter().map(f64::to_bits).collect::<Vec<u64>>();
            proptest::prop_assert_eq!(bits(max_min(&capacity, &flows)), bits(plain(&capacity, &flows)));
        }
    }
}
