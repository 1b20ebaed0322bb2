//! PostgreSQL's dialect as sqlparser has it, plus the expression syntax it lacks: the postfix
//! `ISNULL` (sqlparser took it for a column alias, so `SELECT 1 ISNULL` answered 1) and
//! `[NOT] BETWEEN [A]SYMMETRIC`, and pgvector's distance operators at PostgreSQL's
//! precedence of user operators (sqlparser splits `<+>` into three tokens and gives `<=>`
//! the precedence of `=`), and `(expr).*`, a record's fields expanded (sqlparser takes
//! `.*` for a qualified wildcard and wants a name before it), and `VARIADIC array` as a
//! call's last argument. Every other decision is PostgreSqlDialect's, delegated
//! method by method (including `dialect()`, so sqlparser's own "is this PostgreSQL?" checks
//! still hold).

use std::any::TypeId;
use std::collections::HashSet;

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{AccessExpr, BinaryOperator, Expr};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan};

#[derive(Debug)]
pub(super) struct KestrelDialect {
    postgres: PostgreSqlDialect,
    /// Where the `(expr).*` of the statement text start (see [`row_expansion_starts`]).
    row_expansions: HashSet<Location>,
}

impl KestrelDialect {
    /// The dialect for parsing `tokens`.
    pub(super) fn new(tokens: &[TokenWithSpan]) -> Self {
        KestrelDialect {
            postgres: PostgreSqlDialect {},
            row_expansions: row_expansion_starts(tokens),
        }
    }

    /// Whether the parser's next token opens an `(expr).*`.
    fn is_row_expansion(&self, parser: &Parser) -> bool {
        let next = parser.peek_token_ref();
        next.token == Token::LParen && self.row_expansions.contains(&next.span.start)
    }
}

/// ISNULL is no sqlparser keyword; PostgreSQL reserves it (a column may only be aliased
/// `AS isnull`, or quoted).
fn is_isnull(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("isnull"))
}

fn is_keyword(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword)
}

fn binary(left: &Expr, op: BinaryOperator, right: &Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left.clone()),
        op,
        right: Box::new(right.clone()),
    }
}

fn nested(left: Expr, op: BinaryOperator, right: Expr) -> Expr {
    Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }))
}

/// `x BETWEEN SYMMETRIC a AND b` as PostgreSQL's parse analysis expands it
/// (transformAExprBetween): `(x >= a AND x <= b) OR (x >= b AND x <= a)`, and the negation
/// `(x < a OR x > b) AND (x < b OR x > a)`, so NULL bounds give PostgreSQL's answers.
fn symmetric_between(between: Expr) -> Expr {
    let Expr::Between {
        expr,
        negated,
        low,
        high,
    } = between
    else {
        return between;
    };
    use BinaryOperator::{And, Gt, GtEq, Lt, LtEq, Or};
    let (lower, upper, inner, outer) = if negated {
        (Lt, Gt, Or, And)
    } else {
        (GtEq, LtEq, And, Or)
    };
    let ordered = nested(
        binary(&expr, lower.clone(), &low),
        inner.clone(),
        binary(&expr, upper.clone(), &high),
    );
    let swapped = nested(
        binary(&expr, lower, &high),
        inner,
        binary(&expr, upper, &low),
    );
    nested(ordered, outer, swapped)
}

/// Whether the next tokens are `<`, `+`, `>` written together: pgvector's `<+>`.
fn is_l1_operator(parser: &Parser) -> bool {
    let tokens = [0, 1, 2].map(|n| parser.peek_nth_token_ref(n));
    let adjacent = |a: usize| tokens[a].span.end == tokens[a + 1].span.start;
    matches!(
        [&tokens[0].token, &tokens[1].token, &tokens[2].token],
        [Token::Lt, Token::Plus, Token::Gt]
    ) && adjacent(0)
        && adjacent(1)
}

/// Where each `(` whose matching `)` is followed by `. *` starts: a parenthesized
/// expression whose record is expanded. Found in one pass over the tokens, so that deeply
/// nested parentheses cost linear time, not a scan to the matching `)` at every level.
fn row_expansion_starts(tokens: &[TokenWithSpan]) -> HashSet<Location> {
    let significant: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let mut open = Vec::new();
    let mut starts = HashSet::new();
    for (i, token) in significant.iter().enumerate() {
        match token.token {
            Token::LParen => open.push(token.span),
            Token::RParen => {
                let expanded = significant.get(i + 1).map(|t| &t.token) == Some(&Token::Period)
                    && significant.get(i + 2).map(|t| &t.token) == Some(&Token::Mul);
                match open.pop() {
                    // Tokens the pre-passes made have no place in the text to name them by.
                    Some(span) if expanded && span != Span::empty() => {
                        starts.insert(span.start);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    starts
}

/// `(expr).*` or `(subquery).*`, as the field access of a wildcard the binder expands in a
/// select list (and refuses elsewhere, as PostgreSQL does).
fn parse_row_expansion(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let starts_query = [Keyword::SELECT, Keyword::WITH, Keyword::VALUES]
        .iter()
        .any(|&keyword| is_keyword(&parser.peek_token_ref().token, keyword));
    let root = if starts_query {
        Expr::Subquery(parser.parse_query()?)
    } else {
        Expr::Nested(Box::new(parser.parse_expr()?))
    };
    parser.expect_token(&Token::RParen)?;
    parser.expect_token(&Token::Period)?;
    let star = parser.next_token();
    Ok(Expr::CompoundFieldAccess {
        root: Box::new(root),
        access_chain: vec![AccessExpr::Dot(Expr::Wildcard(AttachedToken(star)))],
    })
}

/// `VARIADIC array`, the last argument of a function call passing an array as its
/// variadic arguments; the binder refuses it anywhere else, as PostgreSQL's grammar does.
fn parse_variadic(parser: &mut Parser) -> Result<Expr, ParserError> {
    let keyword = parser.next_token();
    let value = parser.parse_expr()?;
    Ok(Expr::Prefixed {
        prefix: sqlparser::ast::Ident::with_span(keyword.span, "VARIADIC"),
        value: Box::new(value),
    })
}

impl KestrelDialect {
    /// How many tokens of `[NOT] BETWEEN` start at the parser's next token, and whether a
    /// SYMMETRIC or ASYMMETRIC follows them.
    fn between_symmetry(parser: &Parser) -> Option<(bool, bool)> {
        let negated = is_keyword(&parser.peek_token_ref().token, Keyword::NOT);
        let between = usize::from(negated);
        if !is_keyword(&parser.peek_nth_token_ref(between).token, Keyword::BETWEEN) {
            return None;
        }
        match &parser.peek_nth_token_ref(between + 1).token {
            t if is_keyword(t, Keyword::SYMMETRIC) => Some((negated, true)),
            t if is_keyword(t, Keyword::ASYMMETRIC) => Some((negated, false)),
            _ => None,
        }
    }
}

impl Dialect for KestrelDialect {
    fn dialect(&self) -> TypeId {
        self.postgres.dialect()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        if is_keyword(&parser.peek_token_ref().token, Keyword::VARIADIC) {
            return Some(parse_variadic(parser));
        }
        self.is_row_expansion(parser)
            .then(|| parse_row_expansion(parser))
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        if is_isnull(&parser.peek_token_ref().token) {
            return Some(Ok(self.prec_value(Precedence::Is)));
        }
        if is_l1_operator(parser)
            || matches!(
                parser.peek_token_ref().token,
                Token::TwoWayArrow | Token::Spaceship
            )
        {
            return Some(Ok(self.prec_value(Precedence::PgOther)));
        }
        self.postgres.get_next_precedence(parser)
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if is_isnull(&parser.peek_token_ref().token) {
            parser.next_token();
            return Some(Ok(Expr::IsNull(Box::new(expr.clone()))));
        }
        if is_l1_operator(parser) {
            for _ in 0..3 {
                parser.next_token();
            }
            let right = parser.parse_subexpr(self.prec_value(Precedence::PgOther));
            return Some(
                right.map(|right| binary(expr, BinaryOperator::Custom("<+>".into()), &right)),
            );
        }
        let (negated, symmetric) = Self::between_symmetry(parser)?;
        for _ in 0..(2 + usize::from(negated)) {
            parser.next_token();
        }
        let between = parser.parse_between(expr.clone(), negated);
        Some(if symmetric {
            between.map(symmetric_between)
        } else {
            between
        })
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.postgres.identifier_quote_style(identifier)
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.postgres.is_delimited_identifier_start(ch)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.postgres.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        self.postgres.is_identifier_part(ch)
    }

    fn supports_unicode_string_literal(&self) -> bool {
        self.postgres.supports_unicode_string_literal()
    }

    fn is_reserved_for_identifier(&self, kw: Keyword) -> bool {
        self.postgres.is_reserved_for_identifier(kw)
    }

    fn is_table_alias(&self, kw: &Keyword, parser: &mut Parser) -> bool {
        self.postgres.is_table_alias(kw, parser)
    }

    fn is_custom_operator_part(&self, ch: char) -> bool {
        self.postgres.is_custom_operator_part(ch)
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        self.postgres.supports_filter_during_aggregation()
    }

    fn supports_group_by_expr(&self) -> bool {
        self.postgres.supports_group_by_expr()
    }

    fn supports_alter_user_as_alter_role(&self) -> bool {
        self.postgres.supports_alter_user_as_alter_role()
    }

    fn prec_value(&self, prec: Precedence) -> u8 {
        self.postgres.prec_value(prec)
    }

    fn allow_extract_custom(&self) -> bool {
        self.postgres.allow_extract_custom()
    }

    fn allow_extract_single_quotes(&self) -> bool {
        self.postgres.allow_extract_single_quotes()
    }

    fn supports_create_index_with_clause(&self) -> bool {
        self.postgres.supports_create_index_with_clause()
    }

    fn supports_explain_with_utility_options(&self) -> bool {
        self.postgres.supports_explain_with_utility_options()
    }

    fn supports_listen_notify(&self) -> bool {
        self.postgres.supports_listen_notify()
    }

    fn supports_exclude_constraint(&self) -> bool {
        self.postgres.supports_exclude_constraint()
    }

    fn supports_factorial_operator(&self) -> bool {
        self.postgres.supports_factorial_operator()
    }

    fn supports_bitwise_shift_operators(&self) -> bool {
        self.postgres.supports_bitwise_shift_operators()
    }

    fn supports_comment_on(&self) -> bool {
        self.postgres.supports_comment_on()
    }

    fn supports_load_extension(&self) -> bool {
        self.postgres.supports_load_extension()
    }

    fn supports_named_fn_args_with_colon_operator(&self) -> bool {
        self.postgres.supports_named_fn_args_with_colon_operator()
    }

    /// DuckDB's `{'name': 'TYPE', ...}`, for read_csv's `columns` (PostgreSQL has no
    /// expression starting with a brace, so nothing of its syntax changes meaning).
    fn supports_dictionary_syntax(&self) -> bool {
        true
    }

    fn supports_named_fn_args_with_expr_name(&self) -> bool {
        self.postgres.supports_named_fn_args_with_expr_name()
    }

    fn supports_empty_projections(&self) -> bool {
        self.postgres.supports_empty_projections()
    }

    fn supports_nested_comments(&self) -> bool {
        self.postgres.supports_nested_comments()
    }

    fn supports_string_escape_constant(&self) -> bool {
        self.postgres.supports_string_escape_constant()
    }

    fn supports_numeric_literal_underscores(&self) -> bool {
        self.postgres.supports_numeric_literal_underscores()
    }

    fn supports_array_typedef_with_brackets(&self) -> bool {
        self.postgres.supports_array_typedef_with_brackets()
    }

    fn supports_geometric_types(&self) -> bool {
        self.postgres.supports_geometric_types()
    }

    fn supports_order_by_using_operator(&self) -> bool {
        self.postgres.supports_order_by_using_operator()
    }

    fn supports_set_names(&self) -> bool {
        self.postgres.supports_set_names()
    }

    fn supports_alter_column_type_using(&self) -> bool {
        self.postgres.supports_alter_column_type_using()
    }

    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.postgres
            .supports_left_associative_joins_without_parens()
    }

    fn supports_notnull_operator(&self) -> bool {
        self.postgres.supports_notnull_operator()
    }

    fn supports_interval_options(&self) -> bool {
        self.postgres.supports_interval_options()
    }

    fn supports_insert_table_alias(&self) -> bool {
        self.postgres.supports_insert_table_alias()
    }

    fn supports_create_table_like_parenthesized(&self) -> bool {
        self.postgres.supports_create_table_like_parenthesized()
    }

    fn supports_select_wildcard_with_alias(&self) -> bool {
        self.postgres.supports_select_wildcard_with_alias()
    }

    fn supports_comma_separated_trim(&self) -> bool {
        self.postgres.supports_comma_separated_trim()
    }

    fn supports_xml_expressions(&self) -> bool {
        self.postgres.supports_xml_expressions()
    }

    fn supports_aliased_function_args(&self) -> bool {
        self.postgres.supports_aliased_function_args()
    }

    fn supports_comment_optimizer_hint(&self) -> bool {
        self.postgres.supports_comment_optimizer_hint()
    }
}
