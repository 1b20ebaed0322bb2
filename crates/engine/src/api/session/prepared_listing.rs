//! pg_prepared_statements: the session's named prepared statements, SQL's (PREPARE) and
//! the protocol's (a named Parse message, which the server reports), each with the text
//! that made it, when, its parameter types and how often it ran. The rows a statement
//! reads are built again only after the set changed, so a session holding many prepared
//! statements pays nothing per statement for the view.

use std::collections::HashMap;
use std::sync::Arc;

use sqlparser::ast::Statement;

use super::{PreparedStatement, Session};
use crate::exec::PreparedStatementRow;
use crate::function::datetime_functions::StatementClock;
use crate::parser::Parsed;

#[derive(Default)]
pub(super) struct PreparedListing {
    by_name: HashMap<String, PreparedStatementRow>,
    /// The rows by name, until the set changes.
    rows: Option<Arc<[PreparedStatementRow]>>,
}

impl PreparedListing {
    fn add(&mut self, row: PreparedStatementRow) {
        self.by_name.insert(row.name.clone(), row);
        self.rows = None;
    }

    pub(super) fn remove(&mut self, name: &str) {
        if self.by_name.remove(name).is_some() {
            self.rows = None;
        }
    }

    /// DEALLOCATE ALL: the statements made by SQL go.
    pub(super) fn remove_sql_statements(&mut self) {
        self.by_name.retain(|_, row| !row.from_sql);
        self.rows = None;
    }

    pub(super) fn rows(&mut self) -> Arc<[PreparedStatementRow]> {
        let by_name = &self.by_name;
        self.rows
            .get_or_insert_with(|| {
                let mut rows: Vec<_> = by_name.values().cloned().collect();
                rows.sort_by(|a, b| a.name.cmp(&b.name));
                rows.into()
            })
            .clone()
    }
}

impl Session {
    /// Lists `prepared` under `name` from now: made by SQL PREPARE from the query string
    /// `source`, or by the protocol.
    pub(super) fn list_prepared(
        &mut self,
        name: String,
        source: Arc<str>,
        prepared: &PreparedStatement,
        from_sql: bool,
    ) {
        self.prepared_listing.add(PreparedStatementRow {
            name,
            statement: source,
            prepare_micros: StatementClock::starting_now().statement,
            parameter_types: prepared.param_types().iter().map(|t| t.oid()).collect(),
            from_sql,
            executions: Arc::clone(&prepared.inner.executions),
        });
    }

    /// A named statement of the extended query protocol (Parse) is listed in
    /// pg_prepared_statements until [`Session::unlist_protocol_statement`].
    pub fn list_protocol_statement(&mut self, name: &str, prepared: &PreparedStatement) {
        let source = Arc::from(prepared.inner.sql.as_str());
        self.list_prepared(name.to_string(), source, prepared, false);
    }

    /// Keeps `sql` as the text of the PREPAREs among `statements`, about to run.
    pub(super) fn note_prepare_source(&mut self, sql: &str, statements: &[Parsed]) {
        let prepares = statements
            .iter()
            .any(|parsed| matches!(parsed.statement.sql(), Some(Statement::Prepare { .. })));
        if prepares {
            self.prepare_source = Some(Arc::from(sql));
        }
    }

    /// The protocol statement `name` was closed.
    pub fn unlist_protocol_statement(&mut self, name: &str) {
        self.prepared_listing.remove(name);
    }
}
