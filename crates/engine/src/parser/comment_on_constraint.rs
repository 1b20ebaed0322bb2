//! `COMMENT ON CONSTRAINT name ON table IS 'text' | NULL`, which sqlparser's COMMENT does not
//! parse (pg_dump writes it for commented constraints).

use sqlparser::ast::{Ident, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

#[derive(Debug, Clone)]
pub struct CommentOnConstraint {
    pub constraint: Ident,
    pub table: ObjectName,
    /// `None` for IS NULL (or ''), which removes the comment.
    pub comment: Option<String>,
}

/// Whether the parser stands at `COMMENT ON CONSTRAINT`.
pub fn starts(parser: &Parser) -> bool {
    let word = |n: usize| match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    };
    word(0) == Keyword::COMMENT && word(1) == Keyword::ON && word(2) == Keyword::CONSTRAINT
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<CommentOnConstraint, ParserError> {
    parser.expect_keywords(&[Keyword::COMMENT, Keyword::ON, Keyword::CONSTRAINT])?;
    let constraint = parser.parse_identifier()?;
    parser.expect_keyword(Keyword::ON)?;
    let table = parser.parse_object_name(false)?;
    parser.expect_keyword(Keyword::IS)?;
    let comment = match parser.parse_keyword(Keyword::NULL) {
        true => None,
        false => Some(parser.parse_literal_string()?),
    };
    Ok(CommentOnConstraint {
        constraint,
        table,
        comment,
    })
}
