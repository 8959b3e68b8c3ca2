//! The median the benchmark examples report (`examples/bench.rs`, `examples/floor.rs`): a
//! run's wall time varies with the machine's load, and the median of several runs is what a
//! late, slow run moves least.

/// The median of `v` (the mean of the middle two for an even count); `v` is not empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
