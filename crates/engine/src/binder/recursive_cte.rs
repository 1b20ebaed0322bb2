//! WITH RECURSIVE: a CTE whose query is `base UNION [ALL] recursive` where the recursive
//! term reads the CTE itself. The base term fixes the column types, as in PostgreSQL.

use sqlparser::ast::{self, SetExpr, SetOperator as AstSetOperator, SetQuantifier};

use super::from::{alias_names, BoundCte};
use super::Binder;
use crate::error::{Error, Result, SqlState};
use crate::plan::{ColumnInfo, LogicalPlan};

impl Binder<'_> {
    /// The plan of a self-referencing CTE, or `None` when `cte` does not read itself (then it
    /// is an ordinary CTE).
    pub(super) fn bind_recursive_cte(
        &mut self,
        name: &str,
        cte: &ast::Cte,
    ) -> Result<Option<(LogicalPlan, Vec<ColumnInfo>)>> {
        let query = &cte.query;
        let SetExpr::SetOperation {
            left,
            op: AstSetOperator::Union,
            set_quantifier,
            right,
        } = query.body.as_ref()
        else {
            return Ok(None);
        };
        if query.order_by.is_some() || query.limit_clause.is_some() || query.with.is_some() {
            return Ok(None);
        }
        let all = match set_quantifier {
            SetQuantifier::All => true,
            SetQuantifier::Distinct | SetQuantifier::None => false,
            other => {
                return Err(Error::unsupported(format!(
                    "UNION {other} in a recursive query"
                )))
            }
        };
        let (base, mut columns) = self.bind_set_expr(left)?;
        let names = alias_names(
            name,
            &cte.alias.columns,
            columns.iter().map(|c| c.name.clone()).collect(),
        )?;
        for (column, name) in columns.iter_mut().zip(names) {
            column.name = name;
        }
        self.subquery_count += 1;
        let id = self.subquery_count;
        let types = base.output_types();
        self.ctes.push(BoundCte {
            name: name.to_string(),
            plan: LogicalPlan::WorkTable {
                id,
                types: types.clone(),
            },
            columns: columns.clone(),
            without_returning: false,
            correlated_at: None,
        });
        let reads_before = self.work_tables_read.len();
        self.recursive_terms.push((id, self.sublink_depth));
        let recursive = self.bind_set_expr(right);
        self.recursive_terms.pop();
        self.ctes.pop();
        let reads_itself = self.work_tables_read[reads_before..].contains(&id);
        self.work_tables_read.truncate(reads_before);
        if !reads_itself {
            // A recursive reference inside a subquery is an error, not an ordinary CTE.
            return match recursive {
                Err(error) if error.state == SqlState::InvalidRecursion => Err(error),
                _ => Ok(None),
            };
        }
        let (recursive, recursive_columns) = recursive?;
        if recursive_columns.len() != columns.len() {
            return Err(Error::syntax(
                "each UNION query must have the same number of columns",
            ));
        }
        let recursive = self.cast_outputs(recursive, &recursive_columns, &types)?;
        Ok(Some((
            LogicalPlan::RecursiveCte {
                id,
                base: Box::new(base),
                recursive: Box::new(recursive),
                all,
            },
            columns,
        )))
    }
}
