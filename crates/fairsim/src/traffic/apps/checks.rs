//! Checks several applications make of their parameters, with the messages they give.

use crate::params::ParamError;
use crate::units::{Rate, Time};

/// A time that must be given and positive.
pub fn positive(t: Option<Time>, field: &str, app: &str) -> Result<Time, ParamError> {
    match t {
        Some(t) if t > Time::ZERO => Ok(t),
        Some(_) => Err(ParamError::at(field, "must be longer than 0s")),
        None => Err(ParamError::at(field, format!("app `{app}` needs `{field}`"))),
    }
}

/// A rate that must be given.
pub fn required_rate(rate: Option<Rate>, app: &str) -> Result<Rate, ParamError> {
    rate.ok_or_else(|| ParamError::at("rate", format!("app `{app}` needs `rate`")))
}

/// A Pareto shape with a finite mean.
pub fn pareto_shape(shape: f64) -> Result<f64, ParamError> {
    if shape > 1.0 && shape.is_finite() {
        Ok(shape)
    } else {
        Err(ParamError::at("shape", "a Pareto shape must exceed 1 for the mean to exist"))
    }
}

/// `x` as a resolved scenario writes it: a quantity as its text (`"1Mbps"`).
pub fn text(x: impl ToString) -> toml::Value {
    toml::Value::String(x.to_string())
}
