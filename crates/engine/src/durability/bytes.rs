//! The byte layer of every file the data directory holds: little-endian fixed-width
//! integers and length-prefixed byte strings written into a buffer, and a reader that
//! checks every length against what is left, so a corrupt file is an error, never a panic
//! or a huge allocation.

use crate::error::{Error, Result, SqlState};

/// A value stored in the data directory: the log's records and the checkpoint's files are
/// built from these.
pub trait Persist: Sized {
    fn encode(&self, out: &mut Encoder);
    fn decode(input: &mut Decoder<'_>) -> Result<Self>;
}

#[derive(Debug, Default)]
pub struct Encoder {
    pub buf: Vec<u8>,
}

impl Encoder {
    pub fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    pub fn bool(&mut self, value: bool) {
        self.buf.push(u8::from(value));
    }

    pub fn u32(&mut self, value: u32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn u64(&mut self, value: u64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    pub fn i64(&mut self, value: i64) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// A length or count.
    pub fn len(&mut self, value: usize) {
        self.u64(value as u64);
    }

    pub fn bytes(&mut self, value: &[u8]) {
        self.len(value.len());
        self.buf.extend_from_slice(value);
    }

    pub fn str(&mut self, value: &str) {
        self.bytes(value.as_bytes());
    }

    /// A count, then each item as `encode` writes it.
    pub fn items<T>(&mut self, items: &[T], mut encode: impl FnMut(&mut Encoder, &T)) {
        self.len(items.len());
        for item in items {
            encode(self, item);
        }
    }

    pub fn option<T>(&mut self, value: Option<&T>, encode: impl FnOnce(&mut Encoder, &T)) {
        match value {
            None => self.u8(0),
            Some(value) => {
                self.u8(1);
                encode(self, value);
            }
        }
    }
}

/// Reads what an [`Encoder`] wrote; every read past the end or of an impossible value is a
/// `XX001 data_corrupted` error.
pub struct Decoder<'a> {
    input: &'a [u8],
}

/// The error of a file whose bytes do not decode.
pub fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::new(SqlState::DataCorrupted, format!("corrupt data: {what}"))
}

impl<'a> Decoder<'a> {
    pub fn new(input: &'a [u8]) -> Decoder<'a> {
        Decoder { input }
    }

    pub fn remaining(&self) -> usize {
        self.input.len()
    }

    pub fn is_empty(&self) -> bool {
        self.input.is_empty()
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.input.len() {
            return Err(corrupt(format!(
                "{n} bytes expected, {} left",
                self.input.len()
            )));
        }
        let (head, tail) = self.input.split_at(n);
        self.input = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    /// The next byte, left unread: how an optional field added later is told apart.
    pub fn peek_u8(&self) -> Option<u8> {
        self.input.first().copied()
    }

    pub fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(corrupt(format!("boolean byte {other}"))),
        }
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A count of items of at least `min_item_bytes` each: refused when the rest of the
    /// input could not hold them, so a corrupt count never drives an allocation.
    pub fn len(&mut self, min_item_bytes: usize) -> Result<usize> {
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n.saturating_mul(min_item_bytes.max(1)) <= self.input.len())
            .ok_or_else(|| corrupt(format!("count {n} with {} bytes left", self.input.len())))
    }

    /// A position or index (a chunk, a column): checked by its user, not against the input.
    pub fn index(&mut self) -> Result<usize> {
        let n = self.u64()?;
        usize::try_from(n).map_err(|_| corrupt(format!("index {n}")))
    }

    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.len(1)?;
        self.take(n)
    }

    pub fn str(&mut self) -> Result<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|_| corrupt("a string is not UTF-8"))
    }

    pub fn string(&mut self) -> Result<String> {
        self.str().map(str::to_string)
    }

    /// What [`Encoder::items`] wrote, each item at least `min_item_bytes` long.
    pub fn items<T>(
        &mut self,
        min_item_bytes: usize,
        mut decode: impl FnMut(&mut Decoder<'a>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.len(min_item_bytes)?;
        (0..n).map(|_| decode(self)).collect()
    }

    pub fn option<T>(
        &mut self,
        decode: impl FnOnce(&mut Decoder<'a>) -> Result<T>,
    ) -> Result<Option<T>> {
        match self.u8()? {
            0 => Ok(None),
            1 => decode(self).map(Some),
            other => Err(corrupt(format!("option tag {other}"))),
        }
    }
}

/// `value`'s bytes (tests of the codecs).
#[cfg(test)]
pub fn encoded<T: Persist>(value: &T) -> Vec<u8> {
    let mut out = Encoder::default();
    value.encode(&mut out);
    out.buf
}

#[cfg(test)]
mod tests {
    use super::{Decoder, Encoder};

    #[test]
    fn what_is_written_reads_back_and_a_short_input_is_an_error() {
        let mut out = Encoder::default();
        out.u8(7);
        out.bool(true);
        out.u32(0xdead_beef);
        out.i64(-5);
        out.str("héllo");
        out.option(Some(&3u64), |e, v| e.u64(*v));
        let mut input = Decoder::new(&out.buf);
        assert_eq!(input.u8().ok(), Some(7));
        assert_eq!(input.bool().ok(), Some(true));
        assert_eq!(input.u32().ok(), Some(0xdead_beef));
        assert_eq!(input.i64().ok(), Some(-5));
        assert_eq!(input.str().ok(), Some("héllo"));
        assert_eq!(input.option(|d| d.u64()).ok(), Some(Some(3)));
        assert!(input.is_empty());

        let mut short = Decoder::new(&out.buf[..out.buf.len() - 3]);
        let _ = short.u8();
        let _ = short.bool();
        let _ = short.u32();
        let _ = short.i64();
        let _ = short.str();
        assert_eq!(
            short.option(|d| d.u64()).map_err(|e| e.sqlstate()),
            Err("XX001")
        );
    }

    #[test]
    fn a_corrupt_length_is_refused_before_any_allocation() {
        let mut out = Encoder::default();
        out.u64(u64::MAX);
        assert!(Decoder::new(&out.buf).bytes().is_err());
        assert!(Decoder::new(&out.buf).len(8).is_err());
    }
}
