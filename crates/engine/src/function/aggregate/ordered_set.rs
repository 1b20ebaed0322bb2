//! The ordered-set aggregates percentile_cont, percentile_disc and mode (`f(direct args)
//! WITHIN GROUP (ORDER BY value)`). The executor feeds each group's rows sorted by the
//! WITHIN GROUP key (see `AggregateCall::order_by`), so a group only remembers where its
//! non-NULL values sit in that order and picks its answer at the end, as PostgreSQL's
//! percentile_*_final and mode_final do over their sorted tuples. A percentile of an array
//! of fractions is an array of the same shape (percentile_*_multi_final).

use crate::error::{Error, Result};
use crate::function::compare::compare_rows;
use crate::types::array_shape::{array_parts, ArrayDim, ShapedArray};
use crate::types::{PhysicalType, ScalarValue};
use crate::vector::{Vector, VectorData};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderedSetKind {
    /// Interpolates between the two values around the fraction (float8 values).
    PercentileCont,
    /// The first value whose position reaches the fraction.
    PercentileDisc,
    /// The most frequent value, the first in sort order among equally frequent ones.
    Mode,
}

#[derive(Debug)]
pub struct OrderedSet {
    kind: OrderedSetKind,
    /// Every counted non-NULL value, in the order fed.
    values: Vector,
    /// Per group: positions in `values`, in sort order.
    positions: Vec<Vec<u32>>,
    /// The fraction (the direct argument), NULL as None; evaluated once per statement.
    fraction: Option<f64>,
    /// An array of fractions instead (NULL elements as None), with its shape.
    fractions: Option<(Vec<ArrayDim>, Vec<Option<f64>>)>,
}

impl OrderedSet {
    pub fn new(kind: OrderedSetKind, physical: PhysicalType) -> OrderedSet {
        OrderedSet {
            kind,
            values: Vector::with_capacity(physical, 0),
            positions: Vec::new(),
            fraction: None,
            fractions: None,
        }
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn resize(&mut self, groups: usize) {
        self.positions.resize_with(groups, Vec::new);
    }

    /// The percentile fraction, coerced to float8 (or float8[]) by the binder; NULL gives a
    /// NULL result.
    pub fn set_fraction(&mut self, value: &ScalarValue) -> Result<()> {
        if let Some((dims, elements)) = array_parts(value) {
            let fractions = elements
                .iter()
                .map(|e| match e {
                    ScalarValue::Float64(f) => Ok(Some(*f)),
                    ScalarValue::Null => Ok(None),
                    other => Err(Error::internal(format!(
                        "percentile fraction {other:?} is not float8"
                    ))),
                })
                .collect::<Result<Vec<_>>>()?;
            self.fractions = Some((dims, fractions));
            return Ok(());
        }
        self.fraction = match value {
            ScalarValue::Float64(f) => Some(*f),
            ScalarValue::Null => None,
            other => {
                return Err(Error::internal(format!(
                    "percentile fraction {other:?} is not float8"
                )))
            }
        };
        Ok(())
    }

    /// The physical type of the values.
    fn value_physical(&self) -> PhysicalType {
        self.values.data.physical()
    }

    /// The physical type of the result: a value, or an array of them.
    pub fn physical(&self) -> PhysicalType {
        match self.fractions {
            Some(_) => PhysicalType::List(self.value_physical().as_static()),
            None => self.value_physical(),
        }
    }

    /// Rows arrive sorted within each group: `args[0]` the value (the fraction comes from
    /// [`Self::set_fraction`]).
    pub fn update(&mut self, groups: &[u32], args: &[&Vector]) -> Result<()> {
        let Some(values) = args.first() else {
            return Err(Error::internal("ordered-set aggregate without its value"));
        };
        if values.data.physical() != self.value_physical() {
            return Err(Error::internal(format!(
                "ordered-set aggregate input {:?} for values of {:?}",
                values.data.physical(),
                self.value_physical()
            )));
        }
        let mut kept = Vec::with_capacity(groups.len());
        for (row, &group) in groups.iter().enumerate() {
            let group = group as usize;
            if values.is_valid(row) {
                let position = self.values.len() + kept.len();
                self.positions[group].push(position as u32);
                kept.push(row as u32);
            }
        }
        self.values.extend(&values.gather(&kept))?;
        Ok(())
    }

    /// The position in `values` of group `group`'s answer (percentile_disc at `fraction`,
    /// mode without one).
    fn chosen(&self, group: usize, fraction: Option<f64>) -> Result<Option<u32>> {
        let positions = &self.positions[group];
        if positions.is_empty() {
            return Ok(None);
        }
        Ok(match fraction {
            // mode(): the first value of the longest run of equal values.
            None => {
                let (mut best, mut best_count) = (positions[0], 0usize);
                let mut run_start = 0;
                for i in 1..=positions.len() {
                    let run_ends = i == positions.len()
                        || compare_rows(
                            &self.values,
                            positions[i] as usize,
                            &self.values,
                            positions[run_start] as usize,
                        )
                        .is_ne();
                    if run_ends {
                        if i - run_start > best_count {
                            best_count = i - run_start;
                            best = positions[run_start];
                        }
                        run_start = i;
                    }
                }
                Some(best)
            }
            Some(fraction) => {
                let count = positions.len() as f64;
                // PostgreSQL: rownum = ceil(fraction * count), at least the first row.
                let row = ((fraction * count).ceil() as usize).clamp(1, positions.len());
                Some(positions[row - 1])
            }
        })
    }

    /// A fraction, checked to lie in [0, 1]; `None` when it is NULL.
    fn checked(fraction: Option<f64>) -> Result<Option<f64>> {
        match fraction {
            None => Ok(None),
            Some(f) if (0.0..=1.0).contains(&f) => Ok(Some(f)),
            Some(f) => {
                let mut text = Vec::new();
                crate::types::float::write_f64(f, &mut text);
                Err(Error::out_of_range(format!(
                    "percentile value {} is not between 0 and 1",
                    String::from_utf8_lossy(&text)
                )))
            }
        }
    }

    fn continuous(&self, group: usize, fraction: f64) -> Result<Option<f64>> {
        let positions = &self.positions[group];
        if positions.is_empty() {
            return Ok(None);
        }
        let VectorData::Float64(values) = &self.values.data else {
            return Err(Error::internal("percentile_cont over non-float8 values"));
        };
        let exact = fraction * (positions.len() - 1) as f64;
        let (first, second) = (exact.floor(), exact.ceil());
        let lo = values[positions[first as usize] as usize];
        if first == second {
            return Ok(Some(lo));
        }
        let hi = values[positions[second as usize] as usize];
        Ok(Some(lo + (hi - lo) * (exact - first)))
    }

    pub fn value(&self, group: usize) -> Result<ScalarValue> {
        if self.kind == OrderedSetKind::Mode {
            return self.at(group, None);
        }
        let Some((dims, fractions)) = &self.fractions else {
            // As percentile_*_final: the fraction is checked before a group without rows.
            return match Self::checked(self.fraction)? {
                Some(fraction) => self.at(group, Some(fraction)),
                None => Ok(ScalarValue::Null),
            };
        };
        // percentile_*_multi_final: no rows is NULL, a NULL fraction a NULL element.
        if self.positions[group].is_empty() {
            return Ok(ScalarValue::Null);
        }
        let elements = fractions
            .iter()
            .map(|&fraction| match Self::checked(fraction)? {
                Some(fraction) => self.at(group, Some(fraction)),
                None => Ok(ScalarValue::Null),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ShapedArray::value(dims.clone(), elements))
    }

    /// Group `group`'s answer at one fraction (none for mode).
    fn at(&self, group: usize, fraction: Option<f64>) -> Result<ScalarValue> {
        if let (OrderedSetKind::PercentileCont, Some(fraction)) = (self.kind, fraction) {
            return Ok(self
                .continuous(group, fraction)?
                .map_or(ScalarValue::Null, ScalarValue::Float64));
        }
        Ok(match self.chosen(group, fraction)? {
            Some(position) => self.values.get_scalar(position as usize),
            None => ScalarValue::Null,
        })
    }
}
