//! `CREATE VIEW ... WITH [LOCAL | CASCADED] CHECK OPTION`, which sqlparser does not parse
//! and KestrelDB does not enforce: refused as unsupported (0A000) rather than reported as a
//! syntax error, since PostgreSQL accepts it.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::error::{Error, Result};

fn keyword(token: &Token) -> Keyword {
    match token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Fails on a CREATE VIEW statement in `tokens` that ends with a check option.
pub fn refuse(tokens: &[TokenWithSpan]) -> Result<()> {
    let significant: Vec<&Token> = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    for statement in significant.split(|t| **t == Token::SemiColon) {
        let creates_view = statement.first().map(|t| keyword(t)) == Some(Keyword::CREATE)
            && statement
                .iter()
                .take_while(|t| keyword(t) != Keyword::AS)
                .any(|t| keyword(t) == Keyword::VIEW);
        let ends_with_check = match statement {
            [.., with, check, option] => {
                keyword(with) == Keyword::WITH
                    && keyword(check) == Keyword::CHECK
                    && keyword(option) == Keyword::OPTION
            }
            _ => false,
        };
        let ends_with_qualified_check = match statement {
            [.., with, level, check, option] => {
                keyword(with) == Keyword::WITH
                    && matches!(keyword(level), Keyword::LOCAL | Keyword::CASCADED)
                    && keyword(check) == Keyword::CHECK
                    && keyword(option) == Keyword::OPTION
            }
            _ => false,
        };
        if creates_view && (ends_with_check || ends_with_qualified_check) {
            return Err(Error::unsupported("CREATE VIEW ... WITH CHECK OPTION"));
        }
    }
    Ok(())
}
