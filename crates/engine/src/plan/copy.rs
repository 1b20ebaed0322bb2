//! A bound COPY statement: which rows go where, and in which format.

use std::sync::Arc;

use super::{ColumnInfo, LogicalPlan, ScalarExpr};
use crate::catalog::QualifiedName;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyFormat {
    Text,
    Csv,
    Binary,
    /// A Parquet file (a server file only): whole columns, no text options.
    Parquet,
}

/// HEADER: none, a line skipped (or written), or one whose names must match (COPY FROM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyHeader {
    Absent,
    Present,
    Match,
}

/// The options of COPY, validated as PostgreSQL does; the per-column ones are one flag per
/// copied column.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyOptions {
    pub format: CopyFormat,
    pub delimiter: u8,
    pub null: String,
    pub header: CopyHeader,
    pub quote: u8,
    pub escape: u8,
    pub force_quote: Vec<bool>,
    pub force_not_null: Vec<bool>,
    pub force_null: Vec<bool>,
}

/// Where the data comes from or goes: the client (STDIN / STDOUT) or a server file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyEndpoint {
    Client,
    File(String),
}

/// Where a table column's value comes from in COPY FROM.
#[derive(Debug, Clone, PartialEq)]
pub enum CopyColumn {
    /// The n-th field of each input line.
    Field(usize),
    /// Not listed: its DEFAULT (NULL if none).
    Default(ScalarExpr),
    /// A generated column: its expression over the full row, computed after the others.
    Generated(ScalarExpr),
}

#[derive(Debug, Clone)]
pub enum CopyDirection {
    /// COPY table [(columns)] FROM: one entry per table column.
    From {
        table_name: QualifiedName,
        table_oid: u32,
        /// The names of the copied columns, in field order (HEADER MATCH, error context).
        field_names: Vec<String>,
        row: Vec<CopyColumn>,
        /// The table's CHECK constraints, which every loaded row passes.
        checks: Vec<super::RowCheck>,
    },
    /// COPY table | (query) TO.
    To {
        plan: LogicalPlan,
        columns: Arc<[ColumnInfo]>,
    },
}

#[derive(Debug, Clone)]
pub struct CopyStatement {
    pub direction: CopyDirection,
    pub endpoint: CopyEndpoint,
    pub options: CopyOptions,
}
