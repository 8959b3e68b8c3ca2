//! The service a packetised discipline gave: which bits of which conversation went out when,
//! so that it can be compared with the fluid reference at any instant.

/// Transmissions as (start ns, end ns, conversation, bits), possibly several per packet when
/// preempted; bits go out at the line rate between start and end.
#[derive(Debug, Default, Clone)]
pub struct Service {
    pub pieces: Vec<(f64, f64, usize, f64)>,
}

impl Service {
    /// Bits of conversation `conv` sent by time `t_ns`, counting a packet on the line pro rata.
    pub fn served(&self, conv: usize, t_ns: f64) -> f64 {
        self.pieces
            .iter()
            .filter(|p| p.2 == conv && p.0 < t_ns)
            .map(|&(s, e, _, bits)| if t_ns >= e { bits } else { bits * (t_ns - s) / (e - s) })
            .sum()
    }

    /// Every instant at which some piece starts or ends.
    pub fn instants(&self) -> Vec<f64> {
        self.pieces.iter().flat_map(|p| [p.0, p.1]).collect()
    }
}
