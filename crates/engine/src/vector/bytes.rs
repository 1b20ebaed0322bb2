//! A column of byte strings (bytea) as one buffer plus offsets: the layout of
//! [`super::StringVec`] without its UTF-8 guarantee, since a bytea holds any bytes.

/// Offsets are `usize` for the same reason as [`super::StringVec`]'s: a sort or a join
/// concatenates its whole input into one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BytesVec {
    offsets: Vec<usize>,
    bytes: Vec<u8>,
}

impl Default for BytesVec {
    fn default() -> Self {
        BytesVec::with_capacity(0, 0)
    }
}

impl BytesVec {
    /// Bytes held: the values and the offsets.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.len() + self.offsets.len() * std::mem::size_of::<usize>()
    }

    pub fn with_capacity(rows: usize, bytes: usize) -> BytesVec {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        BytesVec {
            offsets,
            bytes: Vec::with_capacity(bytes),
        }
    }

    /// Values stored as `offsets` into `bytes` (read back from disk); `None` unless the
    /// offsets rise from 0 to the end of `bytes`.
    pub fn from_parts(offsets: Vec<usize>, bytes: Vec<u8>) -> Option<BytesVec> {
        let well_formed = offsets.first() == Some(&0)
            && offsets.last() == Some(&bytes.len())
            && offsets.windows(2).all(|pair| pair[0] <= pair[1]);
        well_formed.then_some(BytesVec { offsets, bytes })
    }

    /// The offsets (one more than the values) and the bytes they index.
    pub fn parts(&self) -> (&[usize], &[u8]) {
        (&self.offsets, &self.bytes)
    }

    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Gives back the memory reserved past the values held (see `StringVec::shrink_to_fit`).
    pub fn shrink_to_fit(&mut self) {
        super::strings::shrink_exact(&mut self.offsets);
        super::strings::shrink_exact(&mut self.bytes);
    }

    #[inline]
    pub fn get(&self, idx: usize) -> &[u8] {
        &self.bytes[self.offsets[idx]..self.offsets[idx + 1]]
    }

    #[inline]
    pub fn push(&mut self, value: &[u8]) {
        self.bytes.extend_from_slice(value);
        self.offsets.push(self.bytes.len());
    }

    /// Appends a value written by `write` straight into the buffer.
    #[inline]
    pub fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.bytes);
        self.offsets.push(self.bytes.len());
    }

    /// The values at `indices`, in that order.
    pub fn gather(&self, indices: &[u32]) -> BytesVec {
        let bytes = indices.iter().map(|&i| self.get(i as usize).len()).sum();
        let mut out = BytesVec::with_capacity(indices.len(), bytes);
        for &idx in indices {
            out.push(self.get(idx as usize));
        }
        out
    }

    /// Appends every value of `other`.
    pub fn extend_from(&mut self, other: &BytesVec) {
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.offsets
            .extend(other.offsets[1..].iter().map(|o| o + base));
    }
}
