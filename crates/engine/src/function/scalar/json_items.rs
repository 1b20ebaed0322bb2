//! The set-returning json functions — `json[b]_array_elements(_text)`,
//! `json[b]_object_keys`, `json[b]_each(_text)` — as FROM reads them: each output column is
//! the unnest of an array that a scalar function computes from the document, and the columns
//! of one function unnest in lockstep. The members are read off the text without a tree
//! ([`json::Members`]), so json keeps its verbatim members and duplicate keys, and jsonb's
//! members are canonical text already.

use super::json::invalid;
use crate::error::{Error, Result};
use crate::types::json::{self, Container, Members};
use crate::types::{DataType, ScalarValue};

/// Which set-returning function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemsKind {
    ArrayElements,
    ObjectKeys,
    Each,
    /// `json[b]_to_record(doc) AS x(col type, ...)`: one column per definition, the field
    /// named by the call's second argument, of the document itself.
    ToRecord,
    /// `json[b]_to_recordset`: the same field of each object of the document's array.
    ToRecordset,
    /// `jsonb_path_query(target, path [, vars [, silent]])`: the path's items.
    PathQuery,
}

/// One output column of a set-returning json function, computed as an array per document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonItems {
    pub kind: ItemsKind,
    /// The `_text` forms: values as `->>` gives them.
    pub as_text: bool,
    /// The `json_` forms (else `jsonb_`).
    pub json: bool,
    /// The column of the keys (else of the values).
    pub keys: bool,
    /// A json_to_record column of an array type: a JSON array value becomes array text
    /// (`[1,[2]]` → `{"1",{"2"}}`), as PostgreSQL's populate_array reads it.
    pub array_literal: bool,
}

impl JsonItems {
    /// The output columns of the set-returning json function `name`, each with its name;
    /// `None` if `name` is no such function.
    pub fn columns(name: &str) -> Option<Vec<(JsonItems, &'static str)>> {
        let (json, rest) = match name.strip_prefix("jsonb_") {
            Some(rest) => (false, rest),
            None => (true, name.strip_prefix("json_")?),
        };
        use ItemsKind as K;
        let column = |kind, as_text, keys| JsonItems {
            kind,
            as_text,
            json,
            keys,
            array_literal: false,
        };
        let each = |as_text| {
            vec![
                (column(K::Each, as_text, true), "key"),
                (column(K::Each, as_text, false), "value"),
            ]
        };
        Some(match rest {
            "array_elements" => vec![(column(K::ArrayElements, false, false), "value")],
            "array_elements_text" => vec![(column(K::ArrayElements, true, false), "value")],
            "object_keys" => {
                let keys = column(K::ObjectKeys, true, true);
                vec![(keys, keys.name())]
            }
            "each" => each(false),
            "each_text" => each(true),
            "path_query" if !json => {
                let items = column(K::PathQuery, false, false);
                vec![(items, items.name())]
            }
            _ => return None,
        })
    }

    /// The column of field `as_json` (json or jsonb as the document's, else text) of the
    /// record function `name`, whose columns a column definition list gives.
    pub fn record_field(name: &str) -> Option<JsonItems> {
        let (json, kind) = match name {
            "json_to_record" => (true, ItemsKind::ToRecord),
            "jsonb_to_record" => (false, ItemsKind::ToRecord),
            "json_to_recordset" => (true, ItemsKind::ToRecordset),
            "jsonb_to_recordset" => (false, ItemsKind::ToRecordset),
            _ => return None,
        };
        Some(JsonItems {
            kind,
            as_text: true,
            json,
            keys: false,
            array_literal: false,
        })
    }

    /// These items as a column declared `declared` reads them: json and jsonb columns take
    /// the JSON text, array columns a JSON array as array text, others the `->>` text.
    pub fn reading(self, declared: DataType) -> JsonItems {
        JsonItems {
            as_text: !matches!(declared, DataType::Json | DataType::Jsonb),
            array_literal: matches!(declared, DataType::Array(_)),
            ..self
        }
    }

    /// Whether the column has a name of its own (an OUT parameter in PostgreSQL), which a
    /// table alias does not rename.
    pub fn has_own_name(self) -> bool {
        !matches!(self.kind, ItemsKind::ObjectKeys | ItemsKind::PathQuery)
    }

    pub fn name(self) -> &'static str {
        use ItemsKind as K;
        match (self.kind, self.as_text, self.json) {
            (K::ArrayElements, false, true) => "json_array_elements",
            (K::ArrayElements, true, true) => "json_array_elements_text",
            (K::ArrayElements, false, false) => "jsonb_array_elements",
            (K::ArrayElements, true, false) => "jsonb_array_elements_text",
            (K::ObjectKeys, _, true) => "json_object_keys",
            (K::ObjectKeys, _, false) => "jsonb_object_keys",
            (K::Each, false, true) => "json_each",
            (K::Each, true, true) => "json_each_text",
            (K::Each, false, false) => "jsonb_each",
            (K::Each, true, false) => "jsonb_each_text",
            (K::ToRecord, _, true) => "json_to_record",
            (K::ToRecord, _, false) => "jsonb_to_record",
            (K::ToRecordset, _, true) => "json_to_recordset",
            (K::ToRecordset, _, false) => "jsonb_to_recordset",
            (K::PathQuery, _, _) => "jsonb_path_query",
        }
    }

    /// The document's type.
    pub fn argument(self) -> DataType {
        match self.json {
            true => DataType::Json,
            false => DataType::Jsonb,
        }
    }

    /// The parameter types, and how many of them a call must give.
    pub fn parameters(self) -> (Vec<DataType>, usize) {
        match self.kind {
            ItemsKind::PathQuery => (
                vec![
                    DataType::Jsonb,
                    DataType::JsonPath,
                    DataType::Jsonb,
                    DataType::Bool,
                ],
                2,
            ),
            ItemsKind::ArrayElements
            | ItemsKind::ObjectKeys
            | ItemsKind::Each
            | ItemsKind::ToRecord
            | ItemsKind::ToRecordset => (vec![self.argument()], 1),
        }
    }

    /// The column's type as an array (FROM unnests it).
    pub fn result(self) -> DataType {
        match (self.keys || self.as_text, self.json) {
            (true, _) => DataType::Array(&DataType::Text),
            (false, true) => DataType::Array(&DataType::Json),
            (false, false) => DataType::Array(&DataType::Jsonb),
        }
    }

    /// The column's values for one row: the document (and, for the record functions, the
    /// field; for jsonb_path_query, the path, vars and silent).
    pub fn apply(self, values: &[ScalarValue]) -> Result<ScalarValue> {
        let document = match values.first() {
            Some(ScalarValue::Jsonb(doc) | ScalarValue::Text(doc)) => doc,
            // Only json_to_record reads a NULL document: one record of NULLs.
            Some(ScalarValue::Null) => return Ok(ScalarValue::Array(vec![ScalarValue::Null])),
            _ => return Err(Error::internal("json set function arguments")),
        };
        let field = match values.get(1) {
            Some(ScalarValue::Text(field)) => Some(field.as_str()),
            _ => None,
        };
        let (container, members) = members(document)?;
        let wanted = match self.kind {
            ItemsKind::ArrayElements | ItemsKind::ToRecordset => Container::Array,
            ItemsKind::ObjectKeys | ItemsKind::Each | ItemsKind::ToRecord => Container::Object,
            ItemsKind::PathQuery => {
                let items = super::json_path::path_items(values, false)?.unwrap_or_default();
                return Ok(ScalarValue::Array(
                    items
                        .into_iter()
                        .map(|mut item| {
                            item.normalize();
                            ScalarValue::Jsonb(item.to_text())
                        })
                        .collect(),
                ));
            }
        };
        if let (Some(field), ItemsKind::ToRecord | ItemsKind::ToRecordset) = (field, self.kind) {
            return self.record_fields(document, container, members, field);
        }
        if container != wanted {
            return Err(self.wrong_container(container));
        }
        members
            .map(|(key, value)| match (self.keys, key) {
                (true, Some(key)) => json::unquote(key)
                    .map(|k| ScalarValue::Text(k.into_owned()))
                    .ok_or_else(|| Error::internal("invariant: an object key is a string")),
                (true, None) => Err(Error::internal("invariant: an object member has a key")),
                (false, _) => Ok(self.value(value)),
            })
            .collect::<Result<Vec<_>>>()
            .map(ScalarValue::Array)
    }

    /// The field's value in the document (to_record) or in each of its objects
    /// (to_recordset); absent is NULL.
    fn record_fields(
        self,
        document: &str,
        container: Container,
        elements: Members<'_>,
        field: &str,
    ) -> Result<ScalarValue> {
        // An absent field and JSON null are both SQL NULL, in a json column too.
        let of_object = |object: &str| match json::member(object, json::Step::Key(field)) {
            Some("null") | None => ScalarValue::Null,
            Some(value) => self.value(value),
        };
        match (self.kind, container) {
            (ItemsKind::ToRecord, Container::Object) => {
                Ok(ScalarValue::Array(vec![of_object(document)]))
            }
            (ItemsKind::ToRecordset, Container::Array) => elements
                .map(|(_, element)| match members(element)?.0 {
                    Container::Object => Ok(of_object(element)),
                    Container::Array | Container::Scalar => Err(invalid(&format!(
                        "argument of {} must be an array of objects",
                        self.name()
                    ))),
                })
                .collect::<Result<Vec<_>>>()
                .map(ScalarValue::Array),
            _ => Err(self.wrong_container(container)),
        }
    }

    fn value(self, text: &str) -> ScalarValue {
        match (self.as_text, self.json) {
            (true, _) if text == "null" => ScalarValue::Null,
            (true, _) if self.array_literal && text.starts_with('[') => {
                let mut array = String::with_capacity(text.len());
                array_text(text, &mut array);
                ScalarValue::Text(array)
            }
            (true, _) => match json::unquote(text) {
                Some(s) => ScalarValue::Text(s.into_owned()),
                None => ScalarValue::Text(text.to_string()),
            },
            (false, true) => ScalarValue::Text(text.to_string()),
            (false, false) => ScalarValue::Jsonb(text.to_string()),
        }
    }

    /// PostgreSQL's error for a document of the wrong kind, which differs between the json
    /// and jsonb implementations.
    fn wrong_container(self, found: Container) -> Error {
        let name = self.name();
        let what = match found {
            Container::Object => "an object",
            Container::Array => "an array",
            Container::Scalar => "a scalar",
        };
        invalid(&match (self.kind, self.json, found) {
            (ItemsKind::ObjectKeys, _, _) => format!("cannot call {name} on {what}"),
            (ItemsKind::ArrayElements, false, _) => format!("cannot extract elements from {what}"),
            (ItemsKind::ArrayElements, true, Container::Object) => {
                format!("cannot call {name} on a non-array")
            }
            (ItemsKind::ArrayElements, true, _) => format!("cannot call {name} on {what}"),
            (ItemsKind::Each, false, _) => format!("cannot call {name} on a non-object"),
            (ItemsKind::Each, true, Container::Array) => {
                "cannot deconstruct an array as an object".to_string()
            }
            (ItemsKind::Each, true, _) => "cannot deconstruct a scalar".to_string(),
            (ItemsKind::ToRecord, _, _) => format!("cannot call populate_composite on {what}"),
            (ItemsKind::ToRecordset, false, _) => format!("cannot call {name} on a non-array"),
            (ItemsKind::ToRecordset, true, _) => format!("cannot call {name} on {what}"),
            (ItemsKind::PathQuery, _, _) => format!("cannot call {name} on {what}"),
        })
    }
}

/// The container kind and members of a stored json value.
/// A JSON value as an element of array text: an array as `{...}` of its elements, null as
/// NULL, anything else quoted (a string unquoted from JSON first).
fn array_text(value: &str, out: &mut String) {
    match Members::of(value) {
        Some((Container::Array, elements)) => {
            out.push('{');
            for (i, (_, element)) in elements.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                array_text(element, out);
            }
            out.push('}');
        }
        _ if value == "null" => out.push_str("NULL"),
        _ => {
            let text = json::unquote(value).unwrap_or(std::borrow::Cow::Borrowed(value));
            out.push('"');
            for c in text.chars() {
                if matches!(c, '"' | '\\') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
    }
}

fn members(document: &str) -> Result<(Container, Members<'_>)> {
    Members::of(document)
        .ok_or_else(|| Error::internal("invariant: a stored json value is complete"))
}
