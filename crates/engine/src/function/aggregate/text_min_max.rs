//! min(text) and max(text): each group's best string so far, compared byte-wise (the C
//! collation, as everywhere in KestrelDB). Every group owns its string, so a batch costs
//! time in its rows and the groups it improves, never in the number of groups; a group's
//! buffer is reused when its value is replaced.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::types::ScalarValue;
use crate::vector::{Bitmap, StringVec, Vector, VectorData};

/// Per-group best strings; `None` until the group's first non-NULL value.
#[derive(Debug)]
pub struct TextMinMax {
    best: Vec<Option<String>>,
    /// The ordering a candidate must have against the incumbent to replace it.
    wanted: Ordering,
}

impl TextMinMax {
    pub fn new(max: bool) -> TextMinMax {
        TextMinMax {
            best: Vec::new(),
            wanted: if max {
                Ordering::Greater
            } else {
                Ordering::Less
            },
        }
    }

    pub fn resize(&mut self, groups: usize) {
        self.best.resize(groups, None);
    }

    pub fn len(&self) -> usize {
        self.best.len()
    }

    /// Adds row i of `input` to group `groups[i]`; anything but text is a caller's bug.
    pub fn update(&mut self, groups: &[u32], input: &Vector) -> Result<()> {
        let VectorData::Text(strings) = &input.data else {
            return Err(Error::internal(format!(
                "min/max(text) input of type {:?}",
                input.data.physical()
            )));
        };
        for (row, &g) in groups.iter().enumerate() {
            if !input.is_valid(row) {
                continue;
            }
            let candidate = strings.get(row);
            match &mut self.best[g as usize] {
                slot @ None => *slot = Some(candidate.to_owned()),
                Some(best) => {
                    if candidate.as_bytes().cmp(best.as_bytes()) == self.wanted {
                        best.clear();
                        best.push_str(candidate);
                    }
                }
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
