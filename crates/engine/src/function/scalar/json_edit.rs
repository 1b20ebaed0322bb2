//! The json functions that return an edited copy of a document: `jsonb_set`,
//! `jsonb_set_lax` and `jsonb_insert` (PostgreSQL's setPath), `#-`, `json[b]_strip_nulls`
//! and the `json[b]_object` builders from text arrays.

use super::json::invalid;
use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::unsupported_shape;
use crate::types::json::{self, Json};
use crate::types::ScalarValue;

/// What setPath does at the end of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PathEdit {
    /// jsonb_set: replace the value; with `create`, add it where only the last step is
    /// missing (an array index past either end adds at that end).
    Set { create: bool },
    /// jsonb_insert: add the value before (or `after`) the array element at the path, or as
    /// a new key, which must not exist.
    Insert { after: bool },
}

/// setPath over the whole document: an empty path leaves it as it is, a scalar has no path.
pub(super) fn edit_path(
    mut doc: Json,
    path: &[Option<String>],
    new: Json,
    edit: PathEdit,
) -> Result<Json> {
    if path.is_empty() {
        return Ok(doc);
    }
    if !matches!(doc, Json::Array(_) | Json::Object(_)) {
        return Err(invalid("cannot set path in scalar"));
    }
    set_path(&mut doc, path, 0, new, edit)?;
    Ok(doc)
}

/// setPath from `depth` on; a missing step before the last, or a scalar on the way, leaves
/// the document as it is.
fn set_path(
    doc: &mut Json,
    path: &[Option<String>],
    depth: usize,
    new: Json,
    edit: PathEdit,
) -> Result<()> {
    let step = path_step(path, depth)?;
    let last = depth + 1 == path.len();
    let adds = matches!(
        edit,
        PathEdit::Set { create: true } | PathEdit::Insert { .. }
    );
    match doc {
        Json::Object(pairs) => match pairs.iter().position(|(k, _)| k == step) {
            Some(_) if last && matches!(edit, PathEdit::Insert { .. }) => {
                return Err(invalid("cannot replace existing key")
                    .with_hint("Try using the function jsonb_set to replace key value."));
            }
            Some(at) if last => pairs[at].1 = new,
            Some(at) => set_path(&mut pairs[at].1, path, depth + 1, new, edit)?,
            None if last && adds => pairs.push((step.to_string(), new)),
            None => {}
        },
        Json::Array(items) => {
            let at = array_position(items.len(), path_index(step, depth)?);
            match (
                usize::try_from(at).ok().filter(|&at| at < items.len()),
                edit,
            ) {
                (Some(at), PathEdit::Insert { after }) if last => {
                    items.insert(at + usize::from(after), new)
                }
                (Some(at), PathEdit::Set { .. }) if last => items[at] = new,
                (Some(at), _) => set_path(&mut items[at], path, depth + 1, new, edit)?,
                (None, _) if last && adds && at < 0 => items.insert(0, new),
                (None, _) if last && adds => items.push(new),
                (None, _) => {}
            }
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
    }
    Ok(())
}

/// How many elements a jsonb array may have: PostgreSQL's JSONB_MAX_ELEMS.
const JSONB_MAX_ELEMS: usize = (1 << 28) - 1;

/// Subscript assignment, PostgreSQL's jsonb_set_element (setPath with JB_PATH_CREATE,
/// FILL_GAPS and CONSISTENT_POSITION): a missing key or element is created with the rest
/// of the path under it, an array assigned past its end is padded with nulls, and a path
/// through a scalar or before an array's start is 22023.
pub(super) fn assign_path(mut doc: Json, path: &[String], new: Json) -> Result<Json> {
    if path.is_empty() {
        return Ok(doc);
    }
    assign_at(&mut doc, path, 0, new)?;
    Ok(doc)
}

fn assign_at(doc: &mut Json, path: &[String], depth: usize, new: Json) -> Result<()> {
    let step = &path[depth];
    let last = depth + 1 == path.len();
    match doc {
        Json::Object(pairs) => match pairs.iter().position(|(k, _)| k == step) {
            Some(at) if last => pairs[at].1 = new,
            Some(at) => assign_at(&mut pairs[at].1, path, depth + 1, new)?,
            None => pairs.push((step.clone(), new_chain(&path[depth + 1..], new)?)),
        },
        Json::Array(items) => {
            let index = path_index(step, depth)?;
            let at = array_position(items.len(), index);
            let at = usize::try_from(at).map_err(|_| {
                invalid(&format!(
                    "path element at position {} is out of range: {index}",
                    depth + 1
                ))
            })?;
            match items.get_mut(at) {
                Some(item) if last => *item = new,
                Some(item) => assign_at(item, path, depth + 1, new)?,
                None => {
                    pad_nulls(items, at)?;
                    items.push(new_chain(&path[depth + 1..], new)?);
                }
            }
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {
            return Err(invalid("cannot replace existing key").with_detail(
                "The path assumes key is a composite object, but it is a scalar value.",
            ))
        }
    }
    Ok(())
}

/// `new` under the containers the steps `rest` make: an object for a key, an array for an
/// integer step, padded with nulls up to it (PostgreSQL's push_path).
fn new_chain(rest: &[String], new: Json) -> Result<Json> {
    let mut value = new;
    for step in rest.iter().rev() {
        value = match step.parse::<i32>() {
            Ok(index) => {
                let mut items = Vec::new();
                pad_nulls(&mut items, usize::try_from(index).unwrap_or(0))?;
                items.push(value);
                Json::Array(items)
            }
            Err(_) => Json::Object(vec![(step.clone(), value)]),
        };
    }
    Ok(value)
}

/// Nulls appended to `items` until it has `len` elements.
fn pad_nulls(items: &mut Vec<Json>, len: usize) -> Result<()> {
    if len >= JSONB_MAX_ELEMS {
        return Err(Error::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "number of jsonb array elements exceeds the maximum allowed ({JSONB_MAX_ELEMS})"
            ),
        ));
    }
    items.resize(len.max(items.len()), Json::Null);
    Ok(())
}

/// `#-`: removes the value at `path` (from `depth` on); a missing step leaves it as is.
pub(super) fn delete_path(doc: &mut Json, path: &[Option<String>], depth: usize) -> Result<()> {
    if depth >= path.len() {
        return Ok(());
    }
    let step = path_step(path, depth)?;
    let last = depth + 1 == path.len();
    match doc {
        Json::Object(pairs) => {
            let Some(at) = pairs.iter().position(|(k, _)| k == step) else {
                return Ok(());
            };
            match last {
                true => drop(pairs.remove(at)),
                false => delete_path(&mut pairs[at].1, path, depth + 1)?,
            }
        }
        Json::Array(items) => {
            let at = array_position(items.len(), path_index(step, depth)?);
            let Some(at) = usize::try_from(at).ok().filter(|&at| at < items.len()) else {
                return Ok(());
            };
            match last {
                true => drop(items.remove(at)),
                false => delete_path(&mut items[at], path, depth + 1)?,
            }
        }
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
    }
    Ok(())
}

/// An array index counted from the end when negative (it may still be out of range).
pub(super) fn array_position(len: usize, index: i64) -> i64 {
    match index < 0 {
        true => len as i64 + index,
        false => index,
    }
}

/// An array index of a path step, or PostgreSQL's 22P02.
fn path_index(step: &str, depth: usize) -> Result<i64> {
    step.trim().parse().map_err(|_| {
        Error::new(
            SqlState::InvalidTextRepresentation,
            format!(
                "path element at position {} is not an integer: \"{step}\"",
                depth + 1
            ),
        )
    })
}

/// A path step, which must not be NULL.
fn path_step(path: &[Option<String>], depth: usize) -> Result<&str> {
    path[depth].as_deref().ok_or_else(|| {
        Error::new(
            SqlState::NullValueNotAllowed,
            format!("path element at position {} is null", depth + 1),
        )
    })
}

/// jsonb_set_lax's `null_value_treatment` for an SQL NULL new value: the document to
/// return, with the path set to JSON null or deleted, as it is, or PostgreSQL's errors.
pub(super) fn set_lax_null(
    doc: Json,
    path: &[Option<String>],
    create: bool,
    treatment: Option<&str>,
) -> Result<Json> {
    let bad_treatment = || {
        invalid(
            "null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", \
             or \"raise_exception\"",
        )
    };
    match treatment.ok_or_else(bad_treatment)? {
        "raise_exception" => Err(Error::new(
            SqlState::NullValueNotAllowed,
            "JSON value must not be null",
        )
        .with_detail("Exception raised due to \"null_value_treatment => 'raise_exception'\".")
        .with_hint(
            "To avoid, either change the null_value_treatment argument or ensure that an SQL \
             NULL is not passed.",
        )),
        "use_json_null" => edit_path(doc, path, Json::Null, PathEdit::Set { create }),
        "delete_key" => {
            let mut doc = doc;
            if !path.is_empty() && !matches!(doc, Json::Array(_) | Json::Object(_)) {
                return Err(invalid("cannot delete path in scalar"));
            }
            delete_path(&mut doc, path, 0)?;
            Ok(doc)
        }
        "return_target" => Ok(doc),
        _ => Err(bad_treatment()),
    }
}

/// json[b]_strip_nulls: every object member whose value is JSON null removed, at any depth
/// (array elements stay).
pub(super) fn strip_nulls(doc: &mut Json) {
    match doc {
        Json::Object(pairs) => {
            pairs.retain(|(_, v)| !matches!(v, Json::Null));
            pairs.iter_mut().for_each(|(_, v)| strip_nulls(v));
        }
        Json::Array(items) => items.iter_mut().for_each(strip_nulls),
        Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) => {}
    }
}

/// json's output of a rebuilt document (json_strip_nulls): no white space between tokens,
/// numbers as written.
pub(super) fn write_compact(value: &Json, out: &mut String) {
    match value {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(item, out);
            }
            out.push(']');
        }
        Json::Object(pairs) => {
            out.push('{');
            for (i, (key, item)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json::write_string(key, out);
                out.push(':');
                write_compact(item, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_text()),
    }
}

/// `json[b]_object(text[])` (alternating keys and values) and `json[b]_object(keys text[],
/// values text[])`: an object of string values (NULL values are JSON null), written as
/// json_object writes it (`{"a" : "1", "b" : null}`).
pub(super) fn object_from_texts(values: &[ScalarValue]) -> Result<String> {
    fn texts(value: &ScalarValue) -> Result<&[ScalarValue]> {
        match value {
            ScalarValue::Array(items) => Ok(items),
            ScalarValue::ShapedArray(_) => Err(unsupported_shape("json_object")),
            _ => Err(Error::internal("json_object takes text arrays")),
        }
    }
    let pairs: Vec<(&ScalarValue, &ScalarValue)> = match values {
        [all] => {
            let all = texts(all)?;
            if !all.len().is_multiple_of(2) {
                return Err(Error::new(
                    SqlState::ArraySubscriptError,
                    "array must have even number of elements",
                ));
            }
            all.chunks(2).map(|pair| (&pair[0], &pair[1])).collect()
        }
        [keys, vals] => {
            let (keys, vals) = (texts(keys)?, texts(vals)?);
            if keys.len() != vals.len() {
                return Err(Error::new(
                    SqlState::ArraySubscriptError,
                    "mismatched array dimensions",
                ));
            }
            keys.iter().zip(vals).collect()
        }
        _ => return Err(Error::internal("json_object takes one or two arrays")),
    };
    let mut out = String::from("{");
    for (i, (key, value)) in pairs.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let ScalarValue::Text(key) = key else {
            return Err(Error::new(
                SqlState::NullValueNotAllowed,
                "null value not allowed for object key",
            ));
        };
        json::write_string(key, &mut out);
        out.push_str(" : ");
        match value {
            ScalarValue::Text(v) => json::write_string(v, &mut out),
            _ => out.push_str("null"),
        }
    }
    out.push('}');
    Ok(out)
}
