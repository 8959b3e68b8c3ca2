//! Every unit a scenario value may be written in, once: the parsers take their factors from
//! here, the messages their names, and Python (`fairsim.sweeps.axes`, through
//! `fairsim._core.units`) the whole table, so that a sweep's axis reads a value exactly as the
//! scenario loader does.

/// What a unit measures.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dimension {
    Time,
    Rate,
    Size,
    Packets,
}

impl Dimension {
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Time => "time",
            Dimension::Rate => "rate",
            Dimension::Size => "size",
            Dimension::Packets => "packets",
        }
    }
}

/// A unit: its spelling, what it measures, and how many base units it is (nanoseconds,
/// bit/s, bytes, packets).
#[derive(Copy, Clone, Debug)]
pub struct Unit {
    pub name: &'static str,
    pub dimension: Dimension,
    pub factor: u128,
}

const fn unit(name: &'static str, dimension: Dimension, factor: u128) -> Unit {
    Unit { name, dimension, factor }
}

use Dimension::{Packets, Rate, Size, Time};

/// Every unit. Within a dimension, the spellings messages suggest come first, in the order
/// they list them, then the other accepted spellings.
pub static UNITS: &[Unit] = &[
    unit("ns", Time, 1),
    unit("us", Time, 1_000),
    unit("ms", Time, 1_000_000),
    unit("s", Time, 1_000_000_000),
    unit("min", Time, 60_000_000_000),
    unit("h", Time, 3_600_000_000_000),
    unit("µs", Time, 1_000),
    unit("sec", Time, 1_000_000_000),
    unit("secs", Time, 1_000_000_000),
    unit("bps", Rate, 1),
    unit("kbps", Rate, 1_000),
    unit("Mbps", Rate, 1_000_000),
    unit("Gbps", Rate, 1_000_000_000),
    unit("Tbps", Rate, 1_000_000_000_000),
    unit("bit/s", Rate, 1),
    unit("b/s", Rate, 1),
    unit("Kbps", Rate, 1_000),
    unit("kbit/s", Rate, 1_000),
    unit("kb/s", Rate, 1_000),
    unit("mbps", Rate, 1_000_000),
    unit("Mbit/s", Rate, 1_000_000),
    unit("Mb/s", Rate, 1_000_000),
    unit("gbps", Rate, 1_000_000_000),
    unit("Gbit/s", Rate, 1_000_000_000),
    unit("Gb/s", Rate, 1_000_000_000),
    unit("Tbit/s", Rate, 1_000_000_000_000),
    unit("B", Size, 1),
    unit("KB", Size, 1_000),
    unit("MB", Size, 1_000_000),
    unit("GB", Size, 1_000_000_000),
    unit("KiB", Size, 1 << 10),
    unit("MiB", Size, 1 << 20),
    unit("GiB", Size, 1 << 30),
    unit("bytes", Size, 1),
    unit("byte", Size, 1),
    unit("kB", Size, 1_000),
    unit("packets", Packets, 1),
    unit("pkts", Packets, 1),
    unit("p", Packets, 1),
    unit("pkt", Packets, 1),
    unit("packet", Packets, 1),
];

/// The spellings tables show a quantity in, largest first, per dimension (the scenario
/// spellings are for writing: `Mbps`; these for reading: `Mb/s`).
pub static SHOWN: &[(Dimension, &[&str])] =
    &[(Time, &["s", "ms", "µs", "ns"]), (Size, &["GB", "MB", "kB", "B"]), (Rate, &["Gb/s", "Mb/s", "kb/s", "b/s"])];

/// How many base units `name` is, if it is a unit of `dimension`.
pub fn factor(dimension: Dimension, name: &str) -> Option<u128> {
    UNITS.iter().find(|u| u.dimension == dimension && u.name == name).map(|u| u.factor)
}

/// The spellings of `dimension`'s units, those messages suggest first.
pub fn names(dimension: Dimension) -> Vec<&'static str> {
    UNITS.iter().filter(|u| u.dimension == dimension).map(|u| u.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_is_one_unit() {
        let mut seen = std::collections::HashSet::new();
        assert!(UNITS.iter().all(|u| seen.insert(u.name)), "a spelling in two places");
        assert_eq!(factor(Time, "min"), Some(60_000_000_000));
        assert_eq!(factor(Rate, "min"), None, "a time unit is no rate");
        assert_eq!(names(Packets)[..2], ["packets", "pkts"], "what buffer messages suggest");
        for (dimension, shown) in SHOWN {
            let factors: Vec<u128> = shown.iter().map(|s| factor(*dimension, s).expect("a unit")).collect();
            assert!(factors.windows(2).all(|w| w[0] > w[1]), "{dimension:?}: largest first");
        }
    }
}
