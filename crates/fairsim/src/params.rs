//! Typed parameters of disciplines, transports and applications, read from scenario tables.
//!
//! A component's parameters arrive as a TOML table; `parse_params` turns them into the
//! component's config struct (serde, `deny_unknown_fields`, defaults) and hands back the table
//! with every default filled in, for the fully resolved scenario written beside results.

use serde::de::DeserializeOwned;
use serde::Serialize;

pub type Params = toml::Table;

/// A component built from parameters, with its parameters resolved (defaults filled in).
pub type Built<T> = Result<(Box<T>, Params), ParamError>;

/// A parameter error: the path inside the parameter table (e.g. `["window"]`) and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    pub path: Vec<String>,
    pub message: String,
}

impl ParamError {
    pub fn new(message: impl Into<String>) -> Self {
        ParamError { path: vec![], message: message.into() }
    }
    pub fn at(field: &str, message: impl Into<String>) -> Self {
        ParamError { path: vec![field.to_string()], message: message.into() }
    }
}

/// Deserializes `params` into `C`, returning it with its fully resolved table.
pub fn parse_params<C: DeserializeOwned + Serialize>(params: &Params) -> Result<(C, Params), ParamError> {
    let value = toml::Value::Table(params.clone());
    let config: C = serde_path_to_error::deserialize(value)
        .map_err(|e| ParamError { path: path_segments(e.path()), message: e.inner().to_string().trim().to_string() })?;
    let resolved = to_params(&config);
    Ok((config, resolved))
}

/// A configuration written back as parameters (the resolved form, every default filled in).
pub fn to_params<C: Serialize>(config: &C) -> Params {
    match toml::Value::try_from(config) {
        Ok(toml::Value::Table(t)) => t,
        _ => Params::new(),
    }
}

/// The keys and indices of a serde path, as strings.
pub fn path_segments(path: &serde_path_to_error::Path) -> Vec<String> {
    path.iter()
        .filter_map(|seg| match seg {
            serde_path_to_error::Segment::Map { key } => Some(key.clone()),
            serde_path_to_error::Segment::Seq { index } => Some(index.to_string()),
            _ => None,
        })
        .collect()
}
