//! pgvector's operators and functions over `vector`: the distances (`<->` l2_distance, `<#>`
//! the negative inner_product, `<=>` cosine_distance, `<+>` l1_distance), vector_dims,
//! vector_norm, l2_normalize, subvector, vector_cmp, element-wise `+ - *` and `||`, with
//! pgvector's results and errors. Each runs a column at a time over the flat element
//! storage, the distances through [`crate::function::vector_kernels`].

use super::kernel::{arg, fill_strict_rows, map_rows, row_count, strict_validity, values};
use crate::error::{Error, Result};
use crate::function::vector_kernels as kernels;
use crate::types::float_vector::{check_dims, check_same_dims};
use crate::vector::{FloatVectors, Vector, VectorData};

/// A distance between two vectors of the same length.
pub type DistanceMeasure = fn(&[f32], &[f32]) -> f64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorFunction {
    /// `<->`, l2_distance.
    L2Distance,
    InnerProduct,
    /// `<#>`: the negative inner product, so that smaller is nearer.
    NegativeInnerProduct,
    /// `<=>`, cosine_distance.
    CosineDistance,
    /// `<+>`, l1_distance.
    L1Distance,
    Dims,
    Norm,
    L2Normalize,
    /// `subvector(v, start, count)`, 1-based as substring.
    Subvector,
    /// vector_cmp: -1, 0 or 1.
    Compare,
    Add,
    Subtract,
    Multiply,
    /// `||`.
    Concat,
}

impl VectorFunction {
    pub fn name(self) -> &'static str {
        match self {
            VectorFunction::L2Distance => "l2_distance",
            VectorFunction::InnerProduct => "inner_product",
            VectorFunction::NegativeInnerProduct => "vector_negative_inner_product",
            VectorFunction::CosineDistance => "cosine_distance",
            VectorFunction::L1Distance => "l1_distance",
            VectorFunction::Dims => "vector_dims",
            VectorFunction::Norm => "vector_norm",
            VectorFunction::L2Normalize => "l2_normalize",
            VectorFunction::Subvector => "subvector",
            VectorFunction::Compare => "vector_cmp",
            VectorFunction::Add => "vector_add",
            VectorFunction::Subtract => "vector_sub",
            VectorFunction::Multiply => "vector_mul",
            VectorFunction::Concat => "vector_concat",
        }
    }

    /// The measure of a distance function, symmetric in its arguments; `None` for the
    /// other functions.
    pub fn distance_measure(self) -> Option<DistanceMeasure> {
        use VectorFunction as V;
        Some(match self {
            V::L2Distance => |a, b| f64::from(kernels::l2_squared(a, b)).sqrt(),
            V::InnerProduct => |a, b| f64::from(kernels::inner_product(a, b)),
            V::NegativeInnerProduct => |a, b| f64::from(-kernels::inner_product(a, b)),
            V::CosineDistance => kernels::cosine_distance,
            V::L1Distance => |a, b| f64::from(kernels::l1(a, b)),
            V::Dims
            | V::Norm
            | V::L2Normalize
            | V::Subvector
            | V::Compare
            | V::Add
            | V::Subtract
            | V::Multiply
            | V::Concat => return None,
        })
    }

    /// The distance `self` from each row of `column` to the one vector `query` (a constant
    /// or parameter), without repeating the query for every row; `None` if `self` is no
    /// distance.
    pub fn distance_to(self, column: &Vector, query: &[f32]) -> Option<Result<Vector>> {
        let measure = self.distance_measure()?;
        let rows = match vectors(std::slice::from_ref(column), 0) {
            Ok(rows) => rows,
            Err(e) => return Some(Err(e)),
        };
        Some(map_rows(std::slice::from_ref(column), |row| {
            let x = rows.get(row);
            check_same_dims(x, query)?;
            Ok(measure(x, query))
        }))
    }

    pub fn eval(self, args: &[Vector]) -> Result<Vector> {
        use VectorFunction as V;
        if let Some(measure) = self.distance_measure() {
            return distance(args, measure);
        }
        match self {
            V::L2Distance
            | V::InnerProduct
            | V::NegativeInnerProduct
            | V::CosineDistance
            | V::L1Distance => Err(Error::internal("a distance without its measure")),
            V::Dims => {
                let v = vectors(args, 0)?;
                map_rows(args, |row| Ok(v.get(row).len() as i32))
            }
            V::Norm => {
                let v = vectors(args, 0)?;
                map_rows(args, |row| Ok(kernels::norm(v.get(row))))
            }
            V::Compare => {
                let (a, b) = (vectors(args, 0)?, vectors(args, 1)?);
                map_rows(args, |row| {
                    Ok(crate::types::float_vector::compare(a.get(row), b.get(row)) as i32)
                })
            }
            V::L2Normalize => map_vectors(args, |row, out| {
                let v = vectors(args, 0)?.get(row);
                l2_normalize(v, out)
            }),
            V::Subvector => {
                let (starts, counts) = (values::<i32>(args, 1)?, values::<i32>(args, 2)?);
                map_vectors(args, |row, out| {
                    let v = vectors(args, 0)?.get(row);
                    out.extend_from_slice(subvector(v, starts[row], counts[row])?);
                    Ok(())
                })
            }
            V::Add => elementwise(args, |x, y| x + y, false),
            V::Subtract => elementwise(args, |x, y| x - y, false),
            V::Multiply => elementwise(args, |x, y| x * y, true),
            V::Concat => map_vectors(args, |row, out| {
                let (a, b) = (vectors(args, 0)?.get(row), vectors(args, 1)?.get(row));
                check_dims(a.len() + b.len())?;
                out.extend_from_slice(a);
                out.extend_from_slice(b);
                Ok(())
            }),
        }
    }
}

/// Argument `idx` as vectors (an internal error if the binder coerced otherwise).
fn vectors(args: &[Vector], idx: usize) -> Result<&FloatVectors> {
    match &arg(args, idx)?.data {
        VectorData::FloatVector(v) => Ok(v),
        other => Err(Error::internal(format!(
            "function argument {} is {:?}, not vector",
            idx + 1,
            other.physical()
        ))),
    }
}

/// A distance between the rows of two vector arguments, as double precision.
fn distance(args: &[Vector], measure: impl Fn(&[f32], &[f32]) -> f64) -> Result<Vector> {
    let (a, b) = (vectors(args, 0)?, vectors(args, 1)?);
    map_rows(args, |row| {
        let (x, y) = (a.get(row), b.get(row));
        check_same_dims(x, y)?;
        Ok(measure(x, y))
    })
}

/// A strict function with a vector result: `f(row, out)` appends row `row`'s elements.
fn map_vectors(
    args: &[Vector],
    mut f: impl FnMut(usize, &mut Vec<f32>) -> Result<()>,
) -> Result<Vector> {
    let validity = strict_validity(args);
    let rows = row_count(args);
    let dims = vectors(args, 0)?.uniform_dims().unwrap_or(0);
    let mut out = FloatVectors::with_capacity(rows, dims);
    fill_strict_rows(
        &validity,
        rows,
        &mut out,
        FloatVectors::push_empty,
        |row, out| {
            let mut result = Ok(());
            out.push_with(|buf| result = f(row, buf));
            result
        },
    )?;
    Ok(Vector::new(VectorData::FloatVector(out), validity))
}

/// `+ - *` element by element; a result that overflows float4 (or, with `underflows`,
/// becomes zero from non-zero operands, as a product can) is pgvector's 22003.
fn elementwise(args: &[Vector], op: impl Fn(f32, f32) -> f32, underflows: bool) -> Result<Vector> {
    let (a, b) = (vectors(args, 0)?, vectors(args, 1)?);
    map_vectors(args, |row, out| {
        let (x, y) = (a.get(row), b.get(row));
        check_same_dims(x, y)?;
        let start = out.len();
        out.extend(x.iter().zip(y).map(|(&p, &q)| op(p, q)));
        for ((&r, &p), &q) in out[start..].iter().zip(x).zip(y) {
            if r.is_infinite() {
                return Err(Error::out_of_range("value out of range: overflow"));
            }
            if underflows && r == 0.0 && p != 0.0 && q != 0.0 {
                return Err(Error::out_of_range("value out of range: underflow"));
            }
        }
        Ok(())
    })
}

/// The vector divided by its norm; the zero vector stays zero.
fn l2_normalize(v: &[f32], out: &mut Vec<f32>) -> Result<()> {
    let norm = kernels::norm(v);
    if norm <= 0.0 {
        out.extend(std::iter::repeat_n(0.0, v.len()));
        return Ok(());
    }
    for &x in v {
        let scaled = (f64::from(x) / norm) as f32;
        if scaled.is_infinite() {
            return Err(Error::out_of_range("value out of range: overflow"));
        }
        out.push(scaled);
    }
    Ok(())
}

/// Elements `start .. start + count` (1-based, clipped to the vector), at least one.
fn subvector(v: &[f32], start: i32, count: i32) -> Result<&[f32]> {
    if count < 1 {
        check_dims(0)?;
    }
    let dims = v.len() as i64;
    let (start, count) = (i64::from(start), i64::from(count));
    let end = if start > dims - count {
        dims + 1
    } else {
        start + count
    };
    let start = start.max(1);
    if start > dims {
        check_dims(0)?;
    }
    let len = (end - start).max(0) as usize;
    check_dims(len)?;
    let from = (start - 1) as usize;
    Ok(&v[from..from + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subvector_clips_as_pgvector() -> Result<()> {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(subvector(&v, 1, 3)?, [1.0, 2.0, 3.0]);
        assert_eq!(subvector(&v, -1, 3)?, [1.0]);
        assert_eq!(subvector(&v, 3, 9)?, [3.0, 4.0, 5.0]);
        assert_eq!(subvector(&v, 3, i32::MAX)?, [3.0, 4.0, 5.0]);
        assert_eq!(subvector(&v, -2_147_483_644, i32::MAX)?, [1.0, 2.0]);
        assert!(subvector(&v, 1, 0).is_err());
        assert!(subvector(&v, -1, 2).is_err());
        assert!(subvector(&v, i32::MAX, 10).is_err());
        Ok(())
    }
}
