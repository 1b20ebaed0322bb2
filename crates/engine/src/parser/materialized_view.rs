//! The materialized view statements sqlparser lacks or takes only in part: CREATE
//! MATERIALIZED VIEW's trailing `WITH [NO] DATA`, REFRESH MATERIALIZED VIEW and ALTER
//! MATERIALIZED VIEW. Parsed with sqlparser's own helpers (its CREATE VIEW and ALTER TABLE
//! parsers do the rest). DROP MATERIALIZED VIEW is sqlparser's.

use sqlparser::ast::{self, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

#[derive(Debug, Clone)]
pub enum MaterializedViewStatement {
    /// `CREATE MATERIALIZED VIEW ... AS query [WITH [NO] DATA]`.
    Create {
        create: ast::CreateView,
        with_data: bool,
    },
    /// `REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA]`.
    Refresh {
        name: ObjectName,
        concurrently: bool,
        with_data: bool,
    },
    /// `ALTER MATERIALIZED VIEW ...`, parsed as the ALTER TABLE it is written like.
    Alter(ast::AlterTable),
}

/// The keyword `n` tokens ahead, unless quoted.
fn keyword_at(parser: &Parser, n: usize) -> Keyword {
    match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Whether the parser stands at one of the statements parsed here.
pub fn starts(parser: &Parser) -> bool {
    matches!(
        keyword_at(parser, 0),
        Keyword::CREATE | Keyword::REFRESH | Keyword::ALTER
    ) && keyword_at(parser, 1) == Keyword::MATERIALIZED
        && keyword_at(parser, 2) == Keyword::VIEW
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<MaterializedViewStatement, ParserError> {
    if parser.parse_keyword(Keyword::CREATE) {
        // sqlparser's CREATE VIEW reads MATERIALIZED VIEW itself.
        let create = parser.parse_create_view(false, false, false, None)?;
        let with_data = parse_with_data(parser)?;
        return Ok(MaterializedViewStatement::Create { create, with_data });
    }
    if parser.parse_keywords(&[Keyword::REFRESH, Keyword::MATERIALIZED, Keyword::VIEW]) {
        let concurrently = parser.parse_keyword(Keyword::CONCURRENTLY);
        let name = parser.parse_object_name(false)?;
        let with_data = parse_with_data(parser)?;
        return Ok(MaterializedViewStatement::Refresh {
            name,
            concurrently,
            with_data,
        });
    }
    parser.expect_keywords(&[Keyword::ALTER, Keyword::MATERIALIZED, Keyword::VIEW])?;
    match parser.parse_alter_table(false)? {
        ast::Statement::AlterTable(alter) => Ok(MaterializedViewStatement::Alter(alter)),
        other => Err(ParserError::ParserError(format!(
            "Expected: ALTER MATERIALIZED VIEW, found: {other}"
        ))),
    }
}

/// An optional `WITH [NO] DATA` (PostgreSQL's default is WITH DATA).
fn parse_with_data(parser: &mut Parser) -> Result<bool, ParserError> {
    if !parser.parse_keyword(Keyword::WITH) {
        return Ok(true);
    }
    let no = parser.parse_keyword(Keyword::NO);
    parser.expect_keyword_is(Keyword::DATA)?;
    Ok(!no)
}
