//! array_agg(value) as PostgreSQL's array_agg_transfn: every input row's value, NULLs
//! included, in arrival order (the aggregate's ORDER BY sorts the rows before they arrive);
//! a group without rows is NULL, not an empty array.

use crate::error::{Error, Result};
use crate::types::{PhysicalType, ScalarValue};
use crate::vector::Vector;

/// Per-group element lists; `None` until the group's first row.
#[derive(Debug)]
pub struct ArrayAgg {
    state: Vec<Option<Vec<ScalarValue>>>,
    elem: PhysicalType,
}

impl ArrayAgg {
    pub fn new(elem: PhysicalType) -> ArrayAgg {
        ArrayAgg {
            state: Vec::new(),
            elem,
        }
    }

    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, None);
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn physical(&self) -> PhysicalType {
        PhysicalType::List(self.elem.as_static())
    }

    pub fn update(&mut self, groups: &[u32], input: &Vector) -> Result<()> {
        if input.data.physical() != self.elem {
            return Err(Error::internal(format!(
                "array_agg input {:?} for elements of {:?}",
                input.data.physical(),
                self.elem
            )));
        }
        for (row, &g) in groups.iter().enumerate() {
            self.state[g as usize]
                .get_or_insert_with(Vec::new)
                .push(input.get_scalar(row));
        }
        Ok(())
    }

    pub fn value(&self, group: usize) -> ScalarValue {
        match &self.state[group] {
            Some(values) => ScalarValue::Array(values.clone()),
            None => ScalarValue::Null,
        }
    }
}
