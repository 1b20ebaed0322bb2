//! CREATE TYPE ... AS (...), ALTER TYPE ... RENAME TO and DROP TYPE of a composite type,
//! under the locks of the types' names. A composite type takes a relation's name and OIDs
//! (its own, its array type's, its row type's); one a column, a view or another composite
//! type uses cannot be dropped (2BP01) but with CASCADE, which drops them.

use super::type_dependents::DroppedType;
use super::ExecContext;
use crate::api::Notice;
use crate::catalog::{row_type_oid, CompositeType, QualifiedName};
use crate::error::{Error, Result, SqlState};
use crate::storage::Transaction;
use crate::types::DataType;

pub(super) fn create_composite(
    txn: &mut Transaction,
    name: QualifiedName,
    fields: Vec<(String, DataType)>,
) -> Result<()> {
    txn.lock_name(&name)?;
    super::enum_type::check_name_free(&txn.view(), &name)?;
    for (_, ty) in &fields {
        lock_record_type(txn, *ty)?;
    }
    let composite = CompositeType {
        oid: txn.allocate_relation_oid(),
        name,
        fields,
    };
    txn.put_composite_type(composite.oid, Some(composite));
    Ok(())
}

/// ALTER TYPE `composite` RENAME TO `new_name`: values and columns name the type by OID,
/// so nothing else changes.
pub(super) fn rename_composite(
    txn: &mut Transaction,
    composite: &CompositeType,
    new_name: String,
) -> Result<()> {
    let new_name = QualifiedName::new(composite.name.schema, new_name);
    txn.lock_name(&new_name)?;
    super::enum_type::check_name_free(&txn.view(), &new_name)?;
    let renamed = CompositeType {
        name: new_name,
        ..composite.clone()
    };
    txn.put_composite_type(renamed.oid, Some(renamed));
    Ok(())
}

pub(super) fn drop_composite(
    txn: &mut Transaction,
    composite: &CompositeType,
    cascade: bool,
    notices: &mut Vec<Notice>,
    ctx: &ExecContext,
) -> Result<()> {
    let is_type = |ty: DataType| is_row_type_of(ty, composite.oid);
    let dropped = DroppedType {
        oid: Some(composite.oid),
        name: &composite.name.name,
        is_type: &is_type,
        // Arrays of row types are not supported, so no column has one.
        is_array: &|_| false,
    };
    super::type_dependents::drop_type_dependents(txn, &dropped, cascade, notices, ctx)?;
    txn.put_composite_type(composite.oid, None);
    Ok(())
}

/// Whether `ty` is the row type of relation `relation_oid`.
pub(super) fn is_row_type_of(ty: DataType, relation_oid: u32) -> bool {
    matches!(ty, DataType::Record(record) if record.type_oid == row_type_oid(relation_oid))
}

/// Takes the name lock of the composite type `ty` is, if it is one, so that DROP TYPE waits
/// for the transaction that starts using it (PostgreSQL's dependency lock), and checks it
/// still exists.
pub(super) fn lock_record_type(txn: &mut Transaction, ty: DataType) -> Result<()> {
    let DataType::Record(record) = ty else {
        return Ok(());
    };
    let relation_oid = record.type_oid.wrapping_sub(2);
    let name = (txn.view().composite_types.get(&relation_oid)).map(|c| c.name.clone());
    let Some(name) = name else {
        return Ok(());
    };
    txn.lock_name(&name)?;
    if !txn.view().composite_types.contains_key(&relation_oid) {
        return Err(Error::new(
            SqlState::UndefinedObject,
            format!("type with OID {} does not exist", record.type_oid),
        ));
    }
    Ok(())
}
