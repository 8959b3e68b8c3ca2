//! FTP: a bulk transfer, limited only by flow control (Demers, Keshav & Shenker 1989 §4;
//! Keshav 1991 §6.3). Its file is `size` bytes in maximum-size packets, or endless.

use super::checks::text;
use crate::component::{About, Declaration};
use crate::traffic::application::{AppDeclaration, AppInfo, Application, FlowControl, Source, DEFAULT_PAYLOAD};
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FtpConfig {
    /// The file's size, sent in packets of the flow's `packet_size` (the last one full too);
    /// endless when absent.
    pub size: Option<Bytes>,
}

/// A file of `packets` packets of `payload` bytes (`None`: endless).
#[derive(Clone, Debug, PartialEq)]
pub struct Ftp {
    pub packets: Option<u64>,
    pub payload: u32,
}

impl Application for Ftp {
    fn name(&self) -> &'static str {
        "ftp"
    }
    fn payload_size(&self) -> u32 {
        self.payload
    }
    fn flow_control(&self) -> FlowControl {
        FlowControl::Needed("an FTP needs flow control; use app = \"firehose\" for a source that ignores it")
    }
    fn demand_bps(&self) -> Option<f64> {
        None
    }
    fn source(&self) -> Source {
        Source::Bulk { packets: self.packets }
    }
    fn resolved(&self) -> Vec<(&'static str, toml::Value)> {
        // the size sent: whole packets
        self.packets.map(|n| ("size", text(Bytes(n * self.payload as u64)))).into_iter().collect()
    }
}

fn build(c: &FtpConfig, flow: &AppInfo) -> Ftp {
    let payload = flow.payload(DEFAULT_PAYLOAD);
    Ftp { packets: c.size.map(|s| s.0.div_ceil(payload as u64).max(1)), payload }
}

pub static DECLARATION: AppDeclaration<FtpConfig> = Declaration {
    about: About {
        name: "ftp",
        summary: "bulk transfer, infinite or `size` bytes, limited only by flow control",
        reference: "DKS 1989 §4; Keshav 1991 §6.3",
    },
    defaults: || (FtpConfig::default(),),
    build: |(c,), flow| Ok(Box::new(build(c, flow))),
};
