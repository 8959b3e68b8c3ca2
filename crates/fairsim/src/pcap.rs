//! Packet captures in the pcap format, for Wireshark and tshark.
//!
//! Format: the classic libpcap file (the "pcap" format of the Wireshark wiki and the IETF draft
//! draft-ietf-opsawg-pcap): a 24-byte file header with nanosecond timestamps (magic
//! 0xa1b23c4d) and a link type, then one record per packet. The link type is 101 (LINKTYPE_RAW:
//! each record starts with its IPv4 header) for packets without headers (`net::Headers`); when
//! every captured packet's flow has PPP or Ethernet headers, it is 9 (LINKTYPE_PPP, a 2-byte
//! protocol field, as ns-3's point-to-point captures) or 1 (LINKTYPE_ETHERNET), so that the
//! frame length is the packet's size on the wire. A capture of flows with different framings is
//! raw IPv4 without any link header, its frame lengths the IPv4 packets'. fairsim's packets carry no bytes, so each record holds synthetic
//! headers only, as a capture with a short snap length would (`tcpdump -s 80`): the IPv4 header
//! gives the packet's full size on the wire, so tshark's analysis of sequence numbers,
//! retransmissions, duplicate ACKs and round trips works as on a real capture.
//!
//! What the headers say:
//! - addresses: node n is 10.x.y.z with x.y.z = n + 1; a flow (or each connection of an open
//!   population) is one TCP or UDP conversation, from port 10000 + its index to port 5001;
//! - flow-controlled flows are TCP with the timestamp option (RFC 7323): data packet k carries
//!   sequence number 1 + k·MSS, where MSS is the flow's packet size less the 52 bytes of IPv4,
//!   TCP and option headers (and the link's framing): the payload, with headers; an ACK acknowledges 1 + (cumulative ACK)·MSS; TSval is the send
//!   time in milliseconds and an ACK's TSecr echoes its data packet's; a data packet's ACK
//!   field is 1 (no reverse data). There is no handshake: tshark numbers sequences from the
//!   first packet it sees;
//! - open-loop flows are UDP;
//! - a data packet's congestion bit is the IPv4 ECN field's CE (RFC 3168), an ACK's is the TCP
//!   ECE flag;
//! - an ACK's SACK blocks (RFC 2018) follow the timestamps, after two NOPs, in the same sequence
//!   numbers as the data;
//! - a packet smaller than its headers is shown at the headers' size (plus one byte of payload
//!   for TCP data, so that it occupies sequence space).
//!
//! Checksums are computed (over the headers and an all-zero payload, which adds nothing to the
//! ones'-complement sum), so a capture also passes Wireshark's optional checksum validation.

use crate::net::{headers, Headers, Packet};
use crate::transport::reliability::sack::SackBlocks;
use crate::units::Time;

/// How a flow's packets are encoded.
#[derive(Copy, Clone, Debug)]
pub struct Stream {
    /// TCP (flow-controlled) or UDP (open loop).
    pub tcp: bool,
    /// The flow's data packet size, bytes (for the sequence numbers of TCP data).
    pub packet_size: u32,
    /// The flow's headers: the link framing in the packet's size.
    pub headers: Headers,
}

const IP_HEADER: u32 = headers::IPV4;
const TCP_HEADER: u32 = headers::TCP_WITH_TIMESTAMPS;
const UDP_HEADER: u32 = headers::UDP;
const LINKTYPE_RAW: u32 = 101;
const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_PPP: u32 = 9;
const DATA_PORT: u16 = 5001;

/// The payload a TCP data packet of the stream carries: its sequence step.
pub fn mss(stream: Stream) -> u32 {
    stream.packet_size.saturating_sub(stream.headers.link() + IP_HEADER + TCP_HEADER).max(1)
}

/// The framing every captured packet has, if they agree (else none: raw IPv4).
fn framing(captured: &[(Time, Packet)], stream: &impl Fn(&Packet) -> Stream) -> Headers {
    let mut all = captured.iter().map(|(_, p)| stream(p).headers);
    let first = all.next().unwrap_or_default();
    if all.all(|h| h == first) {
        first
    } else {
        Headers::None
    }
}

/// The pcap link type of a capture whose packets have `framing`.
fn link_type(framing: Headers) -> u32 {
    match framing {
        Headers::None => LINKTYPE_RAW,
        Headers::Ppp => LINKTYPE_PPP,
        Headers::Ethernet => LINKTYPE_ETHERNET,
    }
}

/// The link header of `pkt` in a capture of `framing`: PPP's protocol field (IPv4), or
/// Ethernet II with locally administered addresses made of the end nodes' IPv4 addresses.
fn link_header(pkt: &Packet, framing: Headers) -> Vec<u8> {
    match framing {
        Headers::None => vec![],
        Headers::Ppp => vec![0x00, 0x21],
        Headers::Ethernet => {
            let mac = |n| [[0x02, 0x00].as_slice(), &address(n)].concat();
            [mac(pkt.dst), mac(pkt.src), vec![0x08, 0x00]].concat()
        }
    }
}

/// The pcap file of `captured` packets (with when each was put on the line); `stream` tells how
/// each packet's flow is encoded, `sack` an ACK's SACK blocks.
pub fn encode(
    captured: &[(Time, Packet)],
    stream: impl Fn(&Packet) -> Stream,
    sack: impl Fn(&Packet) -> SackBlocks,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + captured.len() * 82);
    let framing = framing(captured, &stream);
    for word in [0xa1b2_3c4d_u32, 0x0004_0002, 0, 0, 65535, link_type(framing)] {
        // version 2.4 as two little-endian u16 in one word
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (at, pkt) in captured {
        let ip = packet_headers(pkt, stream(pkt), &sack(pkt));
        let link = link_header(pkt, framing);
        let (secs, nanos) = (at.0 / 1_000_000_000, at.0 % 1_000_000_000);
        let wire = link.len() as u32 + u16::from_be_bytes([ip[2], ip[3]]) as u32;
        for word in [secs as u32, nanos as u32, (link.len() + ip.len()) as u32, wire] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&link);
        out.extend_from_slice(&ip);
    }
    out
}

fn address(node: crate::net::NodeId) -> [u8; 4] {
    let n = node.0 + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The IPv4 header and the TCP or UDP header of `pkt`.
fn packet_headers(pkt: &Packet, stream: Stream, sack: &SackBlocks) -> Vec<u8> {
    let conversation_port = 10_000 + (pkt.conn.0 % 55_000) as u16;
    let (sport, dport) = if pkt.is_data() { (conversation_port, DATA_PORT) } else { (DATA_PORT, conversation_port) };
    let (src, dst) = (address(pkt.src), address(pkt.dst));
    let transport =
        if stream.tcp { tcp_header(pkt, stream, sack, sport, dport) } else { udp_header(pkt, sport, dport) };
    let headers = IP_HEADER + transport.len() as u32;
    let least = if stream.tcp && pkt.is_data() { headers + 1 } else { headers };
    // the link's framing is in the packet's size, not in its IPv4 length
    let total = pkt.size.saturating_sub(stream.headers.link()).max(least).min(u16::MAX as u32) as u16;
    let ecn = if pkt.is_data() && pkt.congestion() { 0b11 } else { 0 };
    let proto = if stream.tcp { 6 } else { 17 };
    let mut ip = vec![0x45, ecn, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0];
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&(pkt.id as u16).to_be_bytes());
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    let sum = checksum(&ip, 0);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    // the transport checksum covers a pseudo-header of addresses, protocol and length
    let segment = total as u32 - IP_HEADER;
    let mut pseudo = 0u32;
    for pair in src.chunks(2).chain(dst.chunks(2)) {
        pseudo += u16::from_be_bytes([pair[0], pair[1]]) as u32;
    }
    pseudo += proto as u32 + segment;
    let mut transport = transport;
    if !stream.tcp {
        transport[4..6].copy_from_slice(&(segment as u16).to_be_bytes());
    }
    let at = if stream.tcp { 16 } else { 6 };
    let sum = match checksum(&transport, pseudo) {
        0 if !stream.tcp => 0xffff, // UDP's 0 means "no checksum" (RFC 768)
        sum => sum,
    };
    transport[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    ip.extend_from_slice(&transport);
    ip
}

fn tcp_header(pkt: &Packet, stream: Stream, sack: &SackBlocks, sport: u16, dport: u16) -> Vec<u8> {
    let mss = mss(stream) as u64;
    let (seq, ack) = if pkt.is_data() { (1 + pkt.seq * mss, 1) } else { (1, 1 + pkt.seq * mss) };
    let millis = |t: Time| (t.0 / 1_000_000) as u32;
    let (tsval, tsecr) =
        if pkt.is_data() { (millis(pkt.sent_at), 0) } else { (millis(pkt.sent_at), millis(pkt.echo_sent_at)) };
    const ACK: u8 = 0x10;
    const PSH: u8 = 0x08;
    const ECE: u8 = 0x40;
    let flags = if pkt.is_data() {
        ACK | PSH
    } else if pkt.congestion() {
        ACK | ECE
    } else {
        ACK
    };
    let mut h = Vec::with_capacity(TCP_HEADER as usize);
    h.extend_from_slice(&sport.to_be_bytes());
    h.extend_from_slice(&dport.to_be_bytes());
    h.extend_from_slice(&(seq as u32).to_be_bytes());
    h.extend_from_slice(&(ack as u32).to_be_bytes());
    let length = TCP_HEADER + sack.option_bytes();
    h.extend_from_slice(&[((length / 4) << 4) as u8, flags, 0xff, 0xff, 0, 0, 0, 0]);
    h.extend_from_slice(&[1, 1, 8, 10]); // NOP, NOP, timestamps (kind 8, length 10)
    h.extend_from_slice(&tsval.to_be_bytes());
    h.extend_from_slice(&tsecr.to_be_bytes());
    if !sack.is_empty() {
        h.extend_from_slice(&[1, 1, 5, 2 + 8 * sack.as_slice().len() as u8]); // NOP, NOP, SACK
        for &(start, end) in sack.as_slice() {
            h.extend_from_slice(&((1 + start * mss) as u32).to_be_bytes());
            h.extend_from_slice(&((1 + end * mss) as u32).to_be_bytes());
        }
    }
    h
}

fn udp_header(_pkt: &Packet, sport: u16, dport: u16) -> Vec<u8> {
    let mut h = Vec::with_capacity(UDP_HEADER as usize);
    h.extend_from_slice(&sport.to_be_bytes());
    h.extend_from_slice(&dport.to_be_bytes());
    h.extend_from_slice(&[0, 0, 0, 0]); // length and checksum, filled in by the caller
    h
}

/// The Internet checksum (RFC 1071) of `bytes`, starting from the partial sum `sum`.
fn checksum(bytes: &[u8], mut sum: u32) -> u16 {
    for pair in bytes.chunks(2) {
        sum += u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]) as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests;
