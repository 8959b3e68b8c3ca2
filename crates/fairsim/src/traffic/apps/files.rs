//! Files: an open population of file transfers. Connections arrive as a Poisson process of
//! `arrivals` per second; each sends one file of `size` bytes over its own instance of the
//! flow's transport, from the flow's source to its destination, and is gone once the ACK of
//! its last packet is back (Kim & Farber 1994 §4.1.3: "connection arrivals are Poisson with
//! rate λ", every file of a run the same size).
//!
//! Choices the paper leaves open, made here (docs/workloads.md):
//! - each connection has its own copy of the flow's first link when that link is a host's
//!   access line (the paper's sources are never the bottleneck and never share an interface);
//! - the flow's `stop` ends the arrivals; connections already open run to their end;
//! - disciplines see every connection of the flow as the flow (one conversation), as they see
//!   the packets of any one flow.

use super::checks::text;
use crate::component::{About, Declaration};
use crate::params::ParamError;
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, DEFAULT_PAYLOAD};
use crate::traffic::population::{Ends, Population, Sizes};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FilesConfig {
    /// Connections arriving per second (the Poisson rate λ), from 5.421e-11 (a mean gap of
    /// 2^64 − 1 ns, about 584 years) to 1e9 (a mean gap of 1 ns).
    pub arrivals: Option<f64>,
    /// Each file's size, sent in packets of the flow's `packet_size` (the last one full too).
    pub size: Option<Bytes>,
}

/// The most arrivals per second: a mean gap of 1 ns, the clock's tick.
pub const MAX_ARRIVALS: f64 = 1e9;

/// The fewest arrivals per second: a mean gap of 2^64 − 1 ns (about 584 years), the longest
/// time the clock holds; fewer would make the mean gap overflow it (and a rate so small that
/// 1/rate is infinite drew gaps of 0, every connection at once).
pub const MIN_ARRIVALS: f64 = 1e9 / u64::MAX as f64;

/// Connections arriving `arrivals` per second (Poisson), each with a file of `packets`.
#[derive(Clone, Debug, PartialEq)]
pub struct Files {
    pub arrivals: f64,
    pub packets: u64,
    pub payload: u32,
}

impl Application for Files {
    fn name(&self) -> &'static str {
        "files"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::Needed("the connections of app `files` need flow control: each ends when its file is acknowledged")
    }
    fn demand_bps(&self) -> Option<f64> {
        Some(self.arrivals * self.packets as f64 * self.payload as f64 * 8.0)
    }
    fn source(&self) -> Source {
        Source::Population(Population::Poisson {
            per_second: self.arrivals,
            ends: Ends::Flow,
            sizes: Sizes::Packets(Some(self.packets)),
        })
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        vec![("arrivals", toml::Value::Float(self.arrivals)), ("size", text(Bytes(self.packets * self.payload as u64)))]
    }
}

fn build(c: &FilesConfig, flow: &AppInfo) -> Result<Files, ParamError> {
    let payload = flow.payload(DEFAULT_PAYLOAD);
    let arrivals = match c.arrivals {
        // the mean gap 1/a, in nanoseconds, from 1 to u64::MAX
        Some(a) if a.is_finite() && 1e9 / a >= 1.0 && 1e9 / a <= u64::MAX as f64 => a,
        Some(a) => {
            // 1e-320, not three hundred zeros
            let a = if a != 0.0 && a.is_finite() && !(1e-4..1e16).contains(&a.abs()) {
                format!("{a:e}")
            } else {
                format!("{a}")
            };
            return Err(ParamError::at(
                "arrivals",
                format!(
                    "{a} is not a rate of arrivals per second from {MIN_ARRIVALS:.3e} to {MAX_ARRIVALS:e} (a mean gap \
                     from 1ns to about 584 years, the longest time the clock holds)"
                ),
            ));
        }
        None => return Err(ParamError::at("arrivals", "app `files` needs `arrivals`, connections per second")),
    };
    let size = c.size.filter(|s| s.0 > 0);
    let size =
        size.ok_or_else(|| ParamError::at("size", "app `files` needs `size`, each file's size, larger than 0B"))?;
    Ok(Files { arrivals, packets: size.0.div_ceil(payload as u64).max(1), payload })
}

pub static DECLARATION: AppDeclaration<FilesConfig> = Declaration {
about: About {
        name: "files",
        summary: "open population: connections arrive as a Poisson process (`arrivals` per second), each sends one `size`-byte file",
        reference: "Kim & Farber 1994 §4.1.3",
    },
    defaults: || (FilesConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow)?)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::units::Rate;

    fn files(params: &str) -> Result<(f64, u64), ParamError> {
        let info = AppInfo { packet_size: Some(500), first_line: Some((Rate(150_000_000), 0)) };
        let (app, _) = super::super::find("files").unwrap().build(&params.parse::<Params>().unwrap(), &info)?;
        let Source::Population(Population::Poisson { per_second, sizes: Sizes::Packets(Some(packets)), .. }) =
            app.source()
        else {
            panic!("an open population")
        };
        Ok((per_second, packets))
    }

    #[test]
    fn a_file_is_counted_in_packets_of_the_flow() {
        // the paper's three sizes at 500-byte packets: 20, 200 and 2000 packets (spec §4.5)
        for (size, packets) in [("10KB", 20), ("100KB", 200), ("1MB", 2000), ("1001B", 3)] {
            let app = files(&format!("arrivals = 900.0\nsize = \"{size}\"")).unwrap();
            assert_eq!(app, (900.0, packets));
        }
    }

    #[test]
    fn arrivals_and_size_are_required_and_positive() {
        for (params, field) in [
            ("size = \"10KB\"", "arrivals"),
            ("arrivals = 0.0\nsize = \"10KB\"", "arrivals"),
            ("arrivals = -3.0\nsize = \"10KB\"", "arrivals"),
            ("arrivals = nan\nsize = \"10KB\"", "arrivals"),
            ("arrivals = inf\nsize = \"10KB\"", "arrivals"),
            ("arrivals = 10.0", "size"),
            ("arrivals = 10.0\nsize = \"0B\"", "size"),
        ] {
            let e = files(params).unwrap_err();
            assert_eq!(e.path, vec![field.to_string()], "{params}: {e:?}");
        }
    }

    #[test]
    fn an_arrival_rate_is_refused_where_its_mean_gap_does_not_fit_the_clock() {
        // 1e-320 per second: 1/rate is infinite and drew gaps of 0 ns (every connection at
        // once, then "the network carries far less than the load offered"); 1e-12: a mean gap
        // of 10^21 ns, past the clock's 2^64 − 1; 2e9: a mean gap of half a nanosecond
        for (rate, shown) in [
            ("1e-320", "1e-320"),
            ("1e-12", "1e-12"),
            ("5.4e-11", "5.4e-11"),
            ("2e9", "2000000000"),
            ("1e300", "1e300"),
        ] {
            let e = files(&format!("arrivals = {rate}\nsize = \"10KB\"")).unwrap_err();
            assert_eq!(e.path, vec!["arrivals".to_string()], "{rate}");
            assert!(e.message.contains("from 5.421e-11 to 1e9"), "{rate}: {}", e.message);
            assert!(e.message.starts_with(&format!("{shown} is not")), "{rate}: {}", e.message);
        }
        for rate in ["5.43e-11", "1e-3", "1e9"] {
            assert!(files(&format!("arrivals = {rate}\nsize = \"10KB\"")).is_ok(), "{rate}");
        }
    }
}
