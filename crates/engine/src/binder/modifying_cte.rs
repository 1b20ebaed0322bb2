//! Data-modifying WITH queries: `WITH d AS (DELETE ... RETURNING *) SELECT ... FROM d`, and a
//! WITH clause in front of INSERT, UPDATE or DELETE. PostgreSQL runs each such query exactly
//! once and to completion, all of them and the main statement on the statement's one
//! snapshot, so the main statement does not see their effects on the tables, only their
//! RETURNING rows. The binder collects them in WITH order as statements of their own; the
//! statement becomes `BoundStatement::WithWrites`, which the session runs write by write
//! (reads go to the snapshot the statement started with, writes to the transaction) before
//! the main statement. A reference to one reads its RETURNING rows as a work table, which
//! the session fills when the write has run.

use sqlparser::ast::{self, Query, SetExpr, Statement};

use super::from::{alias_names, BoundCte};
use super::Binder;
use crate::error::{Error, Result};
use crate::plan::{BoundStatement, LogicalPlan};

/// The statement inside a WITH query or after a WITH clause, when it writes.
pub(super) fn written_statement(body: &SetExpr) -> Option<&Statement> {
    match body {
        SetExpr::Insert(statement) | SetExpr::Update(statement) | SetExpr::Delete(statement) => {
            Some(statement)
        }
        _ => None,
    }
}

impl Binder<'_> {
    /// `WITH ... INSERT/UPDATE/DELETE`: the WITH queries are in scope of the statement.
    pub(super) fn bind_statement_after_with(
        &mut self,
        query: &Query,
        statement: &Statement,
    ) -> Result<BoundStatement> {
        let Query {
            with,
            body: _,
            order_by,
            limit_clause,
            fetch,
            locks,
            for_clause,
            settings,
            format_clause,
            pipe_operators,
        } = query;
        if order_by.is_some()
            || limit_clause.is_some()
            || fetch.is_some()
            || !locks.is_empty()
            || for_clause.is_some()
            || settings.is_some()
            || format_clause.is_some()
            || !pipe_operators.is_empty()
        {
            return Err(Error::unsupported(format!("the query clause in {query}")));
        }
        let ctes_before = self.ctes.len();
        let bound = match with {
            Some(with) => self
                .bind_with(with)
                .and_then(|()| self.bind_statement(statement)),
            None => self.bind_statement(statement),
        };
        self.ctes.truncate(ctes_before);
        bound
    }

    /// A WITH query that writes (in the statement's own WITH clause): bound as its own statement and kept for the session to run
    /// first; it is read as the work table of its RETURNING rows.
    pub(super) fn bind_modifying_cte(
        &mut self,
        name: String,
        cte: &ast::Cte,
        statement: &Statement,
    ) -> Result<BoundCte> {
        let bound = self.bind_statement(statement)?;
        let (columns, without_returning) = match bound.result_columns() {
            Some(columns) => (columns.to_vec(), false),
            None => (Vec::new(), true),
        };
        self.subquery_count += 1;
        let id = self.subquery_count;
        self.writes.push((id, bound));
        let mut columns = columns;
        let names = alias_names(
            &name,
            &cte.alias.columns,
            columns.iter().map(|c| c.name.clone()).collect(),
        )?;
        for (column, name) in columns.iter_mut().zip(names) {
            column.name = name;
        }
        let types = columns.iter().map(|c| c.data_type).collect();
        Ok(BoundCte {
            name,
            plan: LogicalPlan::WorkTable { id, types },
            columns,
            without_returning,
            correlated_at: None,
        })
    }

    /// The bound statement, run after the data-modifying WITH queries collected while it
    /// was bound. Only a query or a row write may carry them (not EXPLAIN, CREATE TABLE AS,
    /// a view's query, ...).
    pub(super) fn with_writes(&mut self, main: BoundStatement) -> Result<BoundStatement> {
        if self.writes.is_empty() {
            return Ok(main);
        }
        match &main {
            BoundStatement::Query { .. }
            | BoundStatement::Insert { .. }
            | BoundStatement::Update { .. }
            | BoundStatement::Delete { .. } => {}
            _ => {
                return Err(Error::unsupported(
                    "WITH clause containing a data-modifying statement must be at the top level",
                ))
            }
        }
        let writes = std::mem::take(&mut self.writes);
        let mut written: Vec<u32> = Vec::new();
        for statement in writes.iter().map(|(_, w)| w).chain([&main]) {
            if let Some((oid, finds_rows)) = target(statement) {
                if finds_rows && written.contains(&oid) {
                    return Err(Error::unsupported(
                        "a data-modifying WITH query or statement finding rows in a table \
                         an earlier data-modifying WITH query writes",
                    ));
                }
                written.push(oid);
            }
        }
        Ok(BoundStatement::WithWrites {
            writes,
            main: Box::new(main),
        })
    }
}

/// The table a row write changes, and whether it finds existing rows there (UPDATE,
/// DELETE, INSERT ... ON CONFLICT). Such a write runs here after the earlier ones of the
/// statement and would find their rows, where PostgreSQL's, on the statement's snapshot,
/// finds none of them: refused rather than answered differently.
fn target(statement: &BoundStatement) -> Option<(u32, bool)> {
    match statement {
        BoundStatement::Insert {
            table_oid,
            on_conflict,
            ..
        } => Some((*table_oid, on_conflict.is_some())),
        BoundStatement::Update { table_oid, .. } | BoundStatement::Delete { table_oid, .. } => {
            Some((*table_oid, true))
        }
        _ => None,
    }
}
