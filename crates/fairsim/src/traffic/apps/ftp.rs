//! FTP: a bulk transfer, limited only by flow control (Demers, Keshav & Shenker 1989 §4;
//! Keshav 1991 §6.3). Its file is `size` bytes in maximum-size packets, or endless.

use super::{AppDeclaration, AppInfo};
use crate::component::{About, Declaration};
use crate::traffic::App;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FtpConfig {
    /// The file's size, sent in packets of the flow's `packet_size` (the last one full too);
    /// endless when absent.
    pub size: Option<Bytes>,
}

fn build(c: &FtpConfig, flow: &AppInfo) -> App {
    App::Ftp { packets: c.size.map(|s| s.0.div_ceil(flow.packet_size as u64).max(1)) }
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
