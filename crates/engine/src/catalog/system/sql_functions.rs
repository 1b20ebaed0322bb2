//! The pg_proc rows of SQL functions (CREATE FUNCTION ... LANGUAGE sql), after those of the
//! built-in functions listed in `types.rs`.

use super::{boolean, char, int2, oid, text, CatalogSnapshot, Rows, NULL, SUPERUSER_OID};
use crate::catalog::{FunctionBody, FunctionDef, FunctionReturn};
use crate::types::ScalarValue;

/// pg_language's OID of `sql`.
const SQL_LANGUAGE_OID: u32 = 14;

pub(super) fn pg_proc_rows(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .functions
        .values()
        .map(|function| pg_proc_row(function))
        .collect()
}

fn pg_proc_row(function: &FunctionDef) -> Vec<ScalarValue> {
    let in_types: Vec<u32> = function.args.iter().map(|a| a.ty.oid()).collect();
    let count = |n: usize| int2(i16::try_from(n).unwrap_or(i16::MAX));
    // A TABLE function's columns are OUT parameters (mode `t`) of pg_proc's arrays.
    let outputs: &[(String, crate::types::DataType)] = match &function.returns {
        FunctionReturn::Table(columns) => columns,
        FunctionReturn::Scalar(_) | FunctionReturn::SetOf(_) => &[],
    };
    let (all_types, modes) = match outputs.is_empty() {
        true => (NULL, NULL),
        false => {
            let all = in_types
                .iter()
                .copied()
                .chain(outputs.iter().map(|(_, ty)| ty.oid()));
            let modes = function
                .args
                .iter()
                .map(|_| "i")
                .chain(outputs.iter().map(|_| "t"));
            // Both are opaque text columns here: their array text forms.
            let all: Vec<String> = all.map(|o| o.to_string()).collect();
            let modes: Vec<&str> = modes.collect();
            (
                text(&format!("{{{}}}", all.join(","))),
                text(&format!("{{{}}}", modes.join(","))),
            )
        }
    };
    let names: Vec<&str> = function
        .args
        .iter()
        .map(|a| a.name.as_deref().unwrap_or(""))
        .chain(outputs.iter().map(|(name, _)| name.as_str()))
        .collect();
    let arg_names = match names.iter().all(|n| n.is_empty()) {
        true => NULL,
        false => ScalarValue::Array(names.into_iter().map(text).collect()),
    };
    let source = match &function.body {
        FunctionBody::Text(source) => source.as_str(),
        FunctionBody::Return(_) => "",
    };
    let in_types: Vec<String> = in_types.iter().map(u32::to_string).collect();
    vec![
        oid(function.oid),
        text(&function.name.name),
        oid(function.name.schema),
        oid(SUPERUSER_OID),
        oid(SQL_LANGUAGE_OID),
        ScalarValue::Float32(100.0),
        ScalarValue::Float32(if function.returns.returns_set() {
            1000.0
        } else {
            0.0
        }),
        oid(0),
        text("-"),
        char(b'f'),
        boolean(false),
        boolean(false),
        boolean(function.strict),
        boolean(function.returns.returns_set()),
        char(function.volatility.code()),
        char(function.parallel),
        count(function.args.len()),
        count(function.defaults_count()),
        oid(function.returns.type_oid()),
        text(&in_types.join(" ")),
        all_types,
        modes,
        arg_names,
        NULL,
        NULL,
        text(source),
        NULL,
        NULL,
        NULL,
        NULL,
    ]
}
