//! PostgreSQL 15's `ON DELETE SET NULL (columns)` and `SET DEFAULT (columns)`, which sqlparser
//! cannot parse: a pre-pass reports them as not supported (0A000) rather than as a syntax
//! error in SQL PostgreSQL accepts.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::error::{Error, Result, SqlState};

/// 0A000 if a foreign key action in `tokens` names columns.
pub fn check(tokens: &[TokenWithSpan]) -> Result<()> {
    let words: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let keyword = |token: &Token, keyword: Keyword| matches!(token, Token::Word(w) if w.keyword == keyword && w.quote_style.is_none());
    for window in words.windows(5) {
        let [on, event, set, value, paren] = window else {
            continue;
        };
        if keyword(on, Keyword::ON)
            && keyword(event, Keyword::DELETE)
            && keyword(set, Keyword::SET)
            && (keyword(value, Keyword::NULL) || keyword(value, Keyword::DEFAULT))
            && **paren == Token::LParen
        {
            return Err(Error::new(
                SqlState::FeatureNotSupported,
                "column lists in ON DELETE SET NULL and SET DEFAULT are not supported yet",
            ));
        }
    }
    Ok(())
}
