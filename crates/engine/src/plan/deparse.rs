//! Bound expressions printed back as PostgreSQL's ruleutils prints a stored expression
//! (pg_get_constraintdef, pg_get_expr): every operator in parentheses, casts as
//! `(x)::type` (implicit ones too, as PostgreSQL shows them inside an expression), constants
//! with their type unless it is integer, numeric with a point, or boolean.
//!
//! Our binder folds and rewrites a little differently from PostgreSQL's parser, so this
//! undoes what it can: a typed integer constant widened to bigint or numeric prints as the
//! integer it was written as, and a varchar operand as PostgreSQL's text coercion. A node
//! with no PostgreSQL spelling here gives `None`, and the caller keeps the text as written.

use super::expr::{ArithmeticOp, BoolTest};
use super::ScalarExpr;
use crate::catalog::quote_identifier;
use crate::types::text_io::write_scalar_text;
use crate::types::{DataType, ScalarValue};

/// `expr` as PostgreSQL prints it, columns named by `columns`; `None` for a node we cannot
/// print as PostgreSQL would.
pub fn deparse_expr(expr: &ScalarExpr, columns: &[String]) -> Option<String> {
    Deparser { columns }.expr(expr)
}

struct Deparser<'a> {
    columns: &'a [String],
}

impl Deparser<'_> {
    #[recursive::recursive]
    fn expr(&self, expr: &ScalarExpr) -> Option<String> {
        Some(match expr {
            ScalarExpr::Column { index, .. } => quote_identifier(self.columns.get(*index)?),
            ScalarExpr::Literal { value, ty } => constant(value, *ty),
            ScalarExpr::Cast { input, to, .. } if only_typmod(input.ty(), *to) => {
                self.expr(input)?
            }
            ScalarExpr::Cast { input, to, .. } => {
                format!("({})::{}", self.expr(input)?, type_name(*to))
            }
            ScalarExpr::Negate(input) => format!("(- {})", self.operand(input)?),
            ScalarExpr::Not(input) => format!("(NOT {})", self.expr(input)?),
            ScalarExpr::Arithmetic {
                op, left, right, ..
            } => {
                let op = match op {
                    ArithmeticOp::Add => "+",
                    ArithmeticOp::Sub => "-",
                    ArithmeticOp::Mul => "*",
                    ArithmeticOp::Div => "/",
                    ArithmeticOp::Mod => "%",
                };
                self.binary(left, op, right)?
            }
            ScalarExpr::Compare { op, left, right } => self.binary(left, op.symbol(), right)?,
            ScalarExpr::Concat(left, right) => self.binary(left, "||", right)?,
            ScalarExpr::And(..) => self.chain(expr, "AND")?,
            ScalarExpr::Or(..) => self.chain(expr, "OR")?,
            ScalarExpr::IsNull { input, negated } => {
                let not = if *negated { " NOT" } else { "" };
                format!("({} IS{not} NULL)", self.expr(input)?)
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
                format!("({} {test})", self.expr(input)?)
            }
            ScalarExpr::IsDistinctFrom {
                left,
                right,
                negated,
            } => {
                let distinct = self.binary(left, "IS DISTINCT FROM", right)?;
                match negated {
                    true => format!("(NOT {distinct})"),
                    false => distinct,
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
                    .map(|e| self.operand(e))
                    .collect::<Option<Vec<_>>>()?;
                let (op, quantifier) = if *negated {
                    ("<>", "ALL")
                } else {
                    ("=", "ANY")
                };
                format!(
                    "({} {op} {quantifier} (ARRAY[{}]))",
                    self.operand(input)?,
                    items.join(", ")
                )
            }
            ScalarExpr::Case {
                whens, else_result, ..
            } => {
                let mut out = String::from("CASE");
                for (when, then) in whens {
                    out.push_str(&format!(
                        " WHEN {} THEN {}",
                        self.expr(when)?,
                        self.expr(then)?
                    ));
                }
                if let Some(else_result) = else_result {
                    out.push_str(&format!(" ELSE {}", self.expr(else_result)?));
                }
                out.push_str(" END");
                out
            }
            ScalarExpr::Coalesce { args, .. } => format!("COALESCE({})", self.args(args)?),
            ScalarExpr::Function { func, args, .. } => {
                format!("{}({})", func.name(), self.args(args)?)
            }
            ScalarExpr::Param { .. }
            | ScalarExpr::DateTimeFunction { .. }
            | ScalarExpr::OuterColumn { .. }
            | ScalarExpr::Subquery(_)
            | ScalarExpr::SequenceCall { .. }
            | ScalarExpr::SessionInfo(_)
            | ScalarExpr::CatalogCall { .. } => return None,
        })
    }

    /// `(left op right)`.
    fn binary(&self, left: &ScalarExpr, op: &str, right: &ScalarExpr) -> Option<String> {
        Some(format!(
            "({} {op} {})",
            self.operand(left)?,
            self.operand(right)?
        ))
    }

    /// An operator's or function's argument: PostgreSQL has no varchar operators, so it
    /// coerces a varchar to text, which shows.
    fn operand(&self, expr: &ScalarExpr) -> Option<String> {
        match expr {
            ScalarExpr::Cast { input, to, .. } if only_typmod(input.ty(), *to) => {
                self.operand(input)
            }
            ScalarExpr::Column {
                ty: DataType::Varchar(_),
                ..
            } => Some(format!("({})::text", self.expr(expr)?)),
            ScalarExpr::Literal {
                value,
                ty: DataType::Varchar(_),
            } => Some(constant(value, DataType::Text)),
            _ => self.expr(expr),
        }
    }

    fn args(&self, args: &[ScalarExpr]) -> Option<String> {
        let args = args
            .iter()
            .map(|e| self.operand(e))
            .collect::<Option<Vec<_>>>()?;
        Some(args.join(", "))
    }

    /// `a AND b AND c` as one parenthesised list, as PostgreSQL flattens it.
    fn chain(&self, expr: &ScalarExpr, keyword: &str) -> Option<String> {
        let mut parts = Vec::new();
        self.collect_chain(expr, keyword, &mut parts)?;
        Some(format!("({})", parts.join(&format!(" {keyword} "))))
    }

    fn collect_chain(
        &self,
        expr: &ScalarExpr,
        keyword: &str,
        parts: &mut Vec<String>,
    ) -> Option<()> {
        match (expr, keyword) {
            (ScalarExpr::And(left, right), "AND") | (ScalarExpr::Or(left, right), "OR") => {
                self.collect_chain(left, keyword, parts)?;
                self.collect_chain(right, keyword, parts)
            }
            _ => {
                parts.push(self.expr(expr)?);
                Some(())
            }
        }
    }
}

/// A constant as ruleutils' get_const_expr prints it.
fn constant(value: &ScalarValue, ty: DataType) -> String {
    if value.is_null() {
        return format!("NULL::{}", type_name(ty));
    }
    let mut bytes = Vec::new();
    write_scalar_text(value, &mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let unsigned = text.starts_with(|c: char| c.is_ascii_digit());
    match value {
        ScalarValue::Bool(b) => return b.to_string(),
        // An integer constant (ours may have been widened to the other operand's integer
        // type, where PostgreSQL has a cross-type operator).
        ScalarValue::Int16(_) | ScalarValue::Int32(_) | ScalarValue::Int64(_)
            if unsigned && text.parse::<i32>().is_ok() =>
        {
            return text
        }
        ScalarValue::Numeric(_) if unsigned && text.contains(['.', 'e', 'E']) => {
            return match ty {
                DataType::Numeric(Some(_)) => format!("{text}::{}", type_name(ty)),
                _ => text,
            }
        }
        // An integer constant PostgreSQL coerces with a cast function.
        ScalarValue::Numeric(_) | ScalarValue::Float64(_) | ScalarValue::Float32(_)
            if unsigned && text.parse::<i32>().is_ok() =>
        {
            return format!("({text})::{}", type_name(ty))
        }
        _ => {}
    }
    format!("'{}'::{}", text.replace('\'', "''"), type_name(ty))
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
