//! The jsonpath functions — `jsonb_path_exists`, `_match`, `_query` (its rows),
//! `_query_array`, `_query_first` — and the operators `@?` and `@@`: the arguments read,
//! the path evaluated by [`crate::types::jsonpath`], the items shaped into the result.

use crate::error::{Error, Result, SqlState};
use crate::types::json::{self, Json};
use crate::types::{jsonpath, ScalarValue};

/// What a jsonpath function makes of the path's items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathMode {
    /// `jsonb_path_exists`, and `@?` (silent).
    Exists,
    /// `jsonb_path_match`, and `@@` (silent).
    Match,
    QueryArray,
    QueryFirst,
}

/// The items of `jsonb_path_*(target, path [, vars [, silent]])` for one row, `None` when
/// an error was silenced; `operator` (`@?`, `@@`) is always silent.
pub(super) fn path_items(values: &[ScalarValue], operator: bool) -> Result<Option<Vec<Json>>> {
    let (Some(ScalarValue::Jsonb(target)), Some(ScalarValue::Text(path))) =
        (values.first(), values.get(1))
    else {
        return Err(Error::internal("jsonpath function arguments"));
    };
    let path = jsonpath::parse(path)?;
    let vars = match values.get(2) {
        Some(ScalarValue::Jsonb(vars)) => json::parse_canonical(vars)?,
        _ => Json::Object(Vec::new()),
    };
    let silent = operator || matches!(values.get(3), Some(ScalarValue::Bool(true)));
    path.query(&json::parse_canonical(target)?, &vars, silent)
}

/// One row of a jsonpath function other than `jsonb_path_query`.
pub(super) fn apply(mode: PathMode, operator: bool, values: &[ScalarValue]) -> Result<ScalarValue> {
    let silent = operator || matches!(values.get(3), Some(ScalarValue::Bool(true)));
    let items = path_items(values, operator)?;
    Ok(match (mode, items) {
        (PathMode::Exists, Some(items)) => ScalarValue::Bool(!items.is_empty()),
        (PathMode::Match, Some(items)) => match items.as_slice() {
            [Json::Bool(b)] => ScalarValue::Bool(*b),
            [Json::Null] => ScalarValue::Null,
            _ if silent => ScalarValue::Null,
            _ => {
                return Err(Error::new(
                    SqlState::SingletonSqlJsonItemRequired,
                    "single boolean result is expected",
                ))
            }
        },
        (PathMode::Exists | PathMode::Match, None) => ScalarValue::Null,
        (PathMode::QueryArray, items) => jsonb(Json::Array(items.unwrap_or_default())),
        (PathMode::QueryFirst, items) => match items.and_then(|i| i.into_iter().next()) {
            Some(first) => jsonb(first),
            None => ScalarValue::Null,
        },
    })
}

fn jsonb(mut value: Json) -> ScalarValue {
    value.normalize();
    ScalarValue::Jsonb(value.to_text())
}
