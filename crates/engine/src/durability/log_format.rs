//! The framing of the write-ahead log: where records sit and how a whole one is told from
//! a torn or corrupt one.
//!
//! The log is a stream of bytes split into segment files named by the position (LSN) of
//! their first byte. Each record is `length: u32, crc: u32, payload`, where the CRC32 covers
//! the record's own LSN and its payload: a record copied from elsewhere, or left over from
//! an older segment, never passes for the one expected at that position.

use std::path::{Path, PathBuf};

/// Bytes before a record's payload.
pub const HEADER_BYTES: usize = 8;

/// A payload larger than this is refused on write and read as corruption: it bounds what a
/// corrupt length can make recovery allocate.
pub const MAX_RECORD_BYTES: usize = 1 << 31;

pub fn checksum(lsn: u64, payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&lsn.to_le_bytes());
    hasher.update(payload);
    hasher.finalize()
}

/// Appends the record at `lsn` to `out`.
pub fn frame(out: &mut Vec<u8>, lsn: u64, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&checksum(lsn, payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// The record at the start of `bytes`, expected at `lsn`: its payload and its framed
/// length, or `None` when it is cut short or its checksum does not match.
pub fn unframe(bytes: &[u8], lsn: u64) -> Option<(&[u8], usize)> {
    let header = bytes.get(..HEADER_BYTES)?;
    let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize;
    let crc = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    if len > MAX_RECORD_BYTES {
        return None;
    }
    let payload = bytes.get(HEADER_BYTES..HEADER_BYTES + len)?;
    (checksum(lsn, payload) == crc).then_some((payload, HEADER_BYTES + len))
}

pub fn segment_path(wal_dir: &Path, start: u64) -> PathBuf {
    wal_dir.join(format!("{start:016x}.wal"))
}

/// The start LSN of a segment file name, `None` for any other file.
pub fn segment_start(name: &str) -> Option<u64> {
    let hex = name.strip_suffix(".wal")?;
    (hex.len() == 16)
        .then(|| u64::from_str_radix(hex, 16).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::{frame, segment_start, unframe};

    #[test]
    fn a_record_reads_back_only_whole_and_at_its_own_position() {
        let mut log = Vec::new();
        frame(&mut log, 100, b"hello");
        assert_eq!(unframe(&log, 100), Some((&b"hello"[..], log.len())));
        assert_eq!(unframe(&log, 101), None, "another position");
        for cut in 0..log.len() {
            assert_eq!(unframe(&log[..cut], 100), None, "torn at {cut}");
        }
        let mut flipped = log.clone();
        flipped[10] ^= 1;
        assert_eq!(unframe(&flipped, 100), None);
    }

    #[test]
    fn segment_names_round_trip() {
        assert_eq!(segment_start("00000000000000ff.wal"), Some(255));
        assert_eq!(segment_start("ff.wal"), None);
        assert_eq!(segment_start("checkpoint"), None);
    }
}
