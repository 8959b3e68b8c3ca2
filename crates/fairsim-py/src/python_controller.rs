//! Congestion controllers written in Python, run inside the engine (issue 33): the adapter of an
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
//!
//! The transport's parameters are the reliability layer's (`TcpReliability`, with the `linux`
//! stack's defaults as `reno` and `newreno` have them), `recovery` (`tahoe`, `reno` or
//! `newreno`: how duplicate ACKs are recovered without SACK), and the class's own.

use crate::python_host::{self, Named, PyHost};
use crate::python_qdisc::PacketView;
use fairsim::component::{About, Builder, Kind, ParamDoc, Parts};
use fairsim::net::Packet;
use fairsim::params::{fields, parse_over, ParamError, Params};
use fairsim::transport::reliability::controller::{Congestion, Controller, Load, NewAck, RttSample};
use fairsim::transport::reliability::retransmit::RtoTimer;
use fairsim::transport::reliability::window::SendWindow;
use fairsim::transport::stack::Stack;
use fairsim::transport::{AgentCtx, FlowInfo, Recovery, Reliable, Sender, Series, TcpReliability};
use fairsim::units::Time;
use pyo3::exceptions::PyValueError;
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

/// What a controller's hook may see and ask for. One per controller, reused for every call: read
/// it only inside a hook.
#[pyclass(name = "ControllerContext", module = "fairsim._core")]
pub struct ControllerContext {
    /// The simulated time, in seconds.
    #[pyo3(get)]
    now: f64,
    records: Vec<(Series, f64)>,
}

#[pymethods]
impl ControllerContext {
    /// Records `value` in the flow's trace of `series` (`cwnd`, `ssthresh`, `window`, `rate`,
    /// `rate_estimate`, `probe`, `outstanding`, `weight`, `min_rtt`), when the flow is traced.
    fn record(&mut self, series: &str, value: f64) -> PyResult<()> {
        let series = Series::from_name(series).ok_or_else(|| {
            let known: Vec<&str> = Series::ALL.iter().map(|s| s.name()).collect();
            PyValueError::new_err(format!("unknown series {series:?}; the series are {}", known.join(", ")))
        })?;
        self.records.push((series, value));
        Ok(())
    }
}

/// The hooks a class may define; `NAMES` in the same order.
#[derive(Clone, Copy)]
enum Hook {
    PacingRate,
    OnStart,
    OnAckArrival,
    OnRttSample,
    OnAck,
    OnCongestion,
    OnRecoveryDupack,
    OnPartialAck,
    OnRecoveryEnd,
    Moderate,
    Trace,
    AfterFill,
    OnPacketSent,
}

impl Hook {
    const NAMES: [&'static str; 13] = [
        "pacing_rate",
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
    ];

    fn name(self) -> &'static str {
        Hook::NAMES[self as usize]
    }
}

const HOOKS: usize = Hook::NAMES.len();

/// Which hooks `instance`'s class defines: those it does not take from `fairsim.Controller`.
fn defined_hooks(py: Python<'_>, instance: &Bound<'_, PyAny>) -> PyResult<[bool; HOOKS]> {
    let base = py.import("fairsim.extend.controller")?.getattr("Controller")?;
    let class = instance.get_type();
    let mut defined = [false; HOOKS];
    for (d, name) in defined.iter_mut().zip(Hook::NAMES) {
        *d = !class.getattr(name)?.is(&base.getattr(name)?);
    }
    Ok(defined)
}

/// A Python controller as the engine's `Controller`.
struct PyController {
    label: String,
    instance: Py<PyAny>,
    context: Py<ControllerContext>,
    defined: [bool; HOOKS],
    /// `window()` and `pacing_rate()` as of the last hook called.
    window: u64,
    pacing: Option<f64>,
    /// The time of the last hook with a context, for messages of hooks without one.
    now: Time,
}

impl PyController {
    fn new(py: Python<'_>, label: String, instance: Bound<'_, PyAny>) -> PyResult<PyController> {
        let defined = defined_hooks(py, &instance)?;
        let context = Py::new(py, ControllerContext { now: 0.0, records: vec![] })?;
        let mut c = PyController {
            label,
            instance: instance.unbind(),
            context,
            defined,
            window: 1,
            pacing: None,
            now: Time::ZERO,
        };
        (c.window, c.pacing) = c.read(py)?; // as built: a wrong answer is the scenario's error
        Ok(c)
    }

    /// Calls `hook` if the class defines it, with `args` (and the context, if `ctx`), then
    /// reads the window again; carries out the records the hook made. A context's time is kept
    /// for the messages of later hooks without one, whether or not this hook is called.
    fn call(&mut self, hook: Hook, args: impl Args, ctx: Option<&mut AgentCtx>) {
        if let Some(c) = &ctx {
            self.now = c.now;
        }
        if self.defined[hook as usize] {
            Python::with_gil(|py| {
                self.call_now(py, hook, args, ctx);
                self.refresh(py, hook.name());
            })
        }
    }

    fn call_now(&self, py: Python<'_>, hook: Hook, args: impl Args, ctx: Option<&mut AgentCtx>) {
        let now = ctx.as_ref().map_or(self.now, |c| c.now);
        self.context.borrow_mut(py).now = now.as_secs_f64();
        let called = {
            let _inside = python_host::InHook::enter(py);
            args(py, self.context.clone_ref(py)).and_then(|args| self.instance.bind(py).call_method1(hook.name(), args))
        };
        match called.map(|answer| python_host::returned_nothing(&answer)) {
            Ok(Ok(())) => {}
            Ok(Err(what)) => self.fail(hook.name(), now, what),
            Err(e) => python_host::raised(py, "controller", &self.label, hook.name(), now, &e),
        }
        let records = std::mem::take(&mut self.context.borrow_mut(py).records);
        if let Some(ctx) = ctx {
            records.into_iter().for_each(|(series, value)| ctx.record(series, value));
        }
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
        let instance = self.instance.bind(py);
        let answer = instance.call_method0("window")?;
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
        if !self.defined[Hook::PacingRate as usize] {
            return Ok((window, None));
        }
        match instance.call_method0("pacing_rate")?.extract::<Option<f64>>()? {
            Some(r) if !(r.is_finite() && r > 0.0) => Err(PyValueError::new_err(format!(
                "pacing_rate() returned {r}; a rate is positive and finite, or None"
            ))),
            rate => Ok((window, rate)),
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

    fn on_start(&mut self, _win: &SendWindow, ctx: &mut AgentCtx) {
        self.call(Hook::OnStart, |py, c| tuple(py, (c,)), Some(ctx));
    }

    fn on_ack_arrival(&mut self, ack: &Packet, _win: &SendWindow, ctx: &mut AgentCtx) {
        let ack = *ack;
        self.call(Hook::OnAckArrival, move |py, c| tuple(py, (PacketView::detached(py, ack)?, c)), Some(ctx));
    }

    fn on_rtt_sample(&mut self, s: RttSample) {
        self.call(Hook::OnRttSample, move |py, _| tuple(py, (s.rtt_s, s.ack, s.next)), None);
    }

    fn on_ack(&mut self, ack: NewAck, ctx: &mut AgentCtx) {
        self.call(Hook::OnAck, move |py, c| tuple(py, (ack.count, c)), Some(ctx));
    }

    fn on_congestion(&mut self, event: Congestion, load: Load, _win: &SendWindow, ctx: &mut AgentCtx) {
        let (kind, dupacks, recovering) = match event {
            Congestion::FastRetransmit { dupacks, recovering } => ("fast_retransmit", dupacks, recovering),
            Congestion::Timeout => ("timeout", 0, false),
            Congestion::Ecn => ("ecn", 0, false),
        };
        let loss = Loss { kind, dupacks, recovering, flight: load.flight, pipe: load.pipe };
        self.call(Hook::OnCongestion, move |py, c| tuple(py, (Py::new(py, loss)?, c)), Some(ctx));
    }

    fn on_recovery_dupack(&mut self) {
        self.call(Hook::OnRecoveryDupack, |py, _| tuple(py, ()), None);
    }

    fn on_partial_ack(&mut self, ack: NewAck) {
        self.call(Hook::OnPartialAck, move |py, _| tuple(py, (ack.count,)), None);
    }

    fn on_recovery_end(&mut self) {
        self.call(Hook::OnRecoveryEnd, |py, _| tuple(py, ()), None);
    }

    fn moderate(&mut self, packets: u64) {
        self.call(Hook::Moderate, move |py, _| tuple(py, (packets,)), None);
    }

    fn trace(&self, ctx: &mut AgentCtx) {
        // only for a flow that keeps its time series: elsewhere it would record into nothing
        if self.defined[Hook::Trace as usize] && ctx.recording() {
            Python::with_gil(|py| self.call_now(py, Hook::Trace, |py, c| tuple(py, (c,)), Some(ctx)));
        }
    }

    fn after_fill(&self, in_flight: u64, ctx: &mut AgentCtx) {
        if self.defined[Hook::AfterFill as usize] {
            Python::with_gil(|py| {
                self.call_now(py, Hook::AfterFill, move |py, c| tuple(py, (in_flight, c)), Some(ctx))
            });
        }
    }

    fn on_packet_sent(&mut self, seq: u64, ctx: &mut AgentCtx) {
        self.call(Hook::OnPacketSent, move |py, c| tuple(py, (seq, c)), Some(ctx));
    }

    fn pacing_rate(&self) -> Option<f64> {
        self.pacing
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
        // the seed of the controller's own `random.Random` (`Flow.random`): one draw of a stream
        // of the run's seed and the flow's name, as a built-in sender's own stream is made
        let seed = fairsim::rng::stream(flow.seed, &format!("python controller {}", flow.name)).next_u64();
        let controller = Python::with_gil(|py| {
            let (instance, label, own) =
                self.0.instance(py, &own, (flow.name.clone(), cfg.window, flow.packet_size, seed))?;
            resolved.insert("recovery".into(), toml::Value::String(chosen.1.into()));
            resolved.extend(own);
            PyController::new(py, label, instance)
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

    fn build(&self, params: &Params, flow: &FlowInfo) -> Result<(Box<dyn Sender>, Params), ParamError> {
        let (sender, params) = self.sender(params, flow)?;
        Ok((Box::new(sender), params))
    }

    fn builder(&self, params: &Params) -> Result<Builder<FlowInfo, dyn Sender>, ParamError> {
        let (params, kind) = (params.clone(), *self);
        Ok(Box::new(move |flow| Ok(Box::new(kind.sender(&params, flow)?.0))))
    }
}

/// Makes the Python registry the engine's host of transports it does not know (at import).
pub fn install() {
    fairsim::transport::FOREIGN.open(Box::new(PyHost::new("controller", PyControllerKind)));
}
