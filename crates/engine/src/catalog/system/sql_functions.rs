//! The pg_proc rows of SQL functions (CREATE FUNCTION ... LANGUAGE sql), after those of the
//! built-in functions listed in `types.rs`.

use super::{boolean, char, int2, oid, oid_vector, text, CatalogSnapshot, Rows, NULL};
use crate::catalog::{
    quote_identifier, FunctionArg, FunctionBody, FunctionDef, FunctionReturn, Volatility,
    PG_CATALOG_OID, PUBLIC_OID,
};
use crate::storage::DbState;
use crate::types::{DataType, ScalarValue};

/// pg_language's OID of `sql`.
const SQL_LANGUAGE_OID: u32 = 14;

pub(super) fn pg_proc_rows(snapshot: &CatalogSnapshot) -> Rows {
    snapshot
        .state
        .functions
        .values()
        .map(|function| pg_proc_row(snapshot, function))
        .collect()
}

fn pg_proc_row(snapshot: &CatalogSnapshot, function: &FunctionDef) -> Vec<ScalarValue> {
    let privileges = snapshot.state.roles.function_privileges(function.oid);
    let in_types: Vec<u32> = function.inputs().map(FunctionArg::type_oid).collect();
    let count = |n: usize| int2(i16::try_from(n).unwrap_or(i16::MAX));
    // Every declared parameter with its mode, then a TABLE function's columns as OUT
    // parameters of mode `t`.
    let table_columns: &[(String, DataType)] = match &function.returns {
        FunctionReturn::Table(columns) if !function.has_out_params() => columns,
        FunctionReturn::Table(_)
        | FunctionReturn::Row(_)
        | FunctionReturn::Scalar(_)
        | FunctionReturn::SetOf(_)
        | FunctionReturn::Void => &[],
    };
    let all_params = function
        .args
        .iter()
        .map(|a| (a.name.as_deref().unwrap_or(""), a.type_oid(), a.mode.code()))
        .chain(
            table_columns
                .iter()
                .map(|(name, ty)| (name.as_str(), ty.oid(), "t")),
        );
    let (all_types, modes) = match function.has_modes() || !table_columns.is_empty() {
        false => (NULL, NULL),
        true => {
            // Both are opaque text columns here: their array text forms.
            let all: Vec<String> = all_params.clone().map(|(_, o, _)| o.to_string()).collect();
            let modes: Vec<&str> = all_params.clone().map(|(_, _, m)| m).collect();
            (
                text(&format!("{{{}}}", all.join(","))),
                text(&format!("{{{}}}", modes.join(","))),
            )
        }
    };
    let names: Vec<&str> = all_params.map(|(name, _, _)| name).collect();
    let arg_names = match names.iter().all(|n| n.is_empty()) {
        true => NULL,
        false => ScalarValue::Array(names.into_iter().map(text).collect()),
    };
    let source = match &function.body {
        FunctionBody::Text(source) => source.as_str(),
        FunctionBody::Return(_) => "",
    };
    vec![
        oid(function.oid),
        text(&function.name.name),
        oid(function.name.schema),
        oid(privileges.owner),
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
        count(in_types.len()),
        count(function.defaults_count()),
        oid(function.returns_oid()),
        oid_vector(in_types.iter().copied()),
        all_types,
        modes,
        arg_names,
        NULL,
        NULL,
        text(source),
        NULL,
        NULL,
        NULL,
        super::relations::acl_value(snapshot, privileges.acl.as_deref()),
    ]
}

/// The SQL function with OID `oid`, if it is one.
pub(super) fn sql_function<'s>(snapshot: &'s CatalogSnapshot, oid: u32) -> Option<&'s FunctionDef> {
    snapshot.state.functions.get(&oid).map(|f| f.as_ref())
}

/// pg_get_function_arguments: `[mode] [name] type [DEFAULT expr], ...`; without `defaults`,
/// pg_get_function_identity_arguments.
pub(super) fn function_arguments(
    snapshot: &CatalogSnapshot,
    function: &FunctionDef,
    defaults: bool,
) -> String {
    let args: Vec<String> = function
        .args
        .iter()
        .map(|arg| {
            let mut shown = arg.mode.keyword().to_string();
            if let Some(name) = &arg.name {
                shown.push_str(&quote_identifier(name));
                shown.push(' ');
            }
            shown.push_str(&shown_type(snapshot, arg.domain, arg.ty));
            if let Some(default) = arg.default.as_ref().filter(|_| defaults) {
                shown.push_str(" DEFAULT ");
                shown.push_str(default);
            }
            shown
        })
        .collect();
    args.join(", ")
}

/// pg_get_function_result: `type`, `SETOF type` or `TABLE(name type, ...)`.
pub(super) fn function_result(snapshot: &CatalogSnapshot, function: &FunctionDef) -> String {
    let domain = function.returns_domain;
    match &function.returns {
        FunctionReturn::Scalar(ty) => shown_type(snapshot, domain, *ty),
        FunctionReturn::SetOf(ty) => format!("SETOF {}", shown_type(snapshot, domain, *ty)),
        FunctionReturn::Row(_) => "record".to_string(),
        FunctionReturn::Void => "void".to_string(),
        FunctionReturn::Table(_) if function.has_out_params() => "SETOF record".to_string(),
        FunctionReturn::Table(columns) => {
            let columns: Vec<String> = columns
                .iter()
                .map(|(name, ty)| format!("{} {}", quote_identifier(name), ty.name()))
                .collect();
            format!("TABLE({})", columns.join(", "))
        }
    }
}

/// A parameter's or result's type as format_type names it: its domain, if declared as one.
fn shown_type(snapshot: &CatalogSnapshot, domain: Option<u32>, ty: DataType) -> String {
    match domain {
        Some(domain) => super::functions::type_name(snapshot, domain, -1),
        None => ty.name().to_string(),
    }
}

/// pg_get_functiondef: the CREATE OR REPLACE FUNCTION statement, laid out as ruleutils.c's
/// pg_get_functiondef does (what psql's `\sf` prints).
pub(super) fn function_definition(
    snapshot: &CatalogSnapshot,
    function: &FunctionDef,
    schema: &str,
) -> String {
    let mut out = format!(
        "CREATE OR REPLACE FUNCTION {}.{}({})\n RETURNS {}\n LANGUAGE sql\n",
        quote_identifier(schema),
        quote_identifier(&function.name.name),
        function_arguments(snapshot, function, true),
        function_result(snapshot, function),
    );
    let mut options = String::new();
    if function.volatility != Volatility::Volatile {
        options.push(' ');
        options.push_str(function.volatility.keyword());
    }
    match function.parallel {
        b's' => options.push_str(" PARALLEL SAFE"),
        b'r' => options.push_str(" PARALLEL RESTRICTED"),
        _ => {}
    }
    if function.strict {
        options.push_str(" STRICT");
    }
    if !options.is_empty() {
        out.push_str(&options);
        out.push('\n');
    }
    match &function.body {
        FunctionBody::Return(expr) => out.push_str(&format!("RETURN {expr}")),
        FunctionBody::Text(source) => {
            // Dollar quotes that the body does not contain.
            let mut quote = "$function".to_string();
            while source.contains(&quote) {
                quote.push('x');
            }
            quote.push('$');
            out.push_str(&format!("AS {quote}{source}{quote}"));
        }
    }
    out.push('\n');
    out
}

/// pg_function_is_visible of a SQL function: no function of its name and argument types
/// comes before it along the search path.
pub(super) fn function_visible(snapshot: &CatalogSnapshot, oid: u32) -> Option<bool> {
    let function = sql_function(snapshot, oid)?;
    let searched = match snapshot.search_path {
        Some(path) => path.searched(snapshot.state),
        None => vec![PG_CATALOG_OID, PUBLIC_OID],
    };
    let arg_types = function.arg_types();
    let first = searched.into_iter().find(|&schema| {
        snapshot.state.functions.values().any(|other| {
            other.name.schema == schema
                && other.name.name == function.name.name
                && other.arg_types() == arg_types
        })
    });
    Some(first == Some(function.name.schema))
}

/// regprocin / regprocedurein of a SQL function: `name`, `schema.name`, or (regprocedure)
/// `name(type, ...)`, unqualified names looked up along `searched`. `None` when no single
/// SQL function matches (the name then stays text, as built-in function names do here).
pub fn sql_function_oid(state: &DbState, searched: &[u32], written: &str) -> Option<u32> {
    let written = written.trim();
    let (name, types) = match written.split_once('(') {
        Some((name, rest)) => (name.trim(), Some(rest.strip_suffix(')')?.trim())),
        None => (written, None),
    };
    let (schemas, name) = match name.split_once('.') {
        Some((schema, name)) => (vec![state.schema_by_name(schema)?.oid], name),
        None => (searched.to_vec(), name),
    };
    let mut found = state.functions.values().filter(|f| {
        f.name.name == name
            && schemas.contains(&f.name.schema)
            && types.is_none_or(|types| {
                let declared: Vec<&str> = f.inputs().map(|a| a.ty.name()).collect();
                declared.join(", ")
                    == types
                        .split(',')
                        .map(str::trim)
                        .collect::<Vec<_>>()
                        .join(", ")
            })
    });
    let first = found.next()?;
    found.next().is_none().then_some(first.oid)
}
