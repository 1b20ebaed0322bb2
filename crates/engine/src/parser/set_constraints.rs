//! `SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }`, which sqlparser does not
//! know. A pre-pass rewrites it into a SET of a parameter no PostgreSQL setting has,
//! `SET "SET CONSTRAINTS" = 'name', ..., 'DEFERRED'`, with ALL as the empty name, and
//! the binder recognises that name ([`SET_CONSTRAINTS`]).

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The parameter name the rewritten statement sets.
pub const SET_CONSTRAINTS: &str = "SET CONSTRAINTS";

fn significant(tokens: &[TokenWithSpan], from: usize) -> Option<usize> {
    (from..tokens.len()).find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
}

fn is_word(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword && w.quote_style.is_none())
}

/// Rewrites every SET CONSTRAINTS statement of `tokens`.
pub fn rewrite(tokens: &mut Vec<TokenWithSpan>) {
    let mut statement_start = true;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::SemiColon => statement_start = true,
            token if statement_start && is_word(token, Keyword::SET) => {
                statement_start = false;
                if let Some(next) = significant(tokens, i + 1) {
                    let constraints = matches!(&tokens[next].token,
                        Token::Word(w) if w.quote_style.is_none()
                            && w.value.eq_ignore_ascii_case("constraints"));
                    if constraints {
                        rewrite_after(tokens, next);
                    }
                }
            }
            _ => statement_start = false,
        }
        i += 1;
    }
}

/// From CONSTRAINTS at `at` to the statement's end; a form it does not recognise is left
/// alone, for the parser to report.
fn rewrite_after(tokens: &mut Vec<TokenWithSpan>, at: usize) {
    let end = (at..tokens.len())
        .find(|&j| tokens[j].token == Token::SemiColon)
        .unwrap_or(tokens.len());
    let mut values: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for token in tokens[at + 1..end].iter().map(|t| &t.token) {
        match token {
            Token::Whitespace(_) => {}
            Token::Comma => values.extend(current.take()),
            Token::Period => match &mut current {
                Some(name) => name.push('.'),
                None => return,
            },
            Token::Word(w) if w.keyword == Keyword::ALL && w.quote_style.is_none() => {
                current = Some(String::new());
            }
            Token::Word(w) => {
                let part = match w.quote_style {
                    Some(_) => w.value.clone(),
                    None => w.value.to_lowercase(),
                };
                match &mut current {
                    Some(name) if name.ends_with('.') => name.push_str(&part),
                    Some(_) => {
                        values.extend(current.take());
                        current = Some(part);
                    }
                    None => current = Some(part),
                }
            }
            _ => return,
        }
    }
    values.extend(current);
    // The last word is the mode.
    let Some(mode) = values.last_mut() else {
        return;
    };
    match mode.as_str() {
        "deferred" | "immediate" => *mode = mode.to_uppercase(),
        _ => return,
    }
    let span = tokens[at].span;
    let mut replacement = vec![
        Token::Word(Word {
            value: SET_CONSTRAINTS.to_string(),
            quote_style: Some('"'),
            keyword: Keyword::NoKeyword,
        }),
        Token::Eq,
    ];
    for (k, value) in values.into_iter().enumerate() {
        if k > 0 {
            replacement.push(Token::Comma);
        }
        replacement.push(Token::SingleQuotedString(value));
    }
    tokens.splice(
        at..end,
        replacement
            .into_iter()
            .map(|token| TokenWithSpan { token, span }),
    );
}
