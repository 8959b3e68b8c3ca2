//! Disciplines written outside Rust (issue 33): the engine's side of the door through which the
//! Python package adds disciplines written in Python, without the engine depending on Python.
//!
//! A host (the Python binding) registers itself once (`set_host`). Looking a discipline up by
//! name asks the built-in registry first, then the host (`qdisc::find`). The host answers with
//! a `QdiscKind` like any built-in one, so a foreign discipline is validated, listed, resolved
//! and built exactly as the others are.
//!
//! A foreign discipline that fails while a run is going on (a Python exception in a hook) stops
//! that run with `fail`. Its message unwinds to the binding's entry point as a `Failure` payload,
//! which the binding reports as the run's error, not as a bug in fairsim. Unwinding costs nothing
//! while nothing fails, so the Rust disciplines pay nothing for the door. `resume_unwind` calls no
//! panic hook, so nothing is printed on the way.

use super::QdiscKind;
use std::sync::OnceLock;

/// What a host of foreign disciplines answers.
pub trait Host: Send + Sync {
    /// The discipline called `name`, if the host knows one by that name.
    fn find(&self, name: &str) -> Option<&'static QdiscKind>;
    /// The names it knows, for messages that list the disciplines.
    fn names(&self) -> Vec<String>;
}

static HOST: OnceLock<Box<dyn Host>> = OnceLock::new();

/// Installs the host; returns false if one was installed already (the first one stays).
pub fn set_host(host: Box<dyn Host>) -> bool {
    HOST.set(host).is_ok()
}

/// The foreign discipline called `name`, if a host knows it.
pub fn find(name: &str) -> Option<&'static QdiscKind> {
    HOST.get()?.find(name)
}

/// Every foreign discipline's name.
pub fn names() -> Vec<String> {
    HOST.get().map(|h| h.names()).unwrap_or_default()
}

/// A foreign discipline's failure during a run, carried to the binding's entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub String);

/// Stops the run with `message` (see the top of this file).
pub fn fail(message: String) -> ! {
    std::panic::resume_unwind(Box::new(Failure(message)))
}
