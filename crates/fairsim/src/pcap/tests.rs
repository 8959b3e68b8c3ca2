use super::*;
use crate::net::{FlowId, NodeId, PacketKind};

const TCP: Stream = Stream { tcp: true, packet_size: 1000, headers: Headers::None };

fn data(seq: u64) -> Packet {
    Packet {
        id: 7,
        flow: FlowId(2),
        conn: FlowId(2),
        seq,
        size: 1000,
        src: NodeId(0),
        dst: NodeId(4),
        sent_at: Time::from_millis(1500),
        ..Packet::blank()
    }
}

#[test]
fn the_internet_checksum_of_rfc_1071s_example() {
    // RFC 1071 §3: the bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2 (folded); the checksum is its
    // complement
    assert_eq!(checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7], 0), !0xddf2);
}

#[test]
fn a_tcp_data_packet_has_its_size_addresses_sequence_and_timestamp() {
    let h = packet_headers(&data(3), TCP, &SackBlocks::default());
    assert_eq!(h.len(), 52, "IPv4 and TCP with the timestamp option");
    assert_eq!(u16::from_be_bytes([h[2], h[3]]), 1000, "total length: the packet's size");
    assert_eq!((h[9], &h[12..16], &h[16..20]), (6, &[10, 0, 0, 1][..], &[10, 0, 0, 5][..]));
    assert_eq!(checksum(&h[..20], 0), 0, "the IPv4 header checks");
    let tcp = &h[20..];
    assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), 10_002);
    assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), 5001);
    assert_eq!(u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]), 1 + 3 * 948, "1 + k·MSS");
    assert_eq!(tcp[12] >> 4, 8, "32-byte header");
    assert_eq!(u32::from_be_bytes([tcp[24], tcp[25], tcp[26], tcp[27]]), 1500, "TSval in ms");
}

#[test]
fn an_ack_acknowledges_bytes_echoes_the_timestamp_and_carries_ece() {
    let ack = Packet {
        seq: 5,
        size: 40,
        src: NodeId(4),
        dst: NodeId(0),
        sent_at: Time::from_millis(1600),
        echo_sent_at: Time::from_millis(1500),
        ..data(0)
    }
    .with_kind(PacketKind::Ack)
    .with_congestion(true);
    let h = packet_headers(&ack, TCP, &SackBlocks::default());
    assert_eq!(u16::from_be_bytes([h[2], h[3]]), 52, "shown at the headers' size");
    let tcp = &h[20..];
    assert_eq!((u16::from_be_bytes([tcp[0], tcp[1]]), u16::from_be_bytes([tcp[2], tcp[3]])), (5001, 10_002));
    assert_eq!(u32::from_be_bytes([tcp[8], tcp[9], tcp[10], tcp[11]]), 1 + 5 * 948);
    assert_eq!(tcp[13], 0x10 | 0x40, "ACK and ECE");
    assert_eq!(u32::from_be_bytes([tcp[28], tcp[29], tcp[30], tcp[31]]), 1500, "TSecr");
    assert_eq!(h[1] & 3, 0, "no CE on the ACK itself");
}

#[test]
fn open_loop_packets_are_udp_with_a_valid_checksum() {
    let h = packet_headers(
        &data(9).with_congestion(true),
        Stream { tcp: false, packet_size: 1000, headers: Headers::None },
        &SackBlocks::default(),
    );
    assert_eq!((h.len(), h[9], h[1] & 3), (28, 17, 0b11), "UDP, and CE in the IP header");
    assert_eq!(u16::from_be_bytes([h[24], h[25]]), 980, "UDP length: the packet less its IP header");
    // the UDP checksum over the pseudo-header, the header and a zero payload comes out 0
    let mut pseudo = 0u32;
    for pair in h[12..20].chunks(2) {
        pseudo += u16::from_be_bytes([pair[0], pair[1]]) as u32;
    }
    assert_eq!(checksum(&h[20..], pseudo + 17 + 980), 0);
}

#[test]
fn the_file_has_the_nanosecond_header_and_one_record_per_packet() {
    let file =
        encode(&[(Time(1_500_000_123), data(0)), (Time(2_000_000_000), data(1))], |_| TCP, |_| SackBlocks::default());
    assert_eq!(&file[..4], &0xa1b2_3c4d_u32.to_le_bytes());
    assert_eq!(u32::from_le_bytes(file[20..24].try_into().unwrap()), 101, "LINKTYPE_RAW");
    let rec = &file[24..];
    let word = |i: usize| u32::from_le_bytes(rec[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((word(0), word(1), word(2), word(3)), (1, 500_000_123, 52, 1000));
    assert_eq!(file.len(), 24 + 2 * (16 + 52));
}

#[test]
fn an_acks_sack_blocks_follow_its_timestamps_in_data_sequence_numbers() {
    // RFC 2018 §3: kind 5, length 2 + 8n, each block its left and right edges
    let ack = Packet { seq: 5, size: 52, ..data(0) }.with_kind(PacketKind::Ack);
    let blocks = SackBlocks::from_slice(&[(7, 9), (11, 12)]);
    let h = packet_headers(&ack, TCP, &blocks);
    let tcp = &h[20..];
    assert_eq!(tcp.len(), 32 + 4 + 16);
    assert_eq!(tcp[12] >> 4, 13, "a 52-byte TCP header");
    assert_eq!(&tcp[32..36], &[1, 1, 5, 18]);
    let edge = |i: usize| u32::from_be_bytes([tcp[i], tcp[i + 1], tcp[i + 2], tcp[i + 3]]);
    assert_eq!((edge(36), edge(40), edge(44), edge(48)), (1 + 7 * 948, 1 + 9 * 948, 1 + 11 * 948, 1 + 12 * 948));
    assert_eq!(u16::from_be_bytes([h[2], h[3]]), 72, "shown at its headers' size");
    let mut pseudo = 0u32;
    for pair in h[12..20].chunks(2) {
        pseudo += u16::from_be_bytes([pair[0], pair[1]]) as u32;
    }
    assert_eq!(checksum(tcp, pseudo + 6 + tcp.len() as u32), 0, "the TCP checksum covers the option");
}

#[test]
fn with_ppp_headers_a_frame_is_the_packet_on_the_wire_and_its_sequence_step_the_payload() {
    let ppp = Stream { tcp: true, packet_size: 1054, headers: Headers::Ppp };
    assert_eq!(mss(ppp), 1000);
    let ack = Packet { seq: 2, size: 54, src: NodeId(4), dst: NodeId(0), ..data(0) }.with_kind(PacketKind::Ack);
    let file = encode(
        &[(Time::ZERO, Packet { size: 1054, ..data(1) }), (Time::ZERO, ack)],
        |_| ppp,
        |_| SackBlocks::default(),
    );
    assert_eq!(u32::from_le_bytes(file[20..24].try_into().unwrap()), 9, "LINKTYPE_PPP");
    let word = |at: usize| u32::from_le_bytes(file[at..at + 4].try_into().unwrap());
    let (data_rec, ack_rec) = (24, 24 + 16 + 54);
    assert_eq!((word(data_rec + 8), word(data_rec + 12)), (54, 1054), "PPP + IPv4 + TCP captured, 1054 on the wire");
    assert_eq!(&file[data_rec + 16..data_rec + 18], &[0x00, 0x21], "PPP's protocol field: IPv4");
    let ip = &file[data_rec + 18..];
    assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 1052, "the IPv4 length leaves out the framing");
    assert_eq!(u32::from_be_bytes([ip[24], ip[25], ip[26], ip[27]]), 1 + 1000, "sequence step: the payload");
    assert_eq!((word(ack_rec + 8), word(ack_rec + 12)), (54, 54), "a pure ACK is 54 bytes");
    assert_eq!(file.len(), ack_rec + 16 + 54);
}

#[test]
fn ethernet_frames_carry_ipv4s_ethertype_and_mixed_framings_fall_back_to_raw_ipv4() {
    let eth = Stream { tcp: false, packet_size: 1042, headers: Headers::Ethernet };
    let file = encode(&[(Time::ZERO, Packet { size: 1042, ..data(0) })], |_| eth, |_| SackBlocks::default());
    assert_eq!(u32::from_le_bytes(file[20..24].try_into().unwrap()), 1, "LINKTYPE_ETHERNET");
    assert_eq!(u32::from_le_bytes(file[36..40].try_into().unwrap()), 1042);
    assert_eq!(&file[40 + 12..40 + 14], &[0x08, 0x00]);
    let mixed = encode(
        &[(Time::ZERO, Packet { size: 1042, ..data(0) }), (Time::ZERO, data(1))],
        |p| {
            if p.seq == 0 {
                eth
            } else {
                TCP
            }
        },
        |_| SackBlocks::default(),
    );
    assert_eq!(u32::from_le_bytes(mixed[20..24].try_into().unwrap()), 101, "LINKTYPE_RAW");
    assert_eq!(u32::from_le_bytes(mixed[36..40].try_into().unwrap()), 1028, "the IPv4 packet without its framing");
}
