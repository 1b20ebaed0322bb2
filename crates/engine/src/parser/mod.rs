//! SQL text → sqlparser AST with PostgreSQL's dialect; parse errors become 42601. Window
//! frame EXCLUDE clauses, which sqlparser rejects, are taken out first
//! ([`frame_exclusion`]) and returned beside each statement; a frame offset that starts with
//! a string is parenthesized ([`frame_offset`]); `TABLE name` is spelled out
//! ([`table_query`]); the expression syntax sqlparser lacks (`ISNULL`, `BETWEEN SYMMETRIC`)
//! is parsed by our [`dialect`].

mod alter_sequence;
mod attach_partition;
mod comment_on_constraint;
mod copy_options;
mod create_extension;
mod create_table_as;
mod create_table_like;
mod datetime_precision;
mod deferrable;
mod dialect;
mod domain;
mod drop_index_concurrently;
mod fetch;
mod foreign;
mod frame_exclusion;
mod frame_offset;
mod identifier_length;
mod identity_options;
mod insert_overriding;
mod join_using_alias;
mod materialized_view;
mod qualified_operator_any;
mod referential_actions;
mod role_statements;
mod row_lock_strength;
mod sequence_options;
mod set_constraints;
mod subscript_assignment;
mod table_query;
mod vacuum_options;
mod view_check_option;

use std::sync::Arc;

use sqlparser::ast;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::catalog::ViewCheckOption;
use crate::error::{Error, Result};
pub use alter_sequence::{AlterSequence, AlterSequenceAction};
pub use comment_on_constraint::CommentOnConstraint;
pub use create_table_like::TableLike;
pub use domain::{AlterDomainAction, DomainConstraint, DomainConstraintKind, DomainStatement};
pub use drop_index_concurrently::DropIndexConcurrently;
pub use fetch::{FetchCursor, FetchDirection};
pub use foreign::{ForeignStatement, GenericOptions, MappingUser, OptionChange, OptionsAction};
pub use frame_exclusion::{FrameExclusion, FrameExclusions};
pub use identifier_length::TruncatedIdentifier;

/// What a parse tells the session to raise: PostgreSQL's NOTICE for each identifier cut to
/// 63 bytes, its WARNING for each datetime precision reduced to 6.
#[derive(Debug, Default)]
pub struct ParseReport {
    pub truncated: Vec<TruncatedIdentifier>,
    pub precision_warnings: Vec<String>,
}

impl ParseReport {
    pub fn is_empty(&self) -> bool {
        self.truncated.is_empty() && self.precision_warnings.is_empty()
    }
}
pub use identity_options::IdentitySequenceNames;
pub use insert_overriding::Overriding;
pub use join_using_alias::split_join_alias;
pub use materialized_view::MaterializedViewStatement;
pub use role_statements::RoleMembership;
pub use set_constraints::SET_CONSTRAINTS;
pub use subscript_assignment::{
    OMITTED_BOUND, SUBSCRIPTED_ASSIGNMENT, SUBSCRIPTED_TARGET, SUBSCRIPT_SLICE,
};

/// A statement: sqlparser's, or one of PostgreSQL's that sqlparser lacks, parsed here.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per statement text, never in bulk
pub enum Statement {
    Sql(ast::Statement),
    AlterSequence(AlterSequence),
    CommentOnConstraint(CommentOnConstraint),
    /// FETCH or MOVE on a cursor, run by the session.
    Fetch(FetchCursor),
    /// CREATE USER: CREATE ROLE with LOGIN by default.
    CreateUser(ast::CreateRole),
    RoleMembership(RoleMembership),
    MaterializedView(MaterializedViewStatement),
    Domain(DomainStatement),
    DropIndexConcurrently(DropIndexConcurrently),
    Foreign(ForeignStatement),
}

impl Statement {
    /// sqlparser's statement, if it is one.
    pub fn sql(&self) -> Option<&ast::Statement> {
        match self {
            Statement::Sql(statement) => Some(statement),
            Statement::AlterSequence(_)
            | Statement::CommentOnConstraint(_)
            | Statement::Fetch(_)
            | Statement::CreateUser(_)
            | Statement::RoleMembership(_)
            | Statement::MaterializedView(_)
            | Statement::Domain(_)
            | Statement::DropIndexConcurrently(_)
            | Statement::Foreign(_) => None,
        }
    }
}

/// The working memory a parse takes, checked against the statement's limits before it is
/// taken (sqlparser cannot be stopped midway). Measured in a debug server's peak memory:
/// 10 MB of `1+1+…` tokenized into 1.6 GB; 500,000 terms of it (1 MB) parsed in 650 MB
/// (the tokens, the pre-passes' copies and the tree).
const TOKENIZE_BYTES_PER_TOKEN: usize = 160;
const PARSE_BYTES_PER_TOKEN: usize = 640;

/// At least as many as the tokens of `sql`: a token starts at every punctuation byte or
/// at the first byte of a run of letters and digits (a long string literal of words
/// counts its words, still far below its bytes).
fn token_count_bound(sql: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for byte in sql.bytes() {
        let word = byte.is_ascii_alphanumeric() || byte == b'_' || !byte.is_ascii();
        count += usize::from((word && !in_word) || byte.is_ascii_punctuation());
        in_word = word;
    }
    count
}

/// How deeply the parser lets parentheses, subqueries and prefix operators nest (PostgreSQL
/// manages about a thousand levels); sqlparser grows its stack as it recurses.
const MAX_NESTING: usize = 1000;

/// One parsed statement with the frame exclusions of its windows.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub statement: Statement,
    pub exclusions: FrameExclusions,
    /// COPY ... HEADER MATCH (sqlparser only knows HEADER true/false).
    pub copy_header_match: bool,
    /// The `SEQUENCE NAME`s of its identity columns, in order.
    pub identity_sequence_names: IdentitySequenceNames,
    /// INSERT ... OVERRIDING { SYSTEM | USER } VALUE.
    pub insert_overriding: Option<Overriding>,
    /// CREATE TABLE's LIKE elements.
    pub table_likes: Vec<TableLike>,
    /// CREATE TABLE name (column, ...) AS: the names of the query's columns.
    pub table_as_columns: Vec<ast::Ident>,
    /// CREATE VIEW ... WITH [LOCAL | CASCADED] CHECK OPTION.
    pub view_check_option: Option<ViewCheckOption>,
    /// `[NOT] DEFERRABLE` among the transaction modes of BEGIN or SET TRANSACTION.
    pub transaction_deferrable: Option<bool>,
    /// The whole text the client sent, which the AST's spans point into: what the binder's
    /// error positions count in. `None` for text the database stored (a view's query, a
    /// function's body), whose positions would point into a text the client never saw.
    pub source: Option<Arc<str>>,
}

/// Parses every statement of `sql`, text a client sent. An empty string (or only `;`s and
/// comments) gives none.
pub fn parse(sql: &str) -> Result<Vec<Parsed>> {
    parse_reporting(sql, &mut ParseReport::default())
}

/// [`parse`], adding the identifiers it cut to NAMEDATALEN - 1 bytes to `truncated` (the
/// session raises PostgreSQL's NOTICE for each).
pub fn parse_reporting(sql: &str, report: &mut ParseReport) -> Result<Vec<Parsed>> {
    let source: Arc<str> = Arc::from(sql);
    let mut statements = parse_text(sql, report)?;
    for statement in &mut statements {
        statement.source = Some(Arc::clone(&source));
    }
    Ok(statements)
}

/// Parses every statement of `sql`, text the database stored: its errors carry no position.
pub fn parse_stored(sql: &str) -> Result<Vec<Parsed>> {
    parse_text(sql, &mut ParseReport::default())
}

/// The parse of [`parse_reporting`] and [`parse_stored`], with no source text kept.
fn parse_text(sql: &str, report: &mut ParseReport) -> Result<Vec<Parsed>> {
    let dialect = PostgreSqlDialect {};
    // 100 MB of `1+1+…` would take tens of gigabytes: 53200 before, not the kernel after.
    let tokens_max = token_count_bound(sql);
    crate::interrupt::check_value_bytes(tokens_max.saturating_mul(TOKENIZE_BYTES_PER_TOKEN))?;
    let mut tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| parse_error(sql, e.into()))?;
    crate::interrupt::check_value_bytes(tokens.len().saturating_mul(PARSE_BYTES_PER_TOKEN))?;
    report
        .truncated
        .extend(identifier_length::truncate(&mut tokens));
    report
        .precision_warnings
        .extend(datetime_precision::clamp(&mut tokens)?);
    datetime_precision::cast_interval_literals(&mut tokens);
    let mut exclusions = frame_exclusion::strip(&mut tokens).unwrap_or_default();
    frame_offset::parenthesize(&mut tokens);
    let mut header_match = copy_options::normalize(&mut tokens)?;
    vacuum_options::strip(&mut tokens)?;
    create_extension::normalize(&mut tokens);
    sequence_options::reorder(&mut tokens);
    let mut transaction_deferrable = deferrable::strip(&mut tokens);
    role_statements::merge_negative_limits(&mut tokens);
    row_lock_strength::normalize(&mut tokens);
    table_query::expand(&mut tokens);
    join_using_alias::rewrite(&mut tokens);
    qualified_operator_any::unqualify(&mut tokens);
    let mut view_check_options = view_check_option::strip(&mut tokens);
    set_constraints::rewrite(&mut tokens);
    subscript_assignment::rewrite(&mut tokens);
    referential_actions::check(&tokens)?;
    attach_partition::check(&tokens)?;
    let mut identity_sequence_names = identity_options::strip(&mut tokens);
    let mut insert_overriding = insert_overriding::strip(&mut tokens);
    let mut table_as_columns = create_table_as::strip(&mut tokens);
    let mut table_likes = create_table_like::strip(&mut tokens);
    let kestrel_dialect = dialect::KestrelDialect::new(&tokens);
    let mut parser = Parser::new(&kestrel_dialect)
        .with_recursion_limit(MAX_NESTING)
        .with_tokens_with_locations(tokens);
    let statements = parse_statements(&mut parser).map_err(|e| parse_error(sql, e))?;
    exclusions.resize(statements.len(), FrameExclusions::default());
    header_match.resize(statements.len(), false);
    identity_sequence_names.resize(statements.len(), Vec::new());
    insert_overriding.resize(statements.len(), None);
    table_likes.resize(statements.len(), Vec::new());
    table_as_columns.resize(statements.len(), Vec::new());
    view_check_options.resize(statements.len(), None);
    transaction_deferrable.resize(statements.len(), None);
    Ok(statements
        .into_iter()
        .zip(exclusions)
        .zip(header_match)
        .zip(identity_sequence_names)
        .zip(
            insert_overriding
                .into_iter()
                .zip(table_likes.into_iter().zip(table_as_columns)),
        )
        .zip(view_check_options.into_iter().zip(transaction_deferrable))
        .map(
            |(
                (
                    (((statement, exclusions), copy_header_match), identity_sequence_names),
                    (insert_overriding, (table_likes, table_as_columns)),
                ),
                (view_check_option, transaction_deferrable),
            )| Parsed {
                statement,
                exclusions,
                copy_header_match,
                identity_sequence_names,
                insert_overriding,
                table_likes,
                table_as_columns,
                view_check_option,
                transaction_deferrable,
                source: None,
            },
        )
        .collect())
}

/// sqlparser's `Parser::parse_statements`, with the statements it lacks parsed here.
fn parse_statements(parser: &mut Parser) -> std::result::Result<Vec<Statement>, ParserError> {
    let mut statements = Vec::new();
    let mut expecting_delimiter = false;
    loop {
        while parser.consume_token(&Token::SemiColon) {
            expecting_delimiter = false;
        }
        match &parser.peek_token_ref().token {
            Token::EOF => break,
            Token::Word(word) if expecting_delimiter && word.keyword == Keyword::END => break,
            _ => {}
        }
        if expecting_delimiter {
            return parser.expected("end of statement", parser.peek_token());
        }
        statements.push(if alter_sequence::starts(parser) {
            Statement::AlterSequence(alter_sequence::parse(parser)?)
        } else if fetch::starts(parser) {
            Statement::Fetch(fetch::parse(parser)?)
        } else if comment_on_constraint::starts(parser) {
            Statement::CommentOnConstraint(comment_on_constraint::parse(parser)?)
        } else if foreign::starts(parser) {
            Statement::Foreign(foreign::parse(parser)?)
        } else if role_statements::starts_create_user(parser) {
            Statement::CreateUser(role_statements::parse_create_user(parser)?)
        } else if role_statements::starts_membership(parser) {
            Statement::RoleMembership(role_statements::parse_membership(parser)?)
        } else if domain::starts(parser) {
            Statement::Domain(domain::parse(parser)?)
        } else if drop_index_concurrently::starts(parser) {
            Statement::DropIndexConcurrently(drop_index_concurrently::parse(parser)?)
        } else if materialized_view::starts(parser) {
            Statement::MaterializedView(materialized_view::parse(parser)?)
        } else {
            Statement::Sql(parser.parse_statement()?)
        });
        expecting_delimiter = true;
    }
    Ok(statements)
}

/// An unquoted word, lowercased: how the pre-passes recognise keywords.
fn lower_word(token: &Token) -> Option<String> {
    match token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_lowercase()),
        _ => None,
    }
}

/// The first token from `from` on that is not whitespace.
fn next_significant(tokens: &[TokenWithSpan], from: usize) -> Option<usize> {
    (from..tokens.len()).find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
}

/// The last token before `before` that is not whitespace.
fn previous_significant(tokens: &[TokenWithSpan], before: usize) -> Option<usize> {
    (0..before)
        .rev()
        .find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
}

fn parse_error(sql: &str, e: ParserError) -> Error {
    match e {
        ParserError::RecursionLimitExceeded => Error::new(
            crate::error::SqlState::StatementTooComplex,
            "stack depth limit exceeded",
        ),
        ParserError::TokenizerError(message) | ParserError::ParserError(message) => {
            syntax_error(sql, &message)
        }
    }
}

/// PostgreSQL says `syntax error at or near "x"`, with the position and no detail; sqlparser
/// says `Expected: ..., found: x at Line: 1, Column: 8`, which gives both. A message without
/// the token found (the pre-passes' own) stays as the detail.
fn syntax_error(sql: &str, message: &str) -> Error {
    let found = message.split("found: ").nth(1).map(|rest| {
        rest.split(" at Line:")
            .next()
            .unwrap_or(rest)
            .trim()
            .to_string()
    });
    let position = line_column(message).and_then(|(line, column)| offset_of(sql, line, column));
    let text = match found.as_deref() {
        Some("EOF") | None => "syntax error at end of input".to_string(),
        Some(token) => format!("syntax error at or near \"{token}\""),
    };
    let mut error = Error::syntax(text);
    // Our own parse errors say what they refuse in words of their own.
    if found.is_none() {
        error = error.with_detail(message.to_string());
    }
    if let Some(position) = position {
        error = error.with_position(position);
    }
    error
}

fn line_column(message: &str) -> Option<(usize, usize)> {
    let rest = message.split("Line: ").nth(1)?;
    let mut parts = rest.split(", Column: ");
    let line = parts.next()?.trim().parse().ok()?;
    let column = parts
        .next()?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    Some((line, column))
}

/// 1-based character offset of (line, column) in `sql`.
fn offset_of(sql: &str, line: usize, column: usize) -> Option<u32> {
    let mut offset = 0usize;
    for (index, text) in sql.split('\n').enumerate() {
        if index + 1 == line {
            return Some((offset + column) as u32);
        }
        offset += text.chars().count() + 1;
    }
    None
}

/// The statement text the parser passes on for `sql` (its first statement), or the error:
/// what the pre-pass tests compare.
#[cfg(test)]
pub(crate) fn parsed_text(sql: &str) -> String {
    parse(sql)
        .map(|s| {
            s[0].statement
                .sql()
                .map(ToString::to_string)
                .unwrap_or_default()
        })
        .unwrap_or_else(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::{Token, Tokenizer};

    use super::token_count_bound;

    #[test]
    fn the_token_bound_is_never_below_the_tokens() {
        for sql in [
            "select 1+1+1",
            "SELECT a.b, \"Q x\" FROM t WHERE x IN (1,2,3) AND s = 'it''s a b'",
            "select $1::int[] @> '{1,2}', e'\\n', 1.5e10, $$body$$ -- comment",
            "select ((((((1))))))",
            "select 'ünïcode', ü",
        ] {
            let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql)
                .tokenize()
                .unwrap_or_default();
            let counted = tokens
                .iter()
                .filter(|t| !matches!(t, Token::Whitespace(_)))
                .count();
            assert!(token_count_bound(sql) >= counted, "{sql}");
        }
    }
}
