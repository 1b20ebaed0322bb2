//! json_agg / jsonb_agg and json_object_agg / jsonb_object_agg: NULL values are JSON
//! nulls, in arrival order (the aggregate's ORDER BY sorts the rows before they arrive); a
//! group without rows is NULL. json_agg turns its values into json itself, since its output
//! depends on their type; for json_object_agg the binder passes the value through
//! `to_json` and the key through a cast to text.

use crate::error::{Error, Result, SqlState};
use crate::function::scalar::value_json;
use crate::types::json;
use crate::types::{DataType, PhysicalType, ScalarValue};
use crate::vector::{Vector, VectorData};

/// Per-group pieces: values (arrays) or key/value pairs (objects), as json text.
#[derive(Debug)]
pub struct JsonAgg {
    state: Vec<Option<Vec<(String, String)>>>,
    /// json_agg's value type; `None` for the object aggregates.
    array_of: Option<DataType>,
    object: bool,
    jsonb: bool,
}

impl JsonAgg {
    pub fn new(array_of: Option<DataType>, jsonb: bool) -> JsonAgg {
        JsonAgg {
            state: Vec::new(),
            array_of,
            object: array_of.is_none(),
            jsonb,
        }
    }

    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, None);
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn physical(&self) -> PhysicalType {
        match self.jsonb {
            true => PhysicalType::Jsonb,
            false => PhysicalType::Text,
        }
    }

    pub fn update(&mut self, groups: &[u32], args: &[&Vector]) -> Result<()> {
        let text = |idx: usize, row: usize| -> Result<Option<String>> {
            let vector = args
                .get(idx)
                .ok_or_else(|| Error::internal("json aggregate argument missing"))?;
            match (&vector.data, vector.is_valid(row)) {
                (_, false) => Ok(None),
                (VectorData::Text(s), true) => Ok(Some(s.get(row).to_string())),
                (other, true) => Err(Error::internal(format!(
                    "json aggregate input {:?}",
                    other.physical()
                ))),
            }
        };
        let value_idx = usize::from(self.object);
        for (row, &g) in groups.iter().enumerate() {
            let key = match self.object {
                true => text(0, row)?.ok_or_else(|| {
                    Error::new(
                        SqlState::InvalidParameterValue,
                        "field name must not be null",
                    )
                })?,
                false => String::new(),
            };
            let value = match self.array_of {
                Some(ty) => {
                    let input = args
                        .first()
                        .ok_or_else(|| Error::internal("json_agg without an argument"))?;
                    let value = input.get_scalar(row);
                    // json_agg starts each array or record after the first on a line of
                    // its own, as PostgreSQL does.
                    let later = self.state[g as usize].is_some();
                    let mut text = value_json(&value, ty)?;
                    let structured = matches!(ty, DataType::Array(_) | DataType::Record(_));
                    if later && structured && !value.is_null() {
                        text.insert_str(0, "\n ");
                    }
                    text
                }
                None => text(value_idx, row)?.unwrap_or_else(|| "null".into()),
            };
            self.state[g as usize]
                .get_or_insert_with(Vec::new)
                .push((key, value));
        }
        Ok(())
    }

    /// json_agg prints `[1, 2]` and json_object_agg `{ "a" : 1, "b" : 2 }`, as PostgreSQL
    /// does; the jsonb versions are the normal form of the same document.
    pub fn value(&self, group: usize) -> Result<ScalarValue> {
        let Some(pieces) = &self.state[group] else {
            return Ok(ScalarValue::Null);
        };
        let mut out = String::from(if self.object { "{ " } else { "[" });
        for (i, (key, value)) in pieces.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            if self.object {
                json::write_string(key, &mut out);
                out.push_str(" : ");
            }
            out.push_str(value);
        }
        out.push_str(if self.object { " }" } else { "]" });
        Ok(match self.jsonb {
            true => ScalarValue::Jsonb(json::jsonb_from_text(&out)?),
            false => ScalarValue::Text(out),
        })
    }
}
