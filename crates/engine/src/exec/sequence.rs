//! nextval, currval, setval and lastval. Values handed out are remembered per session
//! (currval, lastval); the counters themselves live in the store and are never rolled back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::ExecContext;
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::plan::SequenceFunction;
use crate::storage::Sequence;
use crate::types::ScalarValue;
use crate::vector::Vector;

/// What this session last got from each sequence.
#[derive(Debug, Default)]
pub struct SessionSequences {
    current: HashMap<QualifiedName, i64>,
    last: Option<i64>,
}

pub type SharedSessionSequences = Arc<Mutex<SessionSequences>>;

fn sequence<'a>(ctx: &'a ExecContext, name: &QualifiedName) -> Result<&'a Arc<Sequence>> {
    ctx.state.sequences.get(name).ok_or_else(|| {
        Error::new(
            SqlState::UndefinedTable,
            format!("relation \"{name}\" does not exist"),
        )
    })
}

pub fn evaluate_sequence_call(
    func: SequenceFunction,
    name: Option<&QualifiedName>,
    args: &[Arc<Vector>],
    len: usize,
    ctx: &ExecContext,
) -> Result<Vector> {
    let mut session = match ctx.sequences.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    };
    let mut values = Vec::with_capacity(len);
    let mut out = Vector::with_capacity(func.result_type().physical(), len);
    for row in 0..len {
        let value = match (func, name) {
            (SequenceFunction::NextVal, Some(name)) => {
                let value = sequence(ctx, name)?.next()?;
                session.current.insert(name.clone(), value);
                session.last = Some(value);
                Some(value)
            }
            (SequenceFunction::ReadLastValue, Some(name)) => Some(sequence(ctx, name)?.counter().0),
            // KestrelDB logs every change of the counter, so none are pre-logged.
            (SequenceFunction::ReadLogCount, Some(_)) => Some(0),
            (SequenceFunction::ReadIsCalled, Some(name)) => {
                values.push(ScalarValue::Bool(sequence(ctx, name)?.counter().1));
                continue;
            }
            (SequenceFunction::CurrVal, Some(name)) => match session.current.get(name) {
                Some(v) => Some(*v),
                None => {
                    return Err(Error::new(
                        SqlState::ObjectNotInPrerequisiteState,
                        format!(
                            "currval of sequence \"{name}\" is not yet defined in this session"
                        ),
                    ))
                }
            },
            (SequenceFunction::SetVal, Some(name)) => {
                let target = args.first().map(|a| a.get_scalar(row));
                let is_called = args
                    .get(1)
                    .map_or(ScalarValue::Bool(true), |a| a.get_scalar(row));
                match (target, is_called) {
                    (Some(ScalarValue::Int64(v)), ScalarValue::Bool(called)) => {
                        let value = sequence(ctx, name)?.set(v, called)?;
                        if called {
                            session.current.insert(name.clone(), value);
                            session.last = Some(value);
                        }
                        Some(value)
                    }
                    _ => None,
                }
            }
            (SequenceFunction::LastVal, _) => match session.last {
                Some(v) => Some(v),
                None => {
                    return Err(Error::new(
                        SqlState::ObjectNotInPrerequisiteState,
                        "lastval is not yet defined in this session",
                    ))
                }
            },
            (_, None) => return Err(Error::internal("sequence function without a sequence")),
        };
        values.push(value.map_or(ScalarValue::Null, ScalarValue::Int64));
    }
    for value in &values {
        out.push_scalar(value)?;
    }
    Ok(out)
}
