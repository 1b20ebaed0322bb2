//! sum(vector) and avg(vector) as pgvector computes them: sum adds float4 elements with
//! vector_add (its overflow and dimension errors), avg keeps double-precision sums and a
//! count (vector_accum) and divides at the end (vector_avg). A group without non-NULL rows
//! is NULL.

use crate::error::{Error, Result};
use crate::types::float_vector::{check_element, check_expected_dims, check_same_dims};
use crate::types::ScalarValue;
use crate::vector::{Vector, VectorData};

/// One group's running sums and the rows they hold.
#[derive(Debug, Clone)]
struct Running {
    sums: Vec<f64>,
    count: i64,
}

#[derive(Debug)]
pub struct VectorSum {
    state: Vec<Option<Running>>,
    avg: bool,
}

impl VectorSum {
    pub fn new(avg: bool) -> VectorSum {
        VectorSum {
            state: Vec::new(),
            avg,
        }
    }

    pub fn resize(&mut self, groups: usize) {
        self.state.resize(groups, None);
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    pub fn update(&mut self, groups: &[u32], input: &Vector) -> Result<()> {
        let VectorData::FloatVector(vectors) = &input.data else {
            return Err(Error::internal(format!(
                "vector aggregate input {:?}",
                input.data.physical()
            )));
        };
        for (row, &g) in groups.iter().enumerate() {
            if !input.is_valid(row) {
                continue;
            }
            let value = vectors.get(row);
            let Some(running) = &mut self.state[g as usize] else {
                self.state[g as usize] = Some(Running {
                    sums: value.iter().map(|&x| f64::from(x)).collect(),
                    count: 1,
                });
                continue;
            };
            if self.avg {
                check_expected_dims(Some(running.sums.len() as u32), value.len())?;
            } else if running.sums.len() != value.len() {
                let sums: Vec<f32> = running.sums.iter().map(|&s| s as f32).collect();
                check_same_dims(&sums, value)?;
            }
            for (sum, &x) in running.sums.iter_mut().zip(value) {
                // sum adds in float4 as vector_add does; avg in float8 as vector_accum.
                let next = match self.avg {
                    true => *sum + f64::from(x),
                    false => f64::from(*sum as f32 + x),
                };
                if next.is_infinite() {
                    return Err(Error::out_of_range("value out of range: overflow"));
                }
                *sum = next;
            }
            running.count += 1;
        }
        Ok(())
    }

    pub fn value(&self, group: usize) -> Result<ScalarValue> {
        let Some(running) = &self.state[group] else {
            return Ok(ScalarValue::Null);
        };
        let divisor = if self.avg { running.count as f64 } else { 1.0 };
        let values = running
            .sums
            .iter()
            .map(|&sum| {
                let value = (sum / divisor) as f32;
                check_element(value).map(|()| value)
            })
            .collect::<Result<Vec<f32>>>()?;
        Ok(ScalarValue::FloatVector(values))
    }
}
