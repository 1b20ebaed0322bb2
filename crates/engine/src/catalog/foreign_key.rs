//! A FOREIGN KEY constraint of a table: its columns, the table and columns it references,
//! and what happens when a referenced row goes away. The referencing table owns it, as in
//! PostgreSQL (pg_constraint.conrelid); the referenced table finds it by scanning the
//! tables that reference its OID.

use super::TableSchema;
use crate::types::DataType;

/// ON DELETE / ON UPDATE: what a change to a referenced key does to the rows referencing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferentialAction {
    NoAction,
    Restrict,
    Cascade,
    SetNull,
    SetDefault,
}

impl ReferentialAction {
    /// pg_constraint's confupdtype / confdeltype letter.
    pub fn code(self) -> u8 {
        match self {
            ReferentialAction::NoAction => b'a',
            ReferentialAction::Restrict => b'r',
            ReferentialAction::Cascade => b'c',
            ReferentialAction::SetNull => b'n',
            ReferentialAction::SetDefault => b'd',
        }
    }

    pub fn from_code(code: u8) -> Option<ReferentialAction> {
        [
            ReferentialAction::NoAction,
            ReferentialAction::Restrict,
            ReferentialAction::Cascade,
            ReferentialAction::SetNull,
            ReferentialAction::SetDefault,
        ]
        .into_iter()
        .find(|a| a.code() == code)
    }

    /// As pg_get_constraintdef prints it after `ON DELETE`.
    pub fn sql(self) -> &'static str {
        match self {
            ReferentialAction::NoAction => "NO ACTION",
            ReferentialAction::Restrict => "RESTRICT",
            ReferentialAction::Cascade => "CASCADE",
            ReferentialAction::SetNull => "SET NULL",
            ReferentialAction::SetDefault => "SET DEFAULT",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ForeignKey {
    pub name: String,
    /// Referencing columns, positions in the owning table.
    pub columns: Vec<usize>,
    /// The referenced table's OID (the owning table's own for a self-reference).
    pub referenced_table: u32,
    /// Referenced columns, positions in the referenced table, paired with `columns`. They
    /// are the columns of one of its PRIMARY KEY or UNIQUE constraints, in any order.
    pub referenced_columns: Vec<usize>,
    pub on_delete: ReferentialAction,
    pub on_update: ReferentialAction,
    /// MATCH FULL: a key with some NULL columns must be all NULL. Otherwise MATCH SIMPLE:
    /// any NULL column exempts the row.
    pub match_full: bool,
    pub deferrable: bool,
    pub initially_deferred: bool,
    /// False for NOT VALID until VALIDATE CONSTRAINT: existing rows were not checked.
    pub validated: bool,
    /// COMMENT ON CONSTRAINT.
    pub comment: Option<String>,
}

impl TableSchema {
    /// The PRIMARY KEY or UNIQUE key (or unique index) over exactly `columns`, in any
    /// order: the one a foreign key referencing them is checked against.
    pub fn unique_key_over(&self, columns: &[usize]) -> Option<usize> {
        self.unique_keys.iter().position(|k| {
            k.columns.len() == columns.len() && k.columns.iter().all(|c| columns.contains(c))
        })
    }

    /// The foreign keys of this table referencing table `oid`.
    pub fn foreign_keys_to(&self, oid: u32) -> impl Iterator<Item = &ForeignKey> {
        self.foreign_keys
            .iter()
            .filter(move |k| k.referenced_table == oid)
    }
}

/// How a referencing column's values become keys of the referenced column's type: `Same`
/// when they already encode alike (equal types, a NUMERIC or string typmod aside), `Widen`
/// when a cast to the referenced type keeps every value (smallint to integer). Other type
/// pairs are refused when the key is declared, so no check ever compares two encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCast {
    Same,
    Widen,
}

pub fn key_cast(referencing: DataType, referenced: DataType) -> Option<KeyCast> {
    use DataType as T;
    match (referencing, referenced) {
        (a, b) if a == b => Some(KeyCast::Same),
        (T::Numeric(_), T::Numeric(_)) => Some(KeyCast::Same),
        (T::Text | T::Varchar(_), T::Text | T::Varchar(_)) => Some(KeyCast::Same),
        (T::Int16, T::Int32 | T::Int64) | (T::Int32, T::Int64) => Some(KeyCast::Widen),
        _ => None,
    }
}

/// A transaction's SET CONSTRAINTS modes and the foreign key checks it deferred. A deferred
/// check is recorded as (referencing table OID, constraint name) and validates the whole
/// table when it runs, so a check recorded by a statement later rolled back to a savepoint
/// costs time but never changes the outcome.
#[derive(Debug, Clone, Default)]
pub struct ConstraintChecks {
    /// SET CONSTRAINTS ALL: deferred or not, for every deferrable constraint.
    all: Option<bool>,
    /// SET CONSTRAINTS name, ...: the latest mode set for each name.
    named: Vec<(String, bool)>,
    pending: Vec<(u32, String)>,
}

impl ConstraintChecks {
    pub fn is_deferred(&self, key: &ForeignKey) -> bool {
        if !key.deferrable {
            return false;
        }
        match self.named.iter().rev().find(|(name, _)| *name == key.name) {
            Some(&(_, deferred)) => deferred,
            None => self.all.unwrap_or(key.initially_deferred),
        }
    }

    pub fn set_all(&mut self, deferred: bool) {
        self.all = Some(deferred);
        self.named.clear();
    }

    pub fn set_named(&mut self, name: &str, deferred: bool) {
        self.named.push((name.to_string(), deferred));
    }

    /// Records a check for COMMIT (once per constraint).
    pub fn defer(&mut self, table_oid: u32, name: &str) {
        if !self
            .pending
            .iter()
            .any(|(t, n)| *t == table_oid && n == name)
        {
            self.pending.push((table_oid, name.to_string()));
        }
    }

    pub fn take_pending(&mut self) -> Vec<(u32, String)> {
        std::mem::take(&mut self.pending)
    }
}
