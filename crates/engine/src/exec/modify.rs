//! INSERT, UPDATE and DELETE against a transaction's private table versions, enforcing
//! NOT NULL and UNIQUE constraints.

use std::sync::Arc;

use super::check::check_rows;
use super::expression::evaluate;
use super::filter::selected_rows;
use super::{materialize, ExecContext};
use crate::catalog::partition::Router;
use crate::catalog::QualifiedName;
use crate::catalog::TableSchema;
use crate::error::{Error, Result, SqlState};
use crate::physical::create_operator;
use crate::plan::{CheckKind, LogicalPlan, RowCheck, ScalarExpr};
use crate::storage::{values_text, EnumTypes, TableData, TableEntry, Transaction};
use crate::types::DataType;
use crate::vector::{encode_row_key, Batch, Vector, BATCH_SIZE};

/// Locks the table for writing and returns a private copy of its newest version.
pub(super) fn writable(
    txn: &mut Transaction,
    name: &QualifiedName,
    oid: u32,
) -> Result<TableEntry> {
    match txn.table_for_write(name)? {
        Some(entry) if entry.schema.oid == oid => Ok((*entry).clone()),
        _ => Err(gone(name)),
    }
}

/// The table's newest version for appending to (or changing rows of), under the lock the
/// statement holds (see `Transaction::table_for_rows`).
fn insertable(txn: &mut Transaction, name: &QualifiedName, oid: u32) -> Result<TableEntry> {
    match txn.table_for_rows(name)? {
        Some(entry) if entry.schema.oid == oid => Ok((*entry).clone()),
        _ => Err(gone(name)),
    }
}

/// The table's newest version for INSERT ... ON CONFLICT DO NOTHING of `batches`. When
/// other inserters share the table, the statement first locks every unique key of its
/// rows, waiting for another inserter of one to end, and then reads the version with
/// whatever that one committed: each conflict is then decided on committed rows.
pub(super) fn insertable_without_conflicts(
    txn: &mut Transaction,
    name: &QualifiedName,
    oid: u32,
    batches: &[Batch],
) -> Result<TableEntry> {
    lock_inserted_keys(txn, name, oid, batches)?;
    insertable(txn, name, oid)
}

/// When other writers share the table, locks every unique key of the rows of `batches`
/// (full rows of the table), waiting for another transaction that inserts or deletes one
/// to end; the table's version read after it holds what that one committed.
fn lock_inserted_keys(
    txn: &mut Transaction,
    name: &QualifiedName,
    oid: u32,
    batches: &[Batch],
) -> Result<()> {
    if !txn.shares_table(name) {
        return Ok(());
    }
    let schema = insertable(txn, name, oid)?.schema;
    for batch in batches {
        lock_unique_keys(txn, &schema, batch, |_, _, _, _| Ok(()))?;
    }
    Ok(())
}

/// 42P01 for a table dropped (or dropped and re-created) between planning and now.
fn gone(name: &QualifiedName) -> Error {
    Error::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}

/// What a write did: how many rows, and those rows (full, as written or as deleted) when the
/// statement has RETURNING.
#[derive(Default)]
pub struct Modified {
    pub count: u64,
    pub rows: Vec<Batch>,
}

pub fn insert(
    txn: &mut Transaction,
    (name, oid): (&QualifiedName, u32),
    source: &LogicalPlan,
    checks: &[RowCheck],
    keep_rows: bool,
    ctx: &ExecContext,
) -> Result<Modified> {
    let batches = materialize(create_operator(source, &ctx.state).as_mut(), ctx)?;
    // An inserter of a key that another transaction is deleting waits for it first, then
    // checks its keys against what that one committed, as PostgreSQL's inserter does.
    lock_inserted_keys(txn, name, oid, &batches)?;
    let mut appender = Appender::open(txn, name, oid, checks)?;
    for batch in &batches {
        appender.append(batch, ctx)?;
    }
    let mut modified = Modified {
        count: appender.finish(txn)?,
        rows: Vec::new(),
    };
    if keep_rows {
        modified.rows = batches;
    }
    Ok(modified)
}

/// Appends batches of full rows to a private version of one table, checking NOT NULL, CHECK
/// and UNIQUE as each arrives, so a bulk load (COPY) never holds its input twice; the version
/// is staged in the transaction by [`Appender::finish`].
pub struct Appender<'a> {
    entry: TableEntry,
    checks: &'a [RowCheck],
    types: Vec<crate::types::DataType>,
    oldest: Option<Arc<TableEntry>>,
    count: u64,
    /// The row id of the first row appended, where the foreign key checks start.
    first_row_id: Option<u64>,
    /// A partitioned table's: where its rows go, and an appender per partition.
    routes: Option<(Router, Vec<Appender<'a>>)>,
}

impl<'a> Appender<'a> {
    pub fn open(
        txn: &mut Transaction,
        name: &QualifiedName,
        oid: u32,
        checks: &'a [RowCheck],
    ) -> Result<Appender<'a>> {
        let entry = insertable(txn, name, oid)?;
        let types = entry.schema.column_types();
        let oldest = oldest_sharing_indexes(txn, &entry);
        let routes = match &entry.schema.partition_key {
            Some(key) => {
                let view = txn.view();
                let (router, partitions) = super::partition::router(&view, &entry.schema, key)?;
                let targets: Vec<(QualifiedName, u32)> = (partitions.iter())
                    .map(|p| (p.qualified_name(), p.oid))
                    .collect();
                let appenders = (targets.iter())
                    .map(|(name, oid)| Appender::open(txn, name, *oid, checks))
                    .collect::<Result<_>>()?;
                Some((router, appenders))
            }
            None => None,
        };
        Ok(Appender {
            entry,
            checks,
            types,
            oldest,
            count: 0,
            first_row_id: None,
            routes,
        })
    }

    pub fn schema(&self) -> &TableSchema {
        &self.entry.schema
    }

    pub fn append(&mut self, batch: &Batch, ctx: &ExecContext) -> Result<()> {
        if let Some((router, partitions)) = &mut self.routes {
            let enums = &ctx.state.enum_types;
            let rows_of = super::partition::split_rows(
                &self.entry.schema,
                router,
                partitions.len(),
                batch,
                enums,
            )?;
            for (partition, rows) in partitions.iter_mut().zip(rows_of) {
                if !rows.is_empty() {
                    partition.append(&batch.gather(&rows), ctx)?;
                }
            }
            self.count += batch.len() as u64;
            return Ok(());
        }
        check_new_rows(&self.entry.schema, self.checks, batch, None, ctx)?;
        let data = Arc::make_mut(&mut self.entry.data);
        let first_row_id = data.append(&self.types, batch)? as u64;
        self.first_row_id.get_or_insert(first_row_id);
        let row_ids: Vec<u64> = (first_row_id..first_row_id + batch.len() as u64).collect();
        let enums = &ctx.state.enum_types;
        check_unique(
            &self.entry,
            &row_ids,
            batch,
            None,
            self.oldest.as_deref(),
            enums,
        )?;
        self.count += batch.len() as u64;
        Ok(())
    }

    /// Stages the new version in `txn` and checks the appended rows' foreign keys (once,
    /// so rows of one statement may reference each other): how many rows were appended.
    pub fn finish(self, txn: &mut Transaction) -> Result<u64> {
        if let Some((_, partitions)) = self.routes {
            for partition in partitions {
                partition.finish(txn)?;
            }
            return Ok(self.count);
        }
        if let Some(first) = self.first_row_id {
            if txn.shares_table(&self.entry.schema.qualified_name()) {
                claim_unique_keys(txn, &self.entry, first)?;
            }
        }
        let schema = self.entry.schema.clone();
        let appended = match self.first_row_id {
            Some(first) if !schema.foreign_keys.is_empty() => self.entry.data.rows_from(first),
            _ => Vec::new(),
        };
        txn.put_table(self.entry);
        if !appended.is_empty() {
            super::foreign_key::check_references(txn, &schema, &appended, None)?;
        }
        Ok(self.count)
    }
}

/// Before the rows appended from row id `first` on to a table other inserters write at the
/// same time are staged: takes the lock of each of their unique keys, so that a second
/// inserter of a key waits for the first to end, then fails with 23505 if it committed the
/// key (PostgreSQL's inserter waits the same way for the transaction that has the key).
fn claim_unique_keys(txn: &mut Transaction, entry: &TableEntry, first: u64) -> Result<()> {
    let schema = &entry.schema;
    if schema.unique_keys.is_empty() {
        return Ok(());
    }
    for batch in entry.data.rows_from(first) {
        lock_unique_keys(txn, schema, &batch, |txn, index, columns, row| {
            let unique = &schema.unique_keys[index];
            let mut key = Vec::new();
            encode_row_key(columns, row, &mut key);
            let newest = txn.newest();
            let committed = newest.tables.get(&schema.oid);
            // A committed row with the key that this transaction deleted (holding its row
            // and key locks) no longer has it; one this transaction has not seen does.
            let deleted_here =
                |row: u64| (row as usize) < entry.data.row_capacity() && !entry.data.is_live(row);
            let taken = committed.is_some_and(|committed| {
                committed.unique_indexes.get(index).is_some_and(|index| {
                    index
                        .lookup(&key, &committed.data, &unique.columns)
                        .is_some_and(|row| !deleted_here(row))
                })
            });
            match taken {
                true => Err(duplicate_key(
                    schema,
                    unique,
                    columns,
                    row,
                    &newest.enum_types,
                )),
                false => Ok(()),
            }
        })?;
    }
    Ok(())
}

/// Takes the lock of every unique key (not NULL) of the rows of `batch`, full rows of
/// `schema`'s table, row by row; `locked(txn, index, key columns, row)` follows each.
fn lock_unique_keys(
    txn: &mut Transaction,
    schema: &TableSchema,
    batch: &Batch,
    mut locked: impl FnMut(&Transaction, usize, &[&Vector], usize) -> Result<()>,
) -> Result<()> {
    let columns: Vec<Vec<&Vector>> = (schema.unique_keys.iter())
        .map(|unique| unique.columns.iter().map(|&c| &*batch.columns[c]).collect())
        .collect();
    let mut key = Vec::new();
    for row in 0..batch.len() {
        for (index, columns) in columns.iter().enumerate() {
            key.clear();
            if encode_row_key(columns, row, &mut key) {
                continue; // NULLs never conflict.
            }
            txn.lock_unique_key(schema.oid, index, &key)?;
            locked(txn, index, columns, row)?;
        }
    }
    Ok(())
}

/// The table an UPDATE or DELETE writes, the FROM (USING) items joined to it, and the
/// WHERE clause over the target's columns followed by theirs.
pub struct Target<'a> {
    pub name: &'a QualifiedName,
    pub oid: u32,
    pub source: Option<&'a LogicalPlan>,
    pub filter: Option<&'a ScalarExpr>,
}

/// The rows `target` acts on, chunk by chunk.
fn target_rows(entry: &TableEntry, target: &Target, ctx: &ExecContext) -> Result<Vec<Matched>> {
    match target.source {
        None => matching_rows(entry, target.filter, ctx),
        Some(source) => super::dml_join::joined_matches(entry, source, target.filter, ctx),
    }
}

/// How often an UPDATE or DELETE reads its rows again after waiting for row locks.
const ROW_LOCK_ROUNDS_MAX: usize = 100;

/// The most rows an UPDATE or DELETE locks one by one; one that changes more takes the
/// table's lock exclusively instead, which costs the other writers a wait, never an answer.
const ROW_LOCKS_MAX: usize = 10_000;

/// Whether an UPDATE (with the columns it `assigned`) or DELETE (`None`) of `schema`'s
/// table may share the table with other writers of its rows, locking each row it changes
/// rather than the table. Not with FROM / USING (`joined`), nor where foreign keys are
/// checked (the checks lock the other table), nor where an UPDATE changes a unique key: an
/// inserter of a key decides on the newest committed rows once it holds the key's lock,
/// which an updater of the key does not take, so it would fail at once on a key being
/// changed where PostgreSQL waits for the updater and goes on. A DELETE takes the keys of
/// the rows it deletes (see [`delete`]), so an inserter of one of them waits for it.
pub fn locks_rows(
    schema: &TableSchema,
    referenced: bool,
    joined: bool,
    assigned: Option<&[usize]>,
) -> bool {
    let unique_changed = |unique: &crate::catalog::UniqueKey| match assigned {
        Some(columns) => unique.columns.iter().any(|c| columns.contains(c)),
        None => false,
    };
    !joined
        && !referenced
        && schema.foreign_keys.is_empty()
        && !schema.unique_keys.iter().any(unique_changed)
}

/// The table's newest version, locked for writing, and the rows `target` acts on in it:
/// with row locks when the transaction shares the table and the write allows it (see
/// [`locks_rows`]), else under the table's exclusive lock.
fn locked_targets(
    txn: &mut Transaction,
    target: &Target,
    assigned: Option<&[usize]>,
    ctx: &ExecContext,
) -> Result<(TableEntry, Vec<Matched>)> {
    if txn.shares_table(target.name) {
        let entry = insertable(txn, target.name, target.oid)?;
        let referenced = super::foreign_key::is_referenced(&ctx.state, target.oid);
        let joined = target.source.is_some();
        if locks_rows(&entry.schema, referenced, joined, assigned) {
            if let Some(locked) = row_locked_targets(txn, target, entry, ctx)? {
                return Ok(locked);
            }
        }
    }
    table_locked_targets(txn, target, ctx)
}

/// The rows `target` acts on in `entry` (this transaction's newest version of the table,
/// which it shares with other writers), each locked, in the version read once they are
/// locked: PostgreSQL's READ COMMITTED EvalPlanQual. A row another transaction changed or
/// locked is waited for; if anyone committed to the table meanwhile, each row found is read
/// again in the newest version and goes on only if it is still live and still passes the
/// WHERE clause (it is then updated from that version). Rows that pass only now are not
/// added, as in PostgreSQL. `None` when there are too many rows to lock one by one.
fn row_locked_targets(
    txn: &mut Transaction,
    target: &Target,
    entry: TableEntry,
    ctx: &ExecContext,
) -> Result<Option<(TableEntry, Vec<Matched>)>> {
    let matched = target_rows(&entry, target, ctx)?;
    // Rows from `base_rows` on are this transaction's own: nobody else sees them to change.
    let base = entry.data.changes().base_rows as u64;
    let committed: Vec<u64> = matched
        .iter()
        .flat_map(|m| {
            let first = (m.chunk_idx * BATCH_SIZE) as u64;
            m.chunk_offsets.iter().map(move |&o| first + u64::from(o))
        })
        .filter(|&id| id < base)
        .collect();
    if committed.len() > ROW_LOCKS_MAX {
        return Ok(None);
    }
    for &row_id in &committed {
        txn.lock_row(target.oid, row_id)?;
    }
    let newest = insertable(txn, target.name, target.oid)?;
    if newest.generation == entry.generation {
        return Ok(Some((entry, matched)));
    }
    let matched = recheck(&newest, &committed, target.filter, ctx)?;
    Ok(Some((newest, matched)))
}

/// The rows among `committed` (row ids) and this transaction's own (from `base_rows` on)
/// that are live in `entry` and pass `filter` there.
fn recheck(
    entry: &TableEntry,
    committed: &[u64],
    filter: Option<&ScalarExpr>,
    ctx: &ExecContext,
) -> Result<Vec<Matched>> {
    let data = &entry.data;
    let own = data.changes().base_rows;
    let mut by_chunk: std::collections::BTreeMap<usize, Vec<u32>> = Default::default();
    for &id in committed {
        let id = id as usize;
        by_chunk
            .entry(id / BATCH_SIZE)
            .or_default()
            .push((id % BATCH_SIZE) as u32);
    }
    for id in own..data.row_capacity() {
        by_chunk
            .entry(id / BATCH_SIZE)
            .or_default()
            .push((id % BATCH_SIZE) as u32);
    }
    let all: Vec<usize> = (0..entry.schema.columns.len()).collect();
    let mut matches = Vec::new();
    for (chunk_idx, mut offsets) in by_chunk {
        ctx.check_cancelled()?;
        let Some(chunk) = data.chunk(chunk_idx) else {
            continue;
        };
        offsets.sort_unstable();
        offsets.dedup();
        offsets.retain(|&o| (o as usize) < chunk.len && !chunk.is_deleted(o as usize));
        let batch = Batch::new(
            all.iter()
                .map(|&c| chunk.gather_column(chunk_idx, c, &offsets))
                .collect(),
            offsets.len(),
        );
        matches.extend(matched(chunk_idx, batch, &offsets, filter, ctx)?);
    }
    Ok(matches)
}

/// The table's newest version, locked exclusively, and the rows `target` acts on in it,
/// none of them locked by another transaction's SELECT ... FOR UPDATE / SHARE: where one
/// is, the write waits for that transaction and reads the rows again, as they may have
/// changed (PostgreSQL's READ COMMITTED re-check).
fn table_locked_targets(
    txn: &mut Transaction,
    target: &Target,
    ctx: &ExecContext,
) -> Result<(TableEntry, Vec<Matched>)> {
    for _ in 0..ROW_LOCK_ROUNDS_MAX {
        let entry = writable(txn, target.name, target.oid)?;
        let matched = target_rows(&entry, target, ctx)?;
        if !txn.any_row_locks() {
            return Ok((entry, matched));
        }
        let row_ids: Vec<u64> = matched
            .iter()
            .flat_map(|m| {
                let base = (m.chunk_idx * BATCH_SIZE) as u64;
                m.chunk_offsets.iter().map(move |&o| base + u64::from(o))
            })
            .collect();
        if !txn.wait_for_row_locks(target.name, target.oid, &row_ids)? {
            return Ok((entry, matched));
        }
    }
    Err(Error::new(
        SqlState::SerializationFailure,
        "could not serialize access due to concurrent update",
    ))
}

/// Updates the target rows; with RETURNING, the new rows (followed by the FROM items'
/// columns of their match) are kept.
pub fn update(
    txn: &mut Transaction,
    target: &Target,
    assignments: &[(usize, ScalarExpr)],
    checks: &[RowCheck],
    keep_rows: bool,
    ctx: &ExecContext,
) -> Result<Modified> {
    if let Some((key, partitions)) = super::partition::partition_targets(txn, target) {
        if assignments.iter().any(|(column, _)| *column == key) {
            return update_moving_rows(
                txn,
                target,
                &partitions,
                assignments,
                checks,
                keep_rows,
                ctx,
            );
        }
        return each_partition(target, &partitions, |part| {
            update(txn, part, assignments, checks, keep_rows, ctx)
        });
    }
    let assigned: Vec<usize> = assignments.iter().map(|(c, _)| *c).collect();
    let (mut entry, targets) = locked_targets(txn, target, Some(&assigned), ctx)?;
    let width = entry.schema.columns.len();
    let mut modified = Modified::default();
    let mut changed: Vec<(Vec<u64>, Batch, Batch)> = Vec::new();
    for Matched {
        chunk_idx,
        batch,
        rows,
        chunk_offsets,
    } in targets
    {
        let matched = batch.gather(&rows);
        let values = assignments
            .iter()
            .map(|(_, e)| evaluate(e, &matched, ctx))
            .collect::<Result<Vec<_>>>()?;
        let mut new_rows = matched.columns[..width].to_vec();
        for ((column, _), value) in assignments.iter().zip(&values) {
            new_rows[*column] = value.clone();
        }
        let new_rows = Batch::new(new_rows, matched.len());
        check_new_rows(&entry.schema, checks, &new_rows, Some(&assigned), ctx)?;
        let data = Arc::make_mut(&mut entry.data);
        for ((column, _), value) in assignments.iter().zip(&values) {
            data.update_column(chunk_idx, *column, &chunk_offsets, value)?;
        }
        modified.count += rows.len() as u64;
        let base = (chunk_idx * BATCH_SIZE) as u64;
        let row_ids: Vec<u64> = chunk_offsets.iter().map(|&o| base + o as u64).collect();
        changed.push((row_ids, new_rows, matched));
    }
    // Uniqueness holds for the statement's result, checked once every row is updated; first
    // the conflicts PostgreSQL meets on its way there, updating a row at a time.
    let enums = &ctx.state.enum_types;
    check_unique_row_by_row(&entry.schema, &changed, &assigned, enums)?;
    let oldest = oldest_sharing_indexes(txn, &entry);
    for (row_ids, rows, _) in &changed {
        check_unique(
            &entry,
            row_ids,
            rows,
            Some(&assigned),
            oldest.as_deref(),
            enums,
        )?;
    }
    let schema = entry.schema.clone();
    txn.put_table(entry);
    let new_rows: Vec<Batch> = changed.iter().map(|(_, rows, _)| rows.clone()).collect();
    super::foreign_key::check_references(txn, &schema, &new_rows, Some(&assigned))?;
    if super::foreign_key::is_referenced(&ctx.state, schema.oid) {
        let old_rows: Vec<Batch> = changed
            .iter()
            .map(|(_, _, matched)| Batch::new(matched.columns[..width].to_vec(), matched.len()))
            .collect();
        super::foreign_key::referenced_rows_changed(
            txn,
            schema.oid,
            &old_rows,
            Some(&new_rows),
            Some(&assigned),
            ctx,
        )?;
    }
    if keep_rows {
        modified.rows = changed
            .into_iter()
            .map(|(_, mut rows, matched)| {
                rows.columns.extend_from_slice(&matched.columns[width..]);
                rows
            })
            .collect();
    }
    Ok(modified)
}

/// An UPDATE or DELETE of a partitioned table: `write` run on each of its partitions,
/// with the target's source and filter; what they did, together.
fn each_partition(
    target: &Target,
    partitions: &[(QualifiedName, u32)],
    mut write: impl FnMut(&Target) -> Result<Modified>,
) -> Result<Modified> {
    let mut modified = Modified::default();
    for (name, oid) in partitions {
        let part = Target {
            name,
            oid: *oid,
            source: target.source,
            filter: target.filter,
        };
        let done = write(&part)?;
        modified.count += done.count;
        modified.rows.extend(done.rows);
    }
    Ok(modified)
}

/// An UPDATE of a partitioned table's key, which may move rows to other partitions, as
/// PostgreSQL 11+ does: every target row is deleted from its partition, then the new rows
/// are inserted into the table and routed (all deletes first, so no partition sees a row
/// it has just received again); with RETURNING, the new rows and their FROM columns.
fn update_moving_rows(
    txn: &mut Transaction,
    target: &Target,
    partitions: &[(QualifiedName, u32)],
    assignments: &[(usize, ScalarExpr)],
    checks: &[RowCheck],
    keep_rows: bool,
    ctx: &ExecContext,
) -> Result<Modified> {
    let old_rows = each_partition(target, partitions, |part| delete(txn, part, true, ctx))?;
    let mut appender = Appender::open(txn, target.name, target.oid, checks)?;
    let width = appender.schema().columns.len();
    let mut modified = Modified::default();
    for matched in &old_rows.rows {
        let mut new_rows = matched.columns[..width].to_vec();
        for (column, expr) in assignments {
            new_rows[*column] = evaluate(expr, matched, ctx)?;
        }
        let mut new_rows = Batch::new(new_rows, matched.len());
        appender.append(&new_rows, ctx)?;
        modified.count += matched.len() as u64;
        if keep_rows {
            new_rows
                .columns
                .extend_from_slice(&matched.columns[width..]);
            modified.rows.push(new_rows);
        }
    }
    appender.finish(txn)?;
    Ok(modified)
}

/// Deletes the target rows; with RETURNING, they are kept (followed by the USING items'
/// columns of their match).
pub fn delete(
    txn: &mut Transaction,
    target: &Target,
    keep_rows: bool,
    ctx: &ExecContext,
) -> Result<Modified> {
    if let Some((_, partitions)) = super::partition::partition_targets(txn, target) {
        return each_partition(target, &partitions, |part| {
            delete(txn, part, keep_rows, ctx)
        });
    }
    let (mut entry, targets) = locked_targets(txn, target, None, ctx)?;
    let referenced = super::foreign_key::is_referenced(&ctx.state, target.oid);
    let width = entry.schema.columns.len();
    // Sharing the table, it takes the unique keys of the rows it deletes, as an inserter of
    // them does: an inserter of one waits for this transaction, then finds it gone or not.
    let shared = txn.shares_table(target.name);
    let mut modified = Modified::default();
    let mut deleted = Vec::new();
    for Matched {
        chunk_idx,
        batch,
        rows,
        chunk_offsets,
    } in targets
    {
        if shared && !entry.schema.unique_keys.is_empty() {
            lock_unique_keys(
                txn,
                &entry.schema,
                &batch.gather(&rows),
                |_, _, _, _| Ok(()),
            )?;
        }
        Arc::make_mut(&mut entry.data).delete_rows(chunk_idx, &chunk_offsets)?;
        modified.count += rows.len() as u64;
        if keep_rows || referenced {
            deleted.push(batch.gather(&rows));
        }
    }
    // Compacting moves rows to other ids, which row locks are taken by and which the other
    // writers of a shared table build on.
    if super::vacuum::mostly_deleted(&entry) && !shared && !txn.any_row_locks() {
        super::vacuum::compact(&mut entry)?;
    }
    txn.put_table(entry);
    if referenced {
        let old_rows: Vec<Batch> = deleted
            .iter()
            .map(|b| Batch::new(b.columns[..width].to_vec(), b.len()))
            .collect();
        super::foreign_key::referenced_rows_changed(txn, target.oid, &old_rows, None, None, ctx)?;
    }
    if keep_rows {
        modified.rows = deleted;
    }
    Ok(modified)
}

/// The rows of `batch` (the live rows of chunk `chunk_idx`, at `offsets` in it) that pass
/// `filter`, if any do.
fn matched(
    chunk_idx: usize,
    batch: Batch,
    offsets: &[u32],
    filter: Option<&ScalarExpr>,
    ctx: &ExecContext,
) -> Result<Option<Matched>> {
    let rows = match filter {
        Some(f) => selected_rows(&batch, f, ctx)?,
        None => (0..batch.len() as u32).collect(),
    };
    if rows.is_empty() {
        return Ok(None);
    }
    let chunk_offsets = rows.iter().map(|&r| offsets[r as usize]).collect();
    Ok(Some(Matched {
        chunk_idx,
        batch,
        rows,
        chunk_offsets,
    }))
}

/// The live rows of a chunk with every column, and each row's offset in the chunk.
/// The rows of one chunk an UPDATE or DELETE affects: the chunk's live rows as a batch,
/// the positions of the affected ones in it, and their offsets in the chunk.
pub(super) struct Matched {
    pub(super) chunk_idx: usize,
    pub(super) batch: Batch,
    pub(super) rows: Vec<u32>,
    pub(super) chunk_offsets: Vec<u32>,
}

/// Every chunk's rows that pass `filter` in the statement's starting version.
fn matching_rows(
    entry: &TableEntry,
    filter: Option<&ScalarExpr>,
    ctx: &ExecContext,
) -> Result<Vec<Matched>> {
    let pinned = match filter {
        Some(f) => pinned_row(entry, f, ctx)?,
        None => None,
    };
    let mut matches = Vec::new();
    for chunk_idx in chunks_to_visit(&entry.data, pinned) {
        ctx.check_cancelled()?;
        let (batch, offsets) = live_rows(&entry.data, chunk_idx, pinned)?;
        matches.extend(matched(chunk_idx, batch, &offsets, filter, ctx)?);
    }
    Ok(matches)
}

/// With `pinned`, only that row (if it is live).
pub(super) fn live_rows(
    data: &TableData,
    chunk_idx: usize,
    pinned: Option<Pinned>,
) -> Result<(Batch, Vec<u32>)> {
    let chunk = data
        .chunk(chunk_idx)
        .ok_or_else(|| Error::internal(format!("chunk {chunk_idx} out of range")))?;
    if let Some(pinned) = pinned {
        let offset = pinned.row.map(|r| (r as usize % BATCH_SIZE) as u32);
        let offsets: Vec<u32> = offset
            .filter(|&o| (o as usize) < chunk.len && !chunk.is_deleted(o as usize))
            .into_iter()
            .collect();
        let batch = Batch::new(
            chunk
                .columns
                .iter()
                .map(|c| Arc::new(c.gather(&offsets)))
                .collect(),
            offsets.len(),
        );
        return Ok((batch, offsets));
    }
    let all: Vec<usize> = (0..chunk.columns.len()).collect();
    let offsets: Vec<u32> = (0..chunk.len as u32)
        .filter(|&r| !chunk.is_deleted(r as usize))
        .collect();
    Ok((chunk.to_batch(&all), offsets))
}

/// A write whose WHERE pins a single-column unique key to a constant: the one row it can
/// touch (`row: None` when no row has the key), found through the key's index.
#[derive(Clone, Copy)]
pub(super) struct Pinned {
    row: Option<u64>,
}

fn chunks_to_visit(data: &TableData, pinned: Option<Pinned>) -> Vec<usize> {
    match pinned {
        None => (0..data.chunk_count()).collect(),
        Some(Pinned { row: None }) => Vec::new(),
        Some(Pinned { row: Some(row) }) => vec![row as usize / BATCH_SIZE],
    }
}

fn pinned_row(
    entry: &TableEntry,
    filter: &ScalarExpr,
    ctx: &ExecContext,
) -> Result<Option<Pinned>> {
    for conjunct in filter.clone().into_conjuncts() {
        let Some((column, ty, value)) = conjunct.pinned_column() else {
            continue;
        };
        let Some(key) = entry
            .schema
            .unique_keys
            .iter()
            .position(|k| k.columns == [column])
        else {
            continue;
        };
        let (Some(unique), Some(index)) = (
            entry.schema.unique_keys.get(key),
            entry.unique_indexes.get(key),
        ) else {
            continue;
        };
        let value = super::expression::evaluate_constant(value, ctx)?;
        if value.is_null() {
            return Ok(Some(Pinned { row: None }));
        }
        let probe = Vector::from_scalar(&value, ty, 1)?;
        let mut bytes = Vec::new();
        encode_row_key(&[&probe], 0, &mut bytes);
        let row = index.lookup(&bytes, &entry.data, &unique.columns);
        return Ok(Some(Pinned { row }));
    }
    Ok(None)
}

/// What new rows must pass, in PostgreSQL's order: the checks of the domains of their
/// columns (values are coerced to the column types before the row is checked), then the
/// NOT NULL columns (among `columns`, or all), then the table's CHECK constraints.
pub(super) fn check_new_rows(
    schema: &TableSchema,
    checks: &[RowCheck],
    batch: &Batch,
    columns: Option<&[usize]>,
    ctx: &ExecContext,
) -> Result<()> {
    // The domains' checks come first in the list (see `Binder::row_checks`).
    let domains = (checks.iter())
        .take_while(|c| matches!(c.kind, CheckKind::Domain(_) | CheckKind::DomainNotNull(_)))
        .count();
    check_rows(schema, &checks[..domains], batch, ctx)?;
    check_not_null(schema, batch, columns, &ctx.state.enum_types)?;
    check_rows(schema, &checks[domains..], batch, ctx)?;
    super::partition::check_partition_bound(schema, batch, ctx)
}

/// 23502 if a NOT NULL column (among `columns`, or all) gets a NULL.
pub(super) fn check_not_null(
    schema: &TableSchema,
    batch: &Batch,
    columns: Option<&[usize]>,
    enums: &EnumTypes,
) -> Result<()> {
    for (index, def) in schema.columns.iter().enumerate() {
        if !def.not_null || columns.is_some_and(|c| !c.contains(&index)) {
            continue;
        }
        let column = &batch.columns[index];
        if let Some(row) = (0..batch.len()).find(|&r| !column.is_valid(r)) {
            return Err(Error::new(
                SqlState::NotNullViolation,
                format!(
                    "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                    def.name, schema.name
                ),
            )
            .with_detail(format!(
                "Failing row contains ({}).",
                row_text(schema, batch, row, enums)
            )));
        }
    }
    Ok(())
}

/// The oldest version of `entry`'s table that a statement may still read, if it uses the same
/// unique indexes (a compaction, ALTER or TRUNCATE since gave the table new ones): rows
/// deleted there are deleted for everyone, and their index entries can go.
pub(super) fn oldest_sharing_indexes(
    txn: &Transaction,
    entry: &TableEntry,
) -> Option<Arc<TableEntry>> {
    txn.oldest_live_table(entry.schema.oid)
        .filter(|oldest| Arc::ptr_eq(&oldest.unique_indexes, &entry.unique_indexes))
}

/// 23505 if a row of `batch` (stored as `row_ids`) duplicates a key of another live row. With
/// `columns`, only keys over one of those columns are checked. `oldest`: see
/// [`oldest_sharing_indexes`].
pub(super) fn check_unique(
    entry: &TableEntry,
    row_ids: &[u64],
    batch: &Batch,
    columns: Option<&[usize]>,
    oldest: Option<&TableEntry>,
    enums: &EnumTypes,
) -> Result<()> {
    let data = &entry.data;
    let oldest = oldest.map(|o| &*o.data);
    let mut key = Vec::new();
    for (unique, index) in entry
        .schema
        .unique_keys
        .iter()
        .zip(entry.unique_indexes.iter())
    {
        if columns.is_some_and(|c| !unique.columns.iter().any(|k| c.contains(k))) {
            continue;
        }
        let key_columns: Vec<&Vector> = unique
            .columns
            .iter()
            .map(|&c| batch.columns[c].as_ref())
            .collect();
        for (row, &row_id) in row_ids.iter().enumerate().take(batch.len()) {
            key.clear();
            if encode_row_key(&key_columns, row, &mut key) {
                continue; // NULLs never conflict.
            }
            if !index.insert(&key, row_id, data, &unique.columns, oldest) {
                return Err(duplicate_key(
                    &entry.schema,
                    unique,
                    &key_columns,
                    row,
                    enums,
                ));
            }
        }
    }
    Ok(())
}

/// PostgreSQL updates a row at a time, in scan order, and checks each new key against the
/// index as it goes: a row taking the key of a row the statement updates later finds that
/// row's key still there (`UPDATE t SET k = k + 1` over 1, 2 fails at the first row), even
/// when the statement's result would be unique. `changed` holds (row ids, new rows, old rows)
/// in scan order.
fn check_unique_row_by_row(
    schema: &TableSchema,
    changed: &[(Vec<u64>, Batch, Batch)],
    assigned: &[usize],
    enums: &EnumTypes,
) -> Result<()> {
    let mut key = Vec::new();
    for unique in &schema.unique_keys {
        if !unique.columns.iter().any(|c| assigned.contains(c)) {
            continue;
        }
        // The old key of each updated row, with its place in the scan.
        let mut updated_later: hashbrown::HashMap<Vec<u8>, usize> = hashbrown::HashMap::new();
        let mut place = 0;
        for (_, _, old) in changed {
            let columns: Vec<&Vector> = unique
                .columns
                .iter()
                .map(|&c| old.columns[c].as_ref())
                .collect();
            for row in 0..old.len() {
                key.clear();
                if !encode_row_key(&columns, row, &mut key) {
                    updated_later.insert(key.clone(), place);
                }
                place += 1;
            }
        }
        let mut place = 0;
        for (_, new, old) in changed {
            let new_columns: Vec<&Vector> = unique
                .columns
                .iter()
                .map(|&c| new.columns[c].as_ref())
                .collect();
            let old_columns: Vec<&Vector> = unique
                .columns
                .iter()
                .map(|&c| old.columns[c].as_ref())
                .collect();
            let mut old_key = Vec::new();
            for row in 0..new.len() {
                key.clear();
                old_key.clear();
                let new_null = encode_row_key(&new_columns, row, &mut key);
                encode_row_key(&old_columns, row, &mut old_key);
                if !new_null
                    && key != old_key
                    && updated_later.get(&key).is_some_and(|&other| other > place)
                {
                    return Err(duplicate_key(schema, unique, &new_columns, row, enums));
                }
                place += 1;
            }
        }
    }
    Ok(())
}

/// 23505 for the key of `row` in `key_columns`, as PostgreSQL words it.
fn duplicate_key(
    schema: &TableSchema,
    unique: &crate::catalog::UniqueKey,
    key_columns: &[&Vector],
    row: usize,
    enums: &EnumTypes,
) -> Error {
    Error::new(
        SqlState::UniqueViolation,
        format!(
            "duplicate key value violates unique constraint \"{}\"",
            unique.name
        ),
    )
    .with_detail(format!(
        "Key {} already exists.",
        crate::storage::unique_key_text(schema, unique, key_columns, row, enums)
    ))
}

/// A row of `schema`'s table as PostgreSQL prints it in "Failing row contains (...)".
pub(super) fn row_text(
    schema: &TableSchema,
    batch: &Batch,
    row: usize,
    enums: &EnumTypes,
) -> String {
    let values: Vec<(&Vector, &DataType)> = (batch.columns.iter())
        .enumerate()
        .map(|(i, column)| {
            let ty = schema
                .columns
                .get(i)
                .map_or(&DataType::Unknown, |c| &c.data_type);
            (column.as_ref(), ty)
        })
        .collect();
    values_text(&values, row, enums)
}
