//! Bound DDL statements beyond CREATE and DROP TABLE: indexes, TRUNCATE, ALTER TABLE and
//! views. Names of the objects created or dropped stay names (they are what the statement
//! is about); the columns they refer to are positions.

use super::ScalarExpr;
use crate::catalog::{
    IndexExpr, IndexMethod, LabelPosition, QualifiedName, StoredExpr, TableSchema,
};
use crate::storage::SequenceOptions;
use crate::types::DataType;

/// CREATE [UNIQUE] INDEX over columns of one table.
#[derive(Debug, Clone)]
pub struct CreateIndex {
    /// `None`: PostgreSQL's generated name, `table_col_idx`, chosen when the statement runs.
    pub name: Option<String>,
    pub table_name: QualifiedName,
    pub table_oid: u32,
    pub columns: Vec<usize>,
    pub unique: bool,
    pub method: IndexMethod,
    pub if_not_exists: bool,
    /// CONCURRENTLY: the same build here, but refused inside a transaction block as in
    /// PostgreSQL.
    pub concurrently: bool,
    /// The keys that are expressions, by key position (`columns` holds the others).
    pub expressions: Vec<IndexExpr>,
    /// WHERE of a partial index.
    pub predicate: Option<StoredExpr>,
    /// What each key contributes to a generated name (`t_lower_idx`): a column's name, a
    /// function's, or `expr`.
    pub key_names: Vec<String>,
}

/// ALTER TABLE with every subcommand bound in order: the table's schema after all of them,
/// and the changes they make to the rows, in order, each with column positions as they are
/// when it applies.
#[derive(Debug, Clone)]
pub struct AlterTable {
    /// The table's name before the statement (`schema.name` is the one after).
    pub table_name: QualifiedName,
    pub table_oid: u32,
    pub schema: TableSchema,
    pub row_changes: Vec<RowChange>,
    /// Sequences owned by the table's columns whose owner changes: the new (table, column),
    /// `None` when the owning column is dropped (the sequence goes with it).
    pub sequence_owners: Vec<(QualifiedName, Option<(String, String)>)>,
    /// The CHECK constraints the rows must pass after the changes: those added or validated
    /// by the statement, and every validated one when the rows change.
    pub checks: Vec<super::RowCheck>,
    /// Foreign keys added (without NOT VALID) or validated: the existing rows are checked.
    pub foreign_keys_to_check: Vec<String>,
    /// Sequences of identity columns added: (name, options, owning column).
    pub new_sequences: Vec<(QualifiedName, SequenceOptions, String)>,
}

/// ALTER SEQUENCE: the sequence as the statement leaves it.
#[derive(Debug, Clone)]
pub struct AlterSequence {
    pub name: QualifiedName,
    /// The same as `name` unless renamed or moved to another schema.
    pub new_name: QualifiedName,
    pub options: SequenceOptions,
    /// RESTART: the value the next nextval returns.
    pub restart: Option<i64>,
    /// The (table, column) owning it.
    pub owned_by: Option<(String, String)>,
}

/// What COMMENT ON comments on.
#[derive(Debug, Clone)]
pub enum CommentTarget {
    Table(QualifiedName),
    Column {
        table: QualifiedName,
        column: usize,
    },
    /// An index, of a constraint or of CREATE INDEX, by its name.
    Index {
        table: QualifiedName,
        index: String,
    },
    /// A PRIMARY KEY or UNIQUE constraint, by its name.
    Constraint {
        table: QualifiedName,
        constraint: String,
    },
    View(QualifiedName),
    Sequence(QualifiedName),
    Schema(u32),
    /// An enum type, by name.
    Type(QualifiedName),
    /// A domain, by name.
    Domain(QualifiedName),
}

#[derive(Debug, Clone)]
pub enum RowChange {
    /// Appends a column; `value` (its DEFAULT, over no columns, or a generated column's
    /// expression over the row) is computed once per existing row, so a volatile default
    /// such as nextval gives each row its own value.
    AddColumn {
        value: ScalarExpr,
    },
    DropColumn {
        column: usize,
    },
    /// Replaces a column by `value`, an expression over the row (ALTER COLUMN TYPE).
    SetColumn {
        column: usize,
        value: ScalarExpr,
    },
}

/// CREATE TYPE ... AS ENUM, ALTER TYPE and DROP TYPE, by the names written: the types are
/// looked up again when the statement runs, under the locks of their names.
#[derive(Debug, Clone)]
pub enum TypeChange {
    CreateEnum {
        name: QualifiedName,
        labels: Vec<String>,
    },
    /// CREATE TYPE ... AS (...): the fields' names and types.
    CreateComposite {
        name: QualifiedName,
        fields: Vec<(String, DataType)>,
    },
    Alter {
        name: QualifiedName,
        action: AlterEnum,
    },
    Drop {
        names: Vec<QualifiedName>,
        if_exists: bool,
        cascade: bool,
    },
    /// CREATE DOMAIN: the domain as bound, its OIDs allocated when it runs.
    CreateDomain(Box<crate::catalog::Domain>),
    AlterDomain {
        name: QualifiedName,
        action: AlterDomain,
    },
    DropDomain {
        names: Vec<QualifiedName>,
        if_exists: bool,
        cascade: bool,
    },
}

/// ALTER DOMAIN's actions, checked against the domain as bound.
#[derive(Debug, Clone)]
pub enum AlterDomain {
    SetDefault(Option<String>),
    /// SET NOT NULL with the columns of the domain, which must hold no NULL.
    SetNotNull(Vec<DomainColumn>),
    DropNotNull,
    /// ADD CHECK (its OID allocated when it runs) with the columns whose rows it must pass
    /// (none when NOT VALID).
    AddCheck(crate::catalog::DomainCheck, Vec<DomainColumnCheck>),
    DropConstraint {
        name: String,
        if_exists: bool,
    },
    RenameConstraint {
        old: String,
        new: String,
    },
    /// VALIDATE CONSTRAINT with the columns whose rows it must pass.
    ValidateConstraint(String, Vec<DomainColumnCheck>),
    OwnerTo(u32),
    Rename(String),
}

/// A column of a domain's type: the table and column names errors give.
#[derive(Debug, Clone)]
pub struct DomainColumn {
    pub table_oid: u32,
    pub table: String,
    pub column: String,
    pub position: usize,
}

/// A domain CHECK bound over the row of a table with a column of the domain.
#[derive(Debug, Clone)]
pub struct DomainColumnCheck {
    pub column: DomainColumn,
    pub check: super::RowCheck,
}

#[derive(Debug, Clone)]
pub enum AlterEnum {
    AddValue {
        label: String,
        position: LabelPosition,
        if_not_exists: bool,
    },
    RenameValue {
        old: String,
        new: String,
    },
    Rename(String),
}

impl TypeChange {
    /// The command tag.
    pub fn tag(&self) -> &'static str {
        match self {
            TypeChange::CreateEnum { .. } | TypeChange::CreateComposite { .. } => "CREATE TYPE",
            TypeChange::Alter { .. } => "ALTER TYPE",
            TypeChange::Drop { .. } => "DROP TYPE",
            TypeChange::CreateDomain(_) => "CREATE DOMAIN",
            TypeChange::AlterDomain { .. } => "ALTER DOMAIN",
            TypeChange::DropDomain { .. } => "DROP DOMAIN",
        }
    }
}

/// CREATE EXTENSION and DROP EXTENSION of the extensions built into the server.
#[derive(Debug, Clone)]
pub enum ExtensionChange {
    Create {
        name: String,
        /// The schema it records (pg_extension.extnamespace).
        schema: u32,
        owner: u32,
        /// VERSION's, which must be the built-in one.
        version: Option<String>,
        if_not_exists: bool,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
    },
}

impl ExtensionChange {
    /// The command tag.
    pub fn tag(&self) -> &'static str {
        match self {
            ExtensionChange::Create { .. } => "CREATE EXTENSION",
            ExtensionChange::Drop { .. } => "DROP EXTENSION",
        }
    }
}

/// CREATE SERVER, DROP SERVER and ALTER FOREIGN TABLE ... OPTIONS.
#[derive(Debug, Clone)]
pub enum ForeignDataChange {
    /// `server.oid` is allocated when it runs.
    Create {
        server: crate::catalog::ForeignServer,
        if_not_exists: bool,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
        cascade: bool,
    },
    /// ALTER SERVER ... OPTIONS: the server's options after it.
    AlterServerOptions {
        server: String,
        options: Vec<(String, String)>,
    },
    /// The foreign table's options and those of the columns named, as they are after
    /// the ALTER (checked when bound).
    AlterTableOptions {
        table: QualifiedName,
        options: Vec<(String, String)>,
        columns: Vec<(String, Vec<(String, String)>)>,
    },
    /// CREATE, ALTER or DROP USER MAPPING of `user` (a role's OID, 0 for PUBLIC; named
    /// `user_name` in messages) on `server`.
    UserMapping {
        server: String,
        user: u32,
        user_name: String,
        change: MappingChange,
    },
    /// DROP USER MAPPING IF EXISTS of a role or server that does not exist: its notice.
    MappingSkipped { notice: String },
}

/// What a user mapping statement does to its mapping.
#[derive(Debug, Clone)]
pub enum MappingChange {
    Create {
        options: Vec<(String, String)>,
        if_not_exists: bool,
    },
    /// Its options after the ALTER.
    Alter(Vec<(String, String)>),
    Drop {
        if_exists: bool,
    },
}

impl ForeignDataChange {
    /// The command tag.
    pub fn tag(&self) -> &'static str {
        match self {
            ForeignDataChange::Create { .. } => "CREATE SERVER",
            ForeignDataChange::Drop { .. } => "DROP SERVER",
            ForeignDataChange::AlterServerOptions { .. } => "ALTER SERVER",
            ForeignDataChange::AlterTableOptions { .. } => "ALTER FOREIGN TABLE",
            ForeignDataChange::UserMapping { change, .. } => match change {
                MappingChange::Create { .. } => "CREATE USER MAPPING",
                MappingChange::Alter(_) => "ALTER USER MAPPING",
                MappingChange::Drop { .. } => "DROP USER MAPPING",
            },
            ForeignDataChange::MappingSkipped { .. } => "DROP USER MAPPING",
        }
    }
}

/// What COMMIT does to a temporary table (ON COMMIT PRESERVE ROWS is nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnCommitAction {
    /// ON COMMIT DELETE ROWS: every commit empties it.
    DeleteRows,
    /// ON COMMIT DROP: the commit of its transaction drops it.
    Drop,
}

/// CREATE [OR REPLACE] FUNCTION (the body validated when bound, its OID allocated when it
/// runs) and DROP FUNCTION (the functions found when bound, by OID, looked up again under
/// the locks of their names).
#[derive(Debug, Clone)]
pub enum FunctionChange {
    Create {
        function: crate::catalog::FunctionDef,
        or_replace: bool,
    },
    Drop {
        functions: Vec<(u32, QualifiedName)>,
        /// IF EXISTS notices of the functions not found.
        notices: Vec<String>,
        /// DROP ... CASCADE: the views calling them go too.
        cascade: bool,
    },
}

impl FunctionChange {
    /// The command tag.
    pub fn tag(&self) -> &'static str {
        match self {
            FunctionChange::Create { .. } => "CREATE FUNCTION",
            FunctionChange::Drop { .. } => "DROP FUNCTION",
        }
    }
}
