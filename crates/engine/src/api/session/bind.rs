//! From a statement to the plan that runs: binding against the catalog (or a cached plan),
//! the optimizer, the plan cache's policy, and the write locks of the tables the statement
//! changes.
//!
//! A statement is bound against the catalog of the moment, but another transaction may
//! commit DDL on its tables before it gets their locks (an INSERT waiting behind `ALTER
//! TABLE t DROP COLUMN`). PostgreSQL locks a statement's tables before it plans it; here the
//! statement takes its locks after binding and, if the catalog changed in between, is bound
//! again under the locks, so it never writes rows shaped by a schema that is gone.

use std::sync::Arc;

use super::{Session, Work};
use crate::api::query_cache::CacheKey;
use crate::binder::Binder;
use crate::catalog::{FunctionDef, QualifiedName, Volatility};
use crate::error::{Error, Result, SqlState};
use crate::exec::foreign_key::is_referenced;
use crate::exec::modify::locks_rows;
use crate::parser::{parse, Parsed};
use crate::plan::{BoundStatement, ConflictAction, LogicalPlan};
use crate::storage::DbState;
use crate::types::DataType;

/// Statements whose bound form may be reused for the same text: queries and row writes,
/// except INSERTs of literal rows. Those are almost never sent twice with the same values
/// (a bulk load sends each row once), and remembering each one's text cost a single-row
/// INSERT 7 % of its server time.
fn is_plan_cacheable(bound: &BoundStatement) -> bool {
    match bound {
        BoundStatement::Insert { source, .. } => !source.is_literal_values(),
        BoundStatement::Query { plan, .. } => !plan.reads_files(),
        BoundStatement::Update { .. }
        | BoundStatement::Delete { .. }
        | BoundStatement::WithWrites { .. } => true,
        _ => false,
    }
}

/// Binding again can only be needed while other transactions keep committing DDL between
/// this statement's binding and its locking; past this many rounds, give up with 40001.
const MAX_REBINDS: usize = 16;

impl Session {
    /// The statement bound and optimized, with the write locks of the tables it changes
    /// held, and the state it is to read: the latest one after those locks were taken.
    pub(super) fn bind_locked(
        &mut self,
        work: Work<'_>,
        param_types: &[DataType],
        cache_key: Option<CacheKey<'_>>,
    ) -> Result<(BoundStatement, Arc<DbState>)> {
        if let Work::Parsed(parsed) = &work {
            self.prepare_temp_schema(parsed)?;
        }
        let mut view = self.view();
        // What to bind again from: the parsed statement, or its text parsed anew for a
        // plan that came from the cache.
        let mut reparsed: Option<Parsed> = None;
        let (mut bound, parsed) = match work {
            Work::Bound(bound) => (*bound, None),
            Work::Parsed(parsed) => (
                self.bind(parsed, &view, param_types, cache_key)?,
                Some(parsed),
            ),
        };
        for _ in 0..MAX_REBINDS {
            let tables: Vec<QualifiedName> = bound.tables_written().into_iter().cloned().collect();
            if tables.is_empty() {
                return Ok((bound, view));
            }
            let shared = match self.settings.value("kestrel.concurrent_writes") {
                Some("on") => written_together(&bound, &view),
                _ => None,
            };
            let txn = self.transaction();
            for table in &tables {
                match shared == Some(table) {
                    true => txn.lock_name_for_rows(table)?,
                    false => txn.lock_name(table)?,
                }
            }
            let locked = self.view();
            if locked.catalog_version == view.catalog_version {
                return Ok((bound, locked));
            }
            view = locked;
            let statement = match (parsed, &reparsed) {
                (Some(parsed), _) => parsed,
                (None, Some(parsed)) => parsed,
                (None, None) => reparsed.insert(single_statement(cache_key)?),
            };
            bound = self.bind(statement, &view, param_types, cache_key)?;
        }
        Err(Error::new(
            crate::error::SqlState::SerializationFailure,
            "could not serialize access due to concurrent schema changes",
        ))
    }

    /// Binds and optimizes `parsed` against `view`, caching the plan where the policy allows.
    fn bind(
        &self,
        parsed: &Parsed,
        view: &DbState,
        param_types: &[DataType],
        cache_key: Option<CacheKey<'_>>,
    ) -> Result<BoundStatement> {
        let search_path = self.search_path()?;
        let binder = Binder::new(view, &search_path, param_types);
        let bound = match self.function_frames.last() {
            None => binder.bind(parsed)?.0,
            Some(frame) => {
                let bound = binder.bind_function_statement(&frame.function, parsed)?;
                check_function_write(&frame.function, &bound)?;
                bound
            }
        };
        let bound = self.optimize(bound, view)?;
        if let (Some(key), true) = (cache_key, self.caches_usable()) {
            if is_plan_cacheable(&bound) {
                self.cache
                    .store_plan(&key, param_types, &bound, view.catalog_version);
            }
        }
        Ok(bound)
    }
}

/// The table of a write that other such writers of its rows share
/// (`Transaction::lock_name_for_rows`): an INSERT of a VALUES list (with ON CONFLICT DO
/// NOTHING at most), whose rows are few, each taking a lock per unique key, or an UPDATE or
/// DELETE that locks each row it changes (see `modify::locks_rows`). Other writes (and loads
/// of any size, and DO UPDATE) lock the table. An insert into a table with foreign keys is
/// left out: checking them locks the referenced table, which serializes its inserters
/// anyway, and when that is the table itself, two inserters holding it together would
/// deadlock taking it over.
fn written_together<'b>(bound: &'b BoundStatement, view: &DbState) -> Option<&'b QualifiedName> {
    let (table_name, shares) = match bound {
        BoundStatement::Insert {
            table_name,
            source: LogicalPlan::Values { .. },
            on_conflict,
            ..
        } if on_conflict
            .as_ref()
            .is_none_or(|c| matches!(c.action, ConflictAction::Nothing)) =>
        {
            let table = view.table_by_name(table_name)?;
            (table_name, table.schema.foreign_keys.is_empty())
        }
        BoundStatement::Update {
            table_name,
            table_oid,
            source,
            assignments,
            ..
        } => {
            let table = view.table_by_name(table_name)?;
            let referenced = is_referenced(view, *table_oid);
            let assigned: Vec<usize> = assignments.iter().map(|(c, _)| *c).collect();
            let joined = source.is_some();
            let shares = locks_rows(&table.schema, referenced, joined, Some(&assigned));
            (table_name, shares)
        }
        BoundStatement::Delete {
            table_name,
            table_oid,
            source,
            ..
        } => {
            let table = view.table_by_name(table_name)?;
            let referenced = is_referenced(view, *table_oid);
            let shares = locks_rows(&table.schema, referenced, source.is_some(), None);
            (table_name, shares)
        }
        _ => return None,
    };
    shares.then_some(table_name)
}

/// A function not VOLATILE may not write (PostgreSQL: it runs on the caller's snapshot).
fn check_function_write(function: &FunctionDef, bound: &BoundStatement) -> Result<()> {
    match (function.volatility, bound.write_command()) {
        (Volatility::Immutable | Volatility::Stable, Some(command)) => Err(Error::new(
            SqlState::FeatureNotSupported,
            format!("{command} is not allowed in a non-volatile function"),
        )),
        _ => Ok(()),
    }
}

/// The one statement a cached plan was made from, parsed again from its text.
fn single_statement(cache_key: Option<CacheKey<'_>>) -> Result<Parsed> {
    let key = cache_key.ok_or_else(|| {
        Error::internal("invariant: a plan from the cache comes with its statement text")
    })?;
    let mut statements = parse(key.sql)?;
    match (statements.pop(), statements.is_empty()) {
        (Some(parsed), true) => Ok(parsed),
        _ => Err(Error::internal(
            "invariant: a cached plan's text holds exactly one statement",
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::api::Database;

    /// Runs `ddl` in an open transaction of one session, starts `dml` in another session
    /// (which binds, then waits for the table's lock), commits the DDL once the DML waits,
    /// and returns the DML's outcome (its SQLSTATE on error) and the table's rows after.
    fn dml_behind_ddl(ddl: &str, dml: &'static str) -> (Result<(), String>, Vec<String>) {
        let db = Database::new();
        let mut first = db.connect();
        let setup = "CREATE TABLE t (a integer NOT NULL, b text NOT NULL, c integer NOT NULL); \
                     INSERT INTO t VALUES (0, 'zero', 10)";
        assert!(first.execute(setup).is_ok());
        assert!(first.execute("BEGIN").is_ok());
        assert!(first.execute(ddl).is_ok());
        let store = first.store.clone();
        let mut second = db.connect();
        let writer = std::thread::spawn(move || {
            second
                .execute(dml)
                .map(|_| ())
                .map_err(|e| e.sqlstate().to_string())
        });
        while !store.has_lock_waiters() {
            std::thread::yield_now();
        }
        assert!(first.execute("COMMIT").is_ok());
        let outcome = writer
            .join()
            .unwrap_or_else(|_| Err("the writer panicked".into()));
        let rows = match first.execute("SELECT * FROM t ORDER BY 1") {
            Ok(results) => results[0].text_lines(),
            Err(e) => vec![e.to_string()],
        };
        (outcome, rows)
    }

    #[test]
    fn an_insert_waiting_behind_drop_column_is_bound_again() {
        let (outcome, rows) = dml_behind_ddl(
            "ALTER TABLE t DROP COLUMN a",
            "INSERT INTO t VALUES (1, 'one', 11)",
        );
        // PostgreSQL: INSERT has more expressions than target columns.
        assert_eq!(outcome, Err("42601".into()));
        assert_eq!(rows, ["zero|10"]);
    }

    #[test]
    fn an_insert_waiting_behind_add_column_fills_the_new_column() {
        let (outcome, rows) = dml_behind_ddl(
            "ALTER TABLE t ADD COLUMN d integer DEFAULT 7",
            "INSERT INTO t VALUES (1, 'one', 11)",
        );
        assert_eq!(outcome, Ok(()));
        assert_eq!(rows, ["0|zero|10|7", "1|one|11|7"]);
    }

    #[test]
    fn an_update_waiting_behind_a_rename_sees_the_new_names() {
        let (outcome, rows) = dml_behind_ddl(
            "ALTER TABLE t RENAME COLUMN c TO a2",
            "UPDATE t SET c = c + 1",
        );
        assert_eq!(outcome, Err("42703".into()));
        assert_eq!(rows, ["0|zero|10"]);
    }

    #[test]
    fn concurrent_alters_do_not_overwrite_each_other() {
        let (outcome, rows) = dml_behind_ddl(
            "ALTER TABLE t ADD COLUMN d integer DEFAULT 1",
            "ALTER TABLE t ADD COLUMN e integer DEFAULT 2",
        );
        assert_eq!(outcome, Ok(()));
        assert_eq!(rows, ["0|zero|10|1|2"]);
    }
}
