//! Domains (CREATE DOMAIN): a base type with a default, NOT NULL and CHECK constraints.
//! A column of a domain stores its base type's values; the column names the domain
//! (`ColumnDef::domain`), and writes and casts to it run the checks of the whole chain of
//! domains down to the base type.

use super::QualifiedName;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    pub oid: u32,
    pub name: QualifiedName,
    /// The type the values have: the base type at the bottom of the chain.
    pub base: DataType,
    /// The domain this one is over (pg_type.typbasetype), when it is a domain over a domain.
    pub parent: Option<u32>,
    /// DEFAULT as SQL text, bound again where a write needs it.
    pub default_sql: Option<String>,
    /// The NOT NULL constraint, by name (PostgreSQL 15 keeps no pg_constraint row for it,
    /// but the name is kept for DROP CONSTRAINT).
    pub not_null: bool,
    /// In creation order; PostgreSQL evaluates them by name.
    pub checks: Vec<DomainCheck>,
    pub owner: u32,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DomainCheck {
    /// The pg_constraint row's OID.
    pub oid: u32,
    pub name: String,
    /// The expression over VALUE, as written.
    pub sql: String,
    /// As pg_get_constraintdef prints it: `CHECK (...)`, plain and pretty.
    pub definition: String,
    pub definition_pretty: String,
    /// False after ADD ... NOT VALID until VALIDATE CONSTRAINT.
    pub validated: bool,
}

impl Domain {
    /// PostgreSQL's ChooseConstraintName for a new CHECK: `domain_check`, numbered while
    /// taken.
    pub fn free_check_name(&self) -> String {
        let base = format!("{}_check", self.name.name);
        let mut candidate = base.clone();
        let mut n = 0;
        while self.checks.iter().any(|c| c.name == candidate) {
            n += 1;
            candidate = format!("{base}{n}");
        }
        candidate
    }
}
