//! A flow's application from the flow's table: the application is looked up in the registry
//! (`traffic::APPS`) and given the application parameters written in the flow; any that do not
//! apply to it are named.

use super::problem::Problem;
use super::schema::RawFlow;
use crate::component::names;
use crate::error::unknown;
use crate::params::Params;
use crate::traffic::{find, App, AppInfo, APPS};
use crate::units::Rate;
use serde::Serialize;

/// The application parameters a flow's table may hold, with their values where given.
fn written(f: &RawFlow) -> [(&'static str, Option<toml::Value>); 10] {
    fn value<T: Serialize>(x: Option<T>) -> Option<toml::Value> {
        x.and_then(|x| toml::Value::try_from(x).ok())
    }
    [
        ("size", value(f.size)),
        ("rate", value(f.rate)),
        ("mean_gap", value(f.mean_gap)),
        ("jitter", value(f.jitter)),
        ("on_mean", value(f.on_mean)),
        ("off_mean", value(f.off_mean)),
        ("periods", value(f.periods)),
        ("shape", value(f.shape)),
        ("transfers", value(f.transfers)),
        ("arrivals", value(f.arrivals)),
    ]
}

/// The application of flow `name`; problems go to `problems`.
pub(super) fn application(
    name: &str,
    f: &RawFlow,
    packet_size: u32,
    first_hop: Option<Rate>,
    problems: &mut Vec<Problem>,
) -> Option<App> {
    let Some(kind) = find(&f.app) else {
        problems.push(Problem::new(&["flows", name, "app"], unknown("app", &f.app, &names(APPS))));
        return None;
    };
    // the names only: `parameters()` builds each one's documentation (a JSON schema) per flow
    let takes = kind.parameter_names();
    let before = problems.len();
    let mut params = Params::new();
    for (field, value) in written(f) {
        let Some(value) = value else { continue };
        if takes.contains(&field) {
            params.insert(field.into(), value);
        } else {
            let message = format!("`{field}` does not apply to app `{}` (it takes: {})", f.app, takes.join(", "));
            problems.push(Problem::new(&["flows", name, field], message));
        }
    }
    match kind.build(&params, &AppInfo { packet_size, first_hop }) {
        Ok((app, _)) => (problems.len() == before).then_some(*app),
        Err(e) => {
            problems.push(Problem::from_param(&["flows".to_string(), name.to_string()], e));
            None
        }
    }
}
