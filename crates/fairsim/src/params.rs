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
    /// Refuses `low` above `high` (two settings where the first is a floor or step of the
    /// second), naming `low_name` and saying `why` it would do nothing.
    pub fn unless_ordered<T: PartialOrd + std::fmt::Display>(
        (low_name, low): (&str, T),
        (high_name, high): (&str, T),
        why: &str,
    ) -> Result<(), ParamError> {
        if low > high {
            return Err(ParamError::at(low_name, format!("{low_name} ({low}) is above {high_name} ({high}): {why}")));
        }
        Ok(())
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

/// Deserializes `params` over `defaults`: every field the table does not set keeps its default.
/// How a variant of a component (JK's window of 5 where Reno's is 64) states its own defaults
/// as a typed value.
pub fn parse_over<C: DeserializeOwned + Serialize>(defaults: &C, params: &Params) -> Result<(C, Params), ParamError> {
    let mut table = to_params(defaults);
    table.extend(params.iter().map(|(k, v)| (k.clone(), v.clone())));
    parse_params(&table)
}

/// The fields a configuration declares, in order (serde's own list, Option fields included).
pub fn fields<C: DeserializeOwned>() -> &'static [&'static str] {
    serde_aux::serde_introspection::serde_introspect::<C>()
}

/// Splits the table of a component made of parts (a window transport's reliability layer and its
/// congestion controller) into one table per part: each key goes to the first part whose fields
/// (`parts`) declare it. A key no part declares is refused as serde refuses an unknown field,
/// naming every part's fields, so that one table reads as one configuration.
pub fn split(params: &Params, parts: &[&[&str]]) -> Result<Vec<Params>, ParamError> {
    let mut tables = vec![Params::new(); parts.len()];
    for (key, value) in params {
        let Some(part) = parts.iter().position(|fields| fields.contains(&key.as_str())) else {
            let expected: Vec<String> = parts.iter().flat_map(|f| f.iter()).map(|f| format!("`{f}`")).collect();
            return Err(ParamError::at(key, format!("unknown field `{key}`, expected one of {}", expected.join(", "))));
        };
        tables[part].insert(key.clone(), value.clone());
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Line {
        rate: u32,
        delay: u32,
    }

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    struct Queue {
        limit: Option<u32>,
    }

    fn table(text: &str) -> Params {
        text.parse().unwrap()
    }

    #[test]
    fn parts_take_their_own_keys_and_an_unknown_one_names_all_fields() {
        assert_eq!(fields::<Queue>(), &["limit"], "Option fields are declared too");
        let parts = [fields::<Line>(), fields::<Queue>()];
        let tables = split(&table("rate = 3\nlimit = 7"), &parts).unwrap();
        assert_eq!(tables, vec![table("rate = 3"), table("limit = 7")]);
        let e = split(&table("rat = 3"), &parts).unwrap_err();
        assert_eq!(e.path, vec!["rat"]);
        assert_eq!(e.message, "unknown field `rat`, expected one of `rate`, `delay`, `limit`");
    }

    #[test]
    fn parameters_apply_over_typed_defaults() {
        let (line, resolved) = parse_over(&Line { rate: 5, delay: 9 }, &table("delay = 1")).unwrap();
        assert_eq!(line, Line { rate: 5, delay: 1 });
        assert_eq!(resolved, table("rate = 5\ndelay = 1"));
    }
}
