//! Error positions: the 1-based character offset in the client's statement text that an
//! ErrorResponse's `P` field carries, so psql can print `LINE n:` and a caret under the
//! mistake, as PostgreSQL's parser_errposition does.
//!
//! sqlparser keeps a line and column span on identifiers and literals; they point into the
//! whole text the client sent (a statement of several, too, as in PostgreSQL). Positions are
//! attached where the binder raises an error about one node, never guessed from a message,
//! and only when the text at the span really spells that node: the parser's pre-passes
//! rewrite some tokens, and text the database stored (a view's query, a function's body, a
//! DEFAULT) has spans into a text the client never saw, so it is bound without a source.
//! Where unsure, the error has no position.

use sqlparser::ast::{
    BinaryOperator, CastKind, DataType, Expr, Ident, ObjectName, ObjectNamePart, Value,
    ValueWithSpan,
};
use sqlparser::tokenizer::{Location, Span};

use super::Binder;
use crate::catalog::QualifiedName;
use crate::error::{Error, Result, SqlState};

impl Binder<'_> {
    /// Runs `bind` with no source text: what it binds was stored by the database, so its
    /// spans do not point into the client's statement.
    pub(super) fn without_positions<T>(
        &mut self,
        bind: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let source = self.source.take();
        let bound = bind(self);
        self.source = source;
        bound
    }

    /// Runs `bind`, the binding of one node, and gives an error it raised itself (not one
    /// that came up from a subexpression, which already had its chance to be placed) the
    /// position `locate` finds for it.
    pub(super) fn located<T>(
        &mut self,
        bind: impl FnOnce(&mut Self) -> Result<T>,
        locate: impl FnOnce(&Self, &Error) -> Option<u32>,
    ) -> Result<T> {
        self.subexpression_failed = false;
        let bound = bind(self);
        match bound {
            Err(error) if error.position.is_none() && !self.subexpression_failed => {
                let position = locate(self, &error);
                Err(placed(error, position))
            }
            bound => bound,
        }
    }

    /// [`Binder::open_relation`] for a name the statement wrote, pointing at it if missing.
    pub(super) fn open_relation_at(&self, name: &ObjectName) -> Result<QualifiedName> {
        self.open_relation(name)
            .map_err(|error| self.name_error(error, name))
    }

    /// `error` about the relation or column `name`, pointing at it where PostgreSQL does.
    pub(super) fn name_error(&self, error: Error, name: &ObjectName) -> Error {
        let position = about_a_name(&error).then(|| self.name_position(name));
        placed(error, position.flatten())
    }

    /// `error` about the relation `name`, pointing at it.
    pub(super) fn at_name(&self, error: Error, name: &ObjectName) -> Error {
        placed(error, self.name_position(name))
    }

    /// `error` about the type `ty` a statement wrote, pointing at its name if it does not
    /// exist.
    pub(super) fn type_error(&self, error: Error, ty: &DataType) -> Error {
        let position = match ty {
            DataType::Custom(name, _) if error.state == SqlState::UndefinedObject => {
                self.name_position(name)
            }
            _ => None,
        };
        placed(error, position)
    }

    /// Where PostgreSQL's exprLocation puts `expr`, for the expressions whose spans show it:
    /// a name, a literal or a function call start where their text does.
    pub(super) fn expr_position(&self, expr: &Expr) -> Option<u32> {
        match expr {
            Expr::Identifier(ident) => self.ident_position(ident),
            Expr::CompoundIdentifier(parts) => self.ident_position(parts.first()?),
            Expr::Function(function) => self.name_position(&function.name),
            Expr::Nested(inner) => self.expr_position(inner),
            Expr::Value(value) => {
                let (position, rest) = self.text_at(value.span.start)?;
                let first = rest.chars().next()?;
                let confirmed = match &value.value {
                    Value::Number(..) => first.is_ascii_digit() || first == '.',
                    _ => return self.value_position(value),
                };
                confirmed.then_some(position)
            }
            _ => None,
        }
    }

    /// `error` about `expr`, pointing where [`Binder::expr_position`] finds it.
    pub(super) fn at_expr(&self, error: Error, expr: &Expr) -> Error {
        let position = self.expr_position(expr);
        placed(error, position)
    }

    /// Where `expr` is written if it is a bare column reference.
    pub(super) fn column_reference_position(&self, expr: &Expr) -> Option<u32> {
        match expr {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => self.expr_position(expr),
            _ => None,
        }
    }

    /// Where the prefix operator `op` applied to `inner` is: right before `inner`, past
    /// its opening parentheses.
    pub(super) fn prefix_operator_position(&self, op: &str, inner: &Expr) -> Option<u32> {
        let (position, _) = self.text_at(span_start(inner)?)?;
        let source = self.source.as_deref()?;
        let before: String = source
            .chars()
            .take(usize::try_from(position).ok()? - 1)
            .collect();
        let trimmed = before.trim_end_matches(|c: char| c.is_whitespace() || c == '(');
        let operator_start = trimmed.strip_suffix(op)?;
        let operator_chars = "+-*/<>=~!@#%^&|`?";
        if operator_start.ends_with(|c| operator_chars.contains(c)) {
            return None;
        }
        u32::try_from(operator_start.chars().count() + 1).ok()
    }

    /// Where an error assigning `value` to a column points: at the literal whose input
    /// failed, or at a value of the wrong type.
    pub(super) fn assigned_value_position(&self, error: &Error, value: &Expr) -> Option<u32> {
        match error.state {
            SqlState::DatatypeMismatch => match value {
                Expr::Identifier(ident) => self.ident_position(ident),
                Expr::CompoundIdentifier(parts) => self.ident_position(parts.first()?),
                _ => self.literal_position(value),
            },
            _ if about_a_literal(error) && !from_a_typmod(error) => self.literal_position(value),
            _ => None,
        }
    }

    /// Where `ident` starts, if the source text spells it there.
    pub(super) fn ident_position(&self, ident: &Ident) -> Option<u32> {
        let (position, rest) = self.text_at(ident.span.start)?;
        let spelled = match ident.quote_style {
            Some(quote) => rest.strip_prefix(quote)?,
            None => rest,
        };
        let written = spelled.get(..ident.value.len())?;
        let same = match ident.quote_style {
            Some(_) => written == ident.value,
            None => written.eq_ignore_ascii_case(&ident.value),
        };
        same.then_some(position)
    }

    /// Where the text a name stands for starts: a name the parser made of what was written
    /// (see `parser::SUBSCRIPTED_TARGET`), which the text does not spell.
    pub(super) fn stand_in_position(&self, name: &ObjectName) -> Option<u32> {
        match name.0.first()? {
            ObjectNamePart::Identifier(ident) => Some(self.text_at(ident.span.start)?.0),
            ObjectNamePart::Function(_) => None,
        }
    }

    /// Where a (possibly qualified) name starts.
    pub(super) fn name_position(&self, name: &ObjectName) -> Option<u32> {
        match name.0.first()? {
            ObjectNamePart::Identifier(ident) => self.ident_position(ident),
            ObjectNamePart::Function(_) => None,
        }
    }

    /// Where the string literal `expr` (untyped, so read by the input function of the type
    /// it meets) starts, if the text confirms its span.
    pub(super) fn literal_position(&self, expr: &Expr) -> Option<u32> {
        match expr {
            Expr::Value(value) => self.value_position(value),
            _ => None,
        }
    }

    /// Where the one string literal among `operands` starts: binding an operator over
    /// them can fail reading only an untyped literal, so with one it is that one. With
    /// several, which one failed is not known: no position.
    pub(super) fn sole_literal_position<'e>(
        &self,
        operands: impl IntoIterator<Item = &'e Expr>,
    ) -> Option<u32> {
        let mut literals = operands
            .into_iter()
            .filter(|e| matches!(e, Expr::Value(v) if is_string_literal(&v.value)));
        match (literals.next(), literals.next()) {
            (Some(literal), None) => self.literal_position(literal),
            _ => None,
        }
    }

    /// Where the string literal `value` starts, if the text confirms its span.
    pub(super) fn value_position(&self, value: &ValueWithSpan) -> Option<u32> {
        let (position, rest) = self.text_at(value.span.start)?;
        let first = rest.chars().next()?;
        let confirmed = match &value.value {
            Value::SingleQuotedString(_) => first == '\'',
            Value::EscapedStringLiteral(_) => matches!(first, 'e' | 'E'),
            _ => false,
        };
        confirmed.then_some(position)
    }

    /// Where the operator between `left` and `right` is: found in the text right after
    /// `left`, past its closing parentheses, and spelled as `op`.
    pub(super) fn operator_position(&self, left: &Expr, op: &BinaryOperator) -> Option<u32> {
        let (position, rest) = self.text_after(left)?;
        let operator_chars = "+-*/<>=~!@#%^&|`?";
        let spelled = |symbol: &&str| {
            let follows = rest.get(symbol.len()..).and_then(|r| r.chars().next());
            rest.starts_with(*symbol) && !follows.is_some_and(|c| operator_chars.contains(c))
        };
        operator_spellings(op)
            .iter()
            .any(spelled)
            .then_some(position)
    }

    /// Where the `::` of a cast of `inner` is.
    pub(super) fn cast_position(&self, inner: &Expr) -> Option<u32> {
        let (position, rest) = self.text_after(inner)?;
        rest.starts_with("::").then_some(position)
    }

    /// The position of the first character after `expr` that is neither white space nor
    /// a closing parenthesis, and the text from there, if `expr`'s span is known to end
    /// where its text does.
    fn text_after(&self, expr: &Expr) -> Option<(u32, &str)> {
        let end = span_end(expr)?;
        let (mut position, rest) = self.text_at(end)?;
        let skipped = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ')');
        let count = rest[..rest.len() - skipped.len()].chars().count();
        position = position.checked_add(u32::try_from(count).ok()?)?;
        Some((position, skipped))
    }

    /// The 1-based character position of `location` in the source and the text from there.
    fn text_at(&self, location: Location) -> Option<(u32, &str)> {
        let source = self.source.as_deref()?;
        let (line, column) = (
            usize::try_from(location.line).ok()?,
            usize::try_from(location.column).ok()?,
        );
        if line == 0 || column == 0 {
            return None;
        }
        let mut characters = 0usize;
        let mut line_start = 0usize;
        for _ in 1..line {
            let newline = source[line_start..].find('\n')?;
            characters += source[line_start..line_start + newline].chars().count() + 1;
            line_start += newline + 1;
        }
        let line_text = &source[line_start..];
        let (byte, _) = line_text.char_indices().nth(column - 1)?;
        let position = u32::try_from(characters + column).ok()?;
        Some((position, &line_text[byte..]))
    }
}

fn is_string_literal(value: &Value) -> bool {
    matches!(
        value,
        Value::SingleQuotedString(_) | Value::EscapedStringLiteral(_)
    )
}

/// Where `expr`'s text starts, for the expressions whose span starts at their first token
/// (or right after their opening parentheses).
fn span_start(expr: &Expr) -> Option<Location> {
    let span: Span = match expr {
        Expr::Identifier(ident) => ident.span,
        Expr::CompoundIdentifier(parts) => parts.first()?.span,
        Expr::Value(value) => value.span,
        Expr::Nested(inner) => return span_start(inner),
        Expr::Cast {
            kind: CastKind::DoubleColon,
            expr,
            ..
        } => return span_start(expr),
        _ => return None,
    };
    (span != Span::empty()).then_some(span.start)
}

/// Where `expr`'s text ends, for the expressions whose span covers their last token.
fn span_end(expr: &Expr) -> Option<Location> {
    let span: Span = match expr {
        Expr::Identifier(ident) => ident.span,
        Expr::CompoundIdentifier(parts) => parts.last()?.span,
        Expr::Value(value) => value.span,
        Expr::Nested(inner) => return span_end(inner),
        _ => return None,
    };
    (span != Span::empty()).then_some(span.end)
}

/// How a binary operator may be written, for the ones whose errors carry a position.
fn operator_spellings(op: &BinaryOperator) -> &'static [&'static str] {
    match op {
        BinaryOperator::Plus => &["+"],
        BinaryOperator::Minus => &["-"],
        BinaryOperator::Multiply => &["*"],
        BinaryOperator::Divide => &["/"],
        BinaryOperator::Modulo => &["%"],
        BinaryOperator::StringConcat => &["||"],
        BinaryOperator::Eq => &["="],
        BinaryOperator::NotEq => &["<>", "!="],
        BinaryOperator::Lt => &["<"],
        BinaryOperator::LtEq => &["<="],
        BinaryOperator::Gt => &[">"],
        BinaryOperator::GtEq => &[">="],
        _ => &[],
    }
}

/// `error` pointing at `position`, unless it points somewhere already.
pub(super) fn placed(error: Error, position: Option<u32>) -> Error {
    match position {
        Some(position) if error.position.is_none() => error.with_position(position),
        _ => error,
    }
}

/// A grouping error about a select list item, pointing at it if it is a bare column
/// reference (at `position`): the one column the error can be about.
pub(super) fn grouping_error_at(error: Error, position: Option<u32>) -> Error {
    match error.state {
        SqlState::GroupingError => placed(error, position),
        _ => error,
    }
}

/// Errors PostgreSQL places at the name they are about.
pub(super) fn about_a_name(error: &Error) -> bool {
    matches!(
        error.state,
        SqlState::UndefinedColumn | SqlState::UndefinedTable | SqlState::AmbiguousColumn
    )
}

/// Errors of fitting a value to its column's length or precision: PostgreSQL reads an
/// assigned literal without the typmod and applies it when the row is formed, so these
/// have no position.
fn from_a_typmod(error: &Error) -> bool {
    match error.state {
        SqlState::StringDataRightTruncation => true,
        SqlState::NumericValueOutOfRange => error.message == crate::types::numeric::FIELD_OVERFLOW,
        _ => false,
    }
}

/// Errors of reading a literal with its type's input function: PostgreSQL places them at
/// the literal (class 22, data exceptions).
pub(super) fn about_a_literal(error: &Error) -> bool {
    error.state.code().starts_with("22")
}
