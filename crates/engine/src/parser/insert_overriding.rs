//! `INSERT ... OVERRIDING { SYSTEM | USER } VALUE`, which sqlparser does not parse (pg_dump
//! --inserts writes OVERRIDING SYSTEM VALUE for GENERATED ALWAYS identity columns). A
//! pre-pass takes the clause out of each INSERT and returns it per statement.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::sequence_options::keyword;

/// The OVERRIDING clause of an INSERT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overriding {
    /// Values given for GENERATED ALWAYS identity columns are taken.
    SystemValue,
    /// Values given for identity columns are replaced by their defaults.
    UserValue,
}

/// Removes the OVERRIDING clauses from `tokens`; returns them per statement (counted as
/// sqlparser counts them).
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Vec<Option<Overriding>> {
    let mut per_statement = vec![None];
    let mut statement_empty = true;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::SemiColon => {
                if !statement_empty {
                    per_statement.push(None);
                }
                statement_empty = true;
            }
            Token::Whitespace(_) => {}
            token => {
                statement_empty = false;
                if is_overriding(token) {
                    if let Some((overriding, end)) = clause_at(tokens, i) {
                        tokens.drain(i..end);
                        if let Some(slot) = per_statement.last_mut() {
                            *slot = Some(overriding);
                        }
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
    if statement_empty && per_statement.len() > 1 {
        per_statement.pop();
    }
    per_statement
}

/// OVERRIDING is no sqlparser keyword.
fn is_overriding(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("overriding"))
}

/// `OVERRIDING SYSTEM|USER VALUE` starting at `at`, and the index just past it.
fn clause_at(tokens: &[TokenWithSpan], at: usize) -> Option<(Overriding, usize)> {
    let mut words = (at + 1..tokens.len())
        .filter(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))
        .map(|k| (k, keyword(&tokens[k].token)));
    let overriding = match words.next()? {
        (_, Keyword::SYSTEM) => Overriding::SystemValue,
        (_, Keyword::USER) => Overriding::UserValue,
        _ => return None,
    };
    match words.next()? {
        (k, Keyword::VALUE) => Some((overriding, k + 1)),
        _ => None,
    }
}
