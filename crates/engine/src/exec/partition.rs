//! Rows of partitioned tables: routing the rows written to a partitioned table to its
//! partitions, and checking the rows written to a partition against its bound.

use super::modify::row_text;
use super::modify::Target;
use super::ExecContext;
use crate::catalog::partition::{partitions_of, PartitionKey, Router};
use crate::catalog::{QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::storage::{values_text, DbState, EnumTypes, Transaction};
use crate::vector::Batch;

/// The partitions of `parent` (partitioned by `key`) in `state`, and the router over them.
pub(super) fn router<'s>(
    state: &'s DbState,
    parent: &TableSchema,
    key: &PartitionKey,
) -> Result<(Router, Vec<&'s TableSchema>)> {
    let partitions = partitions_of(state.tables.values().map(|t| t.schema.as_ref()), parent.oid);
    let ty = parent.columns[key.column].data_type;
    Ok((Router::new(key, ty, &partitions)?, partitions))
}

/// The rows of `batch` (full rows of `parent`) for each partition of `router`, by position:
/// 23514 for a row no partition takes.
pub(super) fn split_rows(
    parent: &TableSchema,
    router: &Router,
    partitions: usize,
    batch: &Batch,
    enums: &EnumTypes,
) -> Result<Vec<Vec<u32>>> {
    let mut rows_of = vec![Vec::new(); partitions];
    let keys = &batch.columns[router.key_column];
    for row in 0..batch.len() {
        match router.route(&keys.get_scalar(row)) {
            Some(position) => rows_of[position].push(row as u32),
            None => {
                let column = &parent.columns[router.key_column];
                let value = values_text(&[(keys.as_ref(), &column.data_type)], row, enums);
                return Err(Error::new(
                    SqlState::CheckViolation,
                    format!("no partition of relation \"{}\" found for row", parent.name),
                )
                .with_detail(format!(
                    "Partition key of the failing row contains ({}) = ({value}).",
                    crate::catalog::quote_identifier(&column.name)
                )));
            }
        }
    }
    Ok(rows_of)
}

/// 23514 unless every row of `batch`, new rows of the partition `schema`, falls within its
/// bound: the rows its parent would route to it.
pub(super) fn check_partition_bound(
    schema: &TableSchema,
    batch: &Batch,
    ctx: &ExecContext,
) -> Result<()> {
    let Some(of) = &schema.partition_of else {
        return Ok(());
    };
    let Some(parent) = ctx.state.tables.get(&of.parent) else {
        return Err(Error::internal("a partition's parent is gone"));
    };
    let Some(key) = &parent.schema.partition_key else {
        return Err(Error::internal("a partition's parent is not partitioned"));
    };
    let (router, partitions) = router(&ctx.state, &parent.schema, key)?;
    let Some(position) = partitions.iter().position(|p| p.oid == schema.oid) else {
        return Err(Error::internal("a partition is not among its parent's"));
    };
    let keys = &batch.columns[key.column];
    for row in 0..batch.len() {
        if !router.fits(position, &keys.get_scalar(row)) {
            return Err(Error::new(
                SqlState::CheckViolation,
                format!(
                    "new row for relation \"{}\" violates partition constraint",
                    schema.name
                ),
            )
            .with_detail(format!(
                "Failing row contains ({}).",
                row_text(schema, batch, row, &ctx.state.enum_types)
            )));
        }
    }
    Ok(())
}

/// When `target`'s table is partitioned: its key column and its partitions, each of which
/// an UPDATE or DELETE of it writes with the same source and filter (their rows have the
/// parent's columns).
pub(super) fn partition_targets(
    txn: &Transaction,
    target: &Target,
) -> Option<(usize, Vec<(QualifiedName, u32)>)> {
    let view = txn.view();
    let entry = view.tables.get(&target.oid)?;
    let key = entry.schema.partition_key.as_ref()?;
    let tables = view.tables.values().map(|t| t.schema.as_ref());
    let partitions = partitions_of(tables, target.oid)
        .iter()
        .map(|p| (p.qualified_name(), p.oid))
        .collect();
    Some((key.column, partitions))
}
