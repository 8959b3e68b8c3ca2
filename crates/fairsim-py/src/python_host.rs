//! The hosts of components written in Python: what the engine's doors
//! (`fairsim::foreign`) ask, answered by the Python registry (`fairsim.extend.registry`), and
//! what the adapters of both types share (`python_qdisc`, `python_controller`): building an
//! instance from a scenario's parameters, and naming a failure.

use fairsim::component::{About, Kind, ParamDoc};
use fairsim::foreign::Host;
use fairsim::params::{ParamError, Params};
use fairsim::units::Time;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pyo3::create_exception!(
    _core,
    Stopped,
    pyo3::exceptions::PyBaseException,
    "Raised inside a hook of a component written in Python when its run is stopped from outside \
     (Ctrl-C, a time limit): a BaseException, so that `except Exception` in the hook lets it pass."
);

/// A thread that has called a Python component's hook: its ident as Python numbers threads
/// (`threading.get_ident()`), and whether it is inside a hook now. Entering and leaving a hook
/// is one store to the thread's own flag; `interrupt_hooks` reads every thread's.
struct HookThread {
    ident: i64,
    inside: AtomicBool,
}

/// Every live thread that has called a hook.
static THREADS: Mutex<Vec<Arc<HookThread>>> = Mutex::new(Vec::new());

/// This thread's entry in `THREADS`, made at its first hook and taken out when it ends.
struct Registered(Arc<HookThread>);

impl Drop for Registered {
    fn drop(&mut self) {
        THREADS.lock().unwrap_or_else(|e| e.into_inner()).retain(|t| !Arc::ptr_eq(t, &self.0));
    }
}

thread_local! {
    static THIS: std::cell::OnceCell<Registered> = const { std::cell::OnceCell::new() };
}

/// This thread is inside a hook while the guard lives.
pub struct InHook(());

impl InHook {
    pub fn enter(py: Python<'_>) -> InHook {
        THIS.with(|this| {
            let registered = this.get_or_init(|| {
                let ident = py.import("threading").and_then(|t| t.call_method0("get_ident")?.extract::<u64>());
                let thread =
                    Arc::new(HookThread { ident: ident.map_or(0, |i| i as i64), inside: AtomicBool::new(false) });
                THREADS.lock().unwrap_or_else(|e| e.into_inner()).push(thread.clone());
                Registered(thread)
            });
            registered.0.inside.store(true, Ordering::Release);
        });
        InHook(())
    }
}

impl Drop for InHook {
    fn drop(&mut self) {
        THIS.with(|this| {
            if let Some(registered) = this.get() {
                registered.0.inside.store(false, Ordering::Release);
            }
        });
    }
}

/// Raises `exception` (`Stopped`) in every thread that is inside a Python component's hook now;
/// returns how many. Ctrl-C and time limits call it once their runs were asked to stop: a hook
/// that returns gives its thread back anyway, one that loops for ever is stopped here.
#[pyfunction]
#[pyo3(name = "_interrupt_hooks")]
pub fn interrupt_hooks(exception: &Bound<'_, PyAny>) -> usize {
    let threads = THREADS.lock().unwrap_or_else(|e| e.into_inner());
    let inside: Vec<i64> = threads.iter().filter(|t| t.inside.load(Ordering::Acquire)).map(|t| t.ident).collect();
    for ident in &inside {
        // SAFETY: the GIL is held (a pyfunction), and `exception` is a live exception type
        unsafe { pyo3::ffi::PyThreadState_SetAsyncExc(*ident as std::os::raw::c_long, exception.as_ptr()) };
    }
    inside.len()
}

/// Whether the calling thread is inside a Python component's hook now: a signal handler that
/// stops a hook blocked in C raises only then.
#[pyfunction]
#[pyo3(name = "_in_hook")]
pub fn in_hook() -> bool {
    THIS.with(|this| this.get().is_some_and(|registered| registered.0.inside.load(Ordering::Acquire)))
}

/// Stops the run as stopped from outside if `e` is `Stopped` (raised in a hook by
/// `interrupt_hooks`); returns otherwise.
pub fn stop_if_stopped(py: Python<'_>, e: &PyErr) {
    if e.is_instance_of::<Stopped>(py) {
        fairsim::foreign::stop()
    }
}

/// What a hook that raised `e` means: the run was stopped from outside (`Stopped`), or the
/// component failed.
pub fn raised(py: Python<'_>, kind: &str, label: &str, hook: &str, now: Time, e: &PyErr) -> ! {
    stop_if_stopped(py, e);
    fail(kind, label, hook, now, format!("raised:\n{}", traceback(py, e)))
}

/// Implements `Kind::build` and `Kind::builder` for an adapter's kind from its method `$make`,
/// which builds the component for a `$ctx` (a port, a flow) from a scenario's parameters: the
/// adapters differ only in that method.
macro_rules! builds_with {
    ($make:ident, $ctx:ty, $out:ty) => {
        fn build(
            &self,
            params: &fairsim::params::Params,
            ctx: &$ctx,
        ) -> Result<(Box<$out>, fairsim::params::Params), fairsim::params::ParamError> {
            let (made, params) = self.$make(params, ctx)?;
            Ok((Box::new(made), params))
        }

        fn builder(
            &self,
            params: &fairsim::params::Params,
        ) -> Result<fairsim::component::Builder<$ctx, $out>, fairsim::params::ParamError> {
            let (params, kind) = (params.clone(), *self);
            Ok(Box::new(move |ctx| Ok(Box::new(kind.$make(&params, ctx)?.0))))
        }
    };
}
pub(crate) use builds_with;

/// The Python module that keeps the registry.
const REGISTRY: &str = "fairsim.extend.registry";

/// A component the registry knows, as listings show it: a registered name, or `python` (any
/// class, named by its `class` parameter).
#[derive(Clone, Copy, Debug)]
pub struct Named {
    /// `"discipline"` or `"controller"`: which of the registry's tables.
    pub what: &'static str,
    pub name: &'static str,
    /// The class's docstring's first paragraph, and `module:Class`.
    pub summary: &'static str,
    pub reference: &'static str,
}

impl Named {
    pub fn about(&self) -> About {
        About { name: self.name, summary: self.summary, reference: self.reference }
    }

    /// Each parameter the class declares, with its default and meaning.
    pub fn parameters(&self) -> Vec<ParamDoc> {
        Python::with_gil(|py| {
            let docs = registry(py).and_then(|r| r.call_method1("_parameters", (self.what, self.name)));
            let docs: Vec<(String, Option<String>, String)> = docs.and_then(|d| d.extract()).unwrap_or_default();
            docs.into_iter().map(|(name, default, doc)| ParamDoc { name, default, doc }).collect()
        })
    }

    /// An instance built for `built_for` (a port's or a flow's figures, as the registry's
    /// `_build` takes them) from the scenario's `params`: the instance, its label for messages
    /// (`name (module:Class)`) and its parameters resolved.
    pub fn instance<'py>(
        &self,
        py: Python<'py>,
        params: &Params,
        built_for: impl IntoPyObject<'py>,
    ) -> Result<(Bound<'py, PyAny>, String, Params), ParamError> {
        let unexpected = |e: PyErr| ParamError { path: vec![], message: traceback(py, &e) };
        let given = to_python(py, params).map_err(unexpected)?;
        let built = registry(py)
            .and_then(|r| r.call_method1("_build", (self.what, self.name, given, built_for)))
            .and_then(|answer| answer.extract::<(Bound<'py, PyAny>, String, Bound<'py, PyAny>)>())
            .map_err(unexpected)?;
        // the registry answers (instance, label, resolved), or (None, key, message) for a
        // parameter it refuses
        let (instance, label, resolved) = built;
        if instance.is_none() {
            let message = resolved.extract::<String>().unwrap_or_default();
            return Err(ParamError { path: if label.is_empty() { vec![] } else { vec![label] }, message });
        }
        let resolved = resolved.downcast_into::<PyDict>().map_err(|e| unexpected(e.into()))?;
        let mut params = Params::new();
        for (k, v) in resolved.iter() {
            let value = to_toml(&v).map_err(|e| ParamError { path: vec![k.to_string()], message: e.to_string() })?;
            params.insert(k.to_string(), value);
        }
        Ok((instance, label, params))
    }
}

fn registry(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import(REGISTRY)
}

/// Stops the run: the component `label` failed in `hook` at `now` (`what` says how).
pub fn fail(kind: &str, label: &str, hook: &str, now: Time, what: String) -> ! {
    fairsim::foreign::fail(format!("{kind} {label}: `{hook}` at t = {now} {what}"))
}

/// A name Python gave (a figure's, a gauge's, a series') as the engine keeps names: each distinct one
/// leaked once.
pub fn interned(name: String) -> &'static str {
    static NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    match names.iter().find(|n| **n == name) {
        Some(n) => n,
        None => {
            let leaked: &'static str = Box::leak(name.into_boxed_str());
            names.push(leaked);
            leaked
        }
    }
}

/// `value` as Python shows it (its `repr`), for messages.
pub fn shown(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|r| r.to_string()).unwrap_or_default()
}

/// A hook that returns nothing returned `answer`: the message, unless it is None.
pub fn returned_nothing(answer: &Bound<'_, PyAny>) -> Result<(), String> {
    match answer.is_none() {
        true => Ok(()),
        false => Err(format!("returned {}; it returns nothing (None)", shown(answer))),
    }
}

/// The traceback of `e` as Python prints it: the frames are the user's code only, since the
/// hook is called from Rust.
pub fn traceback(py: Python<'_>, e: &PyErr) -> String {
    let formatted = py
        .import("traceback")
        .and_then(|tb| tb.call_method1("format_exception", (e.clone_ref(py),)))
        .and_then(|lines| lines.extract::<Vec<String>>());
    match formatted {
        Ok(lines) => lines.concat().trim_end().to_string(),
        Err(_) => e.to_string(),
    }
}

/// `params` as a Python dict (numbers, strings and booleans; anything else is refused).
fn to_python<'py>(py: Python<'py>, params: &Params) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in params {
        let v = match value {
            toml::Value::String(s) => s.into_bound_py_any(py)?,
            toml::Value::Integer(i) => i.into_bound_py_any(py)?,
            toml::Value::Float(f) => f.into_bound_py_any(py)?,
            toml::Value::Boolean(b) => b.into_bound_py_any(py)?,
            other => {
                return Err(PyTypeError::new_err(format!(
                    "`{key}` is {other}, which a component written in Python cannot take"
                )))
            }
        };
        dict.set_item(key, v)?;
    }
    Ok(dict)
}

/// A resolved Python value as TOML.
fn to_toml(value: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if let Ok(b) = value.extract::<bool>() {
        Ok(toml::Value::Boolean(b))
    } else if let Ok(i) = value.extract::<i64>() {
        Ok(toml::Value::Integer(i))
    } else if let Ok(f) = value.extract::<f64>() {
        Ok(toml::Value::Float(f))
    } else {
        Ok(toml::Value::String(value.extract::<String>()?))
    }
}

/// The host of one type of component: a kind per name asked for, made once (the engine holds
/// kinds as `&'static`).
pub struct PyHost<K: 'static> {
    what: &'static str,
    kinds: Mutex<HashMap<String, &'static K>>,
    make: fn(Named) -> K,
}

impl<K: 'static> PyHost<K> {
    pub fn new(what: &'static str, make: fn(Named) -> K) -> Self {
        PyHost { what, kinds: Mutex::new(HashMap::new()), make }
    }

    fn kind(&self, name: &str) -> Option<&'static K> {
        let kinds = || self.kinds.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(kind) = kinds().get(name) {
            return Some(*kind);
        }
        // asked without the lock held: a thread holding the lock must never wait for the GIL;
        // the registry answers (summary, reference) if it knows the name
        let about = Python::with_gil(|py| {
            let about = registry(py).and_then(|r| r.call_method1("_about", (self.what, name)))?;
            about.extract::<Option<(String, String)>>()
        });
        let (summary, reference) = about.ok().flatten()?;
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let kind = *kinds().entry(name.to_string()).or_insert_with(|| {
            let named = Named {
                what: self.what,
                name: leak(name.to_string()),
                summary: leak(summary),
                reference: leak(reference),
            };
            Box::leak(Box::new((self.make)(named)))
        });
        Some(kind)
    }
}

impl<Ctx: ?Sized + 'static, Out: ?Sized + 'static, K: Kind<Ctx, Out> + Send + Sync + 'static> Host<Ctx, Out>
    for PyHost<K>
{
    fn find(&self, name: &str) -> Option<&'static dyn Kind<Ctx, Out>> {
        self.kind(name).map(|k| k as &'static dyn Kind<Ctx, Out>)
    }

    fn names(&self) -> Vec<String> {
        Python::with_gil(|py| {
            registry(py)
                .and_then(|r| r.call_method1("_names", (self.what,)))
                .and_then(|n| n.extract())
                .unwrap_or_default()
        })
    }
}
