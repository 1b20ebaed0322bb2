//! Generated columns (`GENERATED ALWAYS AS (expr) STORED`): the expression bound over the
//! table's row with PostgreSQL's rules (no other generated column, no subquery, aggregate,
//! window or volatile function), and the plans that compute the columns: a projection over
//! an INSERT's rows, extra assignments for an UPDATE.

use sqlparser::ast;

use super::check::{referenced_columns, stored_expr};
use super::dml::parse_expr;
use super::Binder;
use crate::catalog::{StoredExpr, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{can_cast, CastContext};
use crate::plan::{LogicalPlan, ScalarExpr};
use crate::types::DataType;

impl Binder<'_> {
    /// The generation expression of column `position` bound over `schema`'s row and
    /// converted to the column's type.
    pub(super) fn bind_generation_expr(
        &mut self,
        schema: &TableSchema,
        position: usize,
        expr: &ast::Expr,
    ) -> Result<ScalarExpr> {
        let names = (
            "column generation expression",
            "column generation expressions",
        );
        let bound = self
            .bind_stored_row_expr(schema, names, |binder, scope| binder.bind_expr(expr, scope))?;
        for column in referenced_columns(&bound) {
            if schema.columns[column].generated.is_some() {
                let name = &schema.columns[column].name;
                return Err(Error::new(
                    SqlState::InvalidObjectDefinition,
                    format!(
                        "cannot use generated column \"{name}\" in column generation expression"
                    ),
                )
                .with_detail("A generated column cannot reference another generated column."));
            }
        }
        if bound.is_volatile() {
            return Err(Error::new(
                SqlState::InvalidObjectDefinition,
                "generation expression is not immutable",
            ));
        }
        let def = &schema.columns[position];
        let from = bound.ty();
        if from != DataType::Unknown && !can_cast(from, def.data_type, CastContext::Assignment) {
            return Err(Error::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column \"{}\" is of type {} but default expression is of type {from}",
                    def.name, def.data_type
                ),
            )
            .with_hint("You will need to rewrite or cast the expression."));
        }
        self.coerce(bound, def.data_type, CastContext::Assignment)
    }

    /// CREATE TABLE: makes the columns at `generated` (position, expression) generated.
    pub(super) fn add_generated(
        &mut self,
        schema: &mut TableSchema,
        generated: &[(usize, &ast::Expr)],
    ) -> Result<()> {
        // Every column is marked first, so one expression reading another is refused.
        for &(position, expr) in generated {
            schema.columns[position].generated = Some(StoredExpr {
                sql: expr.to_string(),
                definition: String::new(),
                definition_pretty: String::new(),
            });
        }
        for &(position, expr) in generated {
            let bound = self.bind_generation_expr(schema, position, expr)?;
            schema.columns[position].generated = Some(stored_expr(schema, expr, &bound));
        }
        Ok(())
    }

    /// The generated column (other than itself) that reads column `position`, if any.
    pub(super) fn generated_reader(
        &mut self,
        schema: &TableSchema,
        position: usize,
    ) -> Result<Option<String>> {
        for (generated, value) in self.generated_values(schema)? {
            if generated != position && referenced_columns(&value).contains(&position) {
                return Ok(Some(schema.columns[generated].name.clone()));
            }
        }
        Ok(None)
    }

    /// Each generated column of `schema` bound over its row: (position, value).
    pub(super) fn generated_values(
        &mut self,
        schema: &TableSchema,
    ) -> Result<Vec<(usize, ScalarExpr)>> {
        let mut values = Vec::new();
        for (position, column) in schema.columns.iter().enumerate() {
            if let Some(generated) = &column.generated {
                let expr = parse_expr(&generated.sql)?;
                values.push((
                    position,
                    self.bind_generation_expr(schema, position, &expr)?,
                ));
            }
        }
        Ok(values)
    }

    /// `source`'s full rows of `schema` with the generated columns computed from the rest.
    pub(super) fn with_generated(
        &mut self,
        schema: &TableSchema,
        source: LogicalPlan,
    ) -> Result<LogicalPlan> {
        let generated = self.generated_values(schema)?;
        if generated.is_empty() {
            return Ok(source);
        }
        let exprs = schema
            .columns
            .iter()
            .enumerate()
            .map(|(index, column)| {
                generated
                    .iter()
                    .find(|(position, _)| *position == index)
                    .map_or(
                        ScalarExpr::Column {
                            index,
                            ty: column.data_type,
                        },
                        |(_, value)| value.clone(),
                    )
            })
            .collect();
        Ok(LogicalPlan::Project {
            input: Box::new(source),
            exprs,
        })
    }

    /// UPDATE and ON CONFLICT DO UPDATE: adds to `assignments` (over the old row, which
    /// leads their input) each generated column, computed from the new values.
    pub(super) fn assign_generated(
        &mut self,
        schema: &TableSchema,
        assignments: &mut Vec<(usize, ScalarExpr)>,
    ) -> Result<()> {
        for (position, value) in self.generated_values(schema)? {
            let value = with_new_values(value, assignments)?;
            assignments.push((position, value));
        }
        Ok(())
    }
}

/// `expr` over the new row: each assigned column replaced by its assigned value.
fn with_new_values(expr: ScalarExpr, assignments: &[(usize, ScalarExpr)]) -> Result<ScalarExpr> {
    match expr {
        ScalarExpr::Column { index, ty } => Ok(assignments
            .iter()
            .find(|(column, _)| *column == index)
            .map_or(ScalarExpr::Column { index, ty }, |(_, value)| value.clone())),
        other => other.try_map_children(&mut |e| with_new_values(e, assignments)),
    }
}
