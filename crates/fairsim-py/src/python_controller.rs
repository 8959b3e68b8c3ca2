//! Congestion controllers written in Python, run inside the engine: the adapter of an
//! instance (built by the registry, `python_host`) to the engine's `Controller` contract, under
//! TCP's reliability layer (`Reliable::tcp`), so that it gets fast retransmit, SACK, PRR, the
//! timers and delayed ACKs as the Rust controllers do.
//!
//! - Only the hooks the class defines are called (the registry says which).
//! - The layer asks for the window far more often than anything happens. The adapter therefore
//!   reads `window` (and `pacing_rate`, if defined) once after each hook it called, and answers
//!   from that.
//! - A hook that raises, or a window that is not a whole number of packets, stops the run
//!   (`fairsim::foreign::fail`). The message names the class, the hook and the simulated time.
//! - Every hook is given the context (`ControllerContext`), one object per controller reused for
//!   every call and valid only during it: the time, the connection as the layer shows it
//!   before the event (`Controller::observe`: srtt, RTO, what is in flight, recovery), the
//!   least round trip seen, and, for a class that asks for them (`samples_delivery = True`),
//!   the delivery-rate sample of the latest ACK (the estimator BBR uses,
//!   `reliability::delivery_rate`, which keeps a record per packet in flight: nothing for the
//!   classes that never read one).
//! - In a traced flow, what is in flight is recorded as `outstanding` after each fill, and a
//!   class without a `trace` hook has its window recorded as `cwnd` (and `ssthresh`, if the
//!   instance has a number by that name) after each event that may change it, as for `reno`;
//!   `ctx.record` takes any series name.
//!
//! The transport's parameters are the reliability layer's (`TcpReliability`, with the `linux`
//! stack's defaults as `reno` and `newreno` have them), `recovery` (`tahoe`, `reno` or
//! `newreno`: how duplicate ACKs are recovered without SACK), and the class's own.

use crate::python_host::{self, Named, PyHost};
use crate::python_qdisc::PacketView;
use fairsim::component::{About, Kind, ParamDoc, Parts};
use fairsim::net::Packet;
use fairsim::params::{fields, parse_over, ParamError, Params};
use fairsim::transport::reliability::controller::{Congestion, Connection, Controller, Hook, Load, NewAck, RttSample};
use fairsim::transport::reliability::delivery_rate::{DeliveryRate, RateSample};
use fairsim::transport::reliability::retransmit::RtoTimer;
use fairsim::transport::reliability::window::SendWindow;
use fairsim::transport::stack::Stack;
use fairsim::transport::{AgentCtx, FlowInfo, Recovery, Reliable, Sender, Series, TcpReliability};
use fairsim::units::Time;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyTuple};
use rand::RngCore;

/// A loss the layer detected, as a Python controller's `on_congestion` sees it.
#[pyclass(name = "Loss", module = "fairsim._core", frozen)]
pub struct Loss {
    /// `"fast_retransmit"`, `"timeout"` or `"ecn"`.
    #[pyo3(get)]
    kind: &'static str,
    /// Duplicate ACKs that triggered a fast retransmit (0 otherwise).
    #[pyo3(get)]
    dupacks: u32,
    /// Whether the layer entered fast recovery (Reno, NewReno) rather than starting over (Tahoe).
    #[pyo3(get)]
    recovering: bool,
    /// Packets outstanding when the loss was detected (RFC 5681's FlightSize).
    #[pyo3(get)]
    flight: u64,
    /// Of those, the packets still in the network (RFC 6675's pipe).
    #[pyo3(get)]
    pipe: u64,
}

/// What a controller's hook may see and ask for. One per controller, reused for every call:
/// valid only inside a hook.
#[pyclass(name = "ControllerContext", module = "fairsim._core")]
pub struct ControllerContext {
    now: f64,
    conn: Connection,
    packet_size: u32,
    min_rtt: Option<f64>,
    /// Whether the class asked for delivery-rate samples (`samples_delivery`).
    samples_delivery: bool,
    delivered: u64,
    sample: Option<RateSample>,
    records: Vec<(Series, f64)>,
    /// Whether a hook is being called, the last one called, and the controller's label, for
    /// the message of a use outside a hook.
    live: bool,
    last: &'static str,
    label: String,
}

#[pymethods]
impl ControllerContext {
    /// The simulated time, in seconds.
    #[getter]
    fn now(&self) -> PyResult<f64> {
        Ok(self.live()?.now)
    }
    /// The retransmission timer's smoothed round trip, seconds (None before a sample).
    #[getter]
    fn srtt(&self) -> PyResult<Option<f64>> {
        Ok(self.live()?.conn.srtt)
    }
    /// The least round trip sampled so far, seconds (None before a sample).
    #[getter]
    fn min_rtt(&self) -> PyResult<Option<f64>> {
        Ok(self.live()?.min_rtt)
    }
    /// The retransmission timeout now (backoff included), seconds.
    #[getter]
    fn rto(&self) -> PyResult<f64> {
        Ok(self.live()?.conn.rto())
    }
    /// Packets sent and not cumulatively acknowledged (RFC 5681's FlightSize).
    #[getter]
    fn flight(&self) -> PyResult<u64> {
        Ok(self.live()?.conn.flight)
    }
    /// The same in bytes (the flow's packets are all of its `packet_size`).
    #[getter]
    fn flight_bytes(&self) -> PyResult<u64> {
        Ok(self.live()?.conn.flight * self.packet_size as u64)
    }
    /// The oldest unacknowledged packet: every one below it was delivered.
    #[getter]
    fn una(&self) -> PyResult<u64> {
        Ok(self.live()?.conn.una)
    }
    /// The next new packet the sender will send.
    #[getter]
    fn next_seq(&self) -> PyResult<u64> {
        Ok(self.live()?.conn.next)
    }
    /// Whether the reliability layer is in fast recovery.
    #[getter]
    fn in_recovery(&self) -> PyResult<bool> {
        Ok(self.live()?.conn.in_recovery)
    }
    /// Packets delivered so far, as the delivery-rate estimator counts them (a duplicate ACK
    /// counts the packet beyond the hole it reports).
    #[getter]
    fn delivered(&self) -> PyResult<u64> {
        Ok(self.sampling()?.delivered)
    }
    /// The latest ACK's delivery-rate sample, packets per second: what was delivered between
    /// the sampled packet's send and this ACK, over the longer of its send and ACK phases
    /// (draft-cheng-iccrg-delivery-rate-estimation, as BBR takes it); None if that ACK gave none.
    #[getter]
    fn delivery_rate(&self) -> PyResult<Option<f64>> {
        Ok(self.sampling()?.sample.map(|s| s.rate()))
    }
    /// That sample's interval, seconds (None without a sample).
    #[getter]
    fn delivery_interval(&self) -> PyResult<Option<f64>> {
        Ok(self.sampling()?.sample.map(|s| s.interval.as_secs_f64()))
    }
    /// Whether the sender was application-limited when the sampled packet left: the rate may be
    /// below what the path allows (False without a sample).
    #[getter]
    fn delivery_app_limited(&self) -> PyResult<bool> {
        Ok(self.sampling()?.sample.is_some_and(|s| s.app_limited))
    }
    /// `delivered` when the sampled packet left: a round trip has passed once `delivered`
    /// reaches what it was when the round began (None without a sample).
    #[getter]
    fn delivery_prior_delivered(&self) -> PyResult<Option<u64>> {
        Ok(self.sampling()?.sample.map(|s| s.prior_delivered))
    }

    /// Records `value` in the flow's trace of `series` when the flow is traced: a series of the
    /// built-in controllers (`cwnd`, `ssthresh`, `window`, `rate`, `min_rtt`, ...) or any name of
    /// letters, digits, `_` and `-`.
    fn record(&mut self, series: &str, value: f64) -> PyResult<()> {
        self.live()?;
        if let Some(builtin) = Series::from_name(series) {
            self.records.push((builtin, value_checked(series, value)?));
            return Ok(());
        }
        if series.is_empty() || !series.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(PyValueError::new_err(format!(
                "series name {series:?}: a name is letters, digits, `_` and `-`"
            )));
        }
        let value = value_checked(series, value)?;
        let Some(series) = Series::named(series) else {
            return Err(PyValueError::new_err(format!("series {series:?}: too many series names in one process")));
        };
        self.records.push((series, value));
        Ok(())
    }
}

/// `value`, if it is a number a trace can hold.
fn value_checked(series: &str, value: f64) -> PyResult<f64> {
    if value.is_finite() {
        return Ok(value);
    }
    Err(PyValueError::new_err(format!("series {series:?}: the value {value} is not a finite number")))
}

impl ControllerContext {
    /// Refuses to read delivery-rate samples a class did not ask for: they would all be None.
    fn sampling(&self) -> PyResult<&Self> {
        if self.live()?.samples_delivery {
            return Ok(self);
        }
        Err(PyRuntimeError::new_err(format!(
            "controller {} reads delivery-rate samples: its class sets `samples_delivery = True` to have them",
            self.label
        )))
    }

    /// Refuses a use outside a hook: what it would read is stale, and what it would record
    /// would go nowhere.
    fn live(&self) -> PyResult<&Self> {
        if self.live {
            return Ok(self);
        }
        Err(PyRuntimeError::new_err(format!(
            "the context of controller {} is used after its hook `{}` returned: a context is valid \
             only during the call it is given to",
            self.label, self.last
        )))
    }
}

/// Each hook's name as Python writes it, in the order of the engine's `Hook`.
const NAMES: [&str; Hook::COUNT] = [
    "on_start",
    "on_ack_arrival",
    "on_rtt_sample",
    "on_ack",
    "on_congestion",
    "on_recovery_dupack",
    "on_partial_ack",
    "on_recovery_end",
    "moderate",
    "trace",
    "after_fill",
    "on_packet_sent",
    "undo",
];

fn name(hook: Hook) -> &'static str {
    NAMES[hook as usize]
}

/// The hooks a class may define, bound to `instance`: each hook it defines (does not take from
/// `fairsim.Controller`), `window`, and `pacing_rate` if it defines it. Looked up once: a call
/// by name looks the method up in the class at every call.
struct Methods {
    hooks: [Option<Py<PyAny>>; Hook::COUNT],
    window: Py<PyAny>,
    pacing_rate: Option<Py<PyAny>>,
}

impl Methods {
    fn of(py: Python<'_>, instance: &Bound<'_, PyAny>) -> PyResult<Methods> {
        let base = py.import("fairsim.extend.controller")?.getattr("Controller")?;
        let class = instance.get_type();
        let own = |name: &str| -> PyResult<Option<Py<PyAny>>> {
            let defined = !class.getattr(name)?.is(&base.getattr(name)?);
            Ok(if defined { Some(instance.getattr(name)?.unbind()) } else { None })
        };
        let mut hooks: [Option<Py<PyAny>>; Hook::COUNT] = Default::default();
        for (hook, name) in hooks.iter_mut().zip(NAMES) {
            *hook = own(name)?;
        }
        Ok(Methods { hooks, window: instance.getattr("window")?.unbind(), pacing_rate: own("pacing_rate")? })
    }

    fn defines(&self, hook: Hook) -> bool {
        self.hooks[hook as usize].is_some()
    }
}

/// A Python controller as the engine's `Controller`.
struct PyController {
    label: String,
    instance: Py<PyAny>,
    context: Py<ControllerContext>,
    methods: Methods,
    /// `window()` and `pacing_rate()` as of the last hook called.
    window: u64,
    pacing: Option<f64>,
    /// Whether the instance has an `ssthresh` to record beside the window.
    has_ssthresh: bool,
    /// The time of the last hook, for the message of a wrong window read after it.
    now: Time,
    /// The connection as the layer showed it last (`observe`).
    conn: Connection,
    /// Delivery-rate samples, if the class asked for them, and the latest ACK's.
    rate: Option<DeliveryRate>,
    sample: Option<RateSample>,
    /// The least round trip sampled, seconds.
    min_rtt: Option<f64>,
}

impl PyController {
    fn new(py: Python<'_>, label: String, instance: Bound<'_, PyAny>, packet_size: u32) -> PyResult<PyController> {
        let methods = Methods::of(py, &instance)?;
        let has_ssthresh = instance.hasattr("ssthresh")?;
        let samples_delivery = instance.getattr("samples_delivery")?.is_truthy()?;
        let context = ControllerContext {
            now: 0.0,
            conn: Connection::default(),
            packet_size,
            min_rtt: None,
            samples_delivery,
            delivered: 0,
            sample: None,
            records: vec![],
            live: false,
            last: "__init__",
            label: label.clone(),
        };
        let mut c = PyController {
            label,
            instance: instance.unbind(),
            context: Py::new(py, context)?,
            methods,
            window: 1,
            pacing: None,
            has_ssthresh,
            now: Time::ZERO,
            conn: Connection::default(),
            rate: samples_delivery.then(DeliveryRate::default),
            sample: None,
            min_rtt: None,
        };
        (c.window, c.pacing) = c.read(py)?; // as built: a wrong answer is the scenario's error
        Ok(c)
    }

    /// Calls `hook` if the class defines it, with `args` (the context last), then reads the
    /// window again.
    fn call(&mut self, hook: Hook, args: impl Args, ctx: &mut AgentCtx) {
        self.now = ctx.now;
        if self.methods.defines(hook) {
            Python::with_gil(|py| {
                self.call_now(py, hook, args, ctx);
                self.refresh(py, name(hook));
            })
        }
    }

    /// Calls `hook` with the context made ready for it, then carries out what it recorded.
    fn call_now(&self, py: Python<'_>, hook: Hook, args: impl Args, ctx: &mut AgentCtx) {
        {
            let mut c = self.context.borrow_mut(py);
            c.now = ctx.now.as_secs_f64();
            c.conn = self.conn;
            c.min_rtt = self.min_rtt;
            c.delivered = self.rate.as_ref().map_or(0, |r| r.delivered);
            c.sample = self.sample;
            (c.live, c.last) = (true, name(hook));
        }
        let called = {
            let _inside = python_host::InHook::enter(py);
            let method = self.methods.hooks[hook as usize].as_ref().expect("called only if the class defines it");
            args(py, self.context.clone_ref(py)).and_then(|args| method.bind(py).call1(args))
        };
        let records = {
            let mut c = self.context.borrow_mut(py);
            c.live = false;
            std::mem::take(&mut c.records)
        };
        match called.map(|answer| python_host::returned_nothing(&answer)) {
            Ok(Ok(())) => {}
            Ok(Err(what)) => self.fail(name(hook), ctx.now, what),
            Err(e) => python_host::raised(py, "controller", &self.label, name(hook), ctx.now, &e),
        }
        records.into_iter().for_each(|(series, value)| ctx.record(series, value));
    }

    /// Reads `window` (and `pacing_rate`) after `after`; a wrong answer stops the run.
    fn refresh(&mut self, py: Python<'_>, after: &str) {
        let read = {
            let _inside = python_host::InHook::enter(py);
            self.read(py)
        };
        match read {
            Ok((window, pacing)) => (self.window, self.pacing) = (window, pacing),
            Err(e) => {
                python_host::stop_if_stopped(py, &e);
                self.fail(
                    after,
                    self.now,
                    format!("left a window or pacing rate that is wrong: {}", python_host::traceback(py, &e)),
                )
            }
        }
    }

    /// `window()`, and `pacing_rate()` if the class defines it.
    fn read(&self, py: Python<'_>) -> PyResult<(u64, Option<f64>)> {
        let answer = self.methods.window.bind(py).call0()?;
        // a bool is an int to Python (True would be a window of 1): refused as any non-count is
        let window = match answer.extract::<u64>() {
            Ok(w) if !answer.is_instance_of::<PyBool>() => w,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "window() returned {}; a window is a whole number of packets, 0 or more",
                    python_host::shown(&answer)
                )))
            }
        };
        let Some(pacing_rate) = &self.methods.pacing_rate else { return Ok((window, None)) };
        let answer = pacing_rate.bind(py).call0()?;
        // a bool is a number to Python too (True would pace at 1 packet a second): refused
        match answer.extract::<Option<f64>>() {
            Ok(rate) if !answer.is_instance_of::<PyBool>() && rate.is_none_or(|r| r.is_finite() && r > 0.0) => {
                Ok((window, rate))
            }
            _ => Err(PyValueError::new_err(format!(
                "pacing_rate() returned {}; a rate is positive and finite, or None",
                python_host::shown(&answer)
            ))),
        }
    }

    fn fail(&self, hook: &str, now: Time, what: String) -> ! {
        python_host::fail("controller", &self.label, hook, now, what)
    }
}

/// A hook's arguments, made with the GIL held and given the reused context.
trait Args: for<'py> FnOnce(Python<'py>, Py<ControllerContext>) -> PyResult<Bound<'py, PyTuple>> {}
impl<F: for<'py> FnOnce(Python<'py>, Py<ControllerContext>) -> PyResult<Bound<'py, PyTuple>>> Args for F {}

fn tuple<'py>(
    py: Python<'py>,
    items: impl IntoPyObject<'py, Target = PyTuple, Output = Bound<'py, PyTuple>>,
) -> PyResult<Bound<'py, PyTuple>> {
    items.into_pyobject(py).map_err(Into::into)
}

impl Controller for PyController {
    fn window(&self) -> u64 {
        self.window
    }

    /// Before the hooks the class defines: the others call no Python.
    fn observes(&self, hook: Hook) -> bool {
        self.methods.defines(hook)
    }

    fn observe(&mut self, conn: &Connection) {
        self.conn = *conn;
    }

    fn on_start(&mut self, _win: &SendWindow, ctx: &mut AgentCtx) {
        self.call(Hook::on_start, |py, c| tuple(py, (c,)), ctx);
    }

    fn on_ack_arrival(&mut self, ack: &Packet, win: &SendWindow, ctx: &mut AgentCtx) {
        if let Some(rate) = &mut self.rate {
            // the delivery-rate sample, as BBR takes it, before the layer slides the window
            self.sample = rate.on_ack(ack, win, ctx.now).0.sample;
            let (_, nxt, pipe) = rate.after(ack, win);
            rate.note_app_limited(nxt, win, ctx.app_limit, pipe, self.window);
        }
        let ack = *ack;
        self.call(Hook::on_ack_arrival, move |py, c| tuple(py, (PacketView::detached(py, ack)?, c)), ctx);
    }

    fn on_rtt_sample(&mut self, s: RttSample, ctx: &mut AgentCtx) {
        self.min_rtt = Some(self.min_rtt.map_or(s.rtt_s, |m| m.min(s.rtt_s)));
        self.call(Hook::on_rtt_sample, move |py, c| tuple(py, (s.rtt_s, s.ack, s.next, c)), ctx);
    }

    fn on_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
        self.call(Hook::on_ack, move |py, c| tuple(py, (ack.count, c)), ctx);
    }

    fn on_congestion(&mut self, event: Congestion, load: Load, _win: &SendWindow, ctx: &mut AgentCtx) {
        let (kind, dupacks, recovering) = match event {
            Congestion::FastRetransmit { dupacks, recovering } => ("fast_retransmit", dupacks, recovering),
            Congestion::Timeout => {
                if let Some(rate) = &mut self.rate {
                    rate.on_timeout();
                }
                ("timeout", 0, false)
            }
            Congestion::Ecn => ("ecn", 0, false),
        };
        let loss = Loss { kind, dupacks, recovering, flight: load.flight, pipe: load.pipe };
        self.call(Hook::on_congestion, move |py, c| tuple(py, (Py::new(py, loss)?, c)), ctx);
    }

    fn on_recovery_dupack(&mut self, ctx: &mut AgentCtx) {
        self.call(Hook::on_recovery_dupack, |py, c| tuple(py, (c,)), ctx);
    }

    fn on_partial_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
        self.call(Hook::on_partial_ack, move |py, c| tuple(py, (ack.count, c)), ctx);
    }

    fn on_recovery_end(&mut self, ctx: &mut AgentCtx) {
        self.call(Hook::on_recovery_end, |py, c| tuple(py, (c,)), ctx);
    }

    fn undo(&mut self, ctx: &mut AgentCtx) {
        self.call(Hook::undo, |py, c| tuple(py, (c,)), ctx);
    }

    fn moderate(&mut self, packets: u64, ctx: &mut AgentCtx) {
        self.call(Hook::moderate, move |py, c| tuple(py, (packets, c)), ctx);
    }

    fn trace(&self, ctx: &mut AgentCtx) {
        // only for a flow that keeps its time series: elsewhere it would record into nothing
        if !ctx.recording() {
            return;
        }
        if self.methods.defines(Hook::trace) {
            Python::with_gil(|py| self.call_now(py, Hook::trace, |py, c| tuple(py, (c,)), ctx));
            return;
        }
        // what `reno` records, for a class that records nothing of its own
        ctx.record(Series::Cwnd, self.window as f64);
        if self.has_ssthresh {
            Python::with_gil(|py| self.record_ssthresh(py, ctx));
        }
    }

    fn after_fill(&self, in_flight: u64, ctx: &mut AgentCtx) {
        ctx.record(Series::Outstanding, in_flight as f64);
        if self.methods.defines(Hook::after_fill) {
            Python::with_gil(|py| self.call_now(py, Hook::after_fill, move |py, c| tuple(py, (in_flight, c)), ctx));
        }
    }

    fn on_packet_sent(&mut self, seq: u64, ctx: &mut AgentCtx) {
        if let Some(rate) = &mut self.rate {
            rate.on_send(seq, ctx.now);
        }
        self.call(Hook::on_packet_sent, move |py, c| tuple(py, (seq, c)), ctx);
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing
    }
}

impl PyController {
    /// Records the instance's `ssthresh` when it is a finite number (None, or infinite before the
    /// first loss, is left out, as `reno` leaves it out); anything else stops the run.
    fn record_ssthresh(&self, py: Python<'_>, ctx: &mut AgentCtx) {
        match self.instance.bind(py).getattr("ssthresh").and_then(|v| v.extract::<Option<f64>>()) {
            Ok(Some(v)) if v.is_finite() => ctx.record(Series::Ssthresh, v),
            Ok(_) => {}
            Err(e) => {
                python_host::stop_if_stopped(py, &e);
                let what = format!("has an `ssthresh` that is not a number: {}", python_host::traceback(py, &e));
                self.fail("trace", ctx.now, what)
            }
        }
    }
}

/// A controller the registry knows, as a transport.
#[derive(Clone, Copy)]
struct PyControllerKind(Named);

/// The reliability layer's defaults: the `linux` stack's, as `reno` and `newreno` have them.
fn layer_defaults() -> TcpReliability {
    TcpReliability::of_stack(Stack::Linux)
}

/// How duplicate ACKs are recovered, by name.
fn recovery(value: &toml::Value) -> Result<(Recovery, &'static str), ParamError> {
    match value.as_str() {
        Some("tahoe") => Ok((Recovery::Tahoe, "tahoe")),
        Some("reno") => Ok((Recovery::Reno, "reno")),
        Some("newreno") => Ok((Recovery::NewReno, "newreno")),
        _ => Err(ParamError::at("recovery", format!("is `tahoe`, `reno` or `newreno`, not {value}"))),
    }
}

/// Refuses the options of a recovery without SACK set away from their defaults where SACK is on:
/// they would be accepted and change nothing. (A resolved scenario writes every option out, so
/// an option at its default, the stack's in effect, cannot be told from one left out.)
fn refuse_without_effect(params: &Params, cfg: &TcpReliability, recovery: Recovery) -> Result<(), ParamError> {
    let stack = params.get("stack").and_then(|v| v.clone().try_into::<Stack>().ok()).unwrap_or(Stack::Linux);
    let moved = [
        ("recovery", recovery != Recovery::NewReno),
        ("recovery_exit", cfg.recovery_exit != TcpReliability::of_stack(stack).recovery_exit),
    ];
    match moved.into_iter().find(|&(_, moved)| cfg.sack && moved).map(|(key, _)| key) {
        Some(key) => Err(ParamError::at(
            key,
            "governs a recovery without SACK, and this transport's SACK is on (the linux stack's \
             default), so it would change nothing: set `sack = false` to use it, or leave it out",
        )),
        None => Ok(()),
    }
}

impl PyControllerKind {
    fn sender(
        &self,
        params: &Params,
        flow: &FlowInfo,
    ) -> Result<(Reliable<PyController, RtoTimer>, Params), ParamError> {
        let layer_keys = fields::<TcpReliability>();
        let (mut layer, mut own) = (Params::new(), Params::new());
        let mut chosen = (Recovery::NewReno, "newreno");
        for (key, value) in params {
            if key == "recovery" {
                chosen = recovery(value)?;
            } else if layer_keys.contains(&key.as_str()) {
                layer.insert(key.clone(), value.clone());
            } else {
                own.insert(key.clone(), value.clone());
            }
        }
        let (cfg, mut resolved) = parse_over(&layer_defaults(), &layer)?;
        refuse_without_effect(params, &cfg, chosen.0)?;
        // the seed of the controller's own `random.Random` (`Flow.random`): one draw of a stream
        // of the run's seed and the flow's name, as a built-in sender's own stream is made
        let seed = fairsim::rng::stream(flow.seed, &format!("python controller {}", flow.name)).next_u64();
        let controller = Python::with_gil(|py| {
            let (instance, label, own) =
                self.0.instance(py, &own, (flow.name.clone(), cfg.window, flow.packet_size, seed))?;
            resolved.insert("recovery".into(), toml::Value::String(chosen.1.into()));
            resolved.extend(own);
            PyController::new(py, label, instance, flow.packet_size)
                .map_err(|e| ParamError { path: vec![], message: python_host::traceback(py, &e) })
        })?;
        Ok((Reliable::tcp(&cfg, chosen.0, controller)?, resolved))
    }
}

impl Kind<FlowInfo, dyn Sender> for PyControllerKind {
    fn about(&self) -> About {
        self.0.about()
    }

    fn parameters(&self) -> Vec<ParamDoc> {
        let mut docs = <(TcpReliability,) as Parts>::docs(&(layer_defaults(),));
        let how = "how duplicate ACKs are recovered without SACK: `tahoe`, `reno` or `newreno`";
        docs.push(ParamDoc { name: "recovery".into(), default: Some("newreno".into()), doc: how.into() });
        docs.extend(self.0.parameters());
        docs
    }

    fn parameter_names(&self) -> Vec<&'static str> {
        fields::<TcpReliability>().to_vec() // those a `stack` fills in; the class's are its own
    }

    python_host::builds_with!(sender, FlowInfo, dyn Sender);
}

/// Makes the Python registry the engine's host of transports it does not know (at import).
pub fn install() {
    fairsim::transport::FOREIGN.open(Box::new(PyHost::new("controller", PyControllerKind)));
}
