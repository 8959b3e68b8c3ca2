//! Simulated time, line rates, sizes and buffer limits, with the unit syntax of scenario files.
//!
//! Everything is an integer so that runs repeat bit for bit: time in nanoseconds, rates in
//! bit/s, sizes in bytes. Decimal prefixes are SI (K = 1000, M = 10^6, G = 10^9) for rates *and*
//! sizes, as is usual in networking; the binary prefixes are spelled out (`KiB`, `MiB`, `GiB`).
//! A bare number means seconds, bit/s or bytes. A value that is not a whole number of the base
//! unit (`0.5B`, `1.5ns`) is an error rather than being rounded silently.

pub mod catalogue;

use crate::error::suggest;
use catalogue::Dimension;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, or a span of it, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A line rate in bit/s. Always positive once validated.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

/// A size in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

/// How much a queue may hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    Packets(u64),
    Bytes(u64),
    Unlimited,
}

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_secs(s: u64) -> Time {
        Time(s * NANOS_PER_SEC)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    /// Rounds to the nearest nanosecond; negative or non-finite inputs give zero.
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_finite() && s > 0.0 {
            Time((s * NANOS_PER_SEC as f64).round() as u64)
        } else {
            Time::ZERO
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        *self = *self + o;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}

impl Rate {
    pub fn bits_per_sec(self) -> u64 {
        self.0
    }
    /// Time to put `size` bytes on a line of this rate, rounded up to the next nanosecond so
    /// that a packet never takes zero time.
    #[inline]
    pub fn tx_time(self, size: u32) -> Time {
        // size · 8 · 10^9 fits 64 bits below 2.3 GB: a 64-bit division then (a 128-bit one is a
        // call to a library routine, once per transmission), with the same result
        match (size as u64).checked_mul(8 * NANOS_PER_SEC) {
            Some(bits) => Time(bits.div_ceil(self.0)),
            None => Time((size as u128 * 8 * NANOS_PER_SEC as u128).div_ceil(self.0 as u128) as u64),
        }
    }
}

impl BufferLimit {
    /// The limit left for the queue when a packet of `size` bytes already takes a place (the
    /// packet on the line, at ports whose buffer includes it).
    pub fn less(self, size: u32) -> BufferLimit {
        match self {
            BufferLimit::Packets(n) => BufferLimit::Packets(n.saturating_sub(1)),
            BufferLimit::Bytes(n) => BufferLimit::Bytes(n.saturating_sub(size as u64)),
            BufferLimit::Unlimited => BufferLimit::Unlimited,
        }
    }

    /// Whether a queue holding `pkts` packets and `bytes` bytes may also take a packet of `size`.
    pub fn admits(self, pkts: usize, bytes: u64, size: u32) -> bool {
        match self {
            BufferLimit::Packets(n) => (pkts as u64) < n,
            BufferLimit::Bytes(n) => bytes + size as u64 <= n,
            BufferLimit::Unlimited => true,
        }
    }
    /// Whether a queue of this content is over the limit.
    pub fn exceeded(self, pkts: usize, bytes: u64) -> bool {
        match self {
            BufferLimit::Packets(n) => pkts as u64 > n,
            BufferLimit::Bytes(n) => bytes > n,
            BufferLimit::Unlimited => false,
        }
    }
}

// ----- parsing ------------------------------------------------------------------------------

/// Why a unit string was rejected; the message is shown to users as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnitError(pub String);

/// A decimal number as written, kept exact: `digits` / 10^`scale`.
struct Decimal {
    digits: u128,
    scale: u32,
    negative: bool,
}

/// Splits "12.5 Mbps" into the number and the unit.
fn split_number(text: &str) -> Result<(Decimal, &str), UnitError> {
    let s = text.trim();
    let end =
        s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == '_')).unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let num = num.replace('_', "");
    if num.is_empty() || num == "-" || num == "+" {
        return Err(UnitError(format!("`{text}` does not start with a number")));
    }
    let negative = num.starts_with('-');
    let body = num.trim_start_matches(['-', '+']);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() || !(int.chars().chain(frac.chars())).all(|c| c.is_ascii_digit()) {
        return Err(UnitError(format!("`{text}` does not start with a number")));
    }
    let all: String = format!("{int}{frac}");
    let digits: u128 = all
        .trim_start_matches('0')
        .parse::<u128>()
        .or_else(|e| if all.trim_start_matches('0').is_empty() { Ok(0) } else { Err(e) })
        .map_err(|_| UnitError(format!("`{text}` is too large")))?;
    Ok((Decimal { digits, scale: frac.len() as u32, negative }, unit.trim()))
}

/// `number × factor`, required to be a non-negative whole number of the base unit.
fn scaled(text: &str, d: &Decimal, factor: u128, base: &str) -> Result<u64, UnitError> {
    if d.negative && d.digits != 0 {
        return Err(UnitError(format!("`{text}` is negative")));
    }
    let div = 10u128.checked_pow(d.scale).ok_or_else(|| UnitError(format!("`{text}` has too many decimals")))?;
    let num = d.digits.checked_mul(factor).ok_or_else(|| UnitError(format!("`{text}` is too large")))?;
    if num % div != 0 {
        return Err(UnitError(format!("`{text}` is not a whole number of {base}")));
    }
    u64::try_from(num / div).map_err(|_| UnitError(format!("`{text}` is too large")))
}

/// Unit endings spelt out, longest first, and the accepted endings they stand for: `msec` is
/// `ms`, `Mbit` and `Mbits` are `Mbit/s`, `kbytes` is `kB`.
const SPELT_OUT: [(&str, &str); 14] = [
    ("seconds", "s"),
    ("second", "s"),
    ("secs", "s"),
    ("sec", "s"),
    ("minutes", "min"),
    ("minute", "min"),
    ("hours", "h"),
    ("hour", "h"),
    ("hrs", "h"),
    ("hr", "h"),
    ("bits/s", "bit/s"),
    ("bits", "bit/s"),
    ("bit", "bit/s"),
    ("bytes", "B"),
];

/// The accepted unit (of `accepted`) nearest to `unit`, which is not one: a unit spelt out
/// (`msec` → `ms`, `seconds` → `s`, `Mbit` → `Mbit/s`), a likely typo (`Mbs` → `Mbps`), or a
/// rate without its `/s` (`Mb` → `Mb/s`); None when none is near.
pub fn nearest_unit<'a>(unit: &str, accepted: &[&'a str]) -> Option<&'a str> {
    let exact = |candidate: &str| accepted.iter().copied().find(|a| *a == candidate);
    let spelt_out = SPELT_OUT.iter().find_map(|(long, short)| {
        let candidate = format!("{}{short}", unit.strip_suffix(long)?);
        exact(&candidate).or_else(|| suggest(&candidate, accepted.iter().copied()))
    });
    spelt_out.or_else(|| suggest(unit, accepted.iter().copied())).or_else(|| exact(&format!("{unit}/s")))
}

/// `; did you mean `10Mbit/s`?` for `text` (`10Mbit`), whose unit `unit` is not accepted, when
/// an accepted one is near ([`nearest_unit`]); else nothing.
fn unit_hint(text: &str, unit: &str, accepted: &[&str]) -> String {
    let number = text.trim().strip_suffix(unit).unwrap_or_default();
    nearest_unit(unit, accepted).map(|u| format!("; did you mean `{number}{u}`?")).unwrap_or_default()
}

/// How many base units `unit` is in `dimension`: a bare number is in seconds, bit/s, bytes or
/// packets.
fn factor(dimension: Dimension, unit: &str) -> Option<u128> {
    let bare = match dimension {
        Dimension::Time => 1_000_000_000,
        _ => 1,
    };
    if unit.is_empty() {
        Some(bare)
    } else {
        catalogue::factor(dimension, unit)
    }
}

pub fn parse_time(text: &str) -> Result<Time, UnitError> {
    let (d, unit) = split_number(text)?;
    let factor = factor(Dimension::Time, unit).ok_or_else(|| {
        let hint = unit_hint(text, unit, &catalogue::names(Dimension::Time));
        UnitError(format!("`{text}`: unknown time unit `{unit}`{hint} (expected ns, us, ms, s, min or h)"))
    })?;
    scaled(text, &d, factor, "nanoseconds").map(Time)
}

pub fn parse_rate(text: &str) -> Result<Rate, UnitError> {
    let (d, unit) = split_number(text)?;
    if matches!(unit, "Bps" | "KBps" | "kBps" | "MBps" | "GBps") {
        return Err(UnitError(format!("`{text}`: rates are in bits per second; write e.g. `8Mbps` for 1 MB/s")));
    }
    let factor = factor(Dimension::Rate, unit).ok_or_else(|| {
        let hint = unit_hint(text, unit, &catalogue::names(Dimension::Rate));
        UnitError(format!("`{text}`: unknown rate unit `{unit}`{hint} (expected bps, kbps, Mbps, Gbps or Tbps)"))
    })?;
    let bps = scaled(text, &d, factor, "bit/s")?;
    if bps == 0 {
        return Err(UnitError(format!("`{text}`: a rate must be positive")));
    }
    Ok(Rate(bps))
}

pub fn parse_bytes(text: &str) -> Result<Bytes, UnitError> {
    let (d, unit) = split_number(text)?;
    let factor = factor(Dimension::Size, unit).ok_or_else(|| {
        let hint = unit_hint(text, unit, &catalogue::names(Dimension::Size));
        UnitError(format!("`{text}`: unknown size unit `{unit}`{hint} (expected B, KB, MB, GB, KiB, MiB or GiB)"))
    })?;
    scaled(text, &d, factor, "bytes").map(Bytes)
}

/// A buffer: a bare integer or `15p`/`15 packets` is packets; a size (`64KB`) is bytes;
/// `unlimited` has no limit. Zero is refused: a port must be able to hold the packet it sends.
pub fn parse_buffer(text: &str) -> Result<BufferLimit, UnitError> {
    let t = text.trim();
    if matches!(t, "unlimited" | "inf" | "infinite") {
        return Ok(BufferLimit::Unlimited);
    }
    let (d, unit) = split_number(t)?;
    let limit = match unit {
        u if factor(Dimension::Packets, u).is_some() => BufferLimit::Packets(scaled(text, &d, 1, "packets")?),
        u => match factor(Dimension::Size, u) {
            Some(f) => BufferLimit::Bytes(scaled(text, &d, f, "bytes")?),
            None => {
                let packets = catalogue::names(Dimension::Packets);
                let accepted: Vec<&str> =
                    packets[..2].iter().copied().chain(catalogue::names(Dimension::Size)).collect();
                let hint = unit_hint(text, u, &accepted);
                return Err(UnitError(format!(
                    "`{text}`: unknown buffer unit `{u}`{hint} (expected packets, e.g. `20`, or a size such as `64KB`, or `unlimited`)"
                )));
            }
        },
    };
    match limit {
        BufferLimit::Packets(0) | BufferLimit::Bytes(0) => {
            Err(UnitError(format!("`{text}`: a buffer must hold at least one packet")))
        }
        l => Ok(l),
    }
}

// ----- formatting (canonical forms, used in resolved scenarios and tables) ---------------------

/// `value / 10^exp` written without trailing zeros.
fn decimal(value: u64, exp: u32) -> String {
    let div = 10u64.pow(exp);
    let (int, frac) = (value / div, value % div);
    if frac == 0 {
        return int.to_string();
    }
    let f = format!("{frac:0width$}", width = exp as usize);
    format!("{int}.{}", f.trim_end_matches('0'))
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns == 0 {
            write!(f, "0s")
        } else if ns < 1_000 {
            write!(f, "{ns}ns")
        } else if ns < 1_000_000 {
            write!(f, "{}us", decimal(ns, 3))
        } else if ns < NANOS_PER_SEC {
            write!(f, "{}ms", decimal(ns, 6))
        } else {
            write!(f, "{}s", decimal(ns, 9))
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        let (exp, unit) = match b {
            b if b >= 1_000_000_000 => (9, "Gbps"),
            b if b >= 1_000_000 => (6, "Mbps"),
            b if b >= 1_000 => (3, "kbps"),
            _ => (0, "bps"),
        };
        write!(f, "{}{unit}", decimal(b, exp))
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

impl fmt::Display for BufferLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferLimit::Packets(n) => write!(f, "{n} packets"),
            BufferLimit::Bytes(n) => write!(f, "{}", Bytes(*n)),
            BufferLimit::Unlimited => write!(f, "unlimited"),
        }
    }
}

// ----- serde: scenario values may be strings with units or bare numbers ----------------------

/// Accepts a string, an integer or a float, and hands the text to a unit parser.
fn from_text_or_number<'de, D, T>(
    d: D,
    what: &'static str,
    parse: fn(&str) -> Result<T, UnitError>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    struct V<T> {
        what: &'static str,
        parse: fn(&str) -> Result<T, UnitError>,
    }
    impl<T> de::Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "{}", self.what)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            (self.parse)(v).map_err(|e| E::custom(e.0))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
            self.visit_str(&v.to_string())
        }
    }
    d.deserialize_any(V { what, parse })
}

macro_rules! serde_via_text {
    ($ty:ty, $what:literal, $parse:path) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                from_text_or_number(d, $what, $parse)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        /// Written as text with a unit (a bare number takes the default unit): the parameter
        /// tables say so.
        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "description": $what })
            }
        }
    };
}

serde_via_text!(Time, "a duration such as `500ms` or `1500s`", parse_time);
serde_via_text!(Rate, "a rate such as `56kbps` or `10Mbps`", parse_rate);
serde_via_text!(Bytes, "a size such as `1000B` or `64KB`", parse_bytes);
serde_via_text!(BufferLimit, "a buffer such as `20` (packets), `64KB` or `unlimited`", parse_buffer);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_exactly() {
        assert_eq!(parse_time("500ms"), Ok(Time(500_000_000)));
        assert_eq!(parse_time("1500s"), Ok(Time::from_secs(1500)));
        assert_eq!(parse_time("0.1s"), Ok(Time(100_000_000)));
        assert_eq!(parse_time("2"), Ok(Time::from_secs(2)));
        assert_eq!(parse_time("1.5 us"), Ok(Time(1_500)));
        assert_eq!(parse_time("0"), Ok(Time::ZERO));
        assert!(parse_time("1.5ns").unwrap_err().0.contains("whole number"));
        assert!(parse_time("-1ms").unwrap_err().0.contains("negative"));
        assert!(parse_time("10 parsecs").unwrap_err().0.contains("unknown time unit `parsecs` (expected"));
        assert!(parse_time("10 mins").unwrap_err().0.contains("unknown time unit `mins`; did you mean `10 min`?"));
        assert!(parse_rate("10Mbs").unwrap_err().0.contains("unknown rate unit `Mbs`; did you mean `10Mbps`?"));
        assert!(parse_bytes("10 Kib").unwrap_err().0.contains("unknown size unit `Kib`; did you mean `10 KiB`?"));
        assert!(parse_buffer("15 pakets")
            .unwrap_err()
            .0
            .contains("unknown buffer unit `pakets`; did you mean `15 packets`?"));
        assert!(parse_time("ms").is_err());
    }

    #[test]
    fn an_unknown_unit_is_answered_with_the_nearest_accepted_one_and_the_value_as_it_would_read() {
        let hint = |e: Result<(), UnitError>| e.unwrap_err().0;
        for (text, kind, meant) in [
            ("10Mbit", "rate", "10Mbit/s"),
            ("10 Mbits", "rate", "10 Mbit/s"),
            ("64kbit", "rate", "64kbit/s"),
            ("10Mb", "rate", "10Mb/s"),
            ("10msec", "time", "10ms"),
            ("3 seconds", "time", "3 s"),
            ("2 hours", "time", "2 h"),
            ("5 minutes", "time", "5 min"),
            ("1500 bytez", "size", "1500 bytes"),
            ("64kbytes", "size", "64kB"),
        ] {
            let message = match kind {
                "rate" => hint(parse_rate(text).map(drop)),
                "time" => hint(parse_time(text).map(drop)),
                _ => hint(parse_bytes(text).map(drop)),
            };
            assert!(message.contains(&format!("; did you mean `{meant}`? (expected")), "{text}: {message}");
        }
        // nothing near: no guess
        assert!(!parse_rate("10 furlongs").unwrap_err().0.contains("did you mean"));
        assert!(!parse_time("10 parsecs").unwrap_err().0.contains("did you mean"));
    }

    #[test]
    fn rates_and_sizes_use_si_prefixes() {
        assert_eq!(parse_rate("56kbps"), Ok(Rate(56_000)));
        assert_eq!(parse_rate("10Mbps"), Ok(Rate(10_000_000)));
        assert_eq!(parse_rate("1Gbps"), Ok(Rate(1_000_000_000)));
        assert_eq!(parse_rate("1.5Mbps"), Ok(Rate(1_500_000)));
        assert_eq!(parse_rate("80000"), Ok(Rate(80_000)));
        assert!(parse_rate("0Mbps").unwrap_err().0.contains("positive"));
        assert!(parse_rate("1MBps").unwrap_err().0.contains("bits per second"));
        assert_eq!(parse_bytes("1000B"), Ok(Bytes(1000)));
        assert_eq!(parse_bytes("64KB"), Ok(Bytes(64_000)));
        assert_eq!(parse_bytes("64KiB"), Ok(Bytes(65_536)));
        assert!(parse_bytes("0.5B").is_err());
        assert!(parse_bytes("-40B").unwrap_err().0.contains("negative"));
    }

    #[test]
    fn buffers_count_packets_or_bytes() {
        assert_eq!(parse_buffer("15"), Ok(BufferLimit::Packets(15)));
        assert_eq!(parse_buffer("15 packets"), Ok(BufferLimit::Packets(15)));
        assert_eq!(parse_buffer("64KB"), Ok(BufferLimit::Bytes(64_000)));
        assert_eq!(parse_buffer("unlimited"), Ok(BufferLimit::Unlimited));
        assert!(parse_buffer("0").unwrap_err().0.contains("at least one packet"));
        assert!(BufferLimit::Packets(2).admits(1, 0, 1000));
        assert!(!BufferLimit::Packets(2).admits(2, 0, 1000));
        assert!(BufferLimit::Bytes(2000).admits(1, 1000, 1000));
        assert!(!BufferLimit::Bytes(2000).admits(2, 1500, 1000));
    }

    #[test]
    fn transmission_time_is_rounded_up() {
        // 1000 bytes at 56 kbit/s = 142.857142857... ms
        assert_eq!(Rate(56_000).tx_time(1000), Time(142_857_143));
        assert_eq!(Rate(80_000).tx_time(1000), Time(100_000_000));
        assert_eq!(Rate(10_000_000_000).tx_time(1), Time(1));
        // beyond 64 bits of bit-nanoseconds (2.3 GB) the 128-bit path takes over
        assert_eq!(Rate(8).tx_time(u32::MAX), Time(u32::MAX as u64 * NANOS_PER_SEC));
    }

    proptest::proptest! {
        /// The 64-bit shortcut gives the exact 128-bit quotient, rounded up (from 2 b/s, where any
        /// packet's time fits 64 bits).
        #[test]
        fn transmission_time_is_exact(size: u32, rate in 2u64..u64::MAX) {
            let exact = (size as u128 * 8 * NANOS_PER_SEC as u128).div_ceil(rate as u128);
            proptest::prop_assert_eq!(Rate(rate).tx_time(size).0 as u128, exact);
        }
    }

    #[test]
    fn formatting_round_trips() {
        for s in ["500ms", "1500s", "1.5s", "0s", "250us", "7ns"] {
            let t = parse_time(s).unwrap();
            assert_eq!(parse_time(&t.to_string()), Ok(t), "{s}");
        }
        assert_eq!(Time(1_500_000_000).to_string(), "1.5s");
        assert_eq!(Rate(56_000).to_string(), "56kbps");
        assert_eq!(Rate(1_544_000).to_string(), "1.544Mbps");
        for s in ["56kbps", "1.544Mbps", "3bps", "10Gbps"] {
            let r = parse_rate(s).unwrap();
            assert_eq!(parse_rate(&r.to_string()), Ok(r), "{s}");
        }
    }
}
