//! array_agg(value) as PostgreSQL's array_agg_transfn: every input row's value, NULLs
//! included, in arrival order (the aggregate's ORDER BY sorts the rows before they arrive);
//! a group without rows is NULL, not an empty array. Over arrays (array_agg(anyarray)) the
//! result has one dimension more, as array_agg_array_transfn builds it: the inputs must be
//! non-NULL, non-empty and of the same dimensions.

use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::{array_parts, too_many_dims, ArrayDim, ShapedArray, MAX_DIMS};
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
        match self.elem {
            // Arrays of arrays are arrays of more dimensions.
            PhysicalType::List(_) => self.elem,
            elem => PhysicalType::List(elem.as_static()),
        }
    }

    pub fn update(&mut self, groups: &[u32], input: &Vector) -> Result<()> {
        if input.data.physical() != self.elem {
            return Err(Error::internal(format!(
                "array_agg input {:?} for elements of {:?}",
                input.data.physical(),
                self.elem
            )));
        }
        let of_arrays = matches!(self.elem, PhysicalType::List(_));
        for (row, &g) in groups.iter().enumerate() {
            let value = input.get_scalar(row);
            let group = self.state[g as usize].get_or_insert_with(Vec::new);
            if of_arrays {
                check_sub_array(group.first(), &value)?;
            }
            group.push(value);
        }
        Ok(())
    }

    pub fn value(&self, group: usize) -> ScalarValue {
        let Some(values) = &self.state[group] else {
            return ScalarValue::Null;
        };
        if !matches!(self.elem, PhysicalType::List(_)) {
            return ScalarValue::Array(values.clone());
        }
        // The inputs were checked to be arrays of one shape.
        stack_arrays(values)
    }
}

/// Arrays of one shape as one array of a dimension more, as accumArrayResultArr builds
/// it for array_agg(anyarray) and `ARRAY(SELECT array_column ...)`: every input checked
/// first (not NULL, not empty, of the first one's dimensions); no inputs give `{}`.
pub fn accumulate_arrays(values: &[ScalarValue]) -> Result<ScalarValue> {
    if let Some((first, rest)) = values.split_first() {
        check_sub_array(None, first)?;
        for value in rest {
            check_sub_array(Some(first), value)?;
        }
    }
    Ok(stack_arrays(values))
}

/// `values`, arrays already checked to share a shape, stacked along a new first dimension.
fn stack_arrays(values: &[ScalarValue]) -> ScalarValue {
    let mut dims = vec![ArrayDim {
        lower: 1,
        len: values.len() as i32,
    }];
    let mut elements = Vec::new();
    for (i, value) in values.iter().enumerate() {
        if let Some((sub_dims, sub_elements)) = array_parts(value) {
            if i == 0 {
                dims.extend(sub_dims);
            }
            elements.extend_from_slice(sub_elements);
        }
    }
    ShapedArray::value(dims, elements)
}

/// array_agg_array_transfn's checks of one more input array against the group's first.
fn check_sub_array(first: Option<&ScalarValue>, value: &ScalarValue) -> Result<()> {
    let Some((dims, _)) = array_parts(value) else {
        return Err(Error::new(
            SqlState::NullValueNotAllowed,
            "cannot accumulate null arrays",
        ));
    };
    if dims.is_empty() {
        return Err(Error::new(
            SqlState::ArraySubscriptError,
            "cannot accumulate empty arrays",
        ));
    }
    match first.and_then(array_parts) {
        None if dims.len() >= MAX_DIMS => Err(too_many_dims(dims.len() + 1)),
        Some((first_dims, _)) if first_dims != dims => Err(Error::new(
            SqlState::ArraySubscriptError,
            "cannot accumulate arrays of different dimensionality",
        )),
        _ => Ok(()),
    }
}
