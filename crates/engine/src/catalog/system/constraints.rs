//! The constraints of a table that own no index (`TableSchema::constraints`, CHECK) as
//! pg_constraint rows and pg_get_constraintdef text. Their OIDs are derived from the table's
//! OID and their position in the list, after the block the unique keys use.

use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::relations::{derived_oid, ConstraintRow, Derived, CHECK_OID_OFFSET};
use super::{text, CatalogSnapshot};
use crate::catalog::{Constraint, ConstraintKind, TableSchema};
use crate::types::ScalarValue;

pub(super) fn constraint_oid(schema: &TableSchema, position: usize) -> u32 {
    derived_oid(schema.oid, Derived::Constraint, CHECK_OID_OFFSET + position)
}

/// pg_class.relchecks: the table's CHECK constraints.
pub(super) fn check_count(schema: &TableSchema) -> usize {
    schema
        .constraints
        .iter()
        .filter(|c| match c.kind {
            ConstraintKind::Check(_) => true,
        })
        .count()
}

/// pg_constraint's row (its columns as `PG_CONSTRAINT` declares them) for each constraint.
pub(super) fn pg_constraint_rows(schema: &TableSchema, rows: &mut Vec<Vec<ScalarValue>>) {
    for (position, constraint) in schema.constraints.iter().enumerate() {
        let (contype, columns, no_inherit, conbin) = match &constraint.kind {
            ConstraintKind::Check(check) => (
                b'c',
                referenced_columns(schema, &check.expr.sql),
                check.no_inherit,
                text(&check.expr.definition),
            ),
        };
        rows.push(
            ConstraintRow {
                oid: constraint_oid(schema, position),
                name: &constraint.name,
                validated: constraint.validated,
                no_inherit,
                columns: &columns,
                conbin,
                ..ConstraintRow::new(schema, contype)
            }
            .into_row(),
        );
    }
}

/// pg_get_expr(expr, relation, true) of a CHECK's conbin or a generated column's adbin,
/// which hold the plain definition: the pretty one of the same expression.
pub(super) fn pretty_expr(
    relation: u32,
    plain: &str,
    snapshot: &CatalogSnapshot,
) -> Option<String> {
    let entry = snapshot.state.tables.get(&relation)?;
    let schema = &entry.schema;
    let checks = schema.constraints.iter().map(|c| match &c.kind {
        ConstraintKind::Check(check) => &check.expr,
    });
    let generated = schema.columns.iter().filter_map(|c| c.generated.as_ref());
    checks
        .chain(generated)
        .find(|expr| expr.definition == plain)
        .map(|expr| expr.definition_pretty.clone())
}

/// pg_get_constraintdef of the constraint with OID `wanted` of `schema`, if one.
pub(super) fn definition(schema: &TableSchema, wanted: u32, pretty: bool) -> Option<String> {
    let position = (0..schema.constraints.len()).find(|&p| constraint_oid(schema, p) == wanted)?;
    Some(constraint_definition(&schema.constraints[position], pretty))
}

/// The constraint as pg_get_constraintdef prints it.
pub(super) fn constraint_definition(constraint: &Constraint, pretty: bool) -> String {
    let mut out = match &constraint.kind {
        ConstraintKind::Check(check) => {
            let expr = match pretty {
                true => &check.expr.definition_pretty,
                false => &check.expr.definition,
            };
            let mut out = format!("CHECK ({expr})");
            if check.no_inherit {
                out.push_str(" NO INHERIT");
            }
            out
        }
    };
    if !constraint.validated {
        out.push_str(" NOT VALID");
    }
    out
}

/// The positions of the columns an expression's text names, in column order (conkey).
pub(super) fn referenced_columns(schema: &TableSchema, sql: &str) -> Vec<usize> {
    let Ok(tokens) = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize() else {
        return Vec::new();
    };
    let mut columns: Vec<usize> = tokens
        .iter()
        .filter_map(|token| match token {
            Token::Word(word) => {
                let name = match word.quote_style {
                    Some(_) => word.value.clone(),
                    None => word.value.to_lowercase(),
                };
                schema.column_index(&name)
            }
            _ => None,
        })
        .collect();
    columns.sort_unstable();
    columns.dedup();
    columns
}
