//! PostgreSQL's VACUUM options (`VACUUM [FULL] [FREEZE] [VERBOSE] [ANALYZE] table` and
//! `VACUUM (ANALYZE, VERBOSE) table`), which sqlparser does not know (its VACUUM is
//! Redshift's). Reclaiming deleted rows is all VACUUM does here and ANALYZE has nothing to
//! gather, so a pre-pass takes every option but FULL out of the tokens; an option
//! PostgreSQL does not have is its 42601 error.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::error::{Error, Result};

/// The parenthesized options PostgreSQL 15 accepts.
const OPTIONS: [&str; 11] = [
    "full",
    "freeze",
    "verbose",
    "analyze",
    "analyse",
    "disable_page_skipping",
    "skip_locked",
    "index_cleanup",
    "process_toast",
    "truncate",
    "parallel",
];

fn word(token: &Token) -> Option<String> {
    match token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_lowercase()),
        _ => None,
    }
}

/// Removes the options of every VACUUM statement in `tokens`.
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Result<()> {
    let mut statement_start = true;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::SemiColon => statement_start = true,
            Token::Word(w) if statement_start && w.keyword == Keyword::VACUUM => {
                statement_start = false;
                strip_after(tokens, i + 1)?;
            }
            _ => statement_start = false,
        }
        i += 1;
    }
    Ok(())
}

/// The options right after VACUUM, from `start`.
fn strip_after(tokens: &mut Vec<TokenWithSpan>, start: usize) -> Result<()> {
    let mut i = start;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => i += 1,
            Token::LParen if i == next_significant(tokens, start) => {
                let end = (i..tokens.len())
                    .find(|&j| tokens[j].token == Token::RParen)
                    .ok_or_else(|| Error::syntax("syntax error at end of input"))?;
                check_option_list(&tokens[i + 1..end])?;
                tokens.drain(i..=end);
            }
            token => match word(token).as_deref() {
                Some("freeze" | "verbose" | "analyze" | "analyse") => {
                    tokens.remove(i);
                }
                Some("full") => i += 1,
                _ => return Ok(()),
            },
        }
    }
    Ok(())
}

fn next_significant(tokens: &[TokenWithSpan], from: usize) -> usize {
    (from..tokens.len())
        .find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
        .unwrap_or(tokens.len())
}

/// `name [value], ...`: each name must be one of PostgreSQL's.
fn check_option_list(tokens: &[TokenWithSpan]) -> Result<()> {
    let mut expect_name = true;
    for token in tokens.iter().map(|t| &t.token) {
        match token {
            Token::Whitespace(_) => {}
            Token::Comma => expect_name = true,
            _ if expect_name => {
                let name = word(token).unwrap_or_else(|| token.to_string());
                if !OPTIONS.contains(&name.as_str()) {
                    return Err(Error::syntax(format!(
                        "unrecognized VACUUM option \"{name}\""
                    )));
                }
                expect_name = false;
            }
            _ => {}
        }
    }
    Ok(())
}
