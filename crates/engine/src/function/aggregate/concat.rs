//! string_agg(value, delimiter) as PostgreSQL 15's string_agg_transfn: NULL values are
//! skipped; each value after a group's first is preceded by the delimiter of its own row (a
//! NULL delimiter adds nothing); a group without values is NULL.

use crate::error::{Error, Result};
use crate::types::ScalarValue;
use crate::vector::{StringVec, Vector, VectorData};

/// Per-group concatenations; `None` until the group's first non-NULL value.
#[derive(Debug, Default)]
pub struct Concat {
    state: Vec<Option<String>>,
}

impl Concat {
    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, None);
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn update(
        &mut self,
        groups: &[u32],
        input: &Vector,
        values: &StringVec,
        delimiters: Option<&Vector>,
    ) -> Result<()> {
        let delimiters = match delimiters {
            None => None,
            Some(d) => match &d.data {
                VectorData::Text(strings) => Some((d, strings)),
                other => {
                    return Err(Error::internal(format!(
                        "string_agg delimiter of type {:?}",
                        other.physical()
                    )))
                }
            },
        };
        for (row, &g) in groups.iter().enumerate() {
            if !input.is_valid(row) {
                continue;
            }
            let value = values.get(row);
            match &mut self.state[g as usize] {
                slot @ None => *slot = Some(value.to_string()),
                Some(text) => {
                    if let Some((d, strings)) = delimiters {
                        if d.is_valid(row) {
                            text.push_str(strings.get(row));
                        }
                    }
                    text.push_str(value);
                }
            }
        }
        Ok(())
    }

    pub fn value(&self, group: usize) -> ScalarValue {
        match &self.state[group] {
            Some(text) => ScalarValue::Text(text.clone()),
            None => ScalarValue::Null,
        }
    }
}
