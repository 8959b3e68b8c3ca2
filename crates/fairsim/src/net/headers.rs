//! Packet headers on the wire (`headers` of a flow or of `[run]`): whether a flow's
//! `packet_size` is the whole packet, as the classic papers count it, or the payload, with
//! IPv4, TCP or UDP and link framing added on top, as ns-3 and Linux count it.
//!
//! The sizes are ns-3's: TCP carries the timestamps option (20 + 12 bytes, on by default in
//! ns-3 and Linux), so a 1000-byte segment over a point-to-point link is 2 + 20 + 32 + 1000 =
//! 1054 bytes and a pure ACK 54; UDP adds 8 bytes. Ethernet counts its 14-byte header only, as
//! ns-3's CSMA device and a pcap capture do: no preamble, FCS or inter-frame gap.

use serde::{Deserialize, Serialize};

pub const IPV4: u32 = 20;
/// TCP's 20 bytes and the timestamps option with its two NOPs (RFC 7323).
pub const TCP_WITH_TIMESTAMPS: u32 = 32;
pub const UDP: u32 = 8;

/// The headers a flow's packets carry on top of their payload.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Headers {
    /// `packet_size` is the whole packet and `ack_size` the whole ACK (the papers' counting).
    #[default]
    None,
    /// IPv4 and TCP or UDP over PPP (2 bytes), as ns-3's point-to-point links.
    Ppp,
    /// IPv4 and TCP or UDP over Ethernet II (14 bytes), as ns-3's CSMA links.
    Ethernet,
}

impl Headers {
    /// The scenario's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Headers::None => "none",
            Headers::Ppp => "ppp",
            Headers::Ethernet => "ethernet",
        }
    }

    /// Bytes of link framing before the IPv4 header.
    pub fn link(self) -> u32 {
        match self {
            Headers::None => 0,
            Headers::Ppp => 2,
            Headers::Ethernet => 14,
        }
    }

    /// Bytes of headers on every packet of a TCP (`tcp`) or UDP flow: a data packet is its
    /// payload plus these, an ACK these alone. Zero without headers.
    pub fn bytes(self, tcp: bool) -> u32 {
        match self {
            Headers::None => 0,
            _ => self.link() + IPV4 + if tcp { TCP_WITH_TIMESTAMPS } else { UDP },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Headers;

    #[test]
    fn a_tcp_segment_over_ppp_is_ns3s_54_bytes_of_headers() {
        assert_eq!(Headers::Ppp.bytes(true), 54);
        assert_eq!(Headers::Ppp.bytes(false), 30);
        assert_eq!(Headers::Ethernet.bytes(true), 66);
        assert_eq!(Headers::Ethernet.bytes(false), 42);
        assert_eq!((Headers::None.bytes(true), Headers::None.bytes(false)), (0, 0));
    }
}
