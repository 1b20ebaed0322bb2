//! `kestreldb`: the KestrelDB engine embedded in Python, shaped like `sqlite3` and DuckDB's
//! module: `kestreldb.connect()` gives a connection, `connection.execute(sql)` runs every
//! statement of `sql` and returns a cursor over the last statement's result.
//!
//! A cursor keeps the engine's column batches as they are. `fetchall()` / `fetchone()` turn
//! rows into tuples of Python values (int, float, str, bool, `decimal.Decimal`,
//! `datetime.date`, `datetime.datetime`, None); `fetch_native()` materialises nothing more
//! and returns the row count, so benchmarks can time the engine without Python objects.
//! The GIL is released while a statement runs.

mod convert;

use std::sync::{Mutex, PoisonError};

use kestrel::{Database, Session, StatementResult};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

create_exception!(
    kestreldb,
    Error,
    PyException,
    "A KestrelDB error; `sqlstate` holds its code."
);

/// Turns an engine error into `kestreldb.Error("message")` with a `sqlstate` attribute.
fn to_py_error(py: Python<'_>, error: kestrel::Error) -> PyErr {
    let err = Error::new_err(error.message.clone());
    // Setting an attribute on a fresh exception object cannot fail short of memory
    // exhaustion; if it does, the error still carries its message.
    let _ = err.value(py).setattr("sqlstate", error.state.code());
    err
}

/// An in-memory database with one session.
#[pyclass(module = "kestreldb")]
struct Connection {
    session: Mutex<Session>,
}

#[pymethods]
impl Connection {
    /// Runs every statement of `sql` (as PostgreSQL's simple query protocol does) and
    /// returns a cursor over the last one's result.
    fn execute(&self, py: Python<'_>, sql: &str) -> PyResult<Cursor> {
        let outcome = py.detach(|| {
            let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            session.execute(sql)
        });
        let mut results = outcome.map_err(|e| to_py_error(py, e))?;
        Ok(Cursor::new(results.pop()))
    }

    /// Nothing to release beyond what dropping does; present for DB-API shape.
    fn close(&self) {}
}

/// The result of the last statement `execute` ran.
#[pyclass(module = "kestreldb")]
struct Cursor {
    result: Option<StatementResult>,
    /// Rows already returned by fetchone/fetchall, counted from the start.
    position: usize,
}

impl Cursor {
    fn new(result: Option<StatementResult>) -> Cursor {
        Cursor {
            result,
            position: 0,
        }
    }

    fn total_rows(&self) -> usize {
        self.result.as_ref().map_or(0, StatementResult::row_count)
    }
}

#[pymethods]
impl Cursor {
    /// Every remaining row as a tuple of Python values.
    fn fetchall<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = match &self.result {
            Some(result) => convert::rows(py, result, self.position)?,
            None => PyList::empty(py),
        };
        self.position = self.total_rows();
        Ok(rows)
    }

    /// The next row, or None.
    fn fetchone<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(result) = &self.result else {
            return Ok(None);
        };
        let row = convert::row(py, result, self.position)?;
        if row.is_some() {
            self.position += 1;
        }
        Ok(row)
    }

    /// The row count, keeping the result in the engine's own column batches: the result is
    /// already fully materialised by `execute`, and nothing is converted to Python objects.
    fn fetch_native(&self) -> usize {
        self.total_rows()
    }

    /// Rows in the result for a query, -1 for a statement that returns none (DB-API).
    #[getter]
    fn rowcount(&self) -> i64 {
        match &self.result {
            Some(result) if result.columns.is_some() => {
                i64::try_from(result.row_count()).unwrap_or(i64::MAX)
            }
            Some(_) | None => -1,
        }
    }

    /// The CommandComplete tag of the statement (`SELECT 3`, `INSERT 0 1`, ...).
    #[getter]
    fn statusmessage(&self) -> Option<String> {
        self.result.as_ref().map(|r| r.tag.clone())
    }

    /// DB-API description: one 7-tuple `(name, type_name, None, None, None, None, None)` per
    /// column, or None for a statement without rows.
    #[getter]
    fn description<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        let Some(columns) = self.result.as_ref().and_then(|r| r.columns.as_ref()) else {
            return Ok(None);
        };
        let none = py.None();
        let items = columns
            .iter()
            .map(|c| {
                PyTuple::new(
                    py,
                    [
                        c.name.as_str().into_pyobject(py)?.into_any().unbind(),
                        c.data_type.name().into_pyobject(py)?.into_any().unbind(),
                        none.clone_ref(py),
                        none.clone_ref(py),
                        none.clone_ref(py),
                        none.clone_ref(py),
                        none.clone_ref(py),
                    ],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Some(PyList::new(py, items)?))
    }
}

/// A new in-memory database and a connection to it.
#[pyfunction]
fn connect() -> Connection {
    Connection {
        session: Mutex::new(Database::new().connect()),
    }
}

#[pymodule]
fn kestreldb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(connect, m)?)?;
    m.add_class::<Connection>()?;
    m.add_class::<Cursor>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    Ok(())
}
