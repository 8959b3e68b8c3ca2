//! Fairness measures: Jain's index.
//!
//! Jain, Chiu & Hawe (DEC-TR-301, 1984) define the index on x_i = T_i / O_i, each flow's
//! throughput over its fair (optimal) throughput: (Σx)² / (n·Σx²), 1 when all flows get the same
//! fraction of their fair share. The fair shares are the max-min allocation
//! (`crate::reference::max_min`).

/// Jain's index of `xs`; `None` for an empty set or all zeros.
pub fn jain(xs: &[f64]) -> Option<f64> {
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    (sq > 0.0).then(|| sum * sum / (xs.len() as f64 * sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_is_one_when_equal_and_one_over_n_when_one_takes_all() {
        assert_eq!(jain(&[3.0, 3.0, 3.0]), Some(1.0));
        assert_eq!(jain(&[1.0, 0.0, 0.0, 0.0]), Some(0.25));
        assert_eq!(jain(&[]), None);
    }
}
