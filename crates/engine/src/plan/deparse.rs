//! Bound expressions printed back as PostgreSQL's ruleutils prints a stored expression
//! (pg_get_constraintdef, pg_get_expr), plain or pretty. Plain: every operator in
//! parentheses and casts as `(x)::type`; pretty (psql's `\d`): parentheses only where
//! PostgreSQL's isSimpleNode wants them and casts as `x::type`. In both, implicit casts show
//! (PostgreSQL shows them inside an expression) and constants carry their type unless it is
//! integer, numeric with a point, or boolean.
//!
//! Our binder folds and rewrites a little differently from PostgreSQL's parser, so this
//! undoes what it can: a typed integer constant widened to bigint or numeric prints as the
//! integer (and cast) it was written as, and a varchar operand as PostgreSQL's coercion to
//! text. A node with no PostgreSQL spelling here gives `None`, and the caller keeps the
//! text as written.

use std::cell::Cell;

use super::expr::{ArithmeticOp, BoolTest};
use super::ScalarExpr;
use crate::catalog::quote_identifier;
use crate::function::cast::CastContext;
use crate::types::text_io::write_scalar_text;
use crate::types::{DataType, ScalarValue};

/// `expr` as PostgreSQL prints it, columns named by `columns`: (plain, pretty); `None` for a
/// node we cannot print as PostgreSQL would.
pub fn deparse_expr(expr: &ScalarExpr, columns: &[String]) -> Option<(String, String)> {
    deparse_with(expr, columns, false)
}

/// A domain CHECK, whose one column is the keyword VALUE (printed bare, never quoted); over
/// a domain over a domain, VALUE is of the inner domain and cast to `base` (its base type's
/// name) where the expression reads it, as PostgreSQL prints it.
pub fn deparse_domain_check(expr: &ScalarExpr, base: Option<&str>) -> Option<(String, String)> {
    let value = |pretty: bool| match (base, pretty) {
        (None, _) => "VALUE".to_string(),
        (Some(base), false) => format!("(VALUE)::{base}"),
        (Some(base), true) => format!("VALUE::{base}"),
    };
    let (plain, _) = deparse_with(expr, &[value(false)], true)?;
    let (_, pretty) = deparse_with(expr, &[value(true)], true)?;
    Some((plain, pretty))
}

fn deparse_with(
    expr: &ScalarExpr,
    columns: &[String],
    columns_are_keywords: bool,
) -> Option<(String, String)> {
    let deparse = |pretty| {
        let text = Deparser {
            columns,
            columns_are_keywords,
            pretty,
            indent: Cell::new(0),
        }
        .expr(expr)?;
        Some(without_spaces_before_newlines(&text))
    };
    Some((deparse(false)?, deparse(true)?))
}

/// PostgreSQL starts a CASE on a new line of its own, dropping the spaces before it.
fn without_spaces_before_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' {
            out.truncate(out.trim_end_matches(' ').len());
        }
        out.push(c);
    }
    out
}

struct Deparser<'a> {
    columns: &'a [String],
    columns_are_keywords: bool,
    pretty: bool,
    /// The indentation of the CASE being printed (ruleutils' indentLevel).
    indent: Cell<usize>,
}

/// The node a subexpression is printed inside, which decides its parentheses when pretty.
#[derive(Clone, Copy)]
enum Parent<'a> {
    /// A binary operator, and whether the child is its left operand.
    Operator {
        symbol: &'a str,
        left: bool,
    },
    And,
    Or,
    Not,
    Cast,
    /// A node with its own parentheses or delimiters: a function call, COALESCE, CASE.
    Delimited,
    /// Anything else (IS NULL, IN, a prefix operator).
    Other,
}

/// How a node prints, for the parentheses decision.
enum Shape<'a> {
    Simple,
    Operator(Option<&'a str>),
    Test,
    /// Always in parentheses: `x = ANY (...)`.
    Enclosed,
    /// A cast through text (CoerceViaIO) or between string types (RelabelType): as simple
    /// as its argument is inside it.
    CastOf(&'a ScalarExpr),
    And,
    Or,
    Not,
}

impl Deparser<'_> {
    #[recursive::recursive]
    fn expr(&self, expr: &ScalarExpr) -> Option<String> {
        Some(match expr {
            ScalarExpr::Column { index, .. } if self.columns_are_keywords => {
                self.columns.get(*index)?.clone()
            }
            ScalarExpr::Column { index, .. } => quote_identifier(self.columns.get(*index)?),
            ScalarExpr::Literal { value, ty } => self.constant(value, *ty),
            ScalarExpr::Cast { input, to, .. } if only_typmod(input.ty(), *to) => {
                self.expr(input)?
            }
            ScalarExpr::Cast { input, to, .. } => self.cast(input, *to)?,
            ScalarExpr::Negate(input) => {
                self.parens(format!("- {}", self.child(input, Parent::Other)?))
            }
            ScalarExpr::Not(input) => {
                self.parens(format!("NOT {}", self.child(input, Parent::Not)?))
            }
            ScalarExpr::Arithmetic {
                op, left, right, ..
            } => self.binary(left, arithmetic_symbol(*op), right)?,
            ScalarExpr::Compare { op, left, right } => self.binary(left, op.symbol(), right)?,
            ScalarExpr::Concat(left, right) => self.binary(left, "||", right)?,
            ScalarExpr::And(..) => self.chain(expr, "AND", Parent::And)?,
            ScalarExpr::Or(..) => self.chain(expr, "OR", Parent::Or)?,
            ScalarExpr::IsNull { input, negated } => {
                let not = if *negated { " NOT" } else { "" };
                self.parens(format!(
                    "{} IS{not} NULL",
                    self.child(input, Parent::Other)?
                ))
            }
            ScalarExpr::BoolTest { input, test } => {
                let test = match test {
                    BoolTest::IsTrue => "IS TRUE",
                    BoolTest::IsNotTrue => "IS NOT TRUE",
                    BoolTest::IsFalse => "IS FALSE",
                    BoolTest::IsNotFalse => "IS NOT FALSE",
                    BoolTest::IsUnknown => "IS UNKNOWN",
                    BoolTest::IsNotUnknown => "IS NOT UNKNOWN",
                };
                self.parens(format!("{} {test}", self.child(input, Parent::Other)?))
            }
            ScalarExpr::IsDistinctFrom {
                left,
                right,
                negated,
            } => {
                let distinct = self.parens(format!(
                    "{} IS DISTINCT FROM {}",
                    self.child(left, Parent::Other)?,
                    self.child(right, Parent::Other)?
                ));
                match negated {
                    false => distinct,
                    true => self.parens(format!("NOT {distinct}")),
                }
            }
            ScalarExpr::Like {
                input,
                pattern,
                negated,
                case_insensitive,
            } => {
                let op = match (negated, case_insensitive) {
                    (false, false) => "~~",
                    (true, false) => "!~~",
                    (false, true) => "~~*",
                    (true, true) => "!~~*",
                };
                self.binary(input, op, pattern)?
            }
            ScalarExpr::InList {
                input,
                list,
                negated,
            } => {
                let items = list
                    .iter()
                    .map(|e| self.child(e, Parent::Delimited))
                    .collect::<Option<Vec<_>>>()?;
                let (op, quantifier) = if *negated {
                    ("<>", "ALL")
                } else {
                    ("=", "ANY")
                };
                self.parens(format!(
                    "{} {op} {quantifier} (ARRAY[{}])",
                    self.child(input, Parent::Other)?,
                    items.join(", ")
                ))
            }
            ScalarExpr::Case {
                whens,
                else_result,
                ty,
            } => {
                // Each keyword on a line of its own, the WHENs indented (PRETTYINDENT_VAR).
                let base = self.indent.get();
                let line = |level: usize| format!("\n{}", " ".repeat(level));
                let mut out = format!("{}CASE", line(base));
                self.indent.set(base + 4);
                for (when, then) in whens {
                    let when = self.child(when, Parent::Delimited)?;
                    let then = self.child(then, Parent::Delimited)?;
                    out.push_str(&format!("{}WHEN {when} THEN {then}", line(base + 4)));
                }
                let else_result = match else_result {
                    Some(e) => self.child(e, Parent::Delimited)?,
                    None => self.constant(&ScalarValue::Null, *ty),
                };
                out.push_str(&format!("{}ELSE {else_result}", line(base + 4)));
                self.indent.set(base);
                out.push_str(&format!("{}END", line(base)));
                out
            }
            ScalarExpr::Coalesce { args, .. } => format!("COALESCE({})", self.args(args)?),
            ScalarExpr::Function { func, args, .. } => match (operator_symbol(expr), &args[..]) {
                (Some(symbol), [left, right]) => self.binary(left, symbol, right)?,
                _ => format!("{}({})", func.name(), self.args(args)?),
            },
            ScalarExpr::Param { .. }
            | ScalarExpr::DateTimeFunction { .. }
            | ScalarExpr::OuterColumn { .. }
            | ScalarExpr::Subquery(_)
            | ScalarExpr::SequenceCall { .. }
            | ScalarExpr::SessionInfo(_)
            | ScalarExpr::CatalogCall { .. }
            | ScalarExpr::DomainCheck { .. } => return None,
        })
    }

    /// A node's own parentheses, which only the plain form has.
    fn parens(&self, text: String) -> String {
        match self.pretty {
            true => text,
            false => format!("({text})"),
        }
    }

    /// A subexpression inside `parent`: an operand coerced as PostgreSQL coerces it, in
    /// parentheses where the pretty form needs them.
    fn child(&self, expr: &ScalarExpr, parent: Parent<'_>) -> Option<String> {
        // PostgreSQL has no varchar operators or functions: it coerces the value to text.
        let text_coerced = matches!(parent, Parent::Operator { .. } | Parent::Delimited);
        match expr {
            ScalarExpr::Cast { input, to, .. } if only_typmod(input.ty(), *to) => {
                return self.child(input, parent)
            }
            // PostgreSQL's integer operators take mixed widths: it widens nothing.
            ScalarExpr::Cast {
                input,
                to,
                context: CastContext::Implicit,
            } if matches!(parent, Parent::Operator { .. })
                && is_integer(input.ty())
                && is_integer(*to) =>
            {
                return self.child(input, parent)
            }
            ScalarExpr::Column {
                ty: DataType::Varchar(_),
                ..
            } if text_coerced => return self.cast(expr, DataType::Text),
            ScalarExpr::Literal {
                value,
                ty: DataType::Varchar(_),
            } if text_coerced => return Some(self.constant(value, DataType::Text)),
            _ => {}
        }
        let text = self.expr(expr)?;
        // Arguments of a function, COALESCE or CASE need none: they are delimited.
        let delimited = matches!(parent, Parent::Delimited);
        Some(match self.pretty && !delimited && !simple(expr, parent) {
            true => format!("({text})"),
            false => text,
        })
    }

    fn cast(&self, input: &ScalarExpr, to: DataType) -> Option<String> {
        let input = match self.pretty {
            true => self.child(input, Parent::Cast)?,
            false => format!("({})", self.child(input, Parent::Cast)?),
        };
        Some(format!("{input}::{}", type_name(to)))
    }

    fn binary(&self, left: &ScalarExpr, symbol: &str, right: &ScalarExpr) -> Option<String> {
        Some(self.parens(format!(
            "{} {symbol} {}",
            self.child(left, Parent::Operator { symbol, left: true })?,
            self.child(
                right,
                Parent::Operator {
                    symbol,
                    left: false
                }
            )?
        )))
    }

    fn args(&self, args: &[ScalarExpr]) -> Option<String> {
        let args = args
            .iter()
            .map(|e| self.child(e, Parent::Delimited))
            .collect::<Option<Vec<_>>>()?;
        Some(args.join(", "))
    }

    /// `a AND b AND c` as one list, as PostgreSQL's grammar flattens it.
    fn chain(&self, expr: &ScalarExpr, keyword: &str, parent: Parent<'_>) -> Option<String> {
        let mut parts = Vec::new();
        self.collect_chain(expr, keyword, parent, &mut parts)?;
        Some(self.parens(parts.join(&format!(" {keyword} "))))
    }

    fn collect_chain(
        &self,
        expr: &ScalarExpr,
        keyword: &str,
        parent: Parent<'_>,
        parts: &mut Vec<String>,
    ) -> Option<()> {
        match (expr, keyword) {
            (ScalarExpr::And(left, right), "AND") | (ScalarExpr::Or(left, right), "OR") => {
                self.collect_chain(left, keyword, parent, parts)?;
                self.collect_chain(right, keyword, parent, parts)
            }
            _ => {
                parts.push(self.child(expr, parent)?);
                Some(())
            }
        }
    }

    /// A constant as ruleutils' get_const_expr prints it.
    fn constant(&self, value: &ScalarValue, ty: DataType) -> String {
        if value.is_null() {
            return format!("NULL::{}", type_name(ty));
        }
        let mut bytes = Vec::new();
        write_scalar_text(value, &mut bytes);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let literal =
            |text: &str, ty: DataType| format!("'{}'::{}", text.replace('\'', "''"), type_name(ty));
        // A numeric literal as PostgreSQL's parser makes it: an integer (int4 or int8) or,
        // with a point or an exponent, a numeric; a sign makes it a quoted constant.
        let written = || {
            let unsigned = text.starts_with(|c: char| c.is_ascii_digit());
            if text.parse::<i32>().is_ok() {
                Some((unsigned, DataType::Int32))
            } else if text.parse::<i64>().is_ok() {
                Some((false, DataType::Int64))
            } else if text.contains(['.', 'e', 'E']) && text.parse::<f64>().is_ok() {
                Some((unsigned, DataType::Numeric(None)))
            } else {
                None
            }
        };
        match value {
            ScalarValue::Bool(b) => b.to_string(),
            // Ours may have been widened to the other operand's integer type, where
            // PostgreSQL has a cross-type operator.
            ScalarValue::Int16(_) | ScalarValue::Int32(_) | ScalarValue::Int64(_) => {
                match written() {
                    Some((true, _)) => text,
                    Some((false, parsed)) => literal(&text, parsed),
                    None => literal(&text, ty),
                }
            }
            ScalarValue::Numeric(_) | ScalarValue::Float64(_) | ScalarValue::Float32(_) => {
                let as_written = match written() {
                    Some((true, _)) => text.clone(),
                    Some((false, parsed)) => literal(&text, parsed),
                    None => return literal(&text, ty),
                };
                match (written(), ty) {
                    // A numeric literal of the column's own type: a typmod shows.
                    (Some((_, DataType::Numeric(_))), DataType::Numeric(None)) => as_written,
                    (Some((true, DataType::Numeric(_))), DataType::Numeric(Some(_))) => {
                        format!("{as_written}::{}", type_name(ty))
                    }
                    // Converted by a cast function, which shows.
                    _ => match self.pretty {
                        true => format!("{as_written}::{}", type_name(ty)),
                        false => format!("({as_written})::{}", type_name(ty)),
                    },
                }
            }
            _ => literal(&text, ty),
        }
    }
}

/// How `expr` prints, for [`simple`].
fn shape(expr: &ScalarExpr) -> Shape<'_> {
    match expr {
        ScalarExpr::Arithmetic { op, .. } => Shape::Operator(Some(arithmetic_symbol(*op))),
        ScalarExpr::Compare { op, .. } => Shape::Operator(Some(op.symbol())),
        ScalarExpr::Concat(..) => Shape::Operator(Some("||")),
        ScalarExpr::Like { .. } => Shape::Operator(Some("~~")),
        ScalarExpr::Negate(_) => Shape::Operator(None),
        ScalarExpr::IsNull { .. }
        | ScalarExpr::BoolTest { .. }
        | ScalarExpr::IsDistinctFrom { negated: false, .. } => Shape::Test,
        ScalarExpr::InList { .. } => Shape::Enclosed,
        ScalarExpr::Cast { input, to, .. }
            if is_io_cast(input.ty(), *to) || (input.ty().is_string() && to.is_string()) =>
        {
            Shape::CastOf(input)
        }
        ScalarExpr::IsDistinctFrom { negated: true, .. } | ScalarExpr::Not(_) => Shape::Not,
        ScalarExpr::And(..) => Shape::And,
        ScalarExpr::Or(..) => Shape::Or,
        ScalarExpr::Function { .. } if operator_symbol(expr).is_some() => {
            Shape::Operator(operator_symbol(expr))
        }
        _ => Shape::Simple,
    }
}

/// The operator a function of two arguments is written as (`->>`, `@>`, ...): the
/// functions bound from operators are named by their symbol.
fn operator_symbol(expr: &ScalarExpr) -> Option<&'static str> {
    match expr {
        ScalarExpr::Function { func, args, .. } if args.len() == 2 => {
            let name = func.name();
            (!name.starts_with(|c: char| c.is_alphanumeric() || c == '_')).then_some(name)
        }
        _ => None,
    }
}

/// PostgreSQL's isSimpleNode: whether `expr` needs no parentheses inside `parent` when
/// pretty.
fn simple(expr: &ScalarExpr, parent: Parent<'_>) -> bool {
    let delimited_or_bool = matches!(
        parent,
        Parent::And | Parent::Or | Parent::Not | Parent::Delimited
    );
    match shape(expr) {
        Shape::Simple => true,
        Shape::Operator(op) => match parent {
            Parent::Operator { symbol, left } => {
                let Some(op) = op else { return false };
                let (low, high) = (is_additive(op), is_multiplicative(op));
                let (parent_low, parent_high) = (is_additive(symbol), is_multiplicative(symbol));
                if !(low || high) || !(parent_low || parent_high) {
                    return false;
                }
                if high && parent_low {
                    return true;
                }
                if low && parent_high {
                    return false;
                }
                left
            }
            _ => delimited_or_bool,
        },
        Shape::Test => delimited_or_bool,
        Shape::Enclosed => false,
        Shape::CastOf(input) => simple(input, Parent::Cast),
        Shape::And | Shape::Not => matches!(parent, Parent::And | Parent::Or | Parent::Delimited),
        Shape::Or => matches!(parent, Parent::Or | Parent::Delimited),
    }
}

/// A cast PostgreSQL makes through the types' text forms: from or to a string type, from
/// or to another kind of type.
fn is_io_cast(from: DataType, to: DataType) -> bool {
    from.is_string() != to.is_string() && from != DataType::Unknown
}

fn is_integer(ty: DataType) -> bool {
    matches!(ty, DataType::Int16 | DataType::Int32 | DataType::Int64)
}

fn is_additive(op: &str) -> bool {
    matches!(op, "+" | "-")
}

fn is_multiplicative(op: &str) -> bool {
    matches!(op, "*" | "/" | "%")
}

fn arithmetic_symbol(op: ArithmeticOp) -> &'static str {
    match op {
        ArithmeticOp::Add => "+",
        ArithmeticOp::Sub => "-",
        ArithmeticOp::Mul => "*",
        ArithmeticOp::Div => "/",
        ArithmeticOp::Mod => "%",
    }
}

/// A cast that drops a length or precision limit, which PostgreSQL's operators never need.
fn only_typmod(from: DataType, to: DataType) -> bool {
    matches!(
        (from, to),
        (DataType::Numeric(_), DataType::Numeric(None))
            | (DataType::Varchar(_), DataType::Varchar(None))
            | (DataType::Char(_), DataType::Char(None))
    )
}

/// format_type's name, with `bpchar` for an unconstrained char as PostgreSQL prints it.
fn type_name(ty: DataType) -> String {
    match ty {
        DataType::Char(None) => "bpchar".to_string(),
        other => other.to_string(),
    }
}
