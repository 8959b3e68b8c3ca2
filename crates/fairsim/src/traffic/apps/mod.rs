//! The applications a flow can run, each declared in its own file with its typed parameters
//! (`component::Declaration`); the registry only lists them. A flow's application parameters
//! are written in the flow's own table (`app = "cbr", rate = "1Mbps"`); validation hands the
//! application the ones given and names any that do not apply.

mod cbr;
mod files;
mod firehose;
mod ftp;
mod onoff;
mod poisson;
mod telnet;
mod web;

use super::App;
use crate::component::{Declaration, Kind};
use crate::params::ParamError;
use crate::units::{Rate, Time};

/// What an application is built for: its flow.
pub struct AppInfo {
    /// Application bytes of a data packet (the payload, when the flow has headers), which the
    /// applications' rates and sizes count.
    pub packet_size: u32,
    /// The payload rate that fills the flow's first link (a firehose's default), if its route
    /// is known.
    pub first_hop: Option<Rate>,
}

/// An application's declaration: one configuration, built for a flow.
pub type AppDeclaration<C> = Declaration<(C,), AppInfo, App>;

/// A registered application.
pub type AppKind = dyn Kind<AppInfo, App>;

/// Every application, in the order listings show them.
pub static APPS: &[&AppKind] = &[
    &ftp::DECLARATION,
    &telnet::DECLARATION,
    &poisson::DECLARATION,
    &cbr::DECLARATION,
    &firehose::DECLARATION,
    &onoff::DECLARATION,
    &web::DECLARATION,
    &files::DECLARATION,
];

pub fn find(name: &str) -> Option<&'static AppKind> {
    crate::component::find(APPS, name)
}

/// A time that must be given and positive.
fn positive(t: Option<Time>, field: &str, app: &str) -> Result<Time, ParamError> {
    match t {
        Some(t) if t > Time::ZERO => Ok(t),
        Some(_) => Err(ParamError::at(field, "must be longer than 0s")),
        None => Err(ParamError::at(field, format!("app `{app}` needs `{field}`"))),
    }
}

/// A rate that must be given.
fn required_rate(rate: Option<Rate>, app: &str) -> Result<Rate, ParamError> {
    rate.ok_or_else(|| ParamError::at("rate", format!("app `{app}` needs `rate`")))
}

/// A Pareto shape with a finite mean.
fn pareto_shape(shape: f64) -> Result<f64, ParamError> {
    if shape > 1.0 && shape.is_finite() {
        Ok(shape)
    } else {
        Err(ParamError::at("shape", "a Pareto shape must exceed 1 for the mean to exist"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn build(app: &str, params: &str) -> Result<App, ParamError> {
        let info = AppInfo { packet_size: 1000, first_hop: Some(Rate(2_000_000)) };
        find(app).unwrap().build(&params.parse::<Params>().unwrap(), &info).map(|(a, _)| *a)
    }

    #[test]
    fn each_application_builds_from_its_own_parameters() {
        assert_eq!(build("ftp", "size = \"2500B\"").unwrap(), App::Ftp { packets: Some(3) });
        assert_eq!(build("ftp", "").unwrap(), App::Ftp { packets: None });
        assert_eq!(build("telnet", "").unwrap(), App::Telnet { mean_gap: Time::from_secs(5) });
        assert_eq!(build("poisson", "rate = \"8kbps\"").unwrap(), App::Poisson { mean_gap: Time::from_secs(1) });
        assert_eq!(build("firehose", "").unwrap(), App::Firehose { rate: Rate(2_000_000) }, "the access line's");
        assert_eq!(build("cbr", "rate = \"1Mbps\"").unwrap(), App::Cbr { rate: Rate(1_000_000), jitter: 0.0 });
    }

    #[test]
    fn each_application_refuses_what_makes_no_sense_naming_the_field() {
        let refused = |app: &str, params: &str| build(app, params).map(|_| ()).unwrap_err();
        let e = refused("poisson", "rate = \"8kbps\"\nmean_gap = \"1s\"");
        assert_eq!(
            (e.path, e.message.as_str()),
            (vec!["mean_gap".into()], "app `poisson` needs exactly one of `mean_gap` and `rate`")
        );
        assert_eq!(refused("cbr", "").message, "app `cbr` needs `rate`");
        assert_eq!(refused("cbr", "rate = \"1Mbps\"\njitter = 1.0").path, vec!["jitter"]);
        assert_eq!(refused("telnet", "mean_gap = \"0s\"").message, "must be longer than 0s");
        assert_eq!(refused("onoff", "rate = \"1Mbps\"\non_mean = \"1s\"").message, "app `onoff` needs `off_mean`");
        assert_eq!(refused("web", "transfers = 0").path, vec!["transfers"]);
        assert_eq!(crate::component::undocumented(APPS), Vec::<String>::new());
    }
}
