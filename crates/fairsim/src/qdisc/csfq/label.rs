//! How a CSFQ label travels in a packet.
//!
//! Reference: Stoica, Shenker & Zhang, SIGCOMM 1998, §2.7: the label can ride in the IP Type of
//! Service byte as "a floating point representation with four bits for mantissa and four bits
//! for exponent", which "can represent any rate between 1 Kbps and 65 Mbps with an accuracy of
//! 6.25%".
//!
//! The paper gives no bit layout; ours: the byte `e << 4 | m` stands for (1 + m/16)·2^e kb/s,
//! a hidden leading one as in IEEE floats. Its codes run from 1 kb/s (byte 0) to 63.5 Mb/s
//! (byte 255) in steps of 1/16 of a power of two: the paper's 6.25%. Rates are rounded to the
//! nearest code, so a label is within 3.1% of the rate inside that range; rates below or above
//! it are carried as its ends (so 65 Mb/s is carried as 63.5, within 2.4%). A rate of 0 — no
//! traffic yet — is carried as 0, as an unlabeled packet would be.

use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LabelFormat {
    /// A 32-bit float: the rate as estimated, to 7 digits.
    #[default]
    Float,
    /// The paper's 8-bit float for the IP Type of Service byte.
    Byte,
}

impl LabelFormat {
    /// The label a packet carries for `rate_bps`.
    pub fn carry(self, rate_bps: f64) -> f32 {
        match self {
            LabelFormat::Float => rate_bps as f32,
            LabelFormat::Byte if rate_bps <= 0.0 => 0.0,
            LabelFormat::Byte => decode(encode(rate_bps)) as f32,
        }
    }
}

/// Steps between powers of two: four bits of mantissa.
const STEPS: f64 = 16.0;
/// The rate of byte 0, in bit/s.
const UNIT_BPS: f64 = 1000.0;

/// The byte whose rate is nearest `rate_bps` (clamped to the codes' range).
pub fn encode(rate_bps: f64) -> u8 {
    let kbps = (rate_bps / UNIT_BPS).max(1.0);
    let e = kbps.log2().floor().min(15.0);
    let steps = ((kbps / e.exp2() - 1.0) * STEPS).round();
    // rounding up to the next power of two carries into the exponent
    let code = e * STEPS + steps;
    code.min(255.0) as u8
}

/// The rate in bit/s that `byte` stands for.
pub fn decode(byte: u8) -> f64 {
    let (e, m) = (f64::from(byte >> 4), f64::from(byte & 0x0f));
    (1.0 + m / STEPS) * e.exp2() * UNIT_BPS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_covers_1_kbps_to_65_mbps_within_the_papers_accuracy() {
        // §2.7: "any rate between 1 Kbps and 65 Mbps with an accuracy of 6.25%"; rounding to
        // the nearest code halves that inside the codes' range
        let (lo, hi) = (1e3f64, 65e6f64);
        let mut worst: f64 = 0.0;
        for i in 0..=100_000 {
            let rate = lo * (hi / lo).powf(i as f64 / 100_000.0);
            let error = (decode(encode(rate)) - rate).abs() / rate;
            assert!(error <= 0.0625, "{rate} b/s carried as {} ({error})", decode(encode(rate)));
            if rate <= decode(255) {
                worst = worst.max(error);
            }
        }
        assert!(worst <= 1.0 / 32.0 + 1e-12, "{worst}");
        assert!(worst > 0.03, "the grid is coarse, as the paper says: {worst}");
    }

    #[test]
    fn the_codes_run_from_1_kbps_to_63_5_mbps_in_increasing_order() {
        assert_eq!(decode(0), 1e3);
        assert_eq!(decode(255), 63.488e6);
        for b in 0..255u8 {
            assert!(decode(b) < decode(b + 1));
            assert_eq!(encode(decode(b)), b, "every code is its own rate's nearest");
        }
    }

    #[test]
    fn rates_round_to_the_nearest_code_and_carry_into_the_exponent() {
        // 1 Mb/s = 1.953·2^9 kb/s: the nearest step is 15/16, so 31·32 = 992 kb/s
        assert_eq!(LabelFormat::Byte.carry(1e6), 992e3);
        // 2^10 kb/s less a hair rounds up to the next power of two
        assert_eq!(LabelFormat::Byte.carry(1023.9e3), 1024e3);
        assert_eq!(LabelFormat::Byte.carry(10.0), 1e3, "below the range: its lower end");
        assert_eq!(LabelFormat::Byte.carry(1e9), 63.488e6, "above it: its upper end");
        assert_eq!(LabelFormat::Byte.carry(0.0), 0.0);
        assert_eq!(LabelFormat::Float.carry(1e6), 1e6);
    }
}
