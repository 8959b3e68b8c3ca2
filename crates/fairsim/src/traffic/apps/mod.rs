//! The applications a flow can run, each declared in its own file with its typed parameters
//! (`component::Declaration`), its checks, its timing and its resolved form; the registry only
//! lists them. A flow's application parameters are written in the flow's own table (`app =
//! "cbr", rate = "1Mbps"`): the flow's keys it does not know are the application's to judge.

mod bursts;
mod cbr;
mod checks;
mod files;
mod firehose;
mod ftp;
mod onoff;
mod poisson;
mod telnet;
mod web;

pub use files::{MAX_ARRIVALS, MIN_ARRIVALS};
pub use onoff::Periods;

use crate::traffic::application::{AppInfo, AppKind, Application};

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
    &bursts::DECLARATION,
];

/// The door through which applications written outside Rust come (`foreign`): the Python
/// package's `fairsim.Application`s.
pub static FOREIGN: crate::foreign::Door<AppInfo, dyn Application> = crate::foreign::Door::closed();

/// The application called `name`: a built-in one, else one the door's host knows.
pub fn find(name: &str) -> Option<&'static AppKind> {
    crate::component::find(APPS, name).or_else(|| FOREIGN.find(name))
}

/// Every application's name, the built-in ones first (for messages).
pub fn all_names() -> Vec<String> {
    let builtin = crate::component::names(APPS).into_iter().map(String::from);
    builtin.chain(FOREIGN.names()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{ParamError, Params};
    use crate::traffic::application::{AppInfo, Application, Source};
    use crate::units::{Rate, Time};

    fn build(app: &str, params: &str) -> Result<Box<dyn Application>, ParamError> {
        let info = AppInfo { packet_size: None, first_line: Some((Rate(2_000_000), 0)) };
        find(app).unwrap().build(&params.parse::<Params>().unwrap(), &info).map(|(a, _)| a)
    }

    /// What the engine runs: a bulk file's packets, or a timed source's first gaps.
    fn runs(app: &dyn Application) -> String {
        match app.source() {
            Source::Bulk { packets } => format!("bulk {packets:?}"),
            Source::Population(p) => format!("population {p:?}"),
            Source::Timed(mut t) => {
                let mut rng = crate::rng::stream(1, "apps");
                let first = t.first(Time::ZERO, &mut rng);
                format!("timed from {first}, then {}", t.next(first, &mut rng) - first)
            }
        }
    }

    fn resolved(app: &dyn Application) -> String {
        app.resolved().iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
    }

    #[test]
    fn each_application_builds_from_its_own_parameters() {
        let ftp = build("ftp", "size = \"2500B\"").unwrap();
        assert_eq!((runs(&*ftp), resolved(&*ftp)), ("bulk Some(3)".into(), "size = \"3000B\"".into()));
        assert_eq!(runs(&*build("ftp", "").unwrap()), "bulk None");
        let telnet = build("telnet", "").unwrap();
        assert_eq!((telnet.payload_size(), resolved(&*telnet)), (40, "mean_gap = \"5s\"".into()));
        let poisson = build("poisson", "rate = \"8kbps\"").unwrap();
        assert_eq!(resolved(&*poisson), "mean_gap = \"1s\"", "a packet of 1000 bytes at 8 kb/s");
        let firehose = build("firehose", "").unwrap();
        assert_eq!(resolved(&*firehose), "rate = \"2Mbps\"", "the access line's");
        let cbr = build("cbr", "rate = \"1Mbps\"").unwrap();
        assert_eq!(runs(&*cbr), "timed from 0s, then 8ms");
        assert_eq!(resolved(&*cbr), "rate = \"1Mbps\", jitter = 0.0");
        assert_eq!(cbr.demand_bps(), Some(1e6));
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

    #[test]
    fn the_registry_names_each_application_as_it_names_itself() {
        let info = AppInfo { packet_size: None, first_line: Some((Rate(2_000_000), 0)) };
        for kind in APPS {
            let minimal = match kind.about().name {
                "cbr" | "onoff" | "poisson" => "rate = \"1Mbps\"\non_mean = \"1s\"\noff_mean = \"1s\"",
                "web" => "transfers = 2\nmean_gap = \"1s\"\nsize = \"10KB\"",
                "files" => "arrivals = 1.0\nsize = \"10KB\"",
                "bursts" => "burst = 2\nperiod = \"1s\"",
                _ => "",
            };
            let params: Params = minimal.parse().unwrap();
            let keep: Params =
                params.into_iter().filter(|(k, _)| kind.parameter_names().contains(&k.as_str())).collect();
            let (app, _) = kind.build(&keep, &info).unwrap();
            assert_eq!(app.name(), kind.about().name);
        }
    }
}
