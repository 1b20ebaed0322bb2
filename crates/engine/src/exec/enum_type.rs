//! CREATE TYPE ... AS ENUM, ALTER TYPE and DROP TYPE, run under the locks of the types'
//! names. A type a column or a view uses cannot be dropped (2BP01) but with CASCADE.

use super::type_dependents::DroppedType;
use super::ExecContext;
use crate::api::Notice;
use crate::catalog::{EnumType, QualifiedName, TableSchema};
use crate::error::{Error, Result, SqlState};
use crate::plan::{AlterEnum, TypeChange};
use crate::storage::{DbState, RelationKind, Transaction};
use crate::types::DataType;

pub fn change_type(
    txn: &mut Transaction,
    change: TypeChange,
    notices: &mut Vec<Notice>,
    ctx: &ExecContext,
) -> Result<()> {
    match change {
        TypeChange::CreateEnum { name, labels } => create_enum(txn, name, &labels),
        TypeChange::CreateComposite { name, fields } => {
            super::composite_type::create_composite(txn, name, fields)
        }
        TypeChange::Alter { name, action } => alter_enum(txn, &name, action, notices),
        TypeChange::Drop {
            names,
            if_exists,
            cascade,
        } => drop_types(txn, &names, if_exists, cascade, notices, ctx),
        TypeChange::CreateDomain(domain) => super::domain::create_domain(txn, *domain),
        TypeChange::AlterDomain { name, action } => {
            super::domain::alter_domain(txn, &name, action, notices, ctx)
        }
        TypeChange::DropDomain {
            names,
            if_exists,
            cascade,
        } => super::domain::drop_domains(txn, &names, if_exists, cascade, notices),
    }
}

fn create_enum(txn: &mut Transaction, name: QualifiedName, labels: &[String]) -> Result<()> {
    txn.lock_name(&name)?;
    check_name_free(&txn.view(), &name)?;
    // The type's OID and its array type's after it (`types::enum_array_oid`), as one block.
    let oid = txn.allocate_oids(2);
    let enum_type = EnumType::new(name, oid, labels, || txn.allocate_oid())?;
    txn.put_enum_type(enum_type.oid, Some(enum_type));
    Ok(())
}

/// A new type's name is free unless a type has it; tables, views and sequences have a row
/// type of their name in PostgreSQL, so theirs are taken too.
pub(super) fn check_name_free(state: &DbState, name: &QualifiedName) -> Result<()> {
    let taken = state.enum_type_named(name).is_some()
        || state.domain_named(name).is_some()
        || matches!(
            state.relation_kind(name),
            Some(
                RelationKind::Table
                    | RelationKind::View
                    | RelationKind::Sequence
                    | RelationKind::MaterializedView
                    | RelationKind::ForeignTable
                    | RelationKind::CompositeType
            )
        );
    match taken {
        true => Err(Error::new(
            SqlState::DuplicateObject,
            format!("type \"{}\" already exists", name.name),
        )),
        false => Ok(()),
    }
}

fn alter_enum(
    txn: &mut Transaction,
    name: &QualifiedName,
    action: AlterEnum,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    txn.lock_name(name)?;
    let state = txn.view();
    if let Some(composite) = state.composite_type_named(name) {
        return match action {
            AlterEnum::Rename(new_name) => {
                super::composite_type::rename_composite(txn, composite, new_name)
            }
            AlterEnum::AddValue { .. } | AlterEnum::RenameValue { .. } => Err(Error::new(
                SqlState::WrongObjectType,
                format!("\"{}\" is not an enum", name.name),
            )),
        };
    }
    let enum_type = state
        .enum_type_named(name)
        .ok_or_else(|| missing_type(name))?;
    let altered = match action {
        AlterEnum::AddValue {
            label,
            position,
            if_not_exists,
        } => {
            let oid = txn.allocate_oid();
            let may_renumber = !in_use(&state, enum_type);
            match enum_type.with_label(&label, &position, if_not_exists, oid, may_renumber)? {
                Some(altered) => altered,
                None => {
                    notices.push(Notice::skipped(format!(
                        "enum label \"{label}\" already exists, skipping"
                    )));
                    return Ok(());
                }
            }
        }
        AlterEnum::RenameValue { old, new } => enum_type.with_label_renamed(&old, &new)?,
        AlterEnum::Rename(new_name) => {
            let new_name = QualifiedName::new(name.schema, new_name);
            txn.lock_name(&new_name)?;
            check_name_free(&txn.view(), &new_name)?;
            EnumType {
                name: new_name,
                ..(**enum_type).clone()
            }
        }
    };
    txn.put_enum_type(altered.oid, Some(altered));
    Ok(())
}

fn drop_types(
    txn: &mut Transaction,
    names: &[QualifiedName],
    if_exists: bool,
    cascade: bool,
    notices: &mut Vec<Notice>,
    ctx: &ExecContext,
) -> Result<()> {
    for name in names {
        txn.lock_name(name)?;
        let state = txn.view();
        if let Some(composite) = state.composite_type_named(name) {
            super::composite_type::drop_composite(txn, composite, cascade, notices, ctx)?;
            continue;
        }
        let Some(enum_type) = state.enum_type_named(name) else {
            if !if_exists {
                return Err(missing_type(name));
            }
            notices.push(Notice::skipped(format!(
                "type \"{}\" does not exist, skipping",
                name.name
            )));
            continue;
        };
        let ty = DataType::Enum(enum_type.oid);
        let is_type = |t: DataType| t == ty;
        let is_array = |t: DataType| t.element() == Some(ty);
        let dropped = DroppedType {
            oid: Some(enum_type.oid),
            name: &enum_type.name.name,
            is_type: &is_type,
            is_array: &is_array,
        };
        super::type_dependents::drop_type_dependents(txn, &dropped, cascade, notices, ctx)?;
        txn.put_enum_type(enum_type.oid, None);
    }
    Ok(())
}

/// Whether anything uses `enum_type`.
fn in_use(state: &DbState, enum_type: &EnumType) -> bool {
    let ty = DataType::Enum(enum_type.oid);
    let is_type = |t: DataType| t == ty;
    let is_array = |t: DataType| t.element() == Some(ty);
    let used = DroppedType {
        oid: Some(enum_type.oid),
        name: &enum_type.name.name,
        is_type: &is_type,
        is_array: &is_array,
    };
    !super::type_dependents::type_dependents(state, &used).is_empty()
}

/// Takes the name locks of the enum and composite types `schema`'s columns use, so that DROP TYPE waits
/// for the transaction creating or altering the table (PostgreSQL's dependency lock), and
/// checks they still exist.
pub fn lock_column_types(txn: &mut Transaction, schema: &TableSchema) -> Result<()> {
    for column in &schema.columns {
        super::composite_type::lock_record_type(txn, column.data_type)?;
        let DataType::Enum(oid) = column.data_type.element().unwrap_or(column.data_type) else {
            continue;
        };
        let name = txn.view().enum_types.get(&oid).map(|t| t.name.clone());
        if let Some(name) = &name {
            txn.lock_name(name)?;
        }
        if name.is_none() || !txn.view().enum_types.contains_key(&oid) {
            return Err(Error::new(
                SqlState::UndefinedObject,
                format!("type with OID {oid} does not exist"),
            ));
        }
    }
    Ok(())
}

pub(super) fn missing_type(name: &QualifiedName) -> Error {
    Error::new(
        SqlState::UndefinedObject,
        format!("type \"{}\" does not exist", name.name),
    )
}
