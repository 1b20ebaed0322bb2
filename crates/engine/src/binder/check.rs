//! CHECK constraints: binding a constraint's expression over its table's row with
//! PostgreSQL's rules (boolean, no subqueries, aggregates or window functions), naming it as
//! PostgreSQL does, and binding a table's constraints for the writes that must pass them.

use sqlparser::ast::{self, Ident};

use super::dml::{parse_expr, table_scope};
use super::{ident_name, Binder};
use crate::catalog::{CheckConstraint, Constraint, ConstraintKind, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::plan::{deparse_expr, RowCheck, ScalarExpr};

/// A CHECK as written in CREATE TABLE or ALTER TABLE ADD CONSTRAINT.
pub(super) struct WrittenCheck<'a> {
    pub name: Option<&'a Ident>,
    pub expr: &'a ast::Expr,
    pub no_inherit: bool,
}

impl<'a> WrittenCheck<'a> {
    /// A column or table CHECK of sqlparser; MySQL's [NOT] ENFORCED is PostgreSQL's syntax
    /// error.
    pub fn from_ast(check: &'a ast::CheckConstraint) -> Result<WrittenCheck<'a>> {
        let ast::CheckConstraint {
            name,
            expr,
            no_inherit,
            enforced,
        } = check;
        if enforced.is_some() {
            return Err(Error::syntax("syntax error at or near \"ENFORCED\""));
        }
        Ok(WrittenCheck {
            name: name.as_ref(),
            expr,
            no_inherit: *no_inherit,
        })
    }
}

impl Binder<'_> {
    /// A CHECK expression bound over `schema`'s row.
    fn bind_check_expr(&mut self, schema: &TableSchema, expr: &ast::Expr) -> Result<ScalarExpr> {
        let scope = table_scope(schema, &schema.name);
        self.aggregate_forbidden_in = Some("check constraints");
        let bound = self.bind_condition(expr, &scope, "CHECK");
        self.aggregate_forbidden_in = None;
        let bound = bound?;
        let mut subquery = false;
        bound.visit(&mut |e| subquery |= matches!(e, ScalarExpr::Subquery(_)));
        if subquery {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "cannot use subquery in check constraint",
            ));
        }
        Ok(bound)
    }

    /// A new CHECK constraint of `schema` (whose constraints so far are in the schema): its
    /// name as written, which must be free on the table, or PostgreSQL's
    /// `table_column_check` (the column when the expression reads exactly one) with a number
    /// added while the name is taken in the table's schema.
    pub(super) fn new_check(
        &mut self,
        schema: &TableSchema,
        check: &WrittenCheck<'_>,
        validated: bool,
    ) -> Result<Constraint> {
        let bound = self.bind_check_expr(schema, check.expr)?;
        let column_names: Vec<String> = schema.columns.iter().map(|c| c.name.clone()).collect();
        let name = match check.name {
            Some(name) => {
                let name = ident_name(name);
                if schema.constraint_names().any(|n| n == name) {
                    return Err(Error::new(
                        SqlState::DuplicateObject,
                        format!(
                            "constraint \"{name}\" for relation \"{}\" already exists",
                            schema.name
                        ),
                    ));
                }
                name
            }
            None => {
                let mut columns = Vec::new();
                bound.visit(&mut |e| {
                    if let ScalarExpr::Column { index, .. } = e {
                        if !columns.contains(index) {
                            columns.push(*index);
                        }
                    }
                });
                let base = match columns.as_slice() {
                    [column] => format!("{}_{}_check", schema.name, column_names[*column]),
                    _ => format!("{}_check", schema.name),
                };
                self.free_constraint_name(schema, base)
            }
        };
        let (definition, definition_pretty) = deparse_expr(&bound, &column_names)
            .unwrap_or_else(|| (format!("({})", check.expr), check.expr.to_string()));
        Ok(Constraint {
            name,
            kind: ConstraintKind::Check(CheckConstraint {
                expr_sql: check.expr.to_string(),
                definition,
                definition_pretty,
                no_inherit: check.no_inherit,
            }),
            validated,
        })
    }

    /// `base`, or `base` with the first number that makes it no constraint's name in the
    /// table's schema (PostgreSQL's ChooseConstraintName).
    fn free_constraint_name(&self, schema: &TableSchema, base: String) -> String {
        let taken = |name: &str| {
            schema.constraint_names().any(|n| n == name)
                || self.state.tables.values().any(|entry| {
                    entry.schema.namespace == schema.namespace
                        && entry.schema.oid != schema.oid
                        && entry.schema.constraint_names().any(|n| n == name)
                })
        };
        let mut candidate = base.clone();
        let mut n = 0;
        while taken(&candidate) {
            n += 1;
            candidate = format!("{base}{n}");
        }
        candidate
    }

    /// The CHECK constraints of `schema` bound over its row, by name: what a write to it
    /// must pass.
    pub(super) fn row_checks(&mut self, schema: &TableSchema) -> Result<Vec<RowCheck>> {
        let mut checks = Vec::new();
        for constraint in &schema.constraints {
            match &constraint.kind {
                ConstraintKind::Check(check) => {
                    let expr = parse_expr(&check.expr_sql)?;
                    checks.push(RowCheck {
                        name: constraint.name.clone(),
                        expr: self.bind_check_expr(schema, &expr)?,
                    });
                }
            }
        }
        checks.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(checks)
    }
}
