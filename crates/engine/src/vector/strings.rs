//! A column of strings as one byte buffer plus offsets (Arrow's layout): no allocation per
//! value, and a scan hands out `&str` slices.

/// The byte length of the UTF-8 character that starts with byte `lead`.
pub fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Offsets are `usize` (Arrow's LargeString), not `u32`: a sort, a hash join's build side or
/// a window concatenates its whole input into one vector, and 4 GiB of text there must not
/// wrap around.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringVec {
    offsets: Vec<usize>,
    bytes: Vec<u8>,
}

impl Default for StringVec {
    fn default() -> Self {
        StringVec::with_capacity(0, 0)
    }
}

impl StringVec {
    /// Bytes held: the text and the offsets.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.len() + self.offsets.len() * std::mem::size_of::<usize>()
    }

    pub fn with_capacity(rows: usize, bytes: usize) -> StringVec {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        StringVec {
            offsets,
            bytes: Vec::with_capacity(bytes),
        }
    }

    /// Strings stored as `offsets` into `bytes` (read back from disk); `None` unless the
    /// offsets rise from 0 to the end of `bytes`, the bytes are UTF-8 and every offset falls
    /// on a character boundary, so that [`StringVec::get`] never cuts a character.
    pub fn from_parts(offsets: Vec<usize>, bytes: Vec<u8>) -> Option<StringVec> {
        let text = std::str::from_utf8(&bytes).ok()?;
        let well_formed = offsets.first() == Some(&0)
            && offsets.last() == Some(&bytes.len())
            && offsets.windows(2).all(|pair| pair[0] <= pair[1])
            && offsets.iter().all(|&at| text.is_char_boundary(at));
        well_formed.then_some(StringVec { offsets, bytes })
    }

    /// The offsets (one more than the strings) and the bytes they index.
    pub fn parts(&self) -> (&[usize], &[u8]) {
        (&self.offsets, &self.bytes)
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Gives back the memory reserved past the strings held (before a vector is stored).
    /// A copy rather than `Vec::shrink_to_fit`: an allocator may keep a block in place when
    /// it shrinks by less than half (mimalloc does), so the reserve would stay.
    pub fn shrink_to_fit(&mut self) {
        shrink_exact(&mut self.offsets);
        shrink_exact(&mut self.bytes);
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn get(&self, idx: usize) -> &str {
        let start = self.offsets[idx];
        let end = self.offsets[idx + 1];
        // Only whole `&str`s are ever pushed, so every slice between offsets is UTF-8.
        std::str::from_utf8(&self.bytes[start..end]).unwrap_or_default()
    }

    #[inline]
    pub fn get_bytes(&self, idx: usize) -> &[u8] {
        &self.bytes[self.offsets[idx]..self.offsets[idx + 1]]
    }

    #[inline]
    pub fn push(&mut self, value: &str) {
        self.bytes.extend_from_slice(value.as_bytes());
        self.offsets.push(self.bytes.len());
    }

    /// Appends a value written by `write` straight into the buffer (no temporary String).
    #[inline]
    pub fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.bytes);
        self.offsets.push(self.bytes.len());
    }

    /// The values at `indices`, in that order. Copies whole values byte-wise: they came
    /// from `&str`s, so no UTF-8 check is needed again (it dominated join and sort output).
    pub fn gather(&self, indices: &[u32]) -> StringVec {
        let bytes = indices
            .iter()
            .map(|&i| self.get_bytes(i as usize).len())
            .sum();
        let mut out = StringVec::with_capacity(indices.len(), bytes);
        for &idx in indices {
            out.bytes.extend_from_slice(self.get_bytes(idx as usize));
            out.offsets.push(out.bytes.len());
        }
        out
    }

    /// Appends every value of `other`.
    pub fn extend_from(&mut self, other: &StringVec) {
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.offsets
            .extend(other.offsets[1..].iter().map(|o| o + base));
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(move |idx| self.get(idx))
    }

    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.offsets.truncate(len + 1);
            self.bytes.truncate(self.offsets[len]);
        }
    }
}

/// Reallocates `values` to exactly its length when it has spare capacity: a copy rather than
/// `Vec::shrink_to_fit`, which an allocator may satisfy by keeping the block in place.
pub(super) fn shrink_exact<T: Copy>(values: &mut Vec<T>) {
    if values.capacity() > values.len() {
        *values = values.as_slice().to_vec();
    }
}

#[cfg(test)]
mod tests {
    use super::StringVec;

    /// More than 4 GiB of text in one vector (a sort or a join's build side concatenates its
    /// whole input): offsets past `u32::MAX` must not wrap.
    #[test]
    fn more_than_four_gibibytes_of_text() {
        let piece = "x".repeat(1 << 20);
        let pieces = (4 << 10) + 3;
        let mut big = StringVec::with_capacity(pieces + 2, pieces << 20);
        for _ in 0..pieces {
            big.push(&piece);
        }
        big.push("last");
        let mut tail = StringVec::default();
        tail.push("after");
        big.extend_from(&tail);
        assert_eq!(big.len(), pieces + 2);
        assert_eq!(big.get(pieces), "last");
        assert_eq!(big.get(pieces + 1), "after");
        assert_eq!(big.get_bytes(pieces - 1).len(), 1 << 20);
        let picked = big.gather(&[(pieces + 1) as u32, 0, pieces as u32]);
        assert_eq!(picked.get(0), "after");
        assert_eq!(picked.get(1).len(), 1 << 20);
        assert_eq!(picked.get(2), "last");
    }
}
