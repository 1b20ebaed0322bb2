//! SQL cursors: DECLARE, FETCH, MOVE and CLOSE. DECLARE runs its query at once (as PostgreSQL
//! does for a cursor it must be able to scroll or hold) and keeps the rows; FETCH and MOVE
//! walk them from the cursor's position. A cursor lives until CLOSE or the end of its
//! transaction; one WITH HOLD outlives the commit of the transaction that declared it (not
//! its rollback). pg_cursors lists them.

use std::collections::HashMap;
use std::sync::Arc;

use sqlparser::ast::{CloseCursor, Declare, DeclareType, Statement};

use super::{Block, Session};
use crate::api::copy::NoCopyChannel;
use crate::api::{ColumnInfo, StatementResult};
use crate::binder::ident_name;
use crate::error::{Error, Result, SqlState};
use crate::exec::CursorRow;
use crate::parser::{self, FetchCursor, FetchDirection, Parsed};
use crate::types::{DataType, ScalarValue};
use crate::vector::{concat_batches, split_batch, Batch};

/// A declared cursor: its rows, and where it stands (0 before the first row, `rows + 1`
/// after the last, as PostgreSQL counts).
pub(super) struct Cursor {
    columns: Arc<[ColumnInfo]>,
    rows: Batch,
    position: usize,
    scroll: bool,
    row: CursorRow,
    /// Declared in the transaction still open: gone if it rolls back, even WITH HOLD.
    in_open_transaction: bool,
    /// How many savepoints were open when it was declared: ROLLBACK TO the savepoint at
    /// that position or an older one closes it, as the subtransaction it lives in ends.
    savepoint_depth: usize,
}

/// What Parse learns of a statement: the columns it returns, the types of its parameters.
pub(super) type Described = (Option<Arc<[ColumnInfo]>>, Vec<DataType>);

/// The session's cursors by name.
#[derive(Default)]
pub(super) struct Cursors {
    by_name: HashMap<String, Cursor>,
}

impl Cursors {
    /// At the end of a transaction: only held cursors of committed transactions remain.
    pub(super) fn end_transaction(&mut self, rolled_back: bool) {
        self.by_name.retain(|_, cursor| {
            let kept = cursor.row.holdable && !(rolled_back && cursor.in_open_transaction);
            cursor.in_open_transaction = false;
            kept
        });
    }

    /// ROLLBACK TO the savepoint at `position`: the cursors declared after it are closed
    /// (FETCHes and CLOSEs since stay done, as in PostgreSQL).
    pub(super) fn rollback_to_savepoint(&mut self, position: usize) {
        self.by_name
            .retain(|_, cursor| cursor.savepoint_depth <= position);
    }

    /// RELEASE of the savepoint at `position`: its cursors now belong to the enclosing one.
    pub(super) fn release_savepoint(&mut self, position: usize) {
        for cursor in self.by_name.values_mut() {
            cursor.savepoint_depth = cursor.savepoint_depth.min(position);
        }
    }

    /// pg_cursors' rows.
    pub(super) fn rows(&self) -> Vec<CursorRow> {
        self.by_name.values().map(|c| c.row.clone()).collect()
    }

    /// The columns a FETCH from `name` returns (Describe of a FETCH, or of the cursor as a
    /// portal).
    pub(crate) fn columns(&self, name: &str) -> Option<Arc<[ColumnInfo]>> {
        self.by_name.get(name).map(|c| c.columns.clone())
    }
}

fn undefined(name: &str) -> Error {
    Error::new(
        SqlState::InvalidCursorName,
        format!("cursor \"{name}\" does not exist"),
    )
}

impl Session {
    /// The result of `parsed` if it is DECLARE, FETCH, MOVE or CLOSE.
    pub(super) fn run_cursor_sql(
        &mut self,
        parsed: &Parsed,
        param_types: &[DataType],
        params: &[ScalarValue],
    ) -> Option<Result<StatementResult>> {
        match &parsed.statement {
            parser::Statement::Fetch(fetch) => Some(self.fetch(fetch)),
            parser::Statement::Sql(Statement::Declare { stmts }) => {
                Some(self.declare(stmts, param_types, params, parsed))
            }
            parser::Statement::Sql(Statement::Close { cursor }) => Some(self.close(cursor)),
            _ => None,
        }
    }

    /// For Parse of a cursor statement (`None` if `parsed` is none): what Describe announces
    /// (a FETCH's columns are its cursor's) and the parameter types (a DECLARE's query's).
    pub(super) fn describe_cursor_sql(
        &self,
        parsed: &Parsed,
        param_types: &[DataType],
    ) -> Option<Result<Described>> {
        match &parsed.statement {
            parser::Statement::Fetch(fetch) if !fetch.move_only => {
                let columns = self.cursors.columns(&ident_name(&fetch.cursor));
                Some(Ok((columns, param_types.to_vec())))
            }
            parser::Statement::Fetch(_) | parser::Statement::Sql(Statement::Close { .. }) => {
                Some(Ok((None, param_types.to_vec())))
            }
            parser::Statement::Sql(Statement::Declare { stmts }) => {
                let query = match stmts.as_slice() {
                    [Declare {
                        for_query: Some(query),
                        ..
                    }] => query,
                    _ => return Some(Err(Error::unsupported("this form of DECLARE"))),
                };
                let parsed = query_statement(query, parsed);
                let bound = self.search_path().and_then(|search_path| {
                    let view = self.view();
                    crate::binder::Binder::new(&view, &search_path, param_types).bind(&parsed)
                });
                Some(bound.map(|(_, types)| (None, types)))
            }
            _ => None,
        }
    }

    /// The columns FETCH from cursor `name` returns, if it exists.
    pub fn cursor_columns(&self, name: &str) -> Option<Arc<[ColumnInfo]>> {
        self.cursors.columns(name)
    }

    fn declare(
        &mut self,
        stmts: &[Declare],
        param_types: &[DataType],
        params: &[ScalarValue],
        declaration: &Parsed,
    ) -> Result<StatementResult> {
        let [Declare {
            names,
            data_type: None,
            assignment: None,
            declare_type: Some(DeclareType::Cursor),
            binary,
            sensitive,
            scroll,
            hold,
            for_query: Some(query),
        }] = stmts
        else {
            return Err(Error::unsupported("this form of DECLARE"));
        };
        let [name] = names.as_slice() else {
            return Err(Error::unsupported("DECLARE of several names"));
        };
        // INSENSITIVE is what every cursor is here; ASENSITIVE the same.
        let _ = sensitive;
        let name = ident_name(name);
        let holdable = *hold == Some(true);
        if !holdable && self.block != Block::Explicit {
            return Err(Error::new(
                SqlState::NoActiveSqlTransaction,
                "DECLARE CURSOR can only be used in transaction blocks",
            ));
        }
        if self.cursors.by_name.contains_key(&name) {
            return Err(Error::new(
                SqlState::DuplicateCursor,
                format!("cursor \"{name}\" already exists"),
            ));
        }
        let parsed = query_statement(query, declaration);
        let work = super::Work::Parsed(&parsed);
        let result = self.run_work(work, param_types, params, None, &mut NoCopyChannel)?;
        let Some(columns) = result.columns else {
            return Err(Error::unsupported(
                "a cursor over a statement that returns no rows",
            ));
        };
        let physical: Vec<_> = columns.iter().map(|c| c.data_type.physical()).collect();
        let rows = concat_batches(&physical, &result.batches)?;
        let clock = crate::function::datetime_functions::StatementClock::starting_now();
        self.cursors.by_name.insert(
            name.clone(),
            Cursor {
                columns,
                rows,
                position: 0,
                scroll: *scroll != Some(false),
                row: CursorRow {
                    name,
                    statement: format!(
                        "{}",
                        Statement::Declare {
                            stmts: stmts.to_vec()
                        }
                    ),
                    holdable,
                    binary: *binary == Some(true),
                    scrollable: *scroll != Some(false),
                    creation_micros: clock.statement,
                },
                in_open_transaction: self.block != Block::None,
                savepoint_depth: self.savepoints.len(),
            },
        );
        Ok(StatementResult::command("DECLARE CURSOR"))
    }

    fn close(&mut self, cursor: &CloseCursor) -> Result<StatementResult> {
        match cursor {
            CloseCursor::All => self.cursors.by_name.clear(),
            CloseCursor::Specific { name } => {
                let name = ident_name(name);
                if self.cursors.by_name.remove(&name).is_none() {
                    return Err(undefined(&name));
                }
            }
        }
        Ok(StatementResult::command("CLOSE CURSOR"))
    }

    fn fetch(&mut self, fetch: &FetchCursor) -> Result<StatementResult> {
        let name = ident_name(&fetch.cursor);
        let cursor = self
            .cursors
            .by_name
            .get_mut(&name)
            .ok_or_else(|| undefined(&name))?;
        let len = cursor.rows.len();
        let (indices, position) = walk(cursor.position, len, fetch.direction);
        if !cursor.scroll && reads_backward(cursor.position, len, fetch) {
            return Err(Error::new(
                SqlState::ObjectNotInPrerequisiteState,
                "cursor can only scan forward",
            )
            .with_hint("Declare it with SCROLL option to enable backward scan."));
        }
        cursor.position = position;
        let count = indices.len();
        if fetch.move_only {
            return Ok(StatementResult::command(format!("MOVE {count}")));
        }
        let rows = cursor.rows.gather(&indices);
        let mut result = StatementResult::rows(
            cursor.columns.clone(),
            split_batch(rows),
            format!("FETCH {count}"),
        );
        result.binary = cursor.row.binary;
        Ok(result)
    }
}

/// Whether PostgreSQL's executor runs backward for this fetch: a backward count, LAST and
/// other positions counted from the end, a rewind, or refetching the current row.
fn reads_backward(position: usize, len: usize, fetch: &FetchCursor) -> bool {
    let on_row = (1..=len).contains(&position);
    match fetch.direction {
        FetchDirection::Backward(Some(0))
        | FetchDirection::Forward(Some(0))
        | FetchDirection::Relative(0) => on_row && !fetch.move_only,
        FetchDirection::Backward(_) => true,
        FetchDirection::Forward(_) => false,
        FetchDirection::Absolute(n) => {
            n < 0 || usize::try_from(n).is_ok_and(|n| n <= position && position > 0)
        }
        FetchDirection::Relative(n) => n < 0,
    }
}

/// A cursor's query as a statement of its own, in the text of its `declaration`.
fn query_statement(query: &sqlparser::ast::Query, declaration: &Parsed) -> Parsed {
    Parsed {
        statement: parser::Statement::Sql(Statement::Query(Box::new(query.clone()))),
        exclusions: declaration.exclusions.clone(),
        copy_header_match: false,
        identity_sequence_names: Vec::new(),
        insert_overriding: None,
        table_likes: Vec::new(),
        table_as_columns: Vec::new(),
        view_check_option: None,
        transaction_deferrable: None,
        source: declaration.source.clone(),
    }
}

/// The rows (0-based indices, in the order returned) a fetch in `direction` from
/// `position` of a cursor over `len` rows returns, and the position it leaves.
fn walk(position: usize, len: usize, direction: FetchDirection) -> (Vec<u32>, usize) {
    let after_last = len + 1;
    // Row `p` (1-based) as an index, and the rows between two positions.
    let index = |p: usize| u32::try_from(p - 1).unwrap_or(u32::MAX);
    let to_usize = |n: i64| usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
    match direction {
        FetchDirection::Forward(Some(0)) | FetchDirection::Backward(Some(0)) => {
            walk(position, len, FetchDirection::Relative(0))
        }
        FetchDirection::Forward(count) => {
            let count = count.map_or(usize::MAX, to_usize);
            let last = position.saturating_add(count).min(len);
            let rows = (position + 1..=last).map(index).collect::<Vec<_>>();
            let end = match position.saturating_add(count) <= len {
                true => position + count,
                false => after_last,
            };
            (rows, end)
        }
        FetchDirection::Backward(count) => {
            let count = count.map_or(usize::MAX, to_usize);
            let start = position.min(after_last);
            let first = start.saturating_sub(count).max(1);
            let rows = (first..start).rev().map(index).collect::<Vec<_>>();
            let end = match start > count {
                true => start - count,
                false => 0,
            };
            (rows, end)
        }
        FetchDirection::Absolute(n) => {
            let target = match n >= 0 {
                true => Some(to_usize(n)),
                false => after_last.checked_sub(to_usize(n)),
            };
            match target {
                Some(0) => (Vec::new(), 0),
                Some(p) if p <= len => (vec![index(p)], p),
                Some(_) => (Vec::new(), after_last),
                None => (Vec::new(), 0),
            }
        }
        FetchDirection::Relative(0) => match (1..=len).contains(&position) {
            true => (vec![index(position)], position),
            false => (Vec::new(), position),
        },
        FetchDirection::Relative(n) => {
            let target = match n > 0 {
                true => Some(position.saturating_add(to_usize(n))),
                false => position.checked_sub(to_usize(n)),
            };
            match target {
                Some(p) if (1..=len).contains(&p) => (vec![index(p)], p),
                Some(p) if p > len => (Vec::new(), after_last),
                _ => (Vec::new(), 0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::walk;
    use crate::parser::FetchDirection as D;

    #[test]
    fn positions_follow_postgresql() {
        assert_eq!(walk(0, 3, D::Forward(Some(2))), (vec![0, 1], 2));
        assert_eq!(walk(2, 3, D::Forward(Some(2))), (vec![2], 4));
        assert_eq!(walk(4, 3, D::Backward(Some(1))), (vec![2], 3));
        assert_eq!(walk(2, 3, D::Backward(None)), (vec![0], 0));
        assert_eq!(walk(0, 3, D::Absolute(-1)), (vec![2], 3));
        assert_eq!(walk(0, 3, D::Absolute(5)), (vec![], 4));
        assert_eq!(walk(3, 3, D::Relative(-5)), (vec![], 0));
        assert_eq!(walk(2, 3, D::Relative(0)), (vec![1], 2));
        assert_eq!(walk(0, 0, D::Forward(None)), (vec![], 1));
    }
}
