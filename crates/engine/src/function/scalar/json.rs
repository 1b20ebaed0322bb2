//! jsonb operators (`->`, `->>`, `#>`, `#>>`, `@>`, `<@`, `?`, `?|`, `?&`, `||`, `-`,
//! `#-`), json/jsonb functions (typeof, array length, pretty) and the builders (`to_json`,
//! `to_jsonb`, `json[b]_build_object`, `json[b]_build_array`) with PostgreSQL's output and
//! errors. Each row's document is parsed from its canonical text (see
//! [`crate::types::json`]).

use std::borrow::Cow;

use super::json_edit::{self, PathEdit};
use super::json_items::{ItemsKind, JsonItems};
use super::json_path::{self, PathMode};
use super::kernel::map_scalar_rows;
use crate::error::{Error, Result, SqlState};
use crate::types::array_shape::unsupported_shape;
use crate::types::json::{self, Json, JsonFlavor, Step};
use crate::types::{datetime, text_io, DataType, PhysicalType, ScalarValue};
use crate::vector::{Bitmap, StringVec, Vector, VectorData};

/// An operator or function over jsonb (or json where named so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFunction {
    /// `->` / `->>` with a text key, on jsonb or (`json`) json.
    Field {
        as_text: bool,
        json: bool,
    },
    /// `->` / `->>` with an integer index.
    Element {
        as_text: bool,
        json: bool,
    },
    /// `#>` / `#>>` with a text[] path, and `json[b]_extract_path(_text)` with the steps
    /// as arguments; on json when `json`.
    Path {
        as_text: bool,
        json: bool,
    },
    /// `@>`, and `<@` with its operands swapped.
    Contains {
        swapped: bool,
    },
    /// `?`.
    Exists,
    /// `?|` (any) and `?&` (all).
    ExistsKeys {
        all: bool,
    },
    Concat,
    /// `-` text.
    DeleteKey,
    /// `-` integer.
    DeleteIndex,
    /// `-` text[].
    DeleteKeys,
    /// `#-`.
    DeletePath,
    /// `jsonb_typeof` (`json_typeof` with `json`).
    Typeof {
        json: bool,
    },
    /// `jsonb_array_length` (`json_array_length` with `json`).
    ArrayLength {
        json: bool,
    },
    Pretty,
    /// `jsonb_set(target, path, value [, create_if_missing])`.
    Set,
    /// `UPDATE ... SET j[s1][s2] = value`: `(j, ARRAY[s1, s2], value)`, PostgreSQL's
    /// jsonb_set_element. A NULL document is an empty array when the first subscript is an
    /// integer (`expect_array`), else an empty object; a NULL value is JSON null.
    AssignSubscript {
        expect_array: bool,
    },
    /// A column of a set-returning json function, as an array that FROM unnests.
    Items(JsonItems),
    /// `to_json` (`jsonb` false) / `to_jsonb` of a value of the given type.
    To {
        ty: DataType,
        jsonb: bool,
    },
    /// `json[b]_build_object(k, v, ...)`. The binder passes each value through `to_json`
    /// (see [`JsonFunction::value_positions`]), so values arrive as json or NULL.
    BuildObject {
        jsonb: bool,
    },
    /// `json[b]_build_array(...)`, its arguments through `to_json` likewise.
    BuildArray {
        jsonb: bool,
    },
    /// `jsonb_set_lax(target, path, value [, create_if_missing [, null_value_treatment]])`.
    SetLax,
    /// `jsonb_insert(target, path, value [, insert_after])`.
    Insert,
    /// `jsonb_strip_nulls` (`json_strip_nulls` with `json`).
    StripNulls {
        json: bool,
    },
    /// `json[b]_object(text[])` and `json[b]_object(keys text[], values text[])`.
    Object {
        jsonb: bool,
    },
    /// The jsonpath functions but `jsonb_path_query`, and (`operator`) `@?` and `@@`.
    PathQuery {
        mode: PathMode,
        operator: bool,
    },
}

impl JsonFunction {
    /// Whether its arguments are values of any type made json (see
    /// `ScalarFunction::renders_arguments`).
    pub fn renders_arguments(self) -> bool {
        use JsonFunction as F;
        matches!(
            self,
            F::To { .. } | F::BuildObject { .. } | F::BuildArray { .. }
        )
    }

    pub fn name(self) -> &'static str {
        use JsonFunction as F;
        match self {
            F::Field { as_text: false, .. } | F::Element { as_text: false, .. } => "->",
            F::Field { as_text: true, .. } | F::Element { as_text: true, .. } => "->>",
            F::Path { as_text: false, .. } => "#>",
            F::Path { as_text: true, .. } => "#>>",
            F::Contains { swapped: false } => "@>",
            F::Contains { swapped: true } => "<@",
            F::Exists => "?",
            F::ExistsKeys { all: false } => "?|",
            F::ExistsKeys { all: true } => "?&",
            F::Concat => "||",
            F::DeleteKey | F::DeleteIndex | F::DeleteKeys => "-",
            F::DeletePath => "#-",
            F::Typeof { json: false } => "jsonb_typeof",
            F::Typeof { json: true } => "json_typeof",
            F::ArrayLength { json: false } => "jsonb_array_length",
            F::ArrayLength { json: true } => "json_array_length",
            F::Pretty => "jsonb_pretty",
            F::Set => "jsonb_set",
            F::AssignSubscript { .. } => "jsonb subscript assignment",
            F::Items(items) => items.name(),
            F::To { jsonb: false, .. } => "to_json",
            F::To { jsonb: true, .. } => "to_jsonb",
            F::BuildObject { jsonb: false } => "json_build_object",
            F::BuildObject { jsonb: true } => "jsonb_build_object",
            F::BuildArray { jsonb: false } => "json_build_array",
            F::BuildArray { jsonb: true } => "jsonb_build_array",
            F::SetLax => "jsonb_set_lax",
            F::Insert => "jsonb_insert",
            F::StripNulls { json: false } => "jsonb_strip_nulls",
            F::StripNulls { json: true } => "json_strip_nulls",
            F::Object { jsonb: false } => "json_object",
            F::Object { jsonb: true } => "jsonb_object",
            F::PathQuery {
                operator: true,
                mode: PathMode::Match,
            } => "@@",
            F::PathQuery { operator: true, .. } => "@?",
            F::PathQuery {
                mode: PathMode::Exists,
                ..
            } => "jsonb_path_exists",
            F::PathQuery {
                mode: PathMode::Match,
                ..
            } => "jsonb_path_match",
            F::PathQuery {
                mode: PathMode::QueryArray,
                ..
            } => "jsonb_path_query_array",
            F::PathQuery {
                mode: PathMode::QueryFirst,
                ..
            } => "jsonb_path_query_first",
        }
    }

    /// Whether argument `idx` of `count` is a value the binder must first turn into json with
    /// `to_json` (the builders' values; an object's keys stay as they are).
    pub fn is_value_position(self, idx: usize) -> bool {
        match self {
            JsonFunction::BuildArray { .. } => true,
            JsonFunction::BuildObject { .. } => !idx.is_multiple_of(2),
            _ => false,
        }
    }

    /// The builders take NULL arguments as JSON nulls; everything else is strict.
    pub fn is_strict(self) -> bool {
        !matches!(
            self,
            JsonFunction::BuildObject { .. }
                | JsonFunction::BuildArray { .. }
                | JsonFunction::SetLax
                | JsonFunction::AssignSubscript { .. }
                | JsonFunction::Items(JsonItems {
                    kind: ItemsKind::ToRecord,
                    ..
                })
        )
    }

    /// The result type.
    pub fn result(self) -> DataType {
        use JsonFunction as F;
        match self {
            F::Field { as_text: true, .. }
            | F::Element { as_text: true, .. }
            | F::Path { as_text: true, .. } => DataType::Text,
            F::Field { json: true, .. }
            | F::Element { json: true, .. }
            | F::Path { json: true, .. }
            | F::StripNulls { json: true }
            | F::Object { jsonb: false } => DataType::Json,
            F::Typeof { .. } | F::Pretty => DataType::Text,
            F::Contains { .. }
            | F::Exists
            | F::ExistsKeys { .. }
            | F::PathQuery {
                mode: PathMode::Exists | PathMode::Match,
                ..
            } => DataType::Bool,
            F::Items(items) => items.result(),
            F::ArrayLength { .. } => DataType::Int32,
            F::To { jsonb, .. } | F::BuildObject { jsonb } | F::BuildArray { jsonb } => {
                if jsonb {
                    DataType::Jsonb
                } else {
                    DataType::Json
                }
            }
            F::Field { .. }
            | F::Element { .. }
            | F::Path { .. }
            | F::StripNulls { .. }
            | F::Object { .. }
            | F::SetLax
            | F::Insert
            | F::PathQuery { .. }
            | F::Concat
            | F::DeleteKey
            | F::DeleteIndex
            | F::DeleteKeys
            | F::DeletePath
            | F::AssignSubscript { .. }
            | F::Set => DataType::Jsonb,
        }
    }

    pub fn eval(self, args: &[Vector], rows: usize) -> Result<Vector> {
        if let JsonFunction::Field { as_text, json } | JsonFunction::Element { as_text, json } =
            self
        {
            return member_kernel(args, rows, as_text, json);
        }
        let physical = self.result().physical();
        if !self.is_strict() {
            return map_all_rows(args, rows, physical, |values| self.apply(values));
        }
        map_scalar_rows(args, rows, physical, |values| self.apply(values))
    }

    fn apply(self, values: &[ScalarValue]) -> Result<ScalarValue> {
        use JsonFunction as F;
        match self {
            F::Field { .. } | F::Element { .. } => {
                Err(Error::internal("json member access outside its kernel"))
            }
            F::Path { as_text, json } => {
                let (Some(ScalarValue::Jsonb(doc) | ScalarValue::Text(doc)), Some(steps)) =
                    (values.first(), values.get(1..))
                else {
                    return Err(argument_error(0));
                };
                // `#>` takes a text[]; json_extract_path its steps as variadic arguments.
                let path = match steps {
                    [ScalarValue::Array(_) | ScalarValue::ShapedArray(_)] => texts(values, 1)?,
                    _ => steps
                        .iter()
                        .map(|step| match step {
                            ScalarValue::Text(s) => Some(s.clone()),
                            _ => None,
                        })
                        .collect(),
                };
                let found = follow_path(doc, &path);
                Ok(match member_output(found, as_text)? {
                    None => ScalarValue::Null,
                    Some(text) if as_text || json => ScalarValue::Text(text.into_owned()),
                    Some(text) => ScalarValue::Jsonb(text.into_owned()),
                })
            }
            F::Contains { swapped } => {
                let (a, b) = (document(values, 0)?, document(values, 1)?);
                let (outer, inner) = if swapped { (b, a) } else { (a, b) };
                Ok(ScalarValue::Bool(contains(&outer, &inner)))
            }
            F::Exists => Ok(ScalarValue::Bool(
                document(values, 0)?.has_key(text(values, 1)?),
            )),
            F::ExistsKeys { all } => {
                let doc = document(values, 0)?;
                let keys = texts(values, 1)?;
                let mut present = keys.iter().flatten().map(|k| doc.has_key(k));
                Ok(ScalarValue::Bool(match all {
                    true => present.all(|p| p),
                    false => present.any(|p| p),
                }))
            }
            F::Concat => jsonb(concat(document(values, 0)?, document(values, 1)?)),
            F::DeleteKey => {
                let key = text(values, 1)?;
                jsonb(delete(document(values, 0)?, |k, v| match k {
                    Some(k) => k == key,
                    None => matches!(v, Json::String(s) if s == key),
                })?)
            }
            F::DeleteKeys => {
                let keys: Vec<String> = texts(values, 1)?.into_iter().flatten().collect();
                let matches = |s: &str| keys.iter().any(|k| k == s);
                jsonb(delete(document(values, 0)?, |k, v| match k {
                    Some(k) => matches(k),
                    None => matches!(v, Json::String(s) if matches(s)),
                })?)
            }
            F::DeleteIndex => jsonb(delete_index(document(values, 0)?, int(values, 1)?.into())?),
            F::DeletePath => {
                let mut doc = document(values, 0)?;
                if doc_is_scalar(&doc) {
                    return Err(invalid("cannot delete path in scalar"));
                }
                let path = texts(values, 1)?;
                json_edit::delete_path(&mut doc, &path, 0)?;
                jsonb(doc)
            }
            F::Typeof { json } => {
                let doc = parse_arg(values, 0, json)?;
                Ok(ScalarValue::Text(doc.type_name().into()))
            }
            F::ArrayLength { json } => match parse_arg(values, 0, json)? {
                Json::Array(items) => Ok(ScalarValue::Int32(items.len() as i32)),
                Json::Object(_) => Err(invalid("cannot get array length of a non-array")),
                _ => Err(invalid("cannot get array length of a scalar")),
            },
            F::Pretty => {
                let mut out = String::new();
                write_pretty(&document(values, 0)?, 0, &mut out);
                Ok(ScalarValue::Text(out))
            }
            F::To { ty, jsonb } => finish(value_json(&values[0], ty)?, jsonb),
            F::Items(items) => items.apply(values),
            F::AssignSubscript { expect_array } => {
                let path = texts(values, 1)?;
                let Some(path) = path.into_iter().collect::<Option<Vec<String>>>() else {
                    return Err(Error::new(
                        SqlState::NullValueNotAllowed,
                        "jsonb subscript in assignment must not be null",
                    ));
                };
                let doc = match values.first() {
                    Some(ScalarValue::Null) if expect_array => Json::Array(Vec::new()),
                    Some(ScalarValue::Null) => Json::Object(Vec::new()),
                    _ => document(values, 0)?,
                };
                let new = match values.get(2) {
                    Some(ScalarValue::Null) => Json::Null,
                    _ => document(values, 2)?,
                };
                jsonb(json_edit::assign_path(doc, &path, new)?)
            }
            F::SetLax if values[..2].iter().any(ScalarValue::is_null) => Ok(ScalarValue::Null),
            F::Set | F::SetLax => {
                let (doc, path) = (document(values, 0)?, texts(values, 1)?);
                let create = !matches!(
                    values.get(3),
                    Some(ScalarValue::Bool(false) | ScalarValue::Null)
                );
                let edit = PathEdit::Set { create };
                jsonb(match values.get(2) {
                    Some(ScalarValue::Null) => {
                        let treatment = match values.get(4) {
                            Some(ScalarValue::Text(t)) => Some(t.as_str()),
                            Some(_) => None,
                            None => Some("use_json_null"),
                        };
                        json_edit::set_lax_null(doc, &path, create, treatment)?
                    }
                    _ => json_edit::edit_path(doc, &path, document(values, 2)?, edit)?,
                })
            }
            F::Insert => {
                let after = matches!(values.get(3), Some(ScalarValue::Bool(true)));
                let (doc, path, new) = (
                    document(values, 0)?,
                    texts(values, 1)?,
                    document(values, 2)?,
                );
                jsonb(json_edit::edit_path(
                    doc,
                    &path,
                    new,
                    PathEdit::Insert { after },
                )?)
            }
            F::StripNulls { json } => {
                let mut doc = parse_arg(values, 0, json)?;
                json_edit::strip_nulls(&mut doc);
                match json {
                    true => {
                        let mut out = String::new();
                        json_edit::write_compact(&doc, &mut out);
                        Ok(ScalarValue::Text(out))
                    }
                    false => jsonb(doc),
                }
            }
            F::Object { jsonb } => finish(json_edit::object_from_texts(values)?, jsonb),
            F::PathQuery { mode, operator } => json_path::apply(mode, operator, values),
            F::BuildArray { jsonb } => {
                let mut out = String::from("[");
                for (i, value) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_value_json(value, DataType::Json, &mut out)?;
                }
                out.push(']');
                finish(out, jsonb)
            }
            F::BuildObject { jsonb } => build_object(values, jsonb),
        }
    }
}

/// `->` and `->>`: each document's member found by [`json::member`] without parsing the
/// document, copied straight into the result column.
fn member_kernel(args: &[Vector], rows: usize, as_text: bool, json: bool) -> Result<Vector> {
    let validity = super::kernel::strict_validity(args);
    let documents = match &super::kernel::arg(args, 0)?.data {
        VectorData::Jsonb(s) | VectorData::Text(s) => s,
        other => return Err(Error::internal(format!("-> on {:?}", other.physical()))),
    };
    let steps = &super::kernel::arg(args, 1)?.data;
    let mut out = StringVec::with_capacity(rows, rows * 8);
    let mut result_validity = Bitmap::new(rows, true);
    for row in 0..rows {
        let step = match steps {
            VectorData::Text(keys) => Step::Key(keys.get(row)),
            VectorData::Int32(indexes) => Step::Index(indexes[row].into()),
            other => return Err(Error::internal(format!("-> by {:?}", other.physical()))),
        };
        let found = match super::kernel::is_valid(&validity, row) {
            true => member_of(documents.get(row), step, json),
            false => None,
        };
        match member_output(found, as_text)? {
            Some(member) => out.push(&member),
            None => {
                out.push("");
                result_validity.set(row, false);
            }
        }
    }
    let data = match (as_text, json) {
        (false, false) => VectorData::Jsonb(out),
        _ => VectorData::Text(out),
    };
    let validity = (!result_validity.all_set()).then_some(result_validity);
    Ok(Vector::new(data, validity))
}

/// A member of `document`; jsonb treats a top-level scalar as a one-element array here.
fn member_of<'a>(document: &'a str, step: Step<'_>, json: bool) -> Option<&'a str> {
    let scalar = !document.starts_with(['{', '[']);
    match step {
        Step::Index(0 | -1) if scalar && !json => Some(document),
        _ => json::member(document, step),
    }
}

/// Every row, NULLs included (the builders).
fn map_all_rows(
    args: &[Vector],
    rows: usize,
    result: PhysicalType,
    mut f: impl FnMut(&[ScalarValue]) -> Result<ScalarValue>,
) -> Result<Vector> {
    let mut out = Vector::with_capacity(result, rows);
    let mut row_args = Vec::with_capacity(args.len());
    for row in 0..rows {
        row_args.clear();
        row_args.extend(args.iter().map(|a| a.get_scalar(row)));
        out.push_scalar(&f(&row_args)?)?;
    }
    Ok(out)
}

pub(super) fn invalid(message: &str) -> Error {
    Error::new(SqlState::InvalidParameterValue, message)
}

fn argument_error(idx: usize) -> Error {
    Error::internal(format!(
        "json function argument {} has another type",
        idx + 1
    ))
}

/// Argument `idx`, a jsonb document.
fn document(values: &[ScalarValue], idx: usize) -> Result<Json> {
    match values.get(idx) {
        Some(ScalarValue::Jsonb(text)) => json::parse_canonical(text),
        _ => Err(argument_error(idx)),
    }
}

/// Argument `idx`, json (text) when `json`, else jsonb.
fn parse_arg(values: &[ScalarValue], idx: usize, json: bool) -> Result<Json> {
    match (values.get(idx), json) {
        (Some(ScalarValue::Text(text)), true) => json::parse(text, JsonFlavor::Json),
        (_, false) => document(values, idx),
        _ => Err(argument_error(idx)),
    }
}

fn text(values: &[ScalarValue], idx: usize) -> Result<&str> {
    match values.get(idx) {
        Some(ScalarValue::Text(s)) => Ok(s),
        _ => Err(argument_error(idx)),
    }
}

fn int(values: &[ScalarValue], idx: usize) -> Result<i32> {
    match values.get(idx) {
        Some(ScalarValue::Int32(v)) => Ok(*v),
        _ => Err(argument_error(idx)),
    }
}

/// A text[] argument; NULL elements are `None`.
fn texts(values: &[ScalarValue], idx: usize) -> Result<Vec<Option<String>>> {
    match values.get(idx) {
        Some(ScalarValue::ShapedArray(_)) => Err(unsupported_shape("json paths")),
        Some(ScalarValue::Array(items)) => items
            .iter()
            .map(|item| match item {
                ScalarValue::Null => Ok(None),
                ScalarValue::Text(s) => Ok(Some(s.clone())),
                _ => Err(argument_error(idx)),
            })
            .collect(),
        _ => Err(argument_error(idx)),
    }
}

fn jsonb(mut value: Json) -> Result<ScalarValue> {
    value.normalize();
    Ok(ScalarValue::Jsonb(value.to_text()))
}

/// `->` gives the member's text as it is, `->>` a string unquoted and JSON null as SQL NULL;
/// absent is NULL.
fn member_output(found: Option<&str>, as_text: bool) -> Result<Option<Cow<'_, str>>> {
    Ok(match (found, as_text) {
        (Some("null"), true) | (None, _) => None,
        // The string's own bytes when it has no escapes: no parse, no copy.
        (Some(quoted), true) if quoted.starts_with('"') => json::unquote(quoted),
        (Some(member), _) => Some(Cow::Borrowed(member)),
    })
}

/// `#>`: each step a key of an object or an integer index of an array, found by scanning
/// as `->` does; a NULL or missing step gives NULL.
fn follow_path<'a>(doc: &'a str, path: &[Option<String>]) -> Option<&'a str> {
    let mut at = doc;
    for step in path {
        let step = step.as_deref()?;
        let step = match at.starts_with('[') {
            true => Step::Index(step.trim().parse().ok()?),
            false => Step::Key(step),
        };
        at = json::member(at, step)?;
    }
    Some(at)
}

/// JsonbDeepContains at the top: an object never contains a non-object and back.
fn contains(outer: &Json, inner: &Json) -> bool {
    let is_object = |j: &Json| matches!(j, Json::Object(_));
    is_object(outer) == is_object(inner) && outer.contains_top(inner)
}

fn doc_is_scalar(doc: &Json) -> bool {
    !matches!(doc, Json::Array(_) | Json::Object(_))
}

/// jsonb `||`: two objects merge (the right one's keys win); otherwise both sides become
/// arrays (a scalar or object as a one-element array) and are concatenated.
fn concat(left: Json, right: Json) -> Json {
    match (left, right) {
        (Json::Object(mut a), Json::Object(b)) => {
            a.extend(b);
            Json::Object(a)
        }
        (a, b) => {
            let as_items = |j: Json| match j {
                Json::Array(items) => items,
                other => vec![other],
            };
            let mut items = as_items(a);
            items.extend(as_items(b));
            Json::Array(items)
        }
    }
}

/// jsonb `-` key(s): the object's pairs whose key matches, or the array's matching string
/// elements, removed.
fn delete(doc: Json, matches: impl Fn(Option<&str>, &Json) -> bool) -> Result<Json> {
    Ok(match doc {
        Json::Object(pairs) => Json::Object(
            pairs
                .into_iter()
                .filter(|(k, v)| !matches(Some(k), v))
                .collect(),
        ),
        Json::Array(items) => {
            Json::Array(items.into_iter().filter(|v| !matches(None, v)).collect())
        }
        _ => return Err(invalid("cannot delete from scalar")),
    })
}

fn delete_index(doc: Json, index: i64) -> Result<Json> {
    match doc {
        Json::Array(mut items) => {
            let at = json_edit::array_position(items.len(), index);
            if let Some(at) = usize::try_from(at).ok().filter(|&at| at < items.len()) {
                items.remove(at);
            }
            Ok(Json::Array(items))
        }
        Json::Object(_) => Err(invalid("cannot delete from object using integer index")),
        _ => Err(invalid("cannot delete from scalar")),
    }
}

/// jsonb_pretty: four spaces per level, one element or pair per line.
fn write_pretty(value: &Json, level: usize, out: &mut String) {
    let indent = |level: usize, out: &mut String| out.extend(std::iter::repeat_n("    ", level));
    match value {
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                indent(level + 1, out);
                write_pretty(item, level + 1, out);
            }
            out.push('\n');
            indent(level, out);
            out.push(']');
        }
        Json::Object(pairs) => {
            out.push('{');
            for (i, (key, item)) in pairs.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                indent(level + 1, out);
                json::write_string(key, out);
                out.push_str(": ");
                write_pretty(item, level + 1, out);
            }
            out.push('\n');
            indent(level, out);
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_text()),
    }
}

/// The json text of a builder's result; jsonb normalises it.
fn finish(text: String, jsonb: bool) -> Result<ScalarValue> {
    Ok(match jsonb {
        true => ScalarValue::Jsonb(json::jsonb_from_text(&text)?),
        false => ScalarValue::Text(text),
    })
}

/// `json[b]_build_object`: keys are any scalar, turned into text; values any value.
fn build_object(values: &[ScalarValue], jsonb: bool) -> Result<ScalarValue> {
    if !values.len().is_multiple_of(2) {
        return Err(
            invalid("argument list must have even number of elements").with_hint(format!(
                "The arguments of {}() must consist of alternating keys and values.",
                if jsonb {
                    "jsonb_build_object"
                } else {
                    "json_build_object"
                }
            )),
        );
    }
    let mut out = String::from("{");
    for (i, pair) in values.chunks(2).enumerate() {
        if pair[0].is_null() {
            return Err(invalid(&format!(
                "argument {}: key must not be null",
                2 * i + 1
            )));
        }
        if i > 0 {
            out.push_str(", ");
        }
        // Keys are the values cast to text, so booleans spell their words.
        let mut key = Vec::new();
        match &pair[0] {
            ScalarValue::Bool(b) => key.extend_from_slice(if *b { b"true" } else { b"false" }),
            other => text_io::write_scalar_text(other, &mut key),
        }
        json::write_string(&String::from_utf8_lossy(&key), &mut out);
        // json_build_object spaces its colons; jsonb prints its own canonical form.
        out.push_str(" : ");
        write_value_json(&pair[1], DataType::Json, &mut out)?;
    }
    out.push('}');
    finish(out, jsonb)
}

/// to_json of a value of type `ty`: numbers and booleans bare, json as it is, dates and
/// timestamps in ISO 8601 with a `T`, arrays as JSON arrays, everything else as a string of
/// its text output.
pub(crate) fn value_json(value: &ScalarValue, ty: DataType) -> Result<String> {
    let mut out = String::new();
    write_value_json(value, ty, &mut out)?;
    Ok(out)
}

fn write_value_json(value: &ScalarValue, ty: DataType, out: &mut String) -> Result<()> {
    let mut text = Vec::new();
    text_io::write_scalar_text(value, &mut text);
    let text = String::from_utf8_lossy(&text).into_owned();
    match (value, ty) {
        (ScalarValue::Null, _) => out.push_str("null"),
        (ScalarValue::Bool(b), _) => out.push_str(if *b { "true" } else { "false" }),
        // Only the integer, float and numeric types are JSON numbers: an oid is a string.
        (ScalarValue::Int64(_), DataType::Oid(_)) => json::write_string(&text, out),
        (ScalarValue::Int16(_) | ScalarValue::Int32(_) | ScalarValue::Int64(_), _) => {
            out.push_str(&text)
        }
        // NaN and the infinities are no JSON numbers: PostgreSQL quotes them.
        (ScalarValue::Float32(_) | ScalarValue::Float64(_) | ScalarValue::Numeric(_), _) => {
            match text.bytes().any(|b| b.is_ascii_alphabetic() && b != b'e') {
                true => json::write_string(&text, out),
                false => out.push_str(&text),
            }
        }
        (ScalarValue::Text(s), DataType::Json) => out.push_str(s),
        (ScalarValue::Jsonb(s), _) => out.push_str(s),
        (ScalarValue::Timestamp(v), _) => json::write_string(&iso_timestamp(*v, false), out),
        (ScalarValue::TimestampTz(v), _) => json::write_string(&iso_timestamp(*v, true), out),
        (ScalarValue::Array(items), DataType::Array(elem)) => write_array_json(items, *elem, out)?,
        // array_to_json: nested JSON arrays, one per dimension; lower bounds do not show.
        (ScalarValue::ShapedArray(shaped), DataType::Array(elem)) => {
            let lens: Vec<usize> = shaped.dims().iter().map(|d| d.len as usize).collect();
            write_nested_json(&lens, shaped.elements(), *elem, out)?
        }
        // composite_to_json: an object of the fields, named as the record's.
        (ScalarValue::Record(values), DataType::Record(record)) => {
            out.push('{');
            for (i, (value, field)) in values.iter().zip(&record.fields).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json::write_string(&field.name, out);
                out.push(':');
                write_value_json(value, field.ty, out)?;
            }
            out.push('}');
        }
        _ => json::write_string(&text, out),
    }
    Ok(())
}

/// The elements of an array of dimensions `lens` as nested JSON arrays.
fn write_nested_json(
    lens: &[usize],
    items: &[ScalarValue],
    elem: DataType,
    out: &mut String,
) -> Result<()> {
    match lens {
        [] | [_] => write_array_json(items, elem, out),
        [outer, inner @ ..] => {
            let span = items.len() / (*outer).max(1);
            out.push('[');
            for (i, chunk) in items.chunks(span.max(1)).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_nested_json(inner, chunk, elem, out)?;
            }
            out.push(']');
            Ok(())
        }
    }
}

/// One JSON array of the items.
fn write_array_json(items: &[ScalarValue], elem: DataType, out: &mut String) -> Result<()> {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_value_json(item, elem, out)?;
    }
    out.push(']');
    Ok(())
}

/// A timestamp as JSON writes it (XSD style): `2024-01-02T03:04:05`, and for timestamptz
/// the local time in the session zone with its offset, `-07:00`.
fn iso_timestamp(micros: i64, zoned: bool) -> String {
    let mut text = Vec::new();
    let iso = crate::types::datetime_style::Styles::DEFAULT;
    datetime::write_timestamp_styled(micros, zoned, iso, &mut text);
    let mut text = String::from_utf8_lossy(&text).replacen(' ', "T", 1);
    // The offset always has minutes: `-07:00`, `+05:30`.
    let offset_len = text.rfind(['+', '-']).map_or(0, |at| text.len() - at);
    if zoned && offset_len == 3 {
        text.push_str(":00");
    }
    text
}
