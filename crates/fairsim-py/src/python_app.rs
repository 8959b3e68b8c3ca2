//! Applications (traffic sources) written in Python, run inside the engine: the adapter of a
//! registered class (`fairsim.Application`, built by the registry, `python_host`) to the
//! engine's `Application` contract, as a *timed* source (`Source::Timed`): the class says when
//! each packet is produced (`first`, then `next`), open loop or over the flow's transport.
//!
//! - The class is built once as the scenario is loaded (its parameters judged at their place
//!   in the file) and again, fresh, for each run, at the flow's start, with the flow's
//!   `random` seeded by one draw of the flow's own stream of the run: replications differ, a
//!   seed repeats.
//! - `first(start)` and `next(now)` answer an instant in seconds (not before the one asked
//!   about: several packets at one instant make a burst), or None: no more packets. Anything
//!   else, or a hook that raises, stops the run, naming the class, the hook, the time and the
//!   value (`foreign::fail`).
//! - `flow_control` (a class attribute) is `"open"` (open loop unless the flow names a
//!   transport, as `onoff`) or `"closed"` (over the pair's transport unless the flow says
//!   `transport = "none"`, as `ftp`); `demand_bps()`, if defined, is the long-run payload rate
//!   the fair-share computations read (as `onoff`'s).

use crate::python_host::{self, Named, PyHost};
use fairsim::component::{About, Kind, ParamDoc};
use fairsim::params::{ParamError, Params};
use fairsim::rng::SimRng;
use fairsim::traffic::{AppInfo, Application, FlowControl, Source, Timing, DEFAULT_PAYLOAD};
use fairsim::units::Time;
use pyo3::prelude::*;
use rand::RngCore;

/// A Python application as the engine's, resolved for one flow.
#[derive(Debug)]
struct PyApp {
    named: Named,
    /// The scenario's parameters, to build a fresh instance for each run.
    params: Params,
    /// The same with every default filled in, as the resolved scenario writes them.
    resolved: Vec<(&'static str, toml::Value)>,
    payload: u32,
    flow_control: FlowControl,
    demand_bps: Option<f64>,
}

impl Application for PyApp {
    fn name(&self) -> &'static str {
        self.named.name
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        self.flow_control
    }
    fn demand_bps(&self) -> Option<f64> {
        self.demand_bps
    }
    fn source(&self) -> Source {
        Source::Timed(Box::new(PyTiming {
            named: self.named,
            params: self.params.clone(),
            payload: self.payload,
            run: None,
        }))
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        self.resolved.clone()
    }
}

/// One run's instance of the class, made at the flow's start, with its hooks bound once (a
/// call by name looks the method up in the class at every packet).
struct Instance {
    first: Py<PyAny>,
    next: Py<PyAny>,
    label: String,
}

/// A Python application's packet instants in one run.
struct PyTiming {
    named: Named,
    params: Params,
    payload: u32,
    run: Option<Instance>,
}

impl std::fmt::Debug for PyTiming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyTiming({})", self.named.name)
    }
}

impl PyTiming {
    /// Calls `hook` at `at` (seconds) and reads the instant it answers; stops the run on
    /// anything but an instant not before `at`, or None.
    fn ask(&self, py: Python<'_>, hook: &str, method: fn(&Instance) -> &Py<PyAny>, at: Time) -> Time {
        let run = self.run.as_ref().expect("the instance is made at the flow's start");
        let method = method(run);
        let answer = {
            let _inside = python_host::InHook::enter(py);
            method.bind(py).call1((at.as_secs_f64(),))
        };
        let answer = match answer {
            Ok(answer) => answer,
            Err(e) => python_host::raised(py, "application", &run.label, hook, at, &e),
        };
        if answer.is_none() {
            return Time::MAX; // no more packets: the engine schedules none past the run's end
        }
        match answer.extract::<f64>() {
            Ok(t) if t.is_finite() && t >= at.as_secs_f64() => Time::from_secs_f64(t).max(at),
            _ => python_host::fail(
                "application",
                &run.label,
                hook,
                at,
                format!(
                    "returned {}; it returns the next packet's instant in seconds, not before {} s, or None",
                    python_host::shown(&answer),
                    at.as_secs_f64()
                ),
            ),
        }
    }
}

impl Timing for PyTiming {
    fn first(&mut self, start: Time, rng: &mut SimRng) -> Time {
        Python::with_gil(|py| {
            let seed = rng.next_u64();
            let built = self.named.instance(py, &self.params, (self.payload, seed)).and_then(|(instance, label, _)| {
                let bound = |hook: &str| instance.getattr(hook).map(Bound::unbind);
                let unexpected = |e: PyErr| ParamError { path: vec![], message: python_host::traceback(py, &e) };
                Ok(Instance {
                    first: bound("first").map_err(unexpected)?,
                    next: bound("next").map_err(unexpected)?,
                    label,
                })
            });
            match built {
                Ok(run) => self.run = Some(run),
                Err(e) => python_host::fail("application", self.named.name, "__init__", start, e.message),
            }
            self.ask(py, "first", |run| &run.first, start)
        })
    }

    fn next(&mut self, now: Time, _rng: &mut SimRng) -> Time {
        Python::with_gil(|py| self.ask(py, "next", |run| &run.next, now))
    }
}

/// An application the registry knows.
#[derive(Clone, Copy)]
struct PyAppKind(Named);

impl PyAppKind {
    fn app(&self, params: &Params, info: &AppInfo) -> Result<(PyApp, Params), ParamError> {
        let payload = info.payload(DEFAULT_PAYLOAD);
        Python::with_gil(|py| {
            // built once here, so that the scenario's parameters and `__init__` are judged as it
            // is loaded; each run builds its own
            let (instance, _, resolved) = self.0.instance(py, params, (payload, 0u64))?;
            let refused = |message: String| ParamError { path: vec![], message };
            let flow_control = match instance.getattr("flow_control").and_then(|v| v.extract::<String>()) {
                Ok(v) if v == "open" => FlowControl::OpenLoopByDefault,
                Ok(v) if v == "closed" => FlowControl::ByDefault,
                other => {
                    let shown = other.map_or_else(|e| e.to_string(), |v| format!("{v:?}"));
                    return Err(refused(format!("flow_control is \"open\" or \"closed\", not {shown}")));
                }
            };
            let demand_bps = match instance.call_method0("demand_bps").and_then(|v| v.extract::<Option<f64>>()) {
                Ok(Some(d)) if !(d.is_finite() && d >= 0.0) => {
                    return Err(refused(format!("demand_bps() returned {d}; a rate is 0 or more and finite, or None")))
                }
                Ok(d) => d,
                Err(e) => return Err(refused(format!("demand_bps() failed: {}", python_host::traceback(py, &e)))),
            };
            let listed = resolved.iter().map(|(k, v)| (python_host::interned(k.clone()), v.clone())).collect();
            let app =
                PyApp { named: self.0, params: params.clone(), resolved: listed, payload, flow_control, demand_bps };
            Ok((app, resolved))
        })
    }
}

impl Kind<AppInfo, dyn Application> for PyAppKind {
    fn about(&self) -> About {
        self.0.about()
    }

    fn parameters(&self) -> Vec<ParamDoc> {
        self.0.parameters()
    }

    /// The class's own parameter names: a flow's table holds them beside its own keys, and the
    /// scenario gives the application those it takes.
    fn parameter_names(&self) -> Vec<&'static str> {
        self.0.parameters().into_iter().map(|p| python_host::interned(p.name)).collect()
    }

    python_host::builds_with!(app, AppInfo, dyn Application);
}

/// Makes the Python registry the engine's host of applications it does not know (at import).
pub fn install() {
    fairsim::traffic::FOREIGN.open(Box::new(PyHost::new("application", PyAppKind)));
}
