//! Engine column batches to Python rows. Conversion runs column by column (one `match` per
//! column, not per value), then zips the columns into row tuples.

use kestrel::types::datetime::ymd_from_days;
use kestrel::vector::{Batch, Vector, VectorData};
use kestrel::StatementResult;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyTuple};

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// The Python classes that values of types without a native Python counterpart become.
struct Classes<'py> {
    decimal: Bound<'py, PyAny>,
    date: Bound<'py, PyAny>,
    datetime: Bound<'py, PyAny>,
}

impl<'py> Classes<'py> {
    fn load(py: Python<'py>) -> PyResult<Classes<'py>> {
        let datetime = py.import("datetime")?;
        Ok(Classes {
            decimal: py.import("decimal")?.getattr("Decimal")?,
            date: datetime.getattr("date")?,
            datetime: datetime.getattr("datetime")?,
        })
    }
}

/// Every row of `result` from row `skip` on, as a list of tuples.
pub(crate) fn rows<'py>(
    py: Python<'py>,
    result: &StatementResult,
    skip: usize,
) -> PyResult<Bound<'py, PyList>> {
    let classes = Classes::load(py)?;
    let out = PyList::empty(py);
    let mut start = 0;
    for batch in &result.batches {
        let end = start + batch.len();
        if end > skip {
            append_rows(py, &classes, batch, skip.saturating_sub(start), &out)?;
        }
        start = end;
    }
    Ok(out)
}

/// Row `index` of `result` as a tuple, None past the end.
pub(crate) fn row<'py>(
    py: Python<'py>,
    result: &StatementResult,
    index: usize,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let mut start = 0;
    for batch in &result.batches {
        if index < start + batch.len() {
            let classes = Classes::load(py)?;
            let row = index - start;
            let mut values = Vec::with_capacity(batch.columns.len());
            for column in &batch.columns {
                values.extend(column_values(py, &classes, column, row, row + 1)?);
            }
            return Ok(Some(PyTuple::new(py, values)?));
        }
        start += batch.len();
    }
    Ok(None)
}

fn append_rows<'py>(
    py: Python<'py>,
    classes: &Classes<'py>,
    batch: &Batch,
    from: usize,
    out: &Bound<'py, PyList>,
) -> PyResult<()> {
    let mut columns = batch
        .columns
        .iter()
        .map(|column| Ok(column_values(py, classes, column, from, batch.len())?.into_iter()))
        .collect::<PyResult<Vec<_>>>()?;
    for _ in from..batch.len() {
        let values = columns.iter_mut().map(|c| {
            c.next()
                .expect("invariant: every column of a batch has the batch's length")
        });
        out.append(PyTuple::new(py, values)?)?;
    }
    Ok(())
}

/// Rows `from..to` of one column as Python objects.
fn column_values<'py>(
    py: Python<'py>,
    classes: &Classes<'py>,
    column: &Vector,
    from: usize,
    to: usize,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    fn each<'py, T>(
        py: Python<'py>,
        column: &Vector,
        values: &[T],
        range: std::ops::Range<usize>,
        mut convert: impl FnMut(&T) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        range
            .map(|row| {
                if column.is_valid(row) {
                    convert(&values[row])
                } else {
                    Ok(py.None().into_bound(py))
                }
            })
            .collect()
    }
    let range = from..to;
    match &column.data {
        VectorData::Bool(v) => each(py, column, v, range, |&b| {
            Ok(PyBool::new(py, b).to_owned().into_any())
        }),
        VectorData::Int16(v) => each(py, column, v, range, |&x| {
            Ok(x.into_pyobject(py)?.into_any())
        }),
        VectorData::Int32(v) => each(py, column, v, range, |&x| {
            Ok(x.into_pyobject(py)?.into_any())
        }),
        VectorData::Int64(v) => each(py, column, v, range, |&x| {
            Ok(x.into_pyobject(py)?.into_any())
        }),
        VectorData::Float32(v) => each(py, column, v, range, |&x| {
            Ok(f64::from(x).into_pyobject(py)?.into_any())
        }),
        VectorData::Float64(v) => each(py, column, v, range, |&x| {
            Ok(x.into_pyobject(py)?.into_any())
        }),
        VectorData::Numeric(v) => each(py, column, v, range, |x| {
            classes.decimal.call1((x.to_string(),))
        }),
        VectorData::Date(v) => each(py, column, v, range, |&days| date(classes, days)),
        VectorData::Timestamp(v) => {
            each(py, column, v, range, |&micros| timestamp(classes, micros))
        }
        VectorData::Text(strings) => range
            .map(|row| {
                if column.is_valid(row) {
                    Ok(strings.get(row).into_pyobject(py)?.into_any())
                } else {
                    Ok(py.None().into_bound(py))
                }
            })
            .collect(),
        // An array is a list of its elements, converted as a column of their type.
        VectorData::List(list) => range
            .map(|row| {
                if !column.is_valid(row) {
                    return Ok(py.None().into_bound(py));
                }
                let elements = list.range(row);
                let items = column_values(py, classes, list.child(), elements.start, elements.end)?;
                Ok(PyList::new(py, items)?.into_any())
            })
            .collect(),
        // timestamptz, interval, time, timetz, bytea, uuid, inet, jsonb, vector and records
        // come back in PostgreSQL's text form for now (psycopg also gives an anonymous record
        // as text).
        VectorData::TimestampTz(_)
        | VectorData::Interval(_)
        | VectorData::Time(_)
        | VectorData::TimeTz(_)
        | VectorData::Inet(_)
        | VectorData::Bytes(_)
        | VectorData::Uuid(_)
        | VectorData::Jsonb(_)
        | VectorData::FloatVector(_)
        | VectorData::Struct(_) => range
            .map(|row| {
                let mut text = Vec::new();
                if column.write_text(row, &mut text) {
                    Ok(String::from_utf8_lossy(&text).into_pyobject(py)?.into_any())
                } else {
                    Ok(py.None().into_bound(py))
                }
            })
            .collect(),
    }
}

fn date<'py>(classes: &Classes<'py>, days: i32) -> PyResult<Bound<'py, PyAny>> {
    let (year, month, day) = ymd_from_days(days);
    classes.date.call1((year, month, day))
}

fn timestamp<'py>(classes: &Classes<'py>, micros: i64) -> PyResult<Bound<'py, PyAny>> {
    let days = micros.div_euclid(MICROS_PER_DAY);
    let in_day = micros.rem_euclid(MICROS_PER_DAY);
    // A timestamp's day count fits i32: the engine keeps timestamps within PostgreSQL's range.
    let days = i32::try_from(days).unwrap_or(i32::MAX);
    let (year, month, day) = ymd_from_days(days);
    let seconds = in_day / 1_000_000;
    classes.datetime.call1((
        year,
        month,
        day,
        seconds / 3600,
        (seconds / 60) % 60,
        seconds % 60,
        in_day % 1_000_000,
    ))
}
