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
    /// The domain a scalar or SETOF result is declared as: a call's value is checked
    /// against it (`returns` holds the domain's base type).
    pub returns_domain: Option<u32>,
}

/// A declared parameter, in the order written (pg_proc.proallargtypes): input parameters
/// are what a call passes, OUT ones (and INOUT ones) the columns of the result.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionArg {
    pub name: Option<String>,
    pub ty: DataType,
    /// The DEFAULT expression as SQL text, bound at each call that leaves it out.
    pub default: Option<String>,
    pub mode: ParamMode,
    /// The domain the parameter is declared as (`ty` is its base type): a call's argument
    /// is checked against it.
    pub domain: Option<u32>,
}

/// pg_proc.proargmodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamMode {
    In,
    Out,
    InOut,
    /// The last input parameter, an array: a call's trailing arguments are its elements.
    Variadic,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FunctionReturn {
    /// One value.
    Scalar(DataType),
    /// `SETOF type`: a column named after the function.
    SetOf(DataType),
    /// `TABLE (name type, ...)`, or `SETOF record` with OUT parameters.
    Table(Vec<(String, DataType)>),
    /// One row of several OUT parameters (`record`).
    Row(Vec<(String, DataType)>),
    /// `void`: the body runs for its effect; a call's value is empty.
    Void,
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

impl ParamMode {
    /// Whether a call passes it.
    pub fn is_input(self) -> bool {
        matches!(self, ParamMode::In | ParamMode::InOut | ParamMode::Variadic)
    }

    /// Whether it is a column of the result.
    pub fn is_output(self) -> bool {
        matches!(self, ParamMode::Out | ParamMode::InOut)
    }

    /// pg_proc.proargmodes' letter.
    pub fn code(self) -> &'static str {
        match self {
            ParamMode::In => "i",
            ParamMode::Out => "o",
            ParamMode::InOut => "b",
            ParamMode::Variadic => "v",
        }
    }

    /// The keyword pg_get_function_arguments shows before the name.
    pub fn keyword(self) -> &'static str {
        match self {
            ParamMode::In => "",
            ParamMode::Out => "OUT ",
            ParamMode::InOut => "INOUT ",
            ParamMode::Variadic => "VARIADIC ",
        }
    }
}

impl FunctionArg {
    /// pg_proc's type OID of the parameter: its domain's, or its type's.
    pub fn type_oid(&self) -> u32 {
        self.domain.unwrap_or_else(|| self.ty.oid())
    }
}

impl FunctionReturn {
    /// The type of each output column (one for a scalar or SETOF function).
    pub fn column_types(&self) -> Vec<DataType> {
        match self {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => vec![*ty],
            FunctionReturn::Table(columns) | FunctionReturn::Row(columns) => {
                columns.iter().map(|(_, ty)| *ty).collect()
            }
            FunctionReturn::Void => Vec::new(),
        }
    }

    /// The columns of a result of several, by name.
    pub fn columns(&self) -> Option<&[(String, DataType)]> {
        match self {
            FunctionReturn::Scalar(_) | FunctionReturn::SetOf(_) | FunctionReturn::Void => None,
            FunctionReturn::Table(columns) | FunctionReturn::Row(columns) => {
                Some(columns.as_slice())
            }
        }
    }

    /// pg_proc.proretset.
    pub fn returns_set(&self) -> bool {
        matches!(self, FunctionReturn::SetOf(_) | FunctionReturn::Table(_))
    }

    /// pg_proc.prorettype: a TABLE function, or one of several OUT parameters, returns
    /// `record`.
    pub fn type_oid(&self) -> u32 {
        match self {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => ty.oid(),
            FunctionReturn::Table(_) | FunctionReturn::Row(_) => RECORD_OID,
            FunctionReturn::Void => VOID_OID,
        }
    }
}

/// pg_type's OID of `record`.
pub const RECORD_OID: u32 = 2249;

/// pg_type's OID of `void`.
pub const VOID_OID: u32 = 2278;

impl FunctionDef {
    /// The parameters a call passes, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &FunctionArg> {
        self.args.iter().filter(|a| a.mode.is_input())
    }

    /// pg_proc.prorettype: the declared domain, or the result's type.
    pub fn returns_oid(&self) -> u32 {
        self.returns_domain
            .unwrap_or_else(|| self.returns.type_oid())
    }

    /// The input parameters' types: with the name, what identifies the function.
    pub fn arg_types(&self) -> Vec<DataType> {
        self.inputs().map(|a| a.ty).collect()
    }

    /// Whether OUT or INOUT parameters define the result.
    pub fn has_out_params(&self) -> bool {
        self.args.iter().any(|a| a.mode.is_output())
    }

    /// Whether pg_proc lists every parameter with its mode (proallargtypes).
    pub fn has_modes(&self) -> bool {
        self.args.iter().any(|a| a.mode != ParamMode::In)
    }

    /// The name of the one column of a scalar or SETOF result in FROM when a named OUT
    /// parameter gives it (PostgreSQL's chooseScalarFunctionAlias).
    pub fn out_param_name(&self) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.mode.is_output())
            .and_then(|a| a.name.as_deref())
    }

    /// How many trailing arguments have a DEFAULT (pg_proc.pronargdefaults).
    pub fn defaults_count(&self) -> usize {
        self.inputs().filter(|a| a.default.is_some()).count()
    }

    /// The result type as PostgreSQL's messages name it ("record" for TABLE).
    pub fn returns_shown(&self) -> &'static str {
        match &self.returns {
            FunctionReturn::Scalar(ty) | FunctionReturn::SetOf(ty) => ty.name(),
            FunctionReturn::Table(_) | FunctionReturn::Row(_) => "record",
            FunctionReturn::Void => "void",
        }
    }

    /// `name(integer, text)` as PostgreSQL's messages name the function.
    pub fn signature(&self) -> String {
        signature(&self.name.name, &self.arg_types())
    }

    /// The signature with the domains the parameters are declared as, by `domain_name`.
    pub fn signature_with_domains(&self, domain_name: impl Fn(u32) -> Option<String>) -> String {
        let types: Vec<String> = self
            .inputs()
            .map(|a| {
                a.domain
                    .and_then(&domain_name)
                    .unwrap_or_else(|| a.ty.name().to_string())
            })
            .collect();
        format!("{}({})", self.name.name, types.join(", "))
    }
}

/// `name(type, ...)` with PostgreSQL's type names.
pub fn signature(name: &str, types: &[DataType]) -> String {
    let types: Vec<&str> = types.iter().map(|t| t.name()).collect();
    format!("{name}({})", types.join(", "))
}
