//! A validity bitmap: bit i set means row i is valid (not NULL), least significant bit
//! first, the layout Arrow uses.

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bitmap {
    words: Vec<u64>,
    len: usize,
}

impl Bitmap {
    /// A bitmap of `len` bits, all set to `value`.
    pub fn new(len: usize, value: bool) -> Bitmap {
        let fill = if value { u64::MAX } else { 0 };
        let mut bitmap = Bitmap {
            words: vec![fill; len.div_ceil(64)],
            len,
        };
        bitmap.clear_tail();
        bitmap
    }

    /// A bitmap of `len` bits stored as `words` (read back from disk); `None` unless there
    /// are exactly enough words and the bits past `len` are clear, as every bitmap keeps them.
    pub fn from_words(words: Vec<u64>, len: usize) -> Option<Bitmap> {
        let rem = len % 64;
        let tail_clear = rem == 0 || words.last().is_none_or(|last| last >> rem == 0);
        (words.len() == len.div_ceil(64) && tail_clear).then_some(Bitmap { words, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, idx: usize) -> bool {
        (self.words[idx >> 6] >> (idx & 63)) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, idx: usize, value: bool) {
        let mask = 1u64 << (idx & 63);
        if value {
            self.words[idx >> 6] |= mask;
        } else {
            self.words[idx >> 6] &= !mask;
        }
    }

    pub fn push(&mut self, value: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
        self.set(self.len - 1, value);
    }

    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn all_set(&self) -> bool {
        self.count_ones() == self.len
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bitwise AND with another bitmap of the same length.
    pub fn and(&self, other: &Bitmap) -> Bitmap {
        Bitmap {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(a, b)| a & b)
                .collect(),
            len: self.len,
        }
    }

    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.len = len;
            self.words.truncate(len.div_ceil(64));
            self.clear_tail();
        }
    }

    fn clear_tail(&mut self) {
        let rem = self.len % 64;
        if rem != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << rem) - 1;
            }
        }
    }
}
