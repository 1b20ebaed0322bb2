//! SQL/JSON path language, PostgreSQL's `jsonpath`: the tree of a path (parsed by
//! `parse.rs` from PostgreSQL's grammar) and its evaluation over a jsonb document
//! (`eval.rs`), in lax or strict mode, with PostgreSQL's results and errors. The functions
//! `jsonb_path_*` and the operators `@?` and `@@` evaluate through [`JsonPath::query`].
//!
//! Not built yet, each a clear 0A000: `.keyvalue()` and `.datetime()`.

mod eval;
mod parse;
mod print;

pub use parse::parse;

use crate::error::{Error, Result, SqlState};
use crate::types::json::Json;

/// A parsed path: its mode and expression.
#[derive(Debug, Clone)]
pub struct JsonPath {
    pub strict: bool,
    pub expr: Expr,
}

#[derive(Debug, Clone)]
pub enum Expr {
    /// `$`.
    Root,
    /// `@`, the item a filter tests.
    Current,
    /// `last`, the last index of the array a subscript reads.
    Last,
    /// `$name`, from the `vars` argument.
    Variable(String),
    Literal(Json),
    Access(Box<Expr>, Accessor),
    /// Unary `-` (true) or `+` (false).
    Negate(Box<Expr>, bool),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Exists(Box<Expr>),
    IsUnknown(Box<Expr>),
    StartsWith(Box<Expr>, Box<Expr>),
    LikeRegex(Box<Expr>, Box<LikeRegex>),
}

#[derive(Debug, Clone)]
pub enum Accessor {
    /// `.key` or `."key"`.
    Key(String),
    /// `.*`.
    AnyKey,
    /// `[*]`.
    AnyElement,
    /// `[i, j to k, ...]`.
    Subscripts(Vec<(Expr, Option<Expr>)>),
    /// `.**` or `.**{from to to}` (`u32::MAX` is `last`, the deepest level).
    Descendants {
        from: u32,
        to: u32,
    },
    /// `?(predicate)`.
    Filter(Box<Expr>),
    Method(Method),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Type,
    Size,
    Double,
    Abs,
    Floor,
    Ceiling,
    KeyValue,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Type => "type",
            Method::Size => "size",
            Method::Double => "double",
            Method::Abs => "abs",
            Method::Floor => "floor",
            Method::Ceiling => "ceiling",
            Method::KeyValue => "keyvalue",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl ArithOp {
    fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// `like_regex`'s pattern and flags as written (for output) and compiled once.
#[derive(Debug, Clone)]
pub struct LikeRegex {
    pub pattern: String,
    /// The flags in PostgreSQL's order, each once.
    pub flags: String,
    pub regex: regex::Regex,
}

/// `like_regex`'s pattern with its flags (`i`, `s`, `m`, `q`; PostgreSQL has no `x`).
fn like_regex(pattern: &str, flags: &str) -> Result<LikeRegex> {
    if flags.contains('x') {
        return Err(Error::new(
            SqlState::FeatureNotSupported,
            "XQuery \"x\" flag (expanded regular expressions) is not implemented",
        ));
    }
    if let Some(other) = flags.chars().find(|c| !"ismq".contains(*c)) {
        return Err(Error::new(
            SqlState::SyntaxError,
            "invalid input syntax for type jsonpath",
        )
        .with_detail(format!(
            "Unrecognized flag character \"{other}\" in LIKE_REGEX predicate."
        )));
    }
    let has = |flag: char| flags.contains(flag);
    let source = match has('q') {
        true => regex::escape(pattern),
        false => pattern.to_string(),
    };
    let regex = regex::RegexBuilder::new(&source)
        .case_insensitive(has('i'))
        .dot_matches_new_line(has('s'))
        .multi_line(has('m'))
        .build()
        .map_err(|e| {
            Error::new(
                SqlState::InvalidRegularExpression,
                format!("invalid regular expression: {e}"),
            )
        })?;
    Ok(LikeRegex {
        pattern: pattern.to_string(),
        flags: "ismq".chars().filter(|&c| has(c)).collect(),
        regex,
    })
}
