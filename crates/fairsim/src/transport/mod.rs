//! Flow-control protocols (transports), in layers, each folder using only those above it here:
//!
//! - `sender.rs`, `stack.rs`: the contract (the `Sender` trait, its context, what it is built
//!   for) and the names of the TCP stacks whose presets the parts below choose;
//! - `reliability/`: the reliability layer of window protocols (`reliable`: window, duplicate
//!   ACKs, SACK, the retransmission timer), the `Controller` trait it drives, and the sink side
//!   (`sink`), common to all;
//! - `controllers/`: congestion controllers under the reliability layer: Jacobson's window for
//!   JK, Reno and NewReno (`aimd`), CUBIC, DCTCP, BBR (paced), Vegas, Swift (delay targets,
//!   paced below a packet), DECbit's window law, Generic's fixed window;
//! - `senders/`: whole senders that set their own rates: Packet-Pair, RLM, BLT, NDP, EQDS,
//!   RoCE and DCQCN, HPCC;
//! - `dominated.rs`: settings another setting keeps from taking effect, which validation refuses;
//! - this file: the registry, and building a sender from a scenario's parameters.

pub mod controllers;
pub mod dominated;
pub mod reliability;
pub mod sender;
pub mod senders;
pub mod stack;

pub use controllers::aimd::{Aimd, AimdConfig};
pub use controllers::decbit::{decbit, Decbit, DecbitConfig};
pub use controllers::generic::{generic, Generic, GenericConfig};
pub use controllers::vegas::{Vegas, VegasConfig};
pub use reliability::controller::Controller;
pub use reliability::reliable::{AveragedReliability, Recovery, Reliable, TcpReliability};
pub use sender::{Action, AgentCtx, Event, FlowInfo, Sender, Series, TransportDeclaration, TransportKind};
pub use senders::packet_pair::{PacketPair, PacketPairConfig};

use crate::component::Builder;
use crate::params::{Built, ParamError, Params};

pub use crate::timer::TimerId;

/// Every option's value under `stack`: the reliability layer's and the window's presets.
fn presets(stack: stack::Stack) -> Params {
    let mut all = crate::params::to_params(&TcpReliability::of_stack(stack));
    all.extend(crate::params::to_params(&AimdConfig::of_stack(stack)));
    all
}

/// The transport's parameters with the options of the `stack` they name, and the flow's
/// `window`, which overrides the transport's own, checked against the largest window.
fn prepared(kind: &TransportKind, params: &Params, flow: &FlowInfo) -> Result<Params, ParamError> {
    let known = kind.parameter_names();
    let params = stack::follow_sack(params, &known);
    let mut params = if params.contains_key("stack") { stack::fill_in(&params, &known, presets) } else { params };
    if let Some(w) = flow.window {
        params.insert("window".into(), toml::Value::Integer(w as i64));
    }
    if let Some(w) = params.get("window").and_then(toml::Value::as_integer) {
        // the flow's own window is checked where it is written, so this is the transport's
        crate::limits::check(w, crate::limits::MAX_WINDOW.into(), "packets")
            .map_err(|e| ParamError::at("window", e))?;
    }
    Ok(params)
}

/// Builds a sender of kind `kind` for `flow` from the scenario's `params`.
pub fn build(kind: &TransportKind, params: &Params, flow: &FlowInfo) -> Built<dyn Sender> {
    kind.build(&prepared(kind, params, flow)?, flow)
}

/// The parameters a transport of kind `kind` resolves to for `flow` when its table `written`
/// leaves out the settings `dominated` judges: their defaults (under the written `stack`, for the
/// written class of a foreign transport), as `dominated::check` compares a setting with.
pub fn defaults(kind: &TransportKind, written: &Params, flow: &FlowInfo) -> Result<Params, ParamError> {
    let mut rest = written.clone();
    rest.retain(|k, _| !dominated::JUDGED.contains(&k));
    Ok(build(kind, &rest, flow)?.1)
}

/// A path's base round trip (`FlowInfo::base_rtt`) from its lines' rates and delays, for
/// packets of `packet` bytes.
pub fn base_rtt(
    lines: impl Iterator<Item = (crate::units::Rate, crate::units::Time)>,
    packet: u32,
) -> crate::units::Time {
    lines.fold(crate::units::Time::ZERO, |t, (rate, delay)| t + delay + delay + rate.tx_time(packet))
}

/// A transport's senders with their parameters read once, and the flow they are built for.
pub type SenderBuilder = (Builder<FlowInfo, dyn Sender>, FlowInfo);

/// Senders of kind `kind` for `flow`, the scenario's `params` read once (an open population's
/// connections, each with its own).
pub fn builder(
    kind: &TransportKind,
    params: &Params,
    flow: &FlowInfo,
) -> Result<Builder<FlowInfo, dyn Sender>, ParamError> {
    kind.builder(&prepared(kind, params, flow)?)
}

/// Every transport, in the order listings show them; each declares itself in its own file.
pub static TRANSPORTS: &[&TransportKind] = &[
    &controllers::generic::DECLARATION,
    &controllers::aimd::JK,
    &controllers::aimd::RENO,
    &controllers::aimd::NEWRENO,
    &controllers::cubic::DECLARATION,
    &controllers::dctcp::DECLARATION,
    &controllers::bbr::DECLARATION,
    &controllers::decbit::DECLARATION,
    &senders::packet_pair::DECLARATION,
    &senders::rlm::DECLARATION,
    &controllers::vegas::DECLARATION,
    &senders::blt::DECLARATION,
    &senders::blt::BULLY_TYRANT,
    &senders::ndp::DECLARATION,
    &senders::eqds::DECLARATION,
    &senders::roce::ROCE,
    &senders::roce::DCQCN,
    &controllers::swift::DECLARATION,
    &senders::hpcc::DECLARATION,
];

/// The name that means "no flow control" (open-loop sources).
pub const NONE: &str = "none";

/// Transports written outside Rust (`crate::foreign`: the Python package's controllers).
pub static FOREIGN: crate::foreign::Door<FlowInfo, dyn Sender> = crate::foreign::Door::closed();

/// The built-in transport called `name`, if there is one (none the foreign door knows).
pub fn builtin(name: &str) -> Option<&'static TransportKind> {
    crate::component::find(TRANSPORTS, name)
}

/// The transport called `name`: a built-in one, else one the foreign door knows.
pub fn find(name: &str) -> Option<&'static TransportKind> {
    crate::component::find(TRANSPORTS, name).or_else(|| FOREIGN.find(name))
}

#[cfg(test)]
mod stacks {
    use super::stack::{fill_in, Stack, LINUX_WINDOW};
    use super::*;
    use crate::transport::controllers::aimd::Counting;
    use crate::transport::reliability::reliable::RttSamples;
    use crate::units::Time;

    fn table(text: &str) -> Params {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_stack_fills_in_the_options_not_set_beside_it() {
        let known = ["stack", "sack", "ack_every", "initial_cwnd", "counting", "min_rto", "window"];
        let filled = fill_in(&table("stack = \"classic\"\nsack = true\nwindow = 20"), &known, presets);
        assert_eq!(filled.get("sack"), Some(&toml::Value::Boolean(true)), "set beside it: kept");
        assert_eq!(filled.get("ack_every"), Some(&toml::Value::Integer(1)));
        assert_eq!(filled.get("initial_cwnd"), Some(&toml::Value::Float(1.0)));
        assert_eq!(filled.get("min_rto"), Some(&toml::Value::String("1s".into())));
        assert_eq!(filled.get("counting"), Some(&toml::Value::String("packets".into())));
        assert!(!filled.contains_key("prr"), "not a parameter of this transport");
        assert_eq!(filled.get("window"), Some(&toml::Value::Integer(20)), "set beside it: kept");
        let filled = fill_in(&table("stack = \"linux\""), &known, presets);
        assert_eq!(filled.get("window"), Some(&toml::Value::Integer(LINUX_WINDOW.into())));
    }

    #[test]
    fn sack_off_takes_the_options_that_need_it_along_unless_written() {
        let known = ["stack", "sack", "prr", "rack", "tlp", "dsack", "adaptive_reordering", "undo", "ack_every"];
        let filled = fill_in(&stack::follow_sack(&table("stack = \"linux\"\nsack = false"), &known), &known, presets);
        for key in ["prr", "rack", "tlp", "dsack", "adaptive_reordering", "undo"] {
            assert_eq!(filled.get(key), Some(&toml::Value::Boolean(false)), "{key}");
        }
        assert_eq!(filled.get("ack_every"), Some(&toml::Value::Integer(2)), "the rest of the stack stays");
        let written = stack::follow_sack(&table("sack = false\nrack = true"), &known);
        assert_eq!(written.get("rack"), Some(&toml::Value::Boolean(true)), "written: left for the check to refuse");
        let linux = fill_in(&table("stack = \"linux\""), &known, presets);
        assert_eq!(linux.get("rack"), Some(&toml::Value::Boolean(true)), "RACK-TLP is Linux's loss detection");
    }

    #[test]
    fn without_a_stack_nothing_is_filled_in() {
        let params = table("sack = true");
        assert_eq!(fill_in(&params, &["stack", "sack", "ack_every"], presets), params);
    }

    #[test]
    fn linux_is_todays_tcp() {
        let r = TcpReliability::of_stack(Stack::Linux);
        assert_eq!((r.ack_every, r.sack, r.prr, r.limited_transmit), (2, true, true, true));
        assert_eq!(r.rtt_samples, RttSamples::Timestamps);
        assert_eq!((r.initial_rto, r.min_rto), (Time::from_secs(1), Time::from_millis(200)));
        let w = AimdConfig::of_stack(Stack::Linux);
        assert_eq!(w.initial_cwnd, 10.0, "RFC 6928");
        assert_eq!(r.window, 2173, "3 MiB of 1,448-byte segments");
        assert_eq!(w.counting, Counting::Bytes, "Linux grows by the packets acknowledged");
    }
}

#[cfg(test)]
mod declarations {
    #[test]
    fn every_transport_documents_itself_and_every_parameter() {
        assert_eq!(crate::component::undocumented(super::TRANSPORTS), Vec::<String>::new());
    }
}
