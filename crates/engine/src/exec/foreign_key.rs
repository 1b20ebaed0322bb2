//! FOREIGN KEY enforcement, a set of rows at a time.
//!
//! Referencing side: once a statement has staged its new rows, each foreign key whose
//! columns it wrote encodes those rows' keys (in the referenced unique key's column order
//! and types) and probes the referenced table's unique index under one lock per batch.
//! Referenced side: once a DELETE or UPDATE has staged its table, each key that went away
//! goes into one hash set, and each referencing table is scanned once, its key columns
//! probed against that set; the matching rows are refused (NO ACTION, RESTRICT), deleted
//! or updated (CASCADE, SET NULL, SET DEFAULT), and those changes run through the same
//! two checks in turn.
//!
//! Concurrency: a writer locks every table it changes, and a lock is all the storage offers.
//! A check of new references locks the referenced table, so it reads the newest committed
//! version (never another transaction's uncommitted rows), and no transaction can delete a
//! referenced row until the referencing one ends. A change to referenced keys locks each
//! referencing table before it scans it, so it sees every committed reference and none can
//! be added under it.
//!
//! A deferred check (DEFERRABLE INITIALLY DEFERRED, or SET CONSTRAINTS ... DEFERRED) is
//! recorded in the transaction and runs at COMMIT (or SET CONSTRAINTS ... IMMEDIATE) over
//! the whole referencing table.

use std::sync::Arc;

use hashbrown::{HashMap, HashSet};

use super::expression::evaluate;
use super::modify::{check_not_null, check_unique, oldest_sharing_indexes};
use super::ExecContext;
use crate::api::Notice;
use crate::catalog::{
    key_cast, ForeignKey, KeyCast, QualifiedName, ReferentialAction, TableSchema,
};
use crate::error::{Error, Result, SqlState};
use crate::function::cast::{cast_vector, CastContext};
use crate::plan::{ConflictAction, ScalarExpr};
use crate::storage::{key_text, DbState, EnumTypes, TableEntry, Transaction};
use crate::types::{DataType, ScalarValue};
use crate::vector::{encode_row_key, Batch, Vector, BATCH_SIZE};

/// Locks each table `schema`'s foreign keys reference (CREATE TABLE, ALTER TABLE), so a
/// referenced table cannot be dropped under them.
pub fn lock_referenced_tables(txn: &mut Transaction, schema: &TableSchema) -> Result<()> {
    for key in &schema.foreign_keys {
        if key.referenced_table != schema.oid {
            referenced_entry(txn, key.referenced_table)?;
        }
    }
    Ok(())
}

/// The newest version of table `oid`, locked.
fn referenced_entry(txn: &mut Transaction, oid: u32) -> Result<Arc<TableEntry>> {
    let name = table_name(txn, oid)?;
    match txn.table_for_write(&name)? {
        Some(entry) if entry.schema.oid == oid => Ok(entry),
        _ => Err(Error::internal(format!(
            "table {oid} referenced by a foreign key is gone"
        ))),
    }
}

fn table_name(txn: &Transaction, oid: u32) -> Result<QualifiedName> {
    txn.view()
        .tables
        .get(&oid)
        .map(|e| e.schema.qualified_name())
        .ok_or_else(|| Error::internal(format!("table {oid} of a foreign key is gone")))
}

/// A foreign key's keys as bytes, one per row: each row's key columns converted to the
/// referenced types and laid out in the referenced unique key's column order, so they
/// compare with that key's index entries.
struct KeyLayout {
    /// For each column of the referenced unique key, the foreign key column paired with it.
    order: Vec<usize>,
    /// Per foreign key column: the conversion its values need, and to which type.
    casts: Vec<(KeyCast, crate::types::DataType, crate::types::DataType)>,
    /// The referenced unique key (its position in the referenced schema's keys).
    unique_key: usize,
}

impl KeyLayout {
    /// The layout of `key`'s keys read from `columns` of `table`: the referencing columns of
    /// the referencing table, or the referenced columns of the referenced table itself.
    fn new(
        key: &ForeignKey,
        (table, columns): (&TableSchema, &[usize]),
        parent: &TableSchema,
    ) -> Result<KeyLayout> {
        let unique_key = parent
            .unique_key_over(&key.referenced_columns)
            .ok_or_else(|| {
                Error::internal(format!("the unique key foreign key \"{}\" needs", key.name))
            })?;
        let order = parent.unique_keys[unique_key]
            .columns
            .iter()
            .filter_map(|c| key.referenced_columns.iter().position(|r| r == c))
            .collect();
        let mut casts = Vec::with_capacity(key.columns.len());
        for (&from, &to) in columns.iter().zip(&key.referenced_columns) {
            let (from, to) = (table.columns[from].data_type, parent.columns[to].data_type);
            let cast = key_cast(from, to).ok_or_else(|| {
                Error::internal(format!(
                    "foreign key \"{}\" between {from} and {to}",
                    key.name
                ))
            })?;
            casts.push((cast, from, to));
        }
        Ok(KeyLayout {
            order,
            casts,
            unique_key,
        })
    }

    /// The referencing columns of `batch` (at `positions`) converted to referenced types.
    fn convert(&self, batch: &Batch, positions: &[usize]) -> Result<Vec<Arc<Vector>>> {
        positions
            .iter()
            .zip(&self.casts)
            .map(|(&p, &(cast, from, to))| match cast {
                KeyCast::Same => Ok(batch.columns[p].clone()),
                KeyCast::Widen => Ok(Arc::new(cast_vector(
                    &batch.columns[p],
                    from,
                    to,
                    CastContext::Implicit,
                )?)),
            })
            .collect()
    }
}

/// Each row's key bytes, end to end, with each row's span; `None` for a row with a NULL
/// key column (it references nothing).
struct Keys {
    bytes: Vec<u8>,
    spans: Vec<Option<(usize, usize)>>,
}

impl Keys {
    fn encode(columns: &[Arc<Vector>], order: &[usize], rows: usize) -> Keys {
        let ordered: Vec<&Vector> = order.iter().map(|&i| columns[i].as_ref()).collect();
        let mut keys = Keys {
            bytes: Vec::with_capacity(rows * 9 * ordered.len()),
            spans: Vec::with_capacity(rows),
        };
        for row in 0..rows {
            let start = keys.bytes.len();
            if encode_row_key(&ordered, row, &mut keys.bytes) {
                keys.bytes.truncate(start);
                keys.spans.push(None);
            } else {
                keys.spans.push(Some((start, keys.bytes.len())));
            }
        }
        keys
    }

    /// Row `row`'s key, if it has no NULL.
    fn get(&self, row: usize) -> Option<&[u8]> {
        let (start, end) = self.spans[row]?;
        Some(&self.bytes[start..end])
    }

    fn iter(&self) -> impl Iterator<Item = (usize, &[u8])> {
        (0..self.spans.len()).filter_map(|row| Some((row, self.get(row)?)))
    }
}

/// `(a, b)=(1, 2)`: the columns and the values of row `row` in `columns`.
/// The key of `schema`'s `columns` (their values in `values`) at `row`: `(a, b)=(1, x)`.
fn key_values_text(
    schema: &TableSchema,
    columns: &[usize],
    values: &[&Vector],
    row: usize,
    enums: &EnumTypes,
) -> String {
    let typed: Vec<(&Vector, &DataType)> = (values.iter().zip(columns))
        .map(|(&value, &c)| (value, &schema.columns[c].data_type))
        .collect();
    key_text(&column_names(schema, columns), &typed, row, enums)
}

fn column_names<'a>(schema: &'a TableSchema, columns: &[usize]) -> Vec<&'a str> {
    columns
        .iter()
        .map(|&c| schema.columns[c].name.as_str())
        .collect()
}

fn insert_violation(child: &TableSchema, key: &ForeignKey) -> Error {
    Error::new(
        SqlState::ForeignKeyViolation,
        format!(
            "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
            child.name, key.name
        ),
    )
}

/// Checks the rows of `batches` (full rows of `child`) against every foreign key of `child`
/// over one of `changed` (all with `None`); deferred keys are recorded for COMMIT instead.
pub fn check_references(
    txn: &mut Transaction,
    child: &TableSchema,
    batches: &[Batch],
    changed: Option<&[usize]>,
) -> Result<()> {
    for key in &child.foreign_keys {
        if changed.is_some_and(|c| !key.columns.iter().any(|k| c.contains(k))) {
            continue;
        }
        if txn.constraint_checks.is_deferred(key) {
            txn.constraint_checks.defer(child.oid, &key.name);
            continue;
        }
        check_key(txn, child, key, batches)?;
    }
    Ok(())
}

/// 23503 unless every row of `batches` satisfies `key` in the newest version of the
/// referenced table.
fn check_key(
    txn: &mut Transaction,
    child: &TableSchema,
    key: &ForeignKey,
    batches: &[Batch],
) -> Result<()> {
    let parent = referenced_entry(txn, key.referenced_table)?;
    let layout = KeyLayout::new(key, (child, &key.columns), &parent.schema)?;
    let unique = &parent.schema.unique_keys[layout.unique_key];
    let index = parent
        .unique_indexes
        .get(layout.unique_key)
        .ok_or_else(|| Error::internal("a unique key without its index"))?;
    // Keys already found present: a referenced key repeats across many rows, and a set
    // lookup is cheaper than the index's check of its candidate row.
    let mut present: HashSet<Box<[u8]>> = HashSet::new();
    for batch in batches {
        let columns = layout.convert(batch, &key.columns)?;
        if key.match_full {
            check_match_full(child, key, &columns, batch.len())?;
        }
        let keys = Keys::encode(&columns, &layout.order, batch.len());
        let unseen = || keys.iter().filter(|(_, k)| !present.contains(*k));
        let missing = index.first_missing(unseen(), &parent.data, &unique.columns);
        if missing.is_none() {
            let found: Vec<Box<[u8]>> = unseen().map(|(_, k)| k.into()).collect();
            present.extend(found);
        }
        if let Some(row) = missing {
            let originals: Vec<&Vector> = key
                .columns
                .iter()
                .map(|&c| batch.columns[c].as_ref())
                .collect();
            return Err(insert_violation(child, key).with_detail(format!(
                "Key {} is not present in table \"{}\".",
                key_values_text(child, &key.columns, &originals, row, &txn.view().enum_types),
                parent.schema.name
            )));
        }
    }
    Ok(())
}

/// MATCH FULL: a key is either all NULL or has no NULL.
fn check_match_full(
    child: &TableSchema,
    key: &ForeignKey,
    columns: &[Arc<Vector>],
    rows: usize,
) -> Result<()> {
    for row in 0..rows {
        let nulls = columns.iter().filter(|c| !c.is_valid(row)).count();
        if nulls > 0 && nulls < columns.len() {
            return Err(insert_violation(child, key)
                .with_detail("MATCH FULL does not allow mixing of null and nonnull key values."));
        }
    }
    Ok(())
}

/// Checks every live row of table `child_oid` against its foreign key `name` (ALTER TABLE
/// ADD CONSTRAINT, VALIDATE CONSTRAINT, and deferred checks at COMMIT).
pub fn validate(txn: &mut Transaction, child_oid: u32, name: &str) -> Result<()> {
    let child = referenced_entry(txn, child_oid)?;
    let Some(key) = child.schema.foreign_keys.iter().find(|k| k.name == name) else {
        return Ok(()); // Dropped since it was deferred.
    };
    let all: Vec<usize> = (0..child.schema.columns.len()).collect();
    let batches: Vec<Batch> = child.data.chunks().map(|c| c.to_batch(&all)).collect();
    check_key(txn, &child.schema, key, &batches)
}

/// INSERT ... ON CONFLICT: its inserted and updated rows are not kept apart, so each
/// foreign key of the table checks all its rows. DO UPDATE of a key other tables reference
/// is not supported.
pub fn check_upserted(
    txn: &mut Transaction,
    schema: &TableSchema,
    on_conflict: &crate::plan::OnConflict,
) -> Result<()> {
    if let ConflictAction::Update { assignments, .. } = &on_conflict.action {
        let view = txn.view();
        let changes_referenced_key = view.tables.values().any(|e| {
            e.schema.foreign_keys_to(schema.oid).any(|k| {
                assignments
                    .iter()
                    .any(|(c, _)| k.referenced_columns.contains(c))
            })
        });
        if changes_referenced_key {
            return Err(Error::unsupported(
                "ON CONFLICT DO UPDATE of a key referenced by a foreign key",
            ));
        }
    }
    for key in &schema.foreign_keys {
        if txn.constraint_checks.is_deferred(key) {
            txn.constraint_checks.defer(schema.oid, &key.name);
        } else {
            validate(txn, schema.oid, &key.name)?;
        }
    }
    Ok(())
}

/// Runs the checks deferred to COMMIT (`all`), or those SET CONSTRAINTS ... IMMEDIATE
/// made immediate, keeping the others waiting.
pub fn check_deferred(txn: &mut Transaction, all: bool) -> Result<()> {
    for (oid, name) in txn.constraint_checks.take_pending() {
        let view = txn.view();
        let Some(table) = view.tables.get(&oid) else {
            continue; // Dropped since.
        };
        let key = table.schema.foreign_keys.iter().find(|k| k.name == name);
        match key {
            None => continue,
            Some(key) if !all && txn.constraint_checks.is_deferred(key) => {
                txn.constraint_checks.defer(oid, &name);
            }
            Some(_) => validate(txn, oid, &name)?,
        }
    }
    Ok(())
}

/// Whether a foreign key of some table of `state` (the statement's: a key added since is
/// under the table's lock, which the statement holds) references table `oid`.
pub fn is_referenced(state: &DbState, oid: u32) -> bool {
    state
        .tables
        .values()
        .any(|e| e.schema.foreign_keys_to(oid).next().is_some())
}

/// The rows of table `oid` a DELETE removed (`new: None`) or an UPDATE of columns `changed`
/// rewrote (`new`: the same rows after it, batch for batch), applied to every foreign key
/// referencing the table. `oid`'s new version is staged in `txn` already.
pub fn referenced_rows_changed(
    txn: &mut Transaction,
    oid: u32,
    old: &[Batch],
    new: Option<&[Batch]>,
    changed: Option<&[usize]>,
    ctx: &ExecContext,
) -> Result<()> {
    let view = txn.view();
    let mut referencing: Vec<(u32, ForeignKey)> = Vec::new();
    for entry in view.tables.values() {
        for key in entry.schema.foreign_keys_to(oid) {
            if changed.is_none_or(|c| key.referenced_columns.iter().any(|k| c.contains(k))) {
                referencing.push((entry.schema.oid, key.clone()));
            }
        }
    }
    // In name order, as PostgreSQL fires its triggers.
    referencing.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    let change = ReferencedChange {
        parent_oid: oid,
        old,
        new,
    };
    for (child_oid, key) in referencing {
        apply_action(txn, &change, child_oid, &key, ctx)?;
    }
    Ok(())
}

/// Rows of a referenced table that a DELETE removed or an UPDATE rewrote.
struct ReferencedChange<'a> {
    parent_oid: u32,
    old: &'a [Batch],
    /// After an UPDATE: the same rows as they are now.
    new: Option<&'a [Batch]>,
}

/// The keys that went away: old key bytes (referenced unique key order) → the batch and
/// row of the old row that had it.
struct GoneKeys {
    keys: HashMap<Box<[u8]>, (usize, usize)>,
}

impl GoneKeys {
    /// The keys of `change`'s old rows that no row has now: an UPDATE that left a key
    /// alone took nothing away, and under NO ACTION a key another row took over within
    /// the statement is still there.
    fn find(
        change: &ReferencedChange,
        key: &ForeignKey,
        parent: &TableEntry,
        no_action: bool,
    ) -> Result<GoneKeys> {
        let layout = KeyLayout::new(
            key,
            (&parent.schema, &key.referenced_columns),
            &parent.schema,
        )?;
        let unique = &parent.schema.unique_keys[layout.unique_key];
        let index = parent
            .unique_indexes
            .get(layout.unique_key)
            .ok_or_else(|| Error::internal("a unique key without its index"))?;
        let encode = |batch: &Batch| -> Result<Keys> {
            let columns = layout.convert(batch, &key.referenced_columns)?;
            Ok(Keys::encode(&columns, &layout.order, batch.len()))
        };
        let mut gone = GoneKeys {
            keys: HashMap::new(),
        };
        for (batch_idx, batch) in change.old.iter().enumerate() {
            let keys = encode(batch)?;
            let new_keys = change.new.map(|new| encode(&new[batch_idx])).transpose()?;
            for (row, bytes) in keys.iter() {
                if new_keys.as_ref().is_some_and(|n| n.get(row) == Some(bytes)) {
                    continue;
                }
                let taken_over = || {
                    index
                        .first_missing(std::iter::once((0, bytes)), &parent.data, &unique.columns)
                        .is_none()
                };
                if no_action && taken_over() {
                    continue;
                }
                gone.keys.insert(bytes.into(), (batch_idx, row));
            }
        }
        Ok(gone)
    }
}

/// Applies `key`'s ON DELETE or ON UPDATE action to the rows of table `child_oid` that
/// referenced a key `change` took away.
fn apply_action(
    txn: &mut Transaction,
    change: &ReferencedChange,
    child_oid: u32,
    key: &ForeignKey,
    ctx: &ExecContext,
) -> Result<()> {
    let action = match change.new {
        None => key.on_delete,
        Some(_) => key.on_update,
    };
    let parent = referenced_entry(txn, change.parent_oid)?;
    let child = referenced_entry(txn, child_oid)?;
    let gone = GoneKeys::find(change, key, &parent, action == ReferentialAction::NoAction)?;
    if gone.keys.is_empty() {
        return Ok(());
    }
    if action == ReferentialAction::NoAction && txn.constraint_checks.is_deferred(key) {
        txn.constraint_checks.defer(child_oid, &key.name);
        return Ok(());
    }
    let layout = KeyLayout::new(key, (&child.schema, &key.columns), &parent.schema)?;
    let matches = referencing_rows(&child, key, &layout, &gone, ctx)?;
    if matches.is_empty() {
        return Ok(());
    }
    let still_referenced = StillReferenced {
        parent: &parent.schema,
        child: &child.schema,
        key,
        old: change.old,
        gone: &gone,
        layout: &layout,
        enums: &ctx.state.enum_types,
    };
    match action {
        ReferentialAction::NoAction | ReferentialAction::Restrict => {
            Err(still_referenced.error(matches[0].parent_rows[0]))
        }
        ReferentialAction::Cascade if change.new.is_none() => {
            delete_rows(txn, &child, matches, ctx)
        }
        ReferentialAction::Cascade | ReferentialAction::SetNull | ReferentialAction::SetDefault => {
            let values = NewValues {
                action,
                key,
                new_rows: change.new.unwrap_or(&[]),
                referenced_types: parent.schema.column_types(),
            };
            update_rows(txn, &child, matches, &values, &still_referenced, ctx)
        }
    }
}

/// What a referenced row that went away left behind, for the 23503 of a row still
/// referencing it.
struct StillReferenced<'a> {
    parent: &'a TableSchema,
    child: &'a TableSchema,
    key: &'a ForeignKey,
    old: &'a [Batch],
    gone: &'a GoneKeys,
    layout: &'a KeyLayout,
    /// To print the DETAIL's key.
    enums: &'a EnumTypes,
}

impl StillReferenced<'_> {
    /// The error for old referenced row `(batch, row)`.
    fn error(&self, (batch_idx, row): (usize, usize)) -> Error {
        let batch = &self.old[batch_idx];
        let columns: Vec<&Vector> = self
            .key
            .referenced_columns
            .iter()
            .map(|&c| batch.columns[c].as_ref())
            .collect();
        Error::new(
            SqlState::ForeignKeyViolation,
            format!(
                "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
                self.parent.name, self.key.name, self.child.name
            ),
        )
        .with_detail(format!(
            "Key {} is still referenced from table \"{}\".",
            key_values_text(
                self.parent,
                &self.key.referenced_columns,
                &columns,
                row,
                self.enums
            ),
            self.child.name
        ))
    }

    /// SET DEFAULT: a default equal to a key that went away still references it
    /// (PostgreSQL checks this before the rows' own foreign key check).
    fn check(&self, rows: &Batch) -> Result<()> {
        let columns = self.layout.convert(rows, &self.key.columns)?;
        let keys = Keys::encode(&columns, &self.layout.order, rows.len());
        for (_, bytes) in keys.iter() {
            if let Some(&parent_row) = self.gone.keys.get(bytes) {
                return Err(self.error(parent_row));
            }
        }
        Ok(())
    }
}

/// The rows of one chunk of the referencing table whose key went away, and for each the
/// (batch, row) of the old referenced row.
struct ChunkMatches {
    chunk_idx: usize,
    offsets: Vec<u32>,
    parent_rows: Vec<(usize, usize)>,
}

/// One pass over the referencing table: each live row's key probed in `gone`.
fn referencing_rows(
    child: &TableEntry,
    key: &ForeignKey,
    layout: &KeyLayout,
    gone: &GoneKeys,
    ctx: &ExecContext,
) -> Result<Vec<ChunkMatches>> {
    let mut matches = Vec::new();
    for (chunk_idx, chunk) in child.data.chunks().enumerate() {
        ctx.check_cancelled()?;
        let raw = Batch::new(chunk.columns.clone(), chunk.len);
        let columns = layout.convert(&raw, &key.columns)?;
        let keys = Keys::encode(&columns, &layout.order, chunk.len);
        let mut found = ChunkMatches {
            chunk_idx,
            offsets: Vec::new(),
            parent_rows: Vec::new(),
        };
        for (row, bytes) in keys.iter() {
            if chunk.is_deleted(row) {
                continue;
            }
            if let Some(&parent_row) = gone.keys.get(bytes) {
                found.offsets.push(row as u32);
                found.parent_rows.push(parent_row);
            }
        }
        if !found.offsets.is_empty() {
            matches.push(found);
        }
    }
    Ok(matches)
}

/// ON DELETE CASCADE: deletes the matched rows, then applies the keys referencing them.
fn delete_rows(
    txn: &mut Transaction,
    child: &TableEntry,
    matches: Vec<ChunkMatches>,
    ctx: &ExecContext,
) -> Result<()> {
    let mut entry = (*child).clone();
    let all: Vec<usize> = (0..entry.schema.columns.len()).collect();
    let mut deleted = Vec::with_capacity(matches.len());
    for found in &matches {
        if let Some(chunk) = entry.data.chunk(found.chunk_idx) {
            let rows = Batch::new(
                all.iter().map(|&c| chunk.columns[c].clone()).collect(),
                chunk.len,
            );
            deleted.push(rows.gather(&found.offsets));
        }
        Arc::make_mut(&mut entry.data).delete_rows(found.chunk_idx, &found.offsets)?;
    }
    let oid = entry.schema.oid;
    txn.put_table(entry);
    referenced_rows_changed(txn, oid, &deleted, None, None, ctx)
}

/// What CASCADE (on update), SET NULL and SET DEFAULT write into the referencing columns.
struct NewValues<'a> {
    action: ReferentialAction,
    key: &'a ForeignKey,
    /// For CASCADE: the referenced rows after the UPDATE, and the referenced table's types.
    new_rows: &'a [Batch],
    referenced_types: Vec<crate::types::DataType>,
}

impl NewValues<'_> {
    /// The new value of each referencing column for the rows of `found`.
    fn columns(
        &self,
        child: &TableSchema,
        found: &ChunkMatches,
        ctx: &ExecContext,
    ) -> Result<Vec<Arc<Vector>>> {
        let rows = found.offsets.len();
        let mut columns = Vec::with_capacity(self.key.columns.len());
        for (i, &column) in self.key.columns.iter().enumerate() {
            let ty = child.columns[column].data_type;
            let value = match self.action {
                ReferentialAction::SetNull => Vector::from_scalar(&ScalarValue::Null, ty, rows)?,
                ReferentialAction::SetDefault => {
                    let default = crate::binder::column_default_expr(&ctx.state, child, column)?;
                    evaluate_for_rows(&default, rows, ctx)?
                }
                ReferentialAction::Cascade => {
                    let referenced = self.key.referenced_columns[i];
                    self.cascaded(found, referenced, ty)?
                }
                ReferentialAction::NoAction | ReferentialAction::Restrict => {
                    return Err(Error::internal("NO ACTION and RESTRICT write no values"))
                }
            };
            columns.push(Arc::new(value));
        }
        Ok(columns)
    }
}

impl NewValues<'_> {
    /// ON UPDATE CASCADE: the new value of referenced column `referenced` for each row of
    /// `found`, as type `ty` (the referencing column's).
    fn cascaded(
        &self,
        found: &ChunkMatches,
        referenced: usize,
        ty: crate::types::DataType,
    ) -> Result<Vector> {
        let rows = found.parent_rows.len();
        let mut out = Vector::from_scalar(&ScalarValue::Null, ty, rows)?;
        let mut batches: Vec<usize> = found.parent_rows.iter().map(|&(b, _)| b).collect();
        batches.sort_unstable();
        batches.dedup();
        for batch in batches {
            let (positions, source): (Vec<u32>, Vec<u32>) = found
                .parent_rows
                .iter()
                .enumerate()
                .filter(|(_, (b, _))| *b == batch)
                .map(|(i, &(_, row))| (i as u32, row as u32))
                .unzip();
            let new_rows = &self.new_rows[batch];
            let values = new_rows.columns[referenced].gather(&source);
            let from = self.referenced_types[referenced];
            let values = if from == ty {
                values
            } else {
                cast_vector(&values, from, ty, CastContext::Assignment)?
            };
            out = out.with_rows_replaced(&positions, &values)?;
        }
        Ok(out)
    }
}

/// A default evaluated once per row, so nextval gives each its own value.
fn evaluate_for_rows(default: &ScalarExpr, rows: usize, ctx: &ExecContext) -> Result<Vector> {
    let empty = Batch::new(Vec::new(), rows);
    Ok((*evaluate(default, &empty, ctx)?).clone())
}

/// ON UPDATE CASCADE, SET NULL, SET DEFAULT: rewrites the matched rows' referencing
/// columns, checks NOT NULL, UNIQUE and their own foreign keys, then applies the keys
/// referencing them.
fn update_rows(
    txn: &mut Transaction,
    child: &TableEntry,
    matches: Vec<ChunkMatches>,
    values: &NewValues,
    still_referenced: &StillReferenced,
    ctx: &ExecContext,
) -> Result<()> {
    let mut entry = (*child).clone();
    let schema = entry.schema.clone();
    let columns = &values.key.columns;
    let all: Vec<usize> = (0..schema.columns.len()).collect();
    let mut old_rows = Vec::with_capacity(matches.len());
    let mut new_rows = Vec::with_capacity(matches.len());
    let mut row_ids = Vec::with_capacity(matches.len());
    for found in &matches {
        let Some(chunk) = entry.data.chunk(found.chunk_idx) else {
            continue;
        };
        let rows = Batch::new(
            all.iter().map(|&c| chunk.columns[c].clone()).collect(),
            chunk.len,
        );
        let old = rows.gather(&found.offsets);
        let mut new = old.clone();
        let updated = values.columns(&schema, found, ctx)?;
        for (&column, value) in columns.iter().zip(&updated) {
            new.columns[column] = value.clone();
        }
        check_not_null(&schema, &new, Some(columns), &ctx.state.enum_types)?;
        if values.action == ReferentialAction::SetDefault {
            still_referenced.check(&new)?;
        }
        let data = Arc::make_mut(&mut entry.data);
        for (&column, value) in columns.iter().zip(&updated) {
            data.update_column(found.chunk_idx, column, &found.offsets, value)?;
        }
        let base = (found.chunk_idx * BATCH_SIZE) as u64;
        row_ids.push(
            found
                .offsets
                .iter()
                .map(|&o| base + o as u64)
                .collect::<Vec<u64>>(),
        );
        old_rows.push(old);
        new_rows.push(new);
    }
    let oldest = oldest_sharing_indexes(txn, &entry);
    for (ids, rows) in row_ids.iter().zip(&new_rows) {
        check_unique(
            &entry,
            ids,
            rows,
            Some(columns),
            oldest.as_deref(),
            &ctx.state.enum_types,
        )?;
    }
    let oid = schema.oid;
    txn.put_table(entry);
    check_references(txn, &schema, &new_rows, Some(columns))?;
    referenced_rows_changed(txn, oid, &old_rows, Some(&new_rows), Some(columns), ctx)
}

/// The tables a TRUNCATE empties: `tables`, and with CASCADE every table referencing one of
/// them (transitively, each announced). Without CASCADE, a table referenced from one not
/// truncated is PostgreSQL's 0A000.
pub fn truncated_with(
    txn: &mut Transaction,
    tables: &[(QualifiedName, u32)],
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<Vec<(QualifiedName, u32)>> {
    let view = txn.view();
    let mut all = tables.to_vec();
    let mut next = 0;
    while next < all.len() {
        let (parent_name, parent_oid) = all[next].clone();
        next += 1;
        let mut referencing: Vec<&TableSchema> = view
            .tables
            .values()
            .map(|e| e.schema.as_ref())
            .filter(|s| s.foreign_keys_to(parent_oid).next().is_some())
            .filter(|s| !all.iter().any(|(_, oid)| *oid == s.oid))
            .collect();
        referencing.sort_by_key(|s| s.oid);
        for child in referencing {
            if !cascade {
                return Err(Error::new(
                    SqlState::FeatureNotSupported,
                    "cannot truncate a table referenced in a foreign key constraint",
                )
                .with_detail(format!(
                    "Table \"{}\" references \"{}\".",
                    child.name, parent_name.name
                ))
                .with_hint(format!(
                    "Truncate table \"{}\" at the same time, or use TRUNCATE ... CASCADE.",
                    child.name
                )));
            }
            notices.push(Notice {
                severity: "NOTICE",
                state: SqlState::SuccessfulCompletion,
                message: format!("truncate cascades to table \"{}\"", child.name),
                detail: None,
            });
            all.push((child.qualified_name(), child.oid));
        }
    }
    Ok(all)
}

/// DROP TABLE of `dropped`: the foreign keys of other tables referencing one of them are
/// PostgreSQL's 2BP01, or with CASCADE dropped (announced) with it.
pub fn drop_referencing_keys(
    txn: &mut Transaction,
    dropped: &[QualifiedName],
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let view = txn.view();
    let dropped_oids: Vec<u32> = dropped
        .iter()
        .filter_map(|n| view.names.get(n).copied())
        .collect();
    let mut dependents: Vec<(&TableSchema, &ForeignKey, &str)> = Vec::new();
    let mut children: Vec<&TableSchema> = view.tables.values().map(|e| e.schema.as_ref()).collect();
    children.sort_by_key(|s| s.oid);
    for child in children {
        if dropped_oids.contains(&child.oid) {
            continue;
        }
        for key in &child.foreign_keys {
            if let Some(parent) = view
                .tables
                .get(&key.referenced_table)
                .filter(|p| dropped_oids.contains(&p.schema.oid))
            {
                dependents.push((child, key, parent.schema.name.as_str()));
            }
        }
    }
    let Some(&(_, _, first_parent)) = dependents.first() else {
        return Ok(());
    };
    let describe = |(child, key, _): &(&TableSchema, &ForeignKey, &str)| {
        format!("constraint {} on table {}", key.name, child.name)
    };
    if !cascade {
        let lines: Vec<String> = dependents
            .iter()
            .map(|d| format!("{} depends on table {}", describe(d), d.2))
            .collect();
        let object = format!("table {first_parent}");
        return Err(super::drop_dependents::dependents_still_exist(
            &object, &lines,
        ));
    }
    let dropped: Vec<String> = dependents.iter().map(describe).collect();
    notices.push(super::drop_dependents::cascade_notice(&dropped));
    for (child, _, _) in &dependents {
        let entry = referenced_entry(txn, child.oid)?;
        let mut entry = (*entry).clone();
        Arc::make_mut(&mut entry.schema)
            .foreign_keys
            .retain(|k| !dropped_oids.contains(&k.referenced_table));
        txn.put_table(entry);
    }
    Ok(())
}
