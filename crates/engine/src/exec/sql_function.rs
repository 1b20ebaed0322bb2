//! CREATE [OR REPLACE] FUNCTION and DROP FUNCTION, run under the locks of the functions'
//! names. Nothing records what a body reads or calls (PostgreSQL does not for string
//! bodies either); DROP FUNCTION finds the views, column DEFAULTs and CHECK constraints
//! calling the function by binding them.

use std::sync::Arc;

use super::view::{describe, drop_dependents, StoredDependent};
use crate::api::Notice;
use crate::binder::{stored_expr_functions, view_functions, StoredExprOwner};
use crate::catalog::{FunctionDef, FunctionReturn, QualifiedName, TableSchema, ViewDef};
use crate::error::{Error, Result, SqlState};
use crate::plan::FunctionChange;
use crate::storage::{DbState, Transaction};

pub fn change_function(
    txn: &mut Transaction,
    change: FunctionChange,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    match change {
        FunctionChange::Create {
            function,
            or_replace,
        } => create_function(txn, function, or_replace),
        FunctionChange::Drop {
            functions,
            notices: skipped,
            cascade,
        } => {
            notices.extend(skipped.into_iter().map(Notice::skipped));
            for (oid, name) in functions {
                txn.lock_name(&name)?;
                let Some(function) = txn.view().functions.get(&oid).cloned() else {
                    return Err(Error::new(
                        SqlState::UndefinedFunction,
                        format!(
                            "function {} was dropped by a concurrent transaction",
                            name.name
                        ),
                    ));
                };
                drop_calling_views(txn, &function, cascade, notices)?;
                txn.put_function(oid, None);
            }
            Ok(())
        }
    }
}

/// Before `function` goes: the views calling it, and those reading them, and the column
/// DEFAULTs and CHECK constraints calling it go too with CASCADE; without it they are 2BP01.
fn drop_calling_views(
    txn: &mut Transaction,
    function: &FunctionDef,
    cascade: bool,
    notices: &mut Vec<Notice>,
) -> Result<()> {
    let state = txn.view();
    let object = format!("function {}", function.signature());
    let mut callers: Vec<Arc<ViewDef>> = state
        .views
        .values()
        // A view that no longer binds calls nothing that could be dropped.
        .filter(|view| view_functions(&state, view).is_ok_and(|f| f.contains(&function.oid)))
        .cloned()
        .collect();
    callers.sort_by_key(|view| view.oid);
    let caller_names: Vec<QualifiedName> = callers.iter().map(|v| v.qualified_name()).collect();
    let readers = state.dependent_views(&caller_names);
    let dependents = callers
        .into_iter()
        .map(|view| (view, object.clone()))
        .chain(
            readers
                .into_iter()
                .map(|(view, on)| (view, describe(&state, &on))),
        )
        .collect();
    let stored = calling_stored_exprs(&state, function.oid, &object);
    drop_dependents(
        txn,
        &object,
        dependents,
        Vec::new(),
        stored,
        cascade,
        notices,
    )
}

/// The column DEFAULTs and CHECK constraints calling function `oid`, in table order.
fn calling_stored_exprs(state: &DbState, oid: u32, object: &str) -> Vec<StoredDependent> {
    let mut tables: Vec<&TableSchema> = state
        .tables
        .values()
        .map(|entry| entry.schema.as_ref())
        .collect();
    tables.sort_by_key(|schema| schema.oid);
    let mut found = Vec::new();
    for schema in tables {
        for (owner, functions) in stored_expr_functions(state, schema) {
            if !functions.contains(&oid) {
                continue;
            }
            let shown = match &owner {
                StoredExprOwner::Default(column) => format!(
                    "default value for column {} of table {}",
                    schema.columns[*column].name, schema.name
                ),
                StoredExprOwner::Check(name) => {
                    format!("constraint {name} on table {}", schema.name)
                }
            };
            found.push(StoredDependent {
                table: schema.qualified_name(),
                owner,
                shown,
                on: object.to_string(),
            });
        }
    }
    found
}

fn create_function(
    txn: &mut Transaction,
    mut function: FunctionDef,
    or_replace: bool,
) -> Result<()> {
    txn.lock_name(&function.name)?;
    let state = txn.view();
    let arg_types = function.arg_types();
    let existing = state
        .functions
        .values()
        .find(|f| f.name == function.name && f.arg_types() == arg_types);
    match existing {
        None => function.oid = txn.allocate_oid(),
        Some(old) if or_replace => {
            check_replacement(old, &function)?;
            function.oid = old.oid;
        }
        Some(_) => {
            return Err(Error::new(
                SqlState::DuplicateFunction,
                format!(
                    "function {} already exists with same argument types",
                    function.signature()
                ),
            ))
        }
    }
    txn.put_function(function.oid, Some(function));
    Ok(())
}

/// CREATE OR REPLACE keeps the result type, the parameter names and their defaults, as
/// PostgreSQL's ProcedureCreate requires.
fn check_replacement(old: &FunctionDef, new: &FunctionDef) -> Result<()> {
    let drop_first = || format!("Use DROP FUNCTION {} first.", old.signature());
    if old.returns != new.returns {
        let error = Error::new(
            SqlState::InvalidFunctionDefinition,
            "cannot change return type of existing function",
        );
        let error = match (&old.returns, &new.returns) {
            (FunctionReturn::Table(_), FunctionReturn::Table(_))
            | (FunctionReturn::Row(_), FunctionReturn::Row(_)) => {
                error.with_detail("Row type defined by OUT parameters is different.")
            }
            _ => error,
        };
        return Err(error.with_hint(drop_first()));
    }
    for (old_arg, new_arg) in old.inputs().zip(new.inputs()) {
        if let Some(old_name) = &old_arg.name {
            if new_arg.name.as_ref() != Some(old_name) {
                return Err(Error::new(
                    SqlState::InvalidFunctionDefinition,
                    format!("cannot change name of input parameter \"{old_name}\""),
                )
                .with_hint(drop_first()));
            }
        }
    }
    if new.defaults_count() < old.defaults_count() {
        return Err(Error::new(
            SqlState::InvalidFunctionDefinition,
            "cannot remove parameter defaults from existing function",
        )
        .with_hint(drop_first()));
    }
    Ok(())
}
