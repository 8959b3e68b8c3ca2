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
//! | `min_rto`, `clock_granularity` | 200 ms, 200 ms (Linux's RTO: srtt + max(4·mdev, 200 ms); its one `rto_min` is both, so a `min_rto` written below the granularity is refused: `dominated.rs`) | 1 s, 0 |
//! | `window` (the receiver's) | 2,173 packets, Linux's autotuned maximum (`LINUX_WINDOW`) | 64 |
//! | `ssthresh_from` | `cwnd` (Linux's `tcp_reno_ssthresh`: cwnd/2; CUBIC β·cwnd) | `flight` (RFC 5681's FlightSize) |
//! | `recovery_exit` | `flight`: min(ssthresh, flight + 1) (RFC 6582 §3.2 step 3, first choice) | `ssthresh` (its second) |
//! | `rack`, `tlp` | on: losses told by time, tail loss probes (RFC 8985; Linux's `tcp_recovery = 1`, `tcp_early_retrans = 3`) | off: 3 duplicate ACKs (RFC 5681/6675) |
//! | `dsack` | on (RFC 2883; Linux's `tcp_dsack = 1`) | off |
//! | `adaptive_reordering` | on: the duplicate threshold rises with the reordering seen (Linux's `tcp_reordering`) | off |
//! | `undo` | on: a recovery proved spurious (D-SACK, timestamps) is undone (RFC 3708, RFC 3522; Linux) | off |
//!
//! The options that work on SACK blocks (`prr`, `rack`, `tlp`, `dsack`, `adaptive_reordering`,
//! `undo`)
//! follow `sack` (`follow_sack`): a scenario that writes `sack = false` gets NewReno's recovery
//! without them, whatever its stack or transport presets, rather than a refusal of options it
//! never wrote (one it writes is still checked).
//!
//! ECN stays off in both (Linux asks for it only when configured to), and the delayed-ACK timer
//! is 200 ms in both (ns-3's and BSD's; Linux adapts its own between 40 and 200 ms). JK is
//! Jacobson's 1988 TCP and defaults to `classic`; the other window transports to `linux`.

use crate::params::Params;
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
    "ssthresh_from",
    "recovery_exit",
    "rack",
    "tlp",
    "dsack",
    "adaptive_reordering",
    "undo",
];

/// The options that need SACK: a stack presets them only where `sack` is on.
const ON_SACK: &[&str] = &["prr", "rack", "tlp", "dsack", "adaptive_reordering", "undo"];

/// `params` with the options of the stack they name (if they name one) filled in from
/// `presets` (that stack's value of each option, `presets(stack)`) where they set none, for a
/// transport whose parameters are `known`; a bad `stack` is left for the parameters' own check
/// to report.
pub fn fill_in(params: &Params, known: &[&str], presets: impl Fn(Stack) -> Params) -> Params {
    let mut params = params.clone();
    let Some(stack) = params.get("stack").cloned().and_then(|v| v.try_into::<Stack>().ok()) else {
        return params;
    };
    for (key, value) in presets(stack) {
        if OPTIONS.contains(&key.as_str()) && known.contains(&key.as_str()) && !params.contains_key(&key) {
            params.insert(key, value);
        }
    }
    params
}

/// `params` (a transport's table as written, whose parameters are `known`) with the options
/// that need SACK switched off where it writes `sack = false` and leaves them unwritten, so that
/// neither a stack's presets nor the transport's defaults turn them on.
pub fn follow_sack(params: &Params, known: &[&str]) -> Params {
    let mut params = params.clone();
    if params.get("sack").and_then(toml::Value::as_bool) == Some(false) {
        for key in ON_SACK.iter().filter(|k| known.contains(k)) {
            params.entry(*key).or_insert(toml::Value::Boolean(false));
        }
    }
    params
}
