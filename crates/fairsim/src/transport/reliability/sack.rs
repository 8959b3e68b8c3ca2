//! Selective acknowledgements: the blocks a receiver reports (RFC 2018) and the sender's
//! conservative loss recovery on them (RFC 6675).
//!
//! References:
//! - RFC 2018 §3–4 (the option and the receiver's rules): the first block contains the packet
//!   that caused the ACK (unless it advanced the cumulative ACK); the others repeat the most
//!   recently reported blocks that are not part of one already in the option. With the
//!   timestamps option an ACK has room for 3 blocks (40 bytes of options: 10 + 2 + 2 + 8·3).
//! - RFC 6675 §4 (the scoreboard's routines, here over packets rather than octets, SMSS = one
//!   packet): `IsLost(s)` holds when at least DupThresh packets above `s` are SACKed; `SetPipe`
//!   counts every unSACKed packet between HighACK and HighData once if it is not lost and once
//!   more if it was retransmitted (at or below HighRxt); `NextSeg` returns, in order of the
//!   RFC's rules, (1) the first lost unSACKed packet above HighRxt and below the highest SACKed
//!   one, (2) new data, (3) the first unSACKed packet above HighRxt below the highest SACKed one,
//!   (4) once per recovery, the highest unSACKed packet (the "rescue" retransmission).
//!
//! Choices: the rescue retransmission (a SHOULD, meant for a lost tail) is sent only when the
//! application has nothing new to send: when only the receiver's window holds new data back,
//! the highest unSACKed packet is almost always still in flight, and resending it would be a
//! spurious retransmission (Linux has no rescue at all; it probes the tail by timer). Blocks
//! count packets (`start..end`, end exclusive); the receiver remembers as many blocks as it
//! reports. After a retransmission timeout the
//! sender keeps what was SACKed and resends only the rest (as Linux does; RFC 6675 §5.1 leaves
//! the scoreboard's fate after a timeout to the implementation).

use super::window::SendWindow;

/// The most SACK blocks an ACK carries: room for 3 beside the timestamps option (RFC 2018 §3).
pub const MAX_BLOCKS: usize = 3;

/// The SACK blocks of one ACK, most recent first: packets `start..end` arrived.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [(u64, u64); MAX_BLOCKS],
}

impl SackBlocks {
    /// The first `MAX_BLOCKS` of `blocks`.
    pub fn from_slice(blocks: &[(u64, u64)]) -> SackBlocks {
        let mut b = SackBlocks::default();
        for &block in blocks.iter().take(MAX_BLOCKS) {
            b.blocks[b.len as usize] = block;
            b.len += 1;
        }
        b
    }

    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the option adds to an ACK: kind, length and 8 bytes a block, after two NOPs that
    /// align it (what Linux sends beside the timestamps option); none without blocks.
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            4 + 8 * self.len as u32
        }
    }
}

/// The receiver's side: the blocks it reports, most recently changed first (RFC 2018 §4).
#[derive(Clone, Debug, Default)]
pub struct SackList {
    recent: SackBlocks,
}

impl SackList {
    /// Packet `seq` arrived above a hole, and now lies in the contiguous run `start..end` of
    /// received packets: that run becomes the first block; blocks inside it are dropped.
    pub fn arrived(&mut self, start: u64, end: u64) {
        let mut next = SackBlocks::default();
        next.blocks[0] = (start, end);
        next.len = 1;
        for &(s, e) in self.recent.as_slice() {
            if (s < start || e > end) && (next.len as usize) < MAX_BLOCKS {
                next.blocks[next.len as usize] = (s, e);
                next.len += 1;
            }
        }
        self.recent = next;
    }

    /// The cumulative acknowledgement moved to `next`: blocks below it are covered by it.
    pub fn acknowledged(&mut self, next: u64) {
        let mut kept = SackBlocks::default();
        for &(s, e) in self.recent.as_slice() {
            if e > next {
                kept.blocks[kept.len as usize] = (s.max(next), e);
                kept.len += 1;
            }
        }
        self.recent = kept;
    }

    pub fn blocks(&self) -> SackBlocks {
        self.recent
    }

    /// The blocks of the ACK of duplicate packet `seq` (RFC 2883 §4): a D-SACK block of that
    /// packet first, then the SACK block that contains it if there is one (§4 rule 3), then the
    /// others, most recent first, as room allows.
    pub fn with_duplicate(&self, seq: u64) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        blocks.blocks[0] = (seq, seq + 1);
        blocks.len = 1;
        let recent = self.recent.as_slice();
        let containing = recent.iter().position(|&(s, e)| (s..e).contains(&seq));
        let order = containing.into_iter().chain((0..recent.len()).filter(|&i| Some(i) != containing));
        for i in order.take(MAX_BLOCKS - 1) {
            blocks.blocks[blocks.len as usize] = recent[i];
            blocks.len += 1;
        }
        blocks
    }
}

/// The D-SACK block an ACK with cumulative acknowledgement `ack` carries, if its first block is
/// one (RFC 2883 §4.2 / RFC 3708 §2: the first block lies below the cumulative ACK, or within
/// the second block).
pub fn dsack_block(blocks: &[(u64, u64)], ack: u64) -> Option<(u64, u64)> {
    let &first = blocks.first()?;
    let within_second = blocks.get(1).is_some_and(|&(s, e)| s <= first.0 && first.1 <= e);
    (first.1 <= ack || within_second).then_some(first)
}

/// The sender's state in a recovery that follows RFC 6675, beside the window's SACKed marks.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackRecovery {
    /// Every unSACKed packet below this was retransmitted in this recovery (HighRxt + 1).
    pub rxt_next: u64,
    /// RescueRxt: a rescue retransmission waits until the cumulative ACK passes this packet
    /// (the first retransmission), and there is one at most (`None` after it).
    rescue_after: Option<u64>,
}

impl SackRecovery {
    /// A recovery begins; its first retransmission will be `una` (RFC 6675 §5 step 4.3).
    pub fn begin(una: u64) -> SackRecovery {
        SackRecovery { rxt_next: una, rescue_after: Some(una) }
    }

    /// The scoreboard after the window slid: nothing below `una` is left to retransmit.
    pub fn slid(&mut self, una: u64) {
        self.rxt_next = self.rxt_next.max(una);
    }

    /// The next packet to send during recovery (RFC 6675 `NextSeg`, rules 1–4), or `None`.
    /// `may_send_new`: the window and the application allow a new packet (rule 2);
    /// `app_limited`: the application has no new packet (the rescue of rule 4 is for a tail).
    pub fn next_seg(
        &mut self,
        win: &SendWindow,
        dupthresh: u64,
        may_send_new: bool,
        app_limited: bool,
    ) -> Option<Next> {
        let lost_below = lost_below(win, dupthresh);
        let high_sacked = highest_sacked(win);
        let first_hole = (self.rxt_next.max(win.una())..high_sacked).find(|&s| !win.is_sacked(s));
        match first_hole {
            Some(s) if s < lost_below => return Some(Next::Retransmit(s)), // rule 1
            _ if may_send_new => return Some(Next::New),                   // rule 2
            Some(s) => return Some(Next::Retransmit(s)),                   // rule 3
            None => {}
        }
        // rule 4: once the cumulative ACK has passed the first retransmission, once per recovery,
        // the highest unSACKed packet (HighRxt stays where it is)
        if !app_limited || self.rescue_after.is_none_or(|r| win.una() <= r) {
            return None;
        }
        let top = (win.una()..win.high()).rev().find(|&s| !win.is_sacked(s))?;
        self.rescue_after = None;
        Some(Next::Rescue(top))
    }

    /// A packet chosen by `next_seg` was retransmitted.
    pub fn retransmitted(&mut self, seq: u64) {
        self.rxt_next = self.rxt_next.max(seq + 1);
    }

    /// RFC 6675 `SetPipe`: packets the sender thinks are in the network. Every unSACKed packet
    /// counts once if not lost and once more if retransmitted. Counted, not scanned (a
    /// scan of the whole window costs 3% of a TCP run): the lost packets are those
    /// below the `dupthresh`-th highest SACKed one, so exactly `dupthresh` SACKed packets lie at
    /// or above that line; the retransmitted ones are below `rxt_next`, a range scanned from
    /// whichever side of the window is shorter.
    pub fn pipe(&self, win: &SendWindow, dupthresh: u64) -> u64 {
        let (una, high) = (win.una(), win.high());
        let unsacked = (high - una) - win.sacked();
        let not_lost = if win.sacked() < dupthresh {
            unsacked // nothing is lost
        } else {
            (high - lost_below(win, dupthresh)) - dupthresh
        };
        let rxt_end = self.rxt_next.clamp(una, high);
        let unsacked_in = |from: u64, to: u64| (from..to).filter(|&s| !win.is_sacked(s)).count() as u64;
        let retransmitted = if rxt_end - una <= high - rxt_end {
            unsacked_in(una, rxt_end)
        } else {
            unsacked - unsacked_in(rxt_end, high)
        };
        not_lost + retransmitted
    }
}

/// What `NextSeg` chose.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    Retransmit(u64),
    New,
    Rescue(u64),
}

/// RFC 6675 `IsLost`, for every packet at once: unSACKed packets below the returned one have at
/// least `dupthresh` SACKed packets above them (the returned one is the `dupthresh`-th highest
/// SACKed packet, or `una` if fewer are SACKed).
pub fn lost_below(win: &SendWindow, dupthresh: u64) -> u64 {
    if win.sacked() < dupthresh {
        return win.una();
    }
    let mut seen = 0;
    for s in (win.una()..win.high()).rev() {
        if win.is_sacked(s) {
            seen += 1;
            if seen == dupthresh {
                return s;
            }
        }
    }
    win.una()
}

/// One past the highest SACKed packet (`una` if none is).
fn highest_sacked(win: &SendWindow) -> u64 {
    if win.sacked() == 0 {
        return win.una();
    }
    (win.una()..win.high()).rev().find(|&s| win.is_sacked(s)).map_or(win.una(), |s| s + 1)
}

#[cfg(test)]
mod tests;
