//! Settings that another setting keeps from taking effect.
//!
//! A user who writes `min_rto = "1ms"` for a `linux`-stack transport expects timeouts of about a
//! millisecond; but that stack's `clock_granularity` of 200 ms (Linux's RTO is srtt + max(4·mdev,
//! 200 ms)) keeps every timeout above 200 ms, so the setting would change nothing and the run
//! would look valid. Each rule here names a setting the scenario wrote and the setting (written
//! or a default) that dominates it; validation refuses the pair with both values, at the place
//! of the dominated one, so a result never rests on a setting that did nothing. Only what the
//! scenario wrote, and wrote other than its default, is judged: a default dominated by a written
//! value is the user's choice, and a resolved scenario (every default written out) loads again.
//!
//! The rules (docs/decisions.md, "A setting that cannot take effect"):
//! - `min_rto` below `clock_granularity`: every timeout after the first sample is at least
//!   srtt + clock_granularity (RFC 6298 §2.3), so a smaller floor never binds (0 means no floor
//!   and is not judged). Linux has one setting for both (`rto_min` floors the variance term).
//! - `initial_rto` above `max_rto`: the first timeout is cut to `max_rto`.
//! - `initial_cwnd` above `window`: the receiver's window caps every window, the first included.
//! - `ack_delay` with `ack_every = 1`: the sink acknowledges every packet at once, so the
//!   delayed-ACK timer never runs.

use crate::params::{ParamError, Params};
use crate::units::Time;

/// The settings the rules judge when a scenario writes them.
pub const JUDGED: &[&str] = &["min_rto", "initial_rto", "initial_cwnd", "ack_delay"];

/// Refuses a setting that `written` (the scenario's table) sets, to other than its value in
/// `defaults()` (the table resolved without the judged settings: asked for only when the table
/// writes one), and that the `resolved` table keeps from taking effect.
pub fn check(
    written: &Params,
    resolved: &Params,
    defaults: impl FnOnce() -> Result<Params, ParamError>,
) -> Result<(), ParamError> {
    if !JUDGED.iter().any(|k| written.contains_key(*k)) {
        return Ok(());
    }
    let defaults = defaults()?;
    let time = |key: &str| resolved.get(key).cloned().and_then(|v| v.try_into::<Time>().ok());
    let number = |key: &str| resolved.get(key).and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)));
    let wrote = |key: &str| written.contains_key(key) && resolved.get(key) != defaults.get(key);
    if let (true, Some(min), Some(g)) = (wrote("min_rto"), time("min_rto"), time("clock_granularity")) {
        if min > Time::ZERO && min < g {
            return Err(ParamError::at(
                "min_rto",
                format!(
                    "min_rto ({min}) cannot take effect: every timeout is at least srtt + clock_granularity \
                     ({g}); set clock_granularity = \"{min}\" as well (Linux's rto_min is both)"
                ),
            ));
        }
    }
    if let (true, Some(first), Some(max)) = (wrote("initial_rto"), time("initial_rto"), time("max_rto")) {
        if first > max {
            return Err(ParamError::at(
                "initial_rto",
                format!("initial_rto ({first}) cannot take effect: the first timeout is cut to max_rto ({max})"),
            ));
        }
    }
    if let (true, Some(cwnd), Some(window)) = (wrote("initial_cwnd"), number("initial_cwnd"), number("window")) {
        if cwnd > window {
            return Err(ParamError::at(
                "initial_cwnd",
                format!("initial_cwnd ({cwnd}) cannot take effect: the window ({window} packets) caps every window"),
            ));
        }
    }
    if wrote("ack_delay") && number("ack_every") == Some(1.0) {
        return Err(ParamError::at(
            "ack_delay",
            "ack_delay cannot take effect: with ack_every = 1 the sink acknowledges every packet at once, \
             so the delayed-ACK timer never runs",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::stack::Stack;
    use crate::transport::{AimdConfig, TcpReliability};

    /// `written` over the `stack`'s presets, as validation resolves a transport's table.
    fn resolve(stack: Stack, written: &str) -> (Params, Params) {
        let written: Params = toml::from_str(written).unwrap();
        let mut resolved = crate::params::to_params(&TcpReliability::of_stack(stack));
        resolved.extend(crate::params::to_params(&AimdConfig::of_stack(stack)));
        resolved.extend(written.clone());
        (written, resolved)
    }

    fn refused(stack: Stack, written: &str) -> Option<ParamError> {
        let (written, resolved) = resolve(stack, written);
        let (_, defaults) = resolve(stack, "");
        check(&written, &resolved, || Ok(defaults)).err()
    }

    #[test]
    fn a_min_rto_under_linuxs_clock_granularity_is_refused_naming_both() {
        let e = refused(Stack::Linux, "min_rto = \"1ms\"").expect("dominated");
        assert_eq!(e.path, vec!["min_rto"]);
        assert!(
            e.message.contains("min_rto (1ms) cannot take effect") && e.message.contains("(200ms)"),
            "{}",
            e.message
        );
        assert!(refused(Stack::Linux, "min_rto = \"1ms\"\nclock_granularity = \"1ms\"").is_none());
        assert!(refused(Stack::Linux, "min_rto = \"0s\"").is_none(), "0 is no floor at all");
        assert!(refused(Stack::Classic, "min_rto = \"1ms\"").is_none(), "classic: a perfect clock");
    }

    #[test]
    fn only_what_the_scenario_wrote_is_judged() {
        // the linux stack's own min_rto (200 ms) below a written granularity: the user's choice
        assert!(refused(Stack::Linux, "clock_granularity = \"500ms\"").is_none());
        assert!(refused(Stack::Linux, "").is_none(), "the presets themselves are consistent");
        assert!(refused(Stack::Classic, "").is_none());
    }

    #[test]
    fn the_other_dominated_pairs_are_refused() {
        let e = refused(Stack::Classic, "initial_rto = \"100s\"").expect("above max_rto");
        assert!(e.message.contains("cut to max_rto (64s)"), "{}", e.message);
        let e = refused(Stack::Classic, "initial_cwnd = 100.0\nwindow = 20").expect("above the window");
        assert_eq!(e.path, vec!["initial_cwnd"]);
        let e = refused(Stack::Classic, "ack_delay = \"40ms\"").expect("no delayed ACKs");
        assert_eq!(e.path, vec!["ack_delay"]);
        assert!(refused(Stack::Linux, "ack_delay = \"40ms\"").is_none(), "linux delays ACKs");
        assert!(refused(Stack::Classic, "initial_cwnd = 20.0\nwindow = 20").is_none());
    }

    #[test]
    fn a_default_written_out_is_not_judged() {
        // a resolved scenario writes every default: `ack_delay = "200ms"` beside `ack_every = 1`
        assert!(refused(Stack::Classic, "ack_delay = \"200ms\"\nack_every = 1").is_none());
        assert!(refused(Stack::Linux, "min_rto = \"200ms\"\nclock_granularity = \"500ms\"").is_none());
        let untouched = |_: &str| -> Result<Params, ParamError> { panic!("no judged setting: no defaults asked for") };
        assert!(check(&toml::from_str("window = 3").unwrap(), &Params::new(), || untouched("")).is_ok());
    }
}
