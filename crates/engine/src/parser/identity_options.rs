//! The options of an identity column, `GENERATED ... AS IDENTITY ( options )`, as PostgreSQL
//! takes them: in any order, and with `SEQUENCE NAME name`, which pg_dump always writes and
//! sqlparser does not know. A pre-pass takes the sequence names out, returning them per
//! statement in the order written (the binder meets identity columns in that order), and
//! sorts the remaining options into sqlparser's order as [`super::sequence_options`] does.

use sqlparser::ast::Ident;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::sequence_options::{keyword, reorder_options};

/// The `SEQUENCE NAME`s of one statement's identity columns, in order, as name parts; `None`
/// for an identity column without one.
pub type IdentitySequenceNames = Vec<Option<Vec<Ident>>>;

/// Takes the sequence names out of the identity options in `tokens` and reorders the
/// options; returns the names per statement (counted as sqlparser counts them).
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Vec<IdentitySequenceNames> {
    let mut per_statement: Vec<IdentitySequenceNames> = vec![Vec::new()];
    let mut statement_empty = true;
    let mut previous = Keyword::NoKeyword;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::SemiColon => {
                previous = Keyword::NoKeyword;
                if !statement_empty {
                    per_statement.push(Vec::new());
                }
                statement_empty = true;
            }
            Token::Whitespace(_) => {}
            token => {
                statement_empty = false;
                let word = keyword(token);
                if word == Keyword::IDENTITY && previous == Keyword::AS {
                    let name = options_after(tokens, i).and_then(|(open, close)| {
                        let name = take_sequence_name(tokens, open + 1, close);
                        let (_, close) = options_after(tokens, i)?;
                        reorder_options(&mut tokens[open + 1..close]);
                        name
                    });
                    if let Some(list) = per_statement.last_mut() {
                        list.push(name);
                    }
                }
                previous = word;
            }
        }
        i += 1;
    }
    if statement_empty && per_statement.len() > 1 {
        per_statement.pop();
    }
    per_statement
}

/// The `(` and `)` of the option list right after the IDENTITY at `at`, if there is one.
fn options_after(tokens: &[TokenWithSpan], at: usize) -> Option<(usize, usize)> {
    let open =
        (at + 1..tokens.len()).find(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))?;
    if tokens[open].token != Token::LParen {
        return None;
    }
    let close = (open + 1..tokens.len()).find(|&k| tokens[k].token == Token::RParen)?;
    Some((open, close))
}

/// Removes `SEQUENCE NAME a.b` from `tokens[start..end]`, returning the name's parts.
fn take_sequence_name(
    tokens: &mut Vec<TokenWithSpan>,
    start: usize,
    end: usize,
) -> Option<Vec<Ident>> {
    let significant: Vec<usize> = (start..end)
        .filter(|&k| !matches!(tokens[k].token, Token::Whitespace(_)))
        .collect();
    let found = significant.windows(2).position(|pair| {
        keyword(&tokens[pair[0]].token) == Keyword::SEQUENCE
            && keyword(&tokens[pair[1]].token) == Keyword::NAME
    })?;
    // The name: words joined by periods.
    let mut parts = Vec::new();
    let mut n = found + 2;
    while let Some(&k) = significant.get(n) {
        let Token::Word(word) = &tokens[k].token else {
            break;
        };
        parts.push(Ident {
            value: word.value.clone(),
            quote_style: word.quote_style,
            span: tokens[k].span,
        });
        match significant.get(n + 1) {
            Some(&p) if tokens[p].token == Token::Period => n += 2,
            _ => break,
        }
    }
    if parts.is_empty() {
        // Left for the parser to report.
        return None;
    }
    let last = significant[found + 2 * parts.len()];
    tokens.drain(significant[found]..=last);
    Some(parts)
}
