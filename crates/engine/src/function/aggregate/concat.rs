//! string_agg(value, delimiter) over text or bytea, as PostgreSQL 15's string_agg_transfn
//! and bytea_string_agg_transfn: NULL values are skipped; each value after a group's first
//! is preceded by the delimiter of its own row (a NULL delimiter adds nothing); a group
//! without values is NULL.

use crate::error::{Error, Result};
use crate::types::ScalarValue;
use crate::vector::{Vector, VectorData};

/// Per-group concatenations; `None` until the group's first non-NULL value.
#[derive(Debug)]
pub struct Concat {
    state: Vec<Option<Vec<u8>>>,
    /// bytea rather than text.
    bytea: bool,
}

/// Row `row`'s bytes of a text or bytea vector.
fn bytes_at(vector: &Vector, row: usize) -> Result<&[u8]> {
    match &vector.data {
        VectorData::Text(strings) => Ok(strings.get(row).as_bytes()),
        VectorData::Bytes(bytes) => Ok(bytes.get(row)),
        other => Err(Error::internal(format!(
            "string_agg input of type {:?}",
            other.physical()
        ))),
    }
}

impl Concat {
    pub fn new(bytea: bool) -> Concat {
        Concat {
            state: Vec::new(),
            bytea,
        }
    }

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
        delimiters: Option<&Vector>,
    ) -> Result<()> {
        for (row, &g) in groups.iter().enumerate() {
            if !input.is_valid(row) {
                continue;
            }
            let value = bytes_at(input, row)?;
            match &mut self.state[g as usize] {
                slot @ None => *slot = Some(value.to_vec()),
                Some(joined) => {
                    if let Some(d) = delimiters.filter(|d| d.is_valid(row)) {
                        joined.extend_from_slice(bytes_at(d, row)?);
                    }
                    joined.extend_from_slice(value);
                }
            }
        }
        Ok(())
    }

    pub fn value(&self, group: usize) -> Result<ScalarValue> {
        Ok(match &self.state[group] {
            None => ScalarValue::Null,
            Some(bytes) if self.bytea => ScalarValue::Bytea(bytes.clone()),
            // Whole text values and delimiters: still UTF-8.
            Some(bytes) => ScalarValue::Text(
                String::from_utf8(bytes.clone())
                    .map_err(|_| Error::internal("string_agg of text made invalid UTF-8"))?,
            ),
        })
    }

    pub fn physical(&self) -> crate::types::PhysicalType {
        match self.bytea {
            true => crate::types::PhysicalType::Bytes,
            false => crate::types::PhysicalType::Text,
        }
    }
}
