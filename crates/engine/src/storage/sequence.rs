//! Sequences (CREATE SEQUENCE, SERIAL, identity columns). Their values are not
//! transactional, as in PostgreSQL: nextval is never rolled back, so every version of the
//! database shares one counter per sequence.

use std::sync::{Arc, Mutex};

use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct SequenceOptions {
    /// smallint, integer or bigint (AS): the bounds its defaults give and must fit.
    pub data_type: DataType,
    pub increment: i64,
    pub min: i64,
    pub max: i64,
    pub start: i64,
    pub cycle: bool,
}

impl SequenceOptions {
    /// 22023 unless `value`, the sequence's option `what` (START, RESTART), is within its
    /// bounds, worded as PostgreSQL words it.
    pub fn check_within(&self, what: &str, value: i64) -> Result<()> {
        let (relation, bound_name, bound) = if value < self.min {
            ("less than", "MINVALUE", self.min)
        } else if value > self.max {
            ("greater than", "MAXVALUE", self.max)
        } else {
            return Ok(());
        };
        Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("{what} value ({value}) cannot be {relation} {bound_name} ({bound})"),
        ))
    }

    /// PostgreSQL's defaults for an ascending sequence of `data_type`.
    pub fn ascending(data_type: DataType) -> SequenceOptions {
        SequenceOptions {
            data_type,
            increment: 1,
            min: 1,
            max: type_max(data_type),
            start: 1,
            cycle: false,
        }
    }

    /// The type the bounds imply, for definitions stored before the type was: the
    /// smallest whose default bound one of them is.
    pub fn implied_type(&self) -> DataType {
        let fits = |min: i64, max: i64| self.min >= min && self.max <= max;
        [DataType::Int16, DataType::Int32]
            .into_iter()
            .find(|&ty| {
                let (min, max) = (type_min(ty), type_max(ty));
                fits(min, max) && (self.max == max || self.min == min)
            })
            .unwrap_or(DataType::Int64)
    }
}

/// The largest value of a sequence type (bigint's for any other).
pub fn type_max(ty: DataType) -> i64 {
    match ty {
        DataType::Int16 => i64::from(i16::MAX),
        DataType::Int32 => i64::from(i32::MAX),
        _ => i64::MAX,
    }
}

/// The smallest value of a sequence type (bigint's for any other).
pub fn type_min(ty: DataType) -> i64 {
    match ty {
        DataType::Int16 => i64::from(i16::MIN),
        DataType::Int32 => i64::from(i32::MIN),
        _ => i64::MIN,
    }
}

#[derive(Debug)]
pub struct Sequence {
    /// Its schema and name; `owned_by` names a table of the same schema.
    pub name: QualifiedName,
    pub oid: u32,
    pub options: SequenceOptions,
    /// The table and column whose DEFAULT uses it (SERIAL, identity): dropped with the table.
    pub owned_by: Option<(String, String)>,
    /// COMMENT ON SEQUENCE.
    pub comment: Option<String>,
    /// Shared with the copies [`Sequence::with_owner`] makes, so that a renamed owner never
    /// forks the counter.
    state: Arc<Mutex<SequenceState>>,
}

#[derive(Debug)]
struct SequenceState {
    last: i64,
    is_called: bool,
    /// Changed since the write-ahead log last recorded it.
    unlogged: bool,
}

impl Sequence {
    pub fn new(
        name: QualifiedName,
        oid: u32,
        options: SequenceOptions,
        owned_by: Option<(String, String)>,
    ) -> Sequence {
        let start = options.start;
        Sequence {
            name,
            oid,
            options,
            owned_by,
            comment: None,
            state: Arc::new(Mutex::new(SequenceState {
                last: start,
                is_called: false,
                unlogged: false,
            })),
        }
    }

    /// The same sequence, counter included, owned by another (table, column): ALTER TABLE
    /// renamed the owner.
    pub fn with_owner(&self, owned_by: Option<(String, String)>) -> Sequence {
        Sequence {
            name: self.name.clone(),
            oid: self.oid,
            options: self.options.clone(),
            owned_by,
            comment: self.comment.clone(),
            state: self.state.clone(),
        }
    }

    /// The same sequence, counter included, with another comment.
    pub fn with_comment(&self, comment: Option<String>) -> Sequence {
        Sequence {
            comment,
            ..self.with_owner(self.owned_by.clone())
        }
    }

    /// A new definition of this sequence (its OID and comment kept) with a counter of its
    /// own, at START: what ALTER SEQUENCE and TRUNCATE ... RESTART IDENTITY make, so a
    /// rollback leaves the old counter as it was.
    pub fn redefined(
        &self,
        name: QualifiedName,
        options: SequenceOptions,
        owned_by: Option<(String, String)>,
    ) -> Sequence {
        Sequence {
            comment: self.comment.clone(),
            ..Sequence::new(name, self.oid, options, owned_by)
        }
    }

    /// Its type: smallint, integer or bigint.
    pub fn data_type(&self) -> DataType {
        self.options.data_type
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SequenceState> {
        match self.state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The counter: the last value and whether nextval has returned it.
    pub fn counter(&self) -> (i64, bool) {
        let state = self.lock();
        (state.last, state.is_called)
    }

    /// Sets the counter as read back from disk.
    pub fn restore_counter(&self, last: i64, is_called: bool) {
        let mut state = self.lock();
        state.last = last;
        state.is_called = is_called;
    }

    /// Whether the counter moved since [`Sequence::take_unlogged`] last returned it.
    pub fn is_unlogged(&self) -> bool {
        self.lock().unlogged
    }

    /// The counter, if it moved since the log last recorded it; marks it recorded. A
    /// value nextval returned is in the log before the transaction that used it commits,
    /// so a crash never hands it out again.
    pub fn take_unlogged(&self) -> Option<(i64, bool)> {
        let mut state = self.lock();
        std::mem::take(&mut state.unlogged).then_some((state.last, state.is_called))
    }

    /// nextval.
    pub fn next(&self) -> Result<i64> {
        let mut state = self.lock();
        if !state.is_called {
            state.is_called = true;
            // The counter moved (is_called did), so the next commit must log it.
            state.unlogged = true;
            return Ok(state.last);
        }
        let o = &self.options;
        let next = state
            .last
            .checked_add(o.increment)
            .filter(|v| (o.min..=o.max).contains(v));
        let next = match next {
            Some(v) => v,
            None if o.cycle => {
                if o.increment > 0 {
                    o.min
                } else {
                    o.max
                }
            }
            None => {
                let (which, bound) = if o.increment > 0 {
                    ("maximum", o.max)
                } else {
                    ("minimum", o.min)
                };
                return Err(Error::new(
                    SqlState::SequenceGeneratorLimitExceeded,
                    format!(
                        "nextval: reached {which} value of sequence \"{}\" ({bound})",
                        self.name
                    ),
                ));
            }
        };
        state.last = next;
        state.unlogged = true;
        Ok(next)
    }

    /// setval(value, is_called).
    pub fn set(&self, value: i64, is_called: bool) -> Result<i64> {
        let o = &self.options;
        if !(o.min..=o.max).contains(&value) {
            return Err(Error::new(
                SqlState::NumericValueOutOfRange,
                format!(
                    "setval: value {value} is out of bounds for sequence \"{}\" ({}..{})",
                    self.name, o.min, o.max
                ),
            ));
        }
        let mut state = self.lock();
        state.last = value;
        state.is_called = is_called;
        state.unlogged = true;
        Ok(value)
    }
}
