//! `SELECT f(...)` of a SQL function whose body runs statement by statement
//! (`binder/function_body.rs`): the arguments are evaluated once, then each statement of
//! the body is bound and run as the session runs any statement (locks, READ ONLY, the
//! transaction), with the arguments as the enclosing row its parameters read. Each
//! statement reads the transaction's state as it is when the statement starts, so it sees
//! the writes of the earlier ones, as each statement of a VOLATILE function takes a new
//! snapshot in PostgreSQL; the writes belong to the caller's transaction, roll back with it
//! and are logged as any other. The value is the last statement's first row (NULL for
//! none).

use std::sync::Arc;

use super::{Session, Work};
use crate::api::copy::CopyChannel;
use crate::api::StatementResult;
use crate::binder::{body_statements, transaction_command};
use crate::catalog::{FunctionDef, FunctionReturn};
use crate::error::{Error, Result, SqlState};
use crate::exec::expression::evaluate;
use crate::exec::ExecContext;
use crate::function::cast::{cast_scalar, CastContext};
use crate::plan::FunctionCall;
use crate::types::{DataType, ScalarValue};
use crate::vector::{Batch, Vector};

/// How deeply calls of such functions may nest (a function calling itself runs into it),
/// well before the thread's stack would.
const CALL_DEPTH_MAX: usize = 32;

/// A call being run: the function and its arguments, which its statements' parameters read.
pub(super) struct FunctionFrame {
    pub function: Arc<FunctionDef>,
    pub args: Vec<ScalarValue>,
}

impl Session {
    pub(super) fn run_function_call(
        &mut self,
        call: FunctionCall,
        ctx: &ExecContext,
        copy: &mut dyn CopyChannel,
    ) -> Result<StatementResult> {
        let FunctionCall {
            function,
            args,
            columns,
        } = call;
        let no_columns = Batch::new(Vec::new(), 1);
        let args = args
            .iter()
            .map(|arg| Ok(evaluate(arg, &no_columns, ctx)?.get_scalar(0)))
            .collect::<Result<Vec<ScalarValue>>>()?;
        let skipped = function.strict && args.iter().any(ScalarValue::is_null);
        let value = match skipped {
            true => ScalarValue::Null,
            false => self.run_body(function, args, copy)?,
        };
        let ty = columns[0].data_type;
        let column = Vector::from_scalar(&value, ty, 1)?;
        Ok(StatementResult::rows(
            columns,
            vec![Batch::new(vec![Arc::new(column)], 1)],
            "SELECT 1",
        ))
    }

    /// Runs the body's statements in order; the value of the last one.
    fn run_body(
        &mut self,
        function: Arc<FunctionDef>,
        args: Vec<ScalarValue>,
        copy: &mut dyn CopyChannel,
    ) -> Result<ScalarValue> {
        if self.function_frames.len() >= CALL_DEPTH_MAX {
            return Err(Error::new(
                SqlState::StatementTooComplex,
                "stack depth limit exceeded",
            ));
        }
        let statements = body_statements(&function)?.ok_or_else(|| {
            Error::internal("invariant: a called body runs statement by statement")
        })?;
        self.function_frames.push(FunctionFrame {
            function: function.clone(),
            args,
        });
        let mut last = None;
        let mut outcome = Ok(());
        for parsed in &statements {
            if let Some(command) = transaction_command(parsed) {
                outcome = Err(Error::new(
                    SqlState::FeatureNotSupported,
                    format!("{command} is not allowed in an SQL function"),
                ));
                break;
            }
            match self.run_work(Work::Parsed(parsed), &[], &[], None, copy) {
                Ok(result) => last = Some(result),
                Err(error) => {
                    outcome = Err(error);
                    break;
                }
            }
        }
        self.function_frames.pop();
        outcome?;
        match function.returns {
            // PostgreSQL's fmgr_sql returns a NULL void.
            FunctionReturn::Void => Ok(ScalarValue::Null),
            FunctionReturn::Scalar(ty) => first_value(last, ty),
            FunctionReturn::SetOf(_) | FunctionReturn::Table(_) | FunctionReturn::Row(_) => Err(
                Error::internal("invariant: a function called alone returns one value"),
            ),
        }
    }
}

/// The first column of the first row of the last statement's result, cast to the declared
/// type as CREATE FUNCTION checked it may be (an assignment cast). A table changed since
/// may make the statement return another number of columns: PostgreSQL's 42P13 then.
fn first_value(last: Option<StatementResult>, ty: DataType) -> Result<ScalarValue> {
    let Some(StatementResult {
        columns: Some(columns),
        batches,
        ..
    }) = last
    else {
        return Ok(ScalarValue::Null);
    };
    let [column] = columns.as_ref() else {
        return Err(Error::new(
            SqlState::InvalidFunctionDefinition,
            format!("return type mismatch in function declared to return {ty}"),
        )
        .with_detail("Final statement must return exactly one column."));
    };
    let Some(batch) = batches.iter().find(|b| !b.is_empty()) else {
        return Ok(ScalarValue::Null);
    };
    let value = batch.columns[0].get_scalar(0);
    cast_scalar(&value, column.data_type, ty, CastContext::Assignment)
}
