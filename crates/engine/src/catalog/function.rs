//! User-defined SQL functions (CREATE FUNCTION ... LANGUAGE sql): the signature, the
//! properties PostgreSQL keeps in pg_proc, and the body as SQL text. The body is bound again
//! at every call, as PostgreSQL plans a string body when it runs: what it reads is not
//! tracked, so DROP TABLE of a table it reads is allowed and the next call fails.

use super::QualifiedName;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    pub oid: u32,
    pub name: QualifiedName,
    pub args: Vec<FunctionArg>,
    pub returns: FunctionReturn,
    pub volatility: Volatility,
    /// STRICT (RETURNS NULL ON NULL INPUT): a NULL argument gives NULL without a run.
    pub strict: bool,
    /// pg_proc.proparallel: `s`, `r` or `u`.
    pub parallel: u8,
    pub body: FunctionBody,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FunctionArg {
    pub name: Option<String>,
    pub ty: DataType,
    /// The DEFAULT expression as SQL text, bound at each call that leaves it out.
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FunctionReturn {
    /// One value.
    Scalar(DataType),
    /// `SETOF type`: a column named after the function.
    SetOf(DataType),
    /// `TABLE (name type, ...)`.
    Table(Vec<(String, DataType)>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

/// What the function runs.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionBody {
    /// `AS 'text'`: one query, as written (pg_proc.prosrc).
    Text(String),
    /// PostgreSQL 14's `RETURN expr`, the expression as sqlparser prints it.
    Return(String),
}

impl Volatility {
    /// pg_proc.provolatile.
    pub fn code(self) -> u8 {
        match self {
            Volatility::Immutable => b'i',
            Volatility::Stable => b's',
            Volatility::Volatile => b'v',
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Volatility::Immutable => "IMMUTABLE",
            Volatility::Stable => "STABLE",
            Volatility::Volatile => "VOLATILE",
        }
    }
}

impl FunctionReturn {
    /// The type of each output column (one for a scalar or SETOF function).
    pub fn column_types(&self) -> Vec<DataType> {
        match self {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => vec![*ty],
            FunctionReturn::Table(columns) => columns.iter().map(|(_, ty)| *ty).collect(),
        }
    }

    /// pg_proc.proretset.
    pub fn returns_set(&self) -> bool {
        !matches!(self, FunctionReturn::Scalar(_))
    }

    /// pg_proc.prorettype: a TABLE function returns `record`.
    pub fn type_oid(&self) -> u32 {
        match self {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => ty.oid(),
            FunctionReturn::Table(_) => RECORD_OID,
        }
    }
}

/// pg_type's OID of `record`.
pub const RECORD_OID: u32 = 2249;

impl FunctionDef {
    pub fn arg_types(&self) -> Vec<DataType> {
        self.args.iter().map(|a| a.ty).collect()
    }

    /// How many trailing arguments have a DEFAULT (pg_proc.pronargdefaults).
    pub fn defaults_count(&self) -> usize {
        self.args.iter().filter(|a| a.default.is_some()).count()
    }

    /// The result type as PostgreSQL's messages name it ("record" for TABLE).
    pub fn returns_shown(&self) -> &'static str {
        match &self.returns {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => ty.name(),
            FunctionReturn::Table(_) => "record",
        }
    }

    /// `name(integer, text)` as PostgreSQL's messages name the function.
    pub fn signature(&self) -> String {
        signature(&self.name.name, &self.arg_types())
    }
}

/// `name(type, ...)` with PostgreSQL's type names.
pub fn signature(name: &str, types: &[DataType]) -> String {
    let types: Vec<&str> = types.iter().map(|t| t.name()).collect();
    format!("{name}({})", types.join(", "))
}
