//! Storage parameters (`CREATE TABLE ... WITH (fillfactor = 90)`, `ALTER TABLE ... SET
//! (...)`): PostgreSQL's heap reloptions, checked with its names, ranges and messages.
//! They tune a heap's page layout and vacuuming, neither of which a column store has, so
//! a valid one is accepted and has no effect (as PostgreSQL ignores most of them for a
//! table that is never vacuumed); an unknown one is PostgreSQL's 22023.

use sqlparser::ast::{Expr, SqlOption, UnaryOperator, Value};

use super::ident_name;
use crate::error::{Error, Result, SqlState};

/// How a parameter's value is checked.
enum Kind {
    /// An integer within the bounds.
    Int(i64, i64),
    /// A number within the bounds.
    Real(f64, f64),
    Bool,
    /// `vacuum_index_cleanup`: auto, on or off.
    IndexCleanup,
}

/// PostgreSQL 15's heap parameters (`heap_reloptions`). sqlparser does not parse the
/// `toast.` ones.
fn kind(name: &str) -> Option<Kind> {
    Some(match name {
        "fillfactor" => Kind::Int(10, 100),
        "toast_tuple_target" => Kind::Int(128, 8160),
        "parallel_workers" => Kind::Int(0, 1024),
        "autovacuum_enabled" | "user_catalog_table" | "vacuum_truncate" => Kind::Bool,
        "vacuum_index_cleanup" => Kind::IndexCleanup,
        "autovacuum_vacuum_threshold" | "autovacuum_analyze_threshold" => {
            Kind::Int(0, i64::from(i32::MAX))
        }
        "autovacuum_vacuum_insert_threshold" => Kind::Int(-1, i64::from(i32::MAX)),
        "autovacuum_vacuum_cost_limit" => Kind::Int(1, 10000),
        "autovacuum_freeze_min_age" => Kind::Int(0, 1_000_000_000),
        "autovacuum_freeze_max_age" | "autovacuum_multixact_freeze_max_age" => {
            Kind::Int(100_000, 2_000_000_000)
        }
        "autovacuum_freeze_table_age" | "autovacuum_multixact_freeze_table_age" => {
            Kind::Int(0, 2_000_000_000)
        }
        "autovacuum_multixact_freeze_min_age" => Kind::Int(0, 1_000_000_000),
        "log_autovacuum_min_duration" => Kind::Int(-1, i64::from(i32::MAX)),
        "autovacuum_vacuum_cost_delay" => Kind::Real(0.0, 100.0),
        "autovacuum_vacuum_scale_factor"
        | "autovacuum_vacuum_insert_scale_factor"
        | "autovacuum_analyze_scale_factor" => Kind::Real(0.0, 100.0),
        _ => return None,
    })
}

pub(super) fn invalid(message: String) -> Error {
    Error::new(SqlState::InvalidParameterValue, message)
}

/// Checks each `name = value` as PostgreSQL's `parseRelOptions` does.
pub(super) fn check_storage_parameters(options: &[SqlOption]) -> Result<()> {
    for option in options {
        let (name, value) = match option {
            SqlOption::KeyValue { key, value } => (ident_name(key), Some(value)),
            SqlOption::Ident(key) => (ident_name(key), None),
            other => return Err(Error::unsupported(format!("the storage parameter {other}"))),
        };
        let kind =
            kind(&name).ok_or_else(|| invalid(format!("unrecognized parameter \"{name}\"")))?;
        let text = match value {
            None => "true".to_string(),
            Some(value) => value_text(value).ok_or_else(|| {
                Error::unsupported(format!("the storage parameter value {value}"))
            })?,
        };
        check_value(&name, &kind, &text)?;
    }
    Ok(())
}

/// An integer reloption of an index access method (hnsw's m), checked as PostgreSQL checks
/// those of the heap.
pub(super) fn integer_option(name: &str, value: &Expr, (low, high): (i64, i64)) -> Result<i64> {
    let text = value_text(value)
        .ok_or_else(|| Error::unsupported(format!("the storage parameter value {value}")))?;
    check_value(name, &Kind::Int(low, high), &text)?;
    text.trim().parse().map_err(|_| {
        invalid(format!(
            "invalid value for integer option \"{name}\": {text}"
        ))
    })
}

/// The value as PostgreSQL's grammar hands it over: a number, word or string as text.
fn value_text(value: &Expr) -> Option<String> {
    match value {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Some(n.clone()),
            Value::SingleQuotedString(s) => Some(s.clone()),
            Value::Boolean(b) => Some(b.to_string()),
            _ => None,
        },
        Expr::Identifier(ident) => Some(ident.value.clone()),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => value_text(expr).map(|t| format!("-{t}")),
        _ => None,
    }
}

fn check_value(name: &str, kind: &Kind, text: &str) -> Result<()> {
    match *kind {
        Kind::Int(low, high) => {
            let value: i64 = text.trim().parse().map_err(|_| {
                invalid(format!(
                    "invalid value for integer option \"{name}\": {text}"
                ))
            })?;
            if !(low..=high).contains(&value) {
                return Err(out_of_bounds(
                    name,
                    text,
                    &low.to_string(),
                    &high.to_string(),
                ));
            }
        }
        Kind::Real(low, high) => {
            let value: f64 = text.trim().parse().map_err(|_| {
                invalid(format!(
                    "invalid value for floating point option \"{name}\": {text}"
                ))
            })?;
            if !(low..=high).contains(&value) {
                return Err(out_of_bounds(
                    name,
                    text,
                    &format!("{low:.6}"),
                    &format!("{high:.6}"),
                ));
            }
        }
        Kind::Bool => {
            if parse_bool(text).is_none() {
                return Err(invalid(format!(
                    "invalid value for boolean option \"{name}\": {text}"
                )));
            }
        }
        Kind::IndexCleanup => {
            if !text.eq_ignore_ascii_case("auto") && parse_bool(text).is_none() {
                return Err(
                    invalid(format!("invalid value for enum option \"{name}\": {text}"))
                        .with_detail("Valid values are \"on\", \"off\", and \"auto\"."),
                );
            }
        }
    }
    Ok(())
}

fn out_of_bounds(name: &str, text: &str, low: &str, high: &str) -> Error {
    invalid(format!("value {text} out of bounds for option \"{name}\"")).with_detail(format!(
        "Valid values are between \"{low}\" and \"{high}\"."
    ))
}

/// PostgreSQL's `parse_bool`: unique prefixes of true/false/yes/no, on/off, 1/0.
fn parse_bool(text: &str) -> Option<bool> {
    let t = text.trim().to_ascii_lowercase();
    let prefix_of = |word: &str| !t.is_empty() && word.starts_with(&t);
    match t.as_str() {
        "1" | "on" => Some(true),
        "0" | "off" => Some(false),
        _ if prefix_of("true") || prefix_of("yes") => Some(true),
        _ if prefix_of("false") || (t.len() >= 2 && prefix_of("no")) => Some(false),
        _ if t == "n" => Some(false),
        _ => None,
    }
}
