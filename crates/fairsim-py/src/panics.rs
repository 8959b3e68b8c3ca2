//! The panic boundary: a Rust panic never reaches Python as PyO3's `PanicException`, and never
//! prints Rust's "thread panicked" report or backtrace. Every entry point runs its Rust code
//! through `guard` (or `catch`), which turns a panic into `fairsim.InternalError`: a bug in
//! fairsim, named as such, with the panic's message and place.
//!
//! The hook installed at import records the message instead of printing it, but only for
//! panics under a guard on this thread; other panics in the process (other extensions) keep
//! Rust's default report. With FAIRSIM_DEBUG set, the default report is printed as well.

use pyo3::prelude::*;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};

pyo3::create_exception!(
    _core,
    InternalError,
    crate::FairsimError,
    "A bug in fairsim: the engine failed where it never should. Please report it."
);

thread_local! {
    /// How many guards this thread is inside.
    static GUARDED: Cell<usize> = const { Cell::new(0) };
    /// The message and place of the last guarded panic on this thread.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

pub fn install_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info: &PanicHookInfo| {
        if GUARDED.get() == 0 || std::env::var_os("FAIRSIM_DEBUG").is_some() {
            default(info);
        }
        if GUARDED.get() > 0 {
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            LAST.set(Some(format!("{}{at}", text(info.payload()))));
        }
    }));
}

fn text(payload: &(dyn Any + Send)) -> String {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic without a message".to_string(),
    }
}

/// What stopped a guarded call.
#[derive(Clone)]
pub enum Caught {
    /// A panic: a bug in fairsim, with its message and place in the source.
    Panic(String),
    /// A discipline written in Python failed (`fairsim::foreign::fail`): the user's
    /// error, with its message.
    Foreign(String),
    /// The run was stopped from outside inside a Python component's hook
    /// (`fairsim::foreign::stop`): it cannot go on, but what it has may be read.
    Stopped,
}

pyo3::create_exception!(
    _core,
    RunStopped,
    crate::FairsimError,
    "A run was stopped (Ctrl-C, a time limit) inside a hook of a component written in Python: it \
     cannot go on; its report so far can still be read."
);

/// Runs `f`, catching what unwinds out of it. Needs no GIL, so it also serves code run under
/// `allow_threads`.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Caught> {
    GUARDED.set(GUARDED.get() + 1);
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.set(GUARDED.get() - 1);
    result.map_err(|payload| match payload.downcast::<fairsim::foreign::Failure>() {
        Ok(failure) => Caught::Foreign(failure.0),
        Err(payload) if payload.is::<fairsim::foreign::Stop>() => Caught::Stopped,
        Err(payload) => Caught::Panic(LAST.take().unwrap_or_else(|| text(payload.as_ref()))),
    })
}

impl Caught {
    /// The same, for a later call on a run it stopped.
    pub fn earlier(&self) -> Caught {
        let again = |m: &str| format!("{m} (earlier: this run cannot go on)");
        match self {
            Caught::Panic(m) => Caught::Panic(again(m)),
            Caught::Foreign(m) => Caught::Foreign(again(m)),
            Caught::Stopped => Caught::Stopped,
        }
    }
}

/// The exception of what `catch` caught.
pub fn error_of(caught: &Caught) -> PyErr {
    match caught {
        Caught::Panic(message) => internal_error(message),
        Caught::Foreign(message) => crate::FairsimError::new_err(message.clone()),
        Caught::Stopped => RunStopped::new_err(
            "stopped inside a hook of a component written in Python (Ctrl-C or a time limit): this run \
             cannot go on",
        ),
    }
}

/// The exception of a panic with `message`.
pub fn internal_error(message: &str) -> PyErr {
    InternalError::new_err(format!(
        "the engine panicked: {message}. This is a bug in fairsim; please report it \
         (FAIRSIM_DEBUG=1 shows Rust's own report)"
    ))
}

/// Runs an entry point's Rust code, turning a panic into `InternalError` (and a Python
/// discipline's failure into `FairsimError`).
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch(f).unwrap_or_else(|caught| Err(error_of(&caught)))
}

/// Panics on purpose, for the tests of this boundary (hidden: not part of the API).
#[pyfunction]
#[pyo3(name = "_panic_for_tests", signature = (message="deliberate panic for tests"))]
pub fn panic_for_tests(message: &str) -> PyResult<()> {
    guard(|| panic!("{message}"))
}
