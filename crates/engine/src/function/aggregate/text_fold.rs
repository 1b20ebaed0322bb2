//! Aggregates that fold each group's values, held as text, into one string: min(text) and
//! max(text), compared byte-wise (the C collation, as everywhere in KestrelDB), and
//! bit_and / bit_or / bit_xor of bit strings. Every group owns its string, so a batch costs
//! time in its rows and the groups it changes, never in the number of groups; a group's
//! buffer is reused when its value is replaced.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::types::bit_string::BitwiseOp;
use crate::types::ScalarValue;
use crate::vector::{Bitmap, StringVec, Vector, VectorData};

/// How a group's string and the next value combine.
#[derive(Debug, Clone, Copy)]
pub enum TextRule {
    /// Keep the value that compares this way against the incumbent (min: Less, max:
    /// Greater).
    Keep(Ordering),
    /// Combine bit strings bit by bit (lengths must agree, as bit_and's do).
    Bitwise(BitwiseOp),
}

/// Per-group strings; `None` until the group's first non-NULL value.
#[derive(Debug)]
pub struct TextFold {
    best: Vec<Option<String>>,
    rule: TextRule,
    /// Scratch for bitwise results, reused across rows.
    scratch: Vec<u8>,
}

impl TextFold {
    pub fn new(rule: TextRule) -> TextFold {
        TextFold {
            best: Vec::new(),
            rule,
            scratch: Vec::new(),
        }
    }

    pub fn resize(&mut self, groups: usize) {
        self.best.resize(groups, None);
    }

    pub fn len(&self) -> usize {
        self.best.len()
    }

    /// Adds row i of `input` to group `groups[i]`; anything but text is a caller's bug.
    /// Bit strings of different lengths are 22026, as in PostgreSQL.
    pub fn update(&mut self, groups: &[u32], input: &Vector) -> Result<()> {
        let VectorData::Text(strings) = &input.data else {
            return Err(Error::internal(format!(
                "text aggregate input of type {:?}",
                input.data.physical()
            )));
        };
        for (row, &g) in groups.iter().enumerate() {
            if input.is_valid(row) {
                self.fold(g as usize, strings.get(row))?;
            }
        }
        Ok(())
    }

    /// Folds `other`'s groups into ours by (their group, our group) pairs: both rules are
    /// associative and commutative, and equal texts are the same bytes, so the result is
    /// the serial one.
    pub fn merge(
        &mut self,
        other: &TextFold,
        pairs: impl Iterator<Item = (usize, usize)>,
    ) -> Result<()> {
        for (f, g) in pairs {
            if let Some(theirs) = &other.best[f] {
                self.fold(g, theirs)?;
            }
        }
        Ok(())
    }

    /// Combines `candidate` into group `group`'s string.
    fn fold(&mut self, group: usize, candidate: &str) -> Result<()> {
        match (&mut self.best[group], self.rule) {
            (slot @ None, _) => *slot = Some(candidate.to_owned()),
            (Some(best), TextRule::Keep(wanted)) => {
                if candidate.as_bytes().cmp(best.as_bytes()) == wanted {
                    best.clear();
                    best.push_str(candidate);
                }
            }
            (Some(best), TextRule::Bitwise(op)) => {
                self.scratch.clear();
                op.apply(best, candidate, &mut self.scratch)?;
                // The result is made of ASCII digits, as its inputs are.
                best.clear();
                best.push_str(&String::from_utf8_lossy(&self.scratch));
            }
        }
        Ok(())
    }

    pub fn value(&self, group: usize) -> ScalarValue {
        match &self.best[group] {
            Some(best) => ScalarValue::Text(best.clone()),
            None => ScalarValue::Null,
        }
    }

    /// Every group's result as one text column, NULL where a group saw no value.
    pub fn finish(self) -> Vector {
        let bytes = self.best.iter().flatten().map(String::len).sum();
        let mut strings = StringVec::with_capacity(self.best.len(), bytes);
        let mut validity = Bitmap::new(self.best.len(), true);
        for (g, best) in self.best.iter().enumerate() {
            match best {
                Some(best) => strings.push(best),
                None => {
                    strings.push("");
                    validity.set(g, false);
                }
            }
        }
        let validity = (!validity.all_set()).then_some(validity);
        Vector::new(VectorData::Text(strings), validity)
    }
}
