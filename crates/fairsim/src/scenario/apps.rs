//! A flow's application from the flow's table: the application is looked up in the registry
//! (`traffic::APPS`) and given the keys the flow does not know itself. It judges them: a key it
//! takes is its parameter; a key another application takes "does not apply" to it; any other
//! is an unknown field of the flow, with the keys the flow and its application take. An
//! application written outside Rust (`traffic::FOREIGN`) is given every such key to judge.

use super::problem::Problem;
use super::schema::{RawFlow, FLOW_KEYS};
use crate::error::suggest_in_serde_message;
use crate::params::Params;
use crate::traffic::{all_names, find, AppInfo, Application, APPS};
use std::sync::Arc;

/// The application of flow `name`, built for `info`; problems go to `problems`.
pub(super) fn application(
    name: &str,
    f: &RawFlow,
    info: &AppInfo,
    problems: &mut Vec<Problem>,
) -> Option<Arc<dyn Application>> {
    let kind = find(&f.app);
    if kind.is_none() {
        let known = all_names();
        let known: Vec<&str> = known.iter().map(String::as_str).collect();
        problems
            .push(Problem::new(&["flows", name, "app"], super::components::unknown_component("app", &f.app, &known)));
    }
    // the names only: `parameters()` builds each one's documentation (a JSON schema) per flow
    let takes = kind.map(|k| k.parameter_names());
    // one written outside Rust (`traffic::FOREIGN`) judges every key the flow does not know
    // itself: a `python` one's parameters are its class's, known only once it is imported
    let foreign = kind.is_some() && crate::component::find(APPS, &f.app).is_none();
    let before = problems.len();
    let mut params = Params::new();
    for (key, value) in &f.app_params {
        match &takes {
            Some(takes) if foreign || takes.contains(&key.as_str()) => {
                params.insert(key.clone(), value.clone());
            }
            _ if APPS.iter().any(|k| k.parameter_names().contains(&key.as_str())) => {
                // another application's parameter; with an unknown app, the app is the mistake
                if let Some(takes) = &takes {
                    let message = format!("`{key}` does not apply to app `{}` (it takes: {})", f.app, takes.join(", "));
                    problems.push(Problem::new(&["flows", name, key], message));
                }
            }
            _ => problems.push(Problem::new(&["flows", name, key], unknown_key(key, takes.as_deref()))),
        }
    }
    let kind = kind?;
    match kind.build(&params, info) {
        Ok((app, _)) => (problems.len() == before).then(|| Arc::from(app)),
        Err(e) => {
            problems.push(Problem::from_param(&["flows".to_string(), name.to_string()], e));
            None
        }
    }
}

/// The message for a key neither the flow nor any application knows, as serde words an unknown
/// field (with a likely typo named): the keys listed are the flow's and its application's.
fn unknown_key(key: &str, app_takes: Option<&[&'static str]>) -> String {
    let expected: Vec<String> =
        FLOW_KEYS.iter().chain(app_takes.unwrap_or_default()).map(|k| format!("`{k}`")).collect();
    suggest_in_serde_message(&format!("unknown field `{key}`, expected one of {}", expected.join(", ")))
}
