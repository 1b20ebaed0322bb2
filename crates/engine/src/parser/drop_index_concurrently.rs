//! `DROP INDEX CONCURRENTLY [IF EXISTS] name [CASCADE | RESTRICT]`, which sqlparser takes
//! for an index named "concurrently". Migrations of Rails, Django and others write it.

use sqlparser::ast::ObjectName;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

#[derive(Debug, Clone)]
pub struct DropIndexConcurrently {
    pub names: Vec<ObjectName>,
    pub if_exists: bool,
    pub cascade: bool,
}

fn keyword_at(parser: &Parser, n: usize) -> Keyword {
    match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Whether the parser stands at DROP INDEX CONCURRENTLY.
pub fn starts(parser: &Parser) -> bool {
    keyword_at(parser, 0) == Keyword::DROP
        && keyword_at(parser, 1) == Keyword::INDEX
        && keyword_at(parser, 2) == Keyword::CONCURRENTLY
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<DropIndexConcurrently, ParserError> {
    parser.expect_keywords(&[Keyword::DROP, Keyword::INDEX, Keyword::CONCURRENTLY])?;
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let names = parser.parse_comma_separated(|p| p.parse_object_name(false))?;
    // RESTRICT is the default and says nothing more.
    let cascade = match parser.parse_one_of_keywords(&[Keyword::CASCADE, Keyword::RESTRICT]) {
        Some(keyword) => keyword == Keyword::CASCADE,
        None => false,
    };
    Ok(DropIndexConcurrently {
        names,
        if_exists,
        cascade,
    })
}
