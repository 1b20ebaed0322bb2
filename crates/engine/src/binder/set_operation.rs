//! UNION / INTERSECT / EXCEPT: both sides bound, column types unified as PostgreSQL's
//! select_common_type does, names taken from the left side.

use sqlparser::ast::{SetExpr, SetOperator as AstSetOperator, SetQuantifier};

use super::coerce::union_type;
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::function::cast::CastContext;
use crate::plan::{ColumnInfo, LogicalPlan, ScalarExpr, SetOperator};
use crate::types::DataType;

impl Binder<'_> {
    #[recursive::recursive]
    pub(super) fn bind_set_operation(
        &mut self,
        left: &SetExpr,
        op: &AstSetOperator,
        quantifier: &SetQuantifier,
        right: &SetExpr,
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        let op = match op {
            AstSetOperator::Union => SetOperator::Union,
            AstSetOperator::Intersect => SetOperator::Intersect,
            AstSetOperator::Except => SetOperator::Except,
            AstSetOperator::Minus => return Err(Error::unsupported("MINUS")),
        };
        let all = match quantifier {
            SetQuantifier::All => true,
            SetQuantifier::Distinct | SetQuantifier::None => false,
            other => return Err(Error::unsupported(format!("{other}"))),
        };
        let (left_plan, mut columns) = self.nested(|binder| binder.bind_set_expr(left))?;
        let (right_plan, right_columns) = self.nested(|binder| binder.bind_set_expr(right))?;
        let name = match op {
            SetOperator::Union => "UNION",
            SetOperator::Intersect => "INTERSECT",
            SetOperator::Except => "EXCEPT",
        };
        if columns.len() != right_columns.len() {
            return Err(Error::syntax(format!(
                "each {name} query must have the same number of columns"
            )));
        }
        let mut types = Vec::with_capacity(columns.len());
        for (l, r) in columns.iter().zip(&right_columns) {
            types.push(union_type(&[l.data_type, r.data_type], name).map_err(|_| {
                Error::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "{name} types {} and {} cannot be matched",
                        self.type_display(l.data_type),
                        self.type_display(r.data_type)
                    ),
                )
            })?);
        }
        // Every set operation but UNION ALL compares rows.
        if !(all && op == SetOperator::Union) {
            for ty in &types {
                super::coerce::require_json_free(*ty, false)?;
            }
        }
        let left_plan = self.cast_outputs(left_plan, &columns, &types)?;
        let right_plan = self.cast_outputs(right_plan, &right_columns, &types)?;
        for (column, ty) in columns.iter_mut().zip(&types) {
            if column.data_type != *ty {
                column.data_type = *ty;
                column.table_oid = 0;
                column.column_attnum = 0;
            }
        }
        Ok((
            LogicalPlan::SetOperation {
                left: Box::new(left_plan),
                right: Box::new(right_plan),
                op,
                all,
            },
            columns,
        ))
    }

    /// A branch of a set operation: a SELECT, VALUES, a parenthesized query or another set
    /// operation.
    pub(super) fn bind_set_expr(
        &mut self,
        expr: &SetExpr,
    ) -> Result<(LogicalPlan, Vec<ColumnInfo>)> {
        match expr {
            SetExpr::Select(select) => {
                self.untyped_outputs_kept = true;
                self.bind_select(select, &[])
            }
            SetExpr::Values(values) => self.bind_values(values),
            SetExpr::Query(query) => self.bind_query(query),
            SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => self.bind_set_operation(left, op, set_quantifier, right),
            other => Err(Error::unsupported(format!("the query {other}"))),
        }
    }

    /// Projects a branch's columns to the unified types where they differ.
    pub(super) fn cast_outputs(
        &mut self,
        plan: LogicalPlan,
        columns: &[ColumnInfo],
        types: &[DataType],
    ) -> Result<LogicalPlan> {
        if columns.iter().zip(types).all(|(c, t)| c.data_type == *t) {
            return Ok(plan);
        }
        let exprs = columns
            .iter()
            .zip(types)
            .enumerate()
            .map(|(index, (c, t))| {
                let column = ScalarExpr::Column {
                    index,
                    ty: c.data_type,
                };
                self.coerce(column, *t, CastContext::Implicit)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
        })
    }
}
