//! Components written outside Rust: the engine's side of the door through which the
//! Python package adds disciplines and congestion controllers written in Python, without the
//! engine depending on Python.
//!
//! Each type of component has its door beside its registry (`qdisc::FOREIGN`,
//! `transport::FOREIGN`). A host (the Python binding) opens each door once (`Door::open`).
//! Looking a component up by name asks the built-in registry first, then the host
//! (`qdisc::find`, `transport::find`). The host answers with a `Kind` like any built-in one, so
//! a foreign component is validated, listed, resolved and built exactly as the others are.
//!
//! A foreign component that fails while a run is going on (a Python exception in a hook) stops
//! that run with `fail`. Its message unwinds to the binding's entry point as a `Failure` payload,
//! which the binding reports as the run's error, not as a bug in fairsim. Unwinding costs nothing
//! while nothing fails, so the Rust components pay nothing for the door. `resume_unwind` calls
//! no panic hook, so nothing is printed on the way.

use crate::component::Kind;
use std::sync::OnceLock;

/// What a host of foreign components of one type answers.
pub trait Host<Ctx: ?Sized + 'static, Out: ?Sized + 'static>: Send + Sync {
    /// The component called `name`, if the host knows one by that name.
    fn find(&self, name: &str) -> Option<&'static dyn Kind<Ctx, Out>>;
    /// The names it knows, for messages and listings.
    fn names(&self) -> Vec<String>;
}

/// The door for one type of component: closed until a host opens it.
pub struct Door<Ctx: ?Sized + 'static, Out: ?Sized + 'static> {
    host: OnceLock<Box<dyn Host<Ctx, Out>>>,
}

impl<Ctx: ?Sized + 'static, Out: ?Sized + 'static> Door<Ctx, Out> {
    pub const fn closed() -> Self {
        Door { host: OnceLock::new() }
    }

    /// Installs the host; returns false if one was installed already (the first one stays).
    pub fn open(&self, host: Box<dyn Host<Ctx, Out>>) -> bool {
        self.host.set(host).is_ok()
    }

    /// The foreign component called `name`, if a host knows it.
    pub fn find(&self, name: &str) -> Option<&'static dyn Kind<Ctx, Out>> {
        self.host.get()?.find(name)
    }

    /// Every foreign component's name.
    pub fn names(&self) -> Vec<String> {
        self.host.get().map(|h| h.names()).unwrap_or_default()
    }

    /// Every foreign component, in the host's order (for listings).
    pub fn kinds(&self) -> Vec<&'static dyn Kind<Ctx, Out>> {
        self.names().iter().filter_map(|n| self.find(n)).collect()
    }
}

/// A foreign component's failure during a run, carried to the binding's entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub String);

/// Stops the run with `message` (see the top of this file).
pub fn fail(message: String) -> ! {
    std::panic::resume_unwind(Box::new(Failure(message)))
}

/// A run stopped from outside (Ctrl-C, a time limit) while a foreign component's hook was
/// running: it unwinds as a failure does, and the binding reports it as a stop, keeping what the
/// run has so far, not as an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop;

/// Stops the run at once (see `Stop`).
pub fn stop() -> ! {
    std::panic::resume_unwind(Box::new(Stop))
}
