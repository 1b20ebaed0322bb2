//! CREATE [OR REPLACE] FUNCTION and DROP FUNCTION, run under the locks of the functions'
//! names. Nothing records what a body reads or who calls a function (PostgreSQL does not
//! for string bodies either), so neither checks dependencies.

use crate::api::Notice;
use crate::catalog::{FunctionDef, FunctionReturn};
use crate::error::{Error, Result, SqlState};
use crate::plan::FunctionChange;
use crate::storage::Transaction;

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
        } => {
            notices.extend(skipped.into_iter().map(Notice::skipped));
            for (oid, name) in functions {
                txn.lock_name(&name)?;
                if !txn.view().functions.contains_key(&oid) {
                    return Err(Error::new(
                        SqlState::UndefinedFunction,
                        format!(
                            "function {} was dropped by a concurrent transaction",
                            name.name
                        ),
                    ));
                }
                txn.put_function(oid, None);
            }
            Ok(())
        }
    }
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
