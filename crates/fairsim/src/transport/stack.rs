//! Whose TCP a transport models by default: today's Linux stack, or the classic papers'.
//!
//! A user of today's stacks expects `transport = "cubic"` (or `"newreno"`) to behave as Linux's
//! (and ns-3's) TCP does; the classic papers' scenarios expect the TCP they measured. Every TCP
//! option is a parameter of the reliability layer (`reliable::TcpReliability`) or of the window
//! (`aimd::AimdConfig`); `stack` chooses the defaults of those that differ, and an option set
//! beside it wins:
//!
//! | option | `linux` | `classic` |
//! |---|---|---|
//! | `ack_every` | 2 (delayed ACKs, RFC 1122/5681) | 1 |
//! | `rtt_samples` | `timestamps` (RFC 7323) | `karn` |
//! | `sack`, `prr`, `limited_transmit` | on (RFC 2018/6675, 6937, 3042) | off |
//! | `initial_cwnd` | 10 (RFC 6928) | 1 |
//! | `counting` | `bytes`: growth per packet acknowledged (RFC 3465, Linux's `acked`) | `packets`: per ACK |
//! | `initial_rto` | 1 s (RFC 6298) | 3 s (RFC 1122, the papers' era) |
//! | `min_rto`, `clock_granularity` | 200 ms, 200 ms (Linux's RTO: srtt + max(4·mdev, 200 ms)) | 1 s, 0 |
//! | `window` (the receiver's) | 2,173 packets, Linux's autotuned maximum (`LINUX_WINDOW`) | 64 |
//!
//! ECN stays off in both (Linux asks for it only when configured to), and the delayed-ACK timer
//! is 200 ms in both (ns-3's and BSD's; Linux adapts its own between 40 and 200 ms). JK is
//! Jacobson's 1988 TCP and defaults to `classic`; the other window transports to `linux`.

use super::aimd::{AimdConfig, Counting};
use super::reliable::{RttSamples, TcpReliability};
use crate::params::{to_params, Params};
use crate::units::Time;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stack {
    Linux,
    #[default]
    Classic,
}

/// The receiver's window of the `linux` stack, in packets: the largest window Linux's receive
/// autotuning reaches with its default settings.
///
/// Linux grows a connection's receive buffer as data arrives (`tcp_rcv_space_adjust`, dynamic
/// right-sizing: about twice what arrived in the last round trip), so its window stays ahead of
/// the sender's congestion window, which at most doubles per round trip, and binds only at the
/// buffer's ceiling, `tcp_rmem[2]` = 6 MiB (6,291,456 bytes; the default since Linux 4.20 on
/// hosts with enough memory). Half of the buffer is advertised as window (`tcp_adv_win_scale`
/// = 1; kernels from 6.6 scale by the measured payload-to-memory ratio instead): 3 MiB, which is
/// 3,145,728 / 1,448 = 2,172.5 → 2,173 segments of Linux's MSS at an MTU of 1,500 bytes with
/// timestamps. Choices: a constant (no growth phase: autotuning never holds back a slow start)
/// and a count of packets whatever their size, as every window here is.
pub const LINUX_WINDOW: u32 = 2_173;

/// The options whose defaults a stack chooses.
const OPTIONS: &[&str] = &[
    "window",
    "ack_every",
    "rtt_samples",
    "sack",
    "prr",
    "limited_transmit",
    "initial_cwnd",
    "counting",
    "initial_rto",
    "min_rto",
    "clock_granularity",
];

impl Stack {
    /// The reliability layer's parameters of this stack.
    pub fn reliability(self) -> TcpReliability {
        let classic = TcpReliability::default();
        match self {
            Stack::Classic => classic,
            Stack::Linux => TcpReliability {
                stack: Stack::Linux,
                window: LINUX_WINDOW,
                ack_every: 2,
                rtt_samples: RttSamples::Timestamps,
                sack: true,
                prr: true,
                limited_transmit: true,
                initial_rto: Time::from_secs(1),
                min_rto: Time::from_millis(200),
                clock_granularity: Time::from_millis(200),
                ..classic
            },
        }
    }

    /// The window's parameters of this stack: the initial window and how ACKs grow it.
    pub fn window(self) -> AimdConfig {
        match self {
            Stack::Linux => AimdConfig { initial_cwnd: 10.0, counting: Counting::Bytes, ..Default::default() },
            Stack::Classic => AimdConfig::default(),
        }
    }

    /// This stack's value of every option it chooses.
    fn options(self) -> Params {
        let mut all = to_params(&self.reliability());
        all.extend(to_params(&self.window()));
        all.retain(|k, _| OPTIONS.contains(&k));
        all
    }
}

/// `params` with the options of the stack they name (if they name one) filled in where they
/// set none, for a transport whose parameters are `known`; a bad `stack` is left for the
/// parameters' own check to report.
pub fn fill_in(params: &Params, known: &[&str]) -> Params {
    let mut params = params.clone();
    let Some(stack) = params.get("stack").cloned().and_then(|v| v.try_into::<Stack>().ok()) else {
        return params;
    };
    for (key, value) in stack.options() {
        if known.contains(&key.as_str()) && !params.contains_key(&key) {
            params.insert(key, value);
        }
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Params {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_stack_fills_in_the_options_not_set_beside_it() {
        let known = ["stack", "sack", "ack_every", "initial_cwnd", "counting", "min_rto", "window"];
        let filled = fill_in(&table("stack = \"classic\"\nsack = true\nwindow = 20"), &known);
        assert_eq!(filled.get("sack"), Some(&toml::Value::Boolean(true)), "set beside it: kept");
        assert_eq!(filled.get("ack_every"), Some(&toml::Value::Integer(1)));
        assert_eq!(filled.get("initial_cwnd"), Some(&toml::Value::Float(1.0)));
        assert_eq!(filled.get("min_rto"), Some(&toml::Value::String("1s".into())));
        assert_eq!(filled.get("counting"), Some(&toml::Value::String("packets".into())));
        assert!(!filled.contains_key("prr"), "not a parameter of this transport");
        assert_eq!(filled.get("window"), Some(&toml::Value::Integer(20)), "set beside it: kept");
        let filled = fill_in(&table("stack = \"linux\""), &known);
        assert_eq!(filled.get("window"), Some(&toml::Value::Integer(LINUX_WINDOW.into())));
    }

    #[test]
    fn without_a_stack_nothing_is_filled_in() {
        let params = table("sack = true");
        assert_eq!(fill_in(&params, &["stack", "sack", "ack_every"]), params);
    }

    #[test]
    fn linux_is_todays_tcp() {
        let r = Stack::Linux.reliability();
        assert_eq!((r.ack_every, r.sack, r.prr, r.limited_transmit), (2, true, true, true));
        assert_eq!(r.rtt_samples, RttSamples::Timestamps);
        assert_eq!((r.initial_rto, r.min_rto), (Time::from_secs(1), Time::from_millis(200)));
        assert_eq!(Stack::Linux.window().initial_cwnd, 10.0, "RFC 6928");
        assert_eq!(r.window, 2173, "3 MiB of 1,448-byte segments");
        assert_eq!(Stack::Linux.window().counting, Counting::Bytes, "Linux grows by the packets acknowledged");
    }
}
