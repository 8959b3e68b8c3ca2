//! Traffic sources: what the application at a flow's source produces, and when. Each
//! application declares itself in its own file under `apps/` (its parameters, checks, timing
//! and resolved form) and the registry lists it; `application.rs` is their contract, which the
//! engine runs (`Source`), and `timing.rs` the timings and draws they share.

pub mod application;
pub mod apps;
pub mod population;
pub mod timing;

pub use application::{
    AppDeclaration, AppInfo, AppKind, Application, FlowControl, Source, Timing, Transfers, DEFAULT_PAYLOAD,
};
pub use apps::{all_names, find, APPS, FOREIGN};
pub use timing::{exponential, jitter_factor, pareto};
