//! Reclaiming deleted rows: a table version's live rows copied into fresh chunks, with unique
//! indexes built anew for the new row ids. Runs on VACUUM, and after a DELETE once a table
//! holds at least as many deleted rows as live ones, so a table whose rows are deleted and
//! inserted again keeps its memory, its scans and its index lookups flat.
//!
//! Readers of older versions are unaffected: they keep their own chunks and their own unique
//! indexes (an index is shared by the versions of one row-id space only), so nothing has to
//! know which snapshots are still being read.

use std::sync::Arc;

use crate::catalog::QualifiedName;
use crate::error::Result;
use crate::storage::{build_unique_indexes, EnumTypes, TableEntry, Transaction};

/// A DELETE compacts its table once deleted rows are at least this many and at least as
/// many as the live ones: each compaction then copies no more rows than were deleted since
/// the last one, so its cost per deleted row stays constant.
const COMPACT_MIN_DELETED_ROWS: usize = 1024;

/// Whether `entry`'s deleted rows are worth reclaiming now.
pub fn mostly_deleted(entry: &TableEntry) -> bool {
    let deleted = entry.data.deleted_rows();
    deleted >= COMPACT_MIN_DELETED_ROWS && deleted >= entry.data.live_rows()
}

/// `entry` with its deleted rows reclaimed (unchanged if it has none).
pub fn compact(entry: &mut TableEntry) -> Result<()> {
    if entry.data.deleted_rows() == 0 {
        return Ok(());
    }
    let data = entry.data.compacted(&entry.schema.column_types())?;
    // Its keys are unique already: no duplicate to print.
    let no_enums = &EnumTypes::default();
    entry.unique_indexes = Arc::new(build_unique_indexes(&entry.schema, &data, no_enums)?);
    entry.secondary_indexes = Arc::default();
    entry.data = Arc::new(data);
    Ok(())
}

/// VACUUM: compacts each of `tables` (every table when none is named) that has deleted rows.
pub fn vacuum(txn: &mut Transaction, tables: &[(QualifiedName, u32)]) -> Result<()> {
    for (name, oid) in tables {
        let Some(entry) = txn.table_for_write(name)? else {
            continue;
        };
        // Compacting moves rows to other ids, which row locks are taken by.
        if entry.schema.oid != *oid || entry.data.deleted_rows() == 0 || txn.any_row_locks() {
            continue;
        }
        let mut entry = (*entry).clone();
        compact(&mut entry)?;
        txn.put_table(entry);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::api::Database;
    use crate::catalog::{QualifiedName, PUBLIC_OID};
    use crate::vector::int_key;

    fn run(s: &mut crate::api::Session, sql: &str) {
        if let Err(e) = s.execute(sql) {
            panic!("{sql}: {e}");
        }
    }

    /// Deleting and inserting the same 1,000 keys again and again keeps the stored rows and
    /// every key's index candidates bounded, and the answers right.
    #[test]
    fn churn_on_the_same_keys_stays_flat() {
        let db = Database::new();
        let mut s = db.connect();
        run(&mut s, "CREATE TABLE t (id integer PRIMARY KEY, v integer)");
        run(
            &mut s,
            "INSERT INTO t SELECT g, 0 FROM generate_series(1, 1000) g",
        );
        for round in 1..=30 {
            for k in (round % 7..1000).step_by(7) {
                run(&mut s, &format!("DELETE FROM t WHERE id = {}", k + 1));
                run(
                    &mut s,
                    &format!("INSERT INTO t VALUES ({}, {round})", k + 1),
                );
            }
            run(
                &mut s,
                &format!("UPDATE t SET v = v + 1 WHERE id % 10 = {}", round % 10),
            );
        }
        let state = db.store().snapshot();
        let Some(entry) = state.table_by_name(&QualifiedName::new(PUBLIC_OID, "t")) else {
            panic!("t is gone");
        };
        assert!(entry.data.row_capacity() <= 1000 + 2 * 1024 + 2048);
        assert!(entry.data.deleted_rows() < 1024);
        assert!(entry.unique_indexes[0].most_candidates() <= 2);
        let counted = s.execute("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t");
        let Ok(results) = counted else {
            panic!("count failed");
        };
        assert_eq!(results[0].text_lines(), ["1000|1000|1|1000"]);
        assert!(s
            .execute("INSERT INTO t VALUES (500, 0)")
            .is_err_and(|e| e.sqlstate() == "23505"));
    }

    /// An index entry of a deleted row stays while a statement may still read a version in
    /// which the row is live.
    #[test]
    fn entries_stay_while_an_older_version_is_read() {
        let db = Database::new();
        let mut s = db.connect();
        run(&mut s, "CREATE TABLE t (id integer PRIMARY KEY)");
        run(&mut s, "INSERT INTO t VALUES (1), (2)");
        let reading = db.store().snapshot();
        run(&mut s, "DELETE FROM t WHERE id = 1");
        run(&mut s, "INSERT INTO t VALUES (1)");
        run(&mut s, "DELETE FROM t WHERE id = 1");
        run(&mut s, "INSERT INTO t VALUES (1)");
        let Some(old) = reading
            .table_by_name(&QualifiedName::new(PUBLIC_OID, "t"))
            .cloned()
        else {
            panic!("t is gone");
        };
        let index = old.unique_indexes.clone();
        let index = &index[0];
        assert_eq!(index.lookup(&int_key(1), &old.data, &[0]), Some(0));
        drop((reading, old));
        run(&mut s, "DELETE FROM t WHERE id = 1");
        run(&mut s, "INSERT INTO t VALUES (1)");
        assert!(index.most_candidates() <= 2, "dropped once nobody reads it");
    }
}
