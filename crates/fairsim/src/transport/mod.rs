//! Flow-control protocols (transports): the `Sender` trait, its context, and the registry.
//!
//! A sender decides which sequence numbers go out and when; it never sees the network. The
//! engine turns its actions into packets, delivers ACKs back to it, and runs its timers. Window
//! protocols share the bookkeeping in `window`; the sink side (`sink`) is common to all.

mod generic;
pub mod sink;
pub mod window;

pub use generic::{Generic, GenericConfig};

use crate::engine::event::TimerId;
use crate::net::Packet;
use crate::params::{parse_params, Built, ParamError, Params};
use crate::units::Time;
use serde::Serialize;

/// What a sender asks the engine to do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send data packet `seq` now (a retransmission if it was sent before).
    Send {
        seq: u64,
    },
    SetTimer(TimerId, Time),
    CancelTimer(TimerId),
}

/// What a sender may see and do while handling an event.
pub struct AgentCtx<'a> {
    pub now: Time,
    /// The application has handed the transport packets `0..app_limit` so far.
    pub app_limit: u64,
    actions: &'a mut Vec<Action>,
}

impl<'a> AgentCtx<'a> {
    pub fn new(now: Time, app_limit: u64, actions: &'a mut Vec<Action>) -> Self {
        AgentCtx { now, app_limit, actions }
    }
    pub fn send(&mut self, seq: u64) {
        self.actions.push(Action::Send { seq });
    }
    pub fn set_timer(&mut self, timer: TimerId, at: Time) {
        self.actions.push(Action::SetTimer(timer, at));
    }
    pub fn cancel_timer(&mut self, timer: TimerId) {
        self.actions.push(Action::CancelTimer(timer));
    }
}

pub trait Sender: Send + Sync {
    /// The flow starts.
    fn on_start(&mut self, ctx: &mut AgentCtx);
    /// The application produced more data (`ctx.app_limit` grew).
    fn on_data(&mut self, ctx: &mut AgentCtx);
    /// An acknowledgement arrived.
    fn on_ack(&mut self, ack: &Packet, ctx: &mut AgentCtx);
    /// A timer set by this sender expired.
    fn on_timer(&mut self, timer: TimerId, ctx: &mut AgentCtx);
}

/// Flow properties a transport is built with.
pub struct FlowInfo {
    /// The flow's `window`, which overrides the transport's own default.
    pub window: Option<u32>,
}

pub struct TransportKind {
    pub name: &'static str,
    pub summary: &'static str,
    pub reference: &'static str,
    pub build: fn(&Params, &FlowInfo) -> Built<dyn Sender>,
}

/// Parses a transport's config, letting the flow's `window` override the config's; `make`
/// checks the values and builds the sender.
fn build_with<C, S>(params: &Params, flow: &FlowInfo, make: fn(C) -> Result<S, ParamError>) -> Built<dyn Sender>
where
    C: serde::de::DeserializeOwned + Serialize,
    S: Sender + 'static,
{
    let mut params = params.clone();
    if let Some(w) = flow.window {
        params.insert("window".into(), toml::Value::Integer(w as i64));
    }
    let (config, resolved) = parse_params::<C>(&params)?;
    Ok((Box::new(make(config)?), resolved))
}

pub static TRANSPORTS: &[TransportKind] = &[TransportKind {
    name: "generic",
    summary: "fixed window, timeout = beta x averaged rtt, go-back-N on timeout",
    reference: "Generic flow control of Demers, Keshav & Shenker 1989 §3 and Keshav 1991 §6.5",
    build: |p, f| build_with(p, f, Generic::checked),
}];

/// The name that means "no flow control" (open-loop sources).
pub const NONE: &str = "none";

pub fn find(name: &str) -> Option<&'static TransportKind> {
    TRANSPORTS.iter().find(|k| k.name == name)
}
