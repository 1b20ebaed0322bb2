//! COPY options in PostgreSQL's generic form (`WITH (FREEZE on, HEADER match, FORMAT
//! 'csv')`), which sqlparser only takes with TRUE/FALSE and identifiers. A pre-pass over
//! the tokens of a COPY statement, after its FROM/TO, turns a boolean spelled `on`, `off`,
//! `1`, `0` or quoted into TRUE/FALSE and a quoted FORMAT into an identifier, and takes
//! `HEADER MATCH` out as `HEADER TRUE`, reporting that it saw it. Tokens keep their
//! locations, so errors point where they did.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use crate::error::{Error, Result, SqlState};

/// For each statement (counted as sqlparser counts them), whether it said HEADER MATCH.
/// A DELIMITER, QUOTE or ESCAPE of more than one character, which sqlparser would call a
/// syntax error, is PostgreSQL's error instead.
pub fn normalize(tokens: &mut Vec<TokenWithSpan>) -> Result<Vec<bool>> {
    let mut header_match = Vec::new();
    let mut statement = Statement::default();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::SemiColon if statement.depth == 0 => {
                if statement.started {
                    header_match.push(statement.header_match);
                }
                statement = Statement::default();
            }
            token => {
                if !statement.started {
                    statement.started = true;
                    statement.is_copy = is_keyword(token, Keyword::COPY);
                }
                match token {
                    Token::LParen => statement.depth += 1,
                    Token::RParen => statement.depth = statement.depth.saturating_sub(1),
                    _ if statement.depth == 0
                        && (is_keyword(token, Keyword::FROM) || is_keyword(token, Keyword::TO)) =>
                    {
                        statement.in_options = statement.is_copy;
                    }
                    _ if statement.in_options => {
                        statement.header_match |= rewrite_value(tokens, i);
                        force_quote_all(tokens, i);
                        check_one_character(tokens, i)?;
                    }
                    _ => {}
                }
            }
        }
        i += 1;
    }
    if statement.started {
        header_match.push(statement.header_match);
    }
    Ok(header_match)
}

#[derive(Default)]
struct Statement {
    started: bool,
    is_copy: bool,
    depth: usize,
    in_options: bool,
    header_match: bool,
}

fn is_keyword(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword)
}

/// Rewrites the value after the option name at `at`; true for HEADER MATCH.
fn rewrite_value(tokens: &mut [TokenWithSpan], at: usize) -> bool {
    let option = &tokens[at].token;
    let boolean = is_keyword(option, Keyword::HEADER) || is_keyword(option, Keyword::FREEZE);
    let format = is_keyword(option, Keyword::FORMAT);
    if !boolean && !format {
        return false;
    }
    let Some(next) =
        (at + 1..tokens.len()).find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
    else {
        return false;
    };
    let value = match &tokens[next].token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_lowercase(),
        Token::SingleQuotedString(s) => s.to_lowercase(),
        Token::Number(n, _) => n.clone(),
        _ => return false,
    };
    let replacement = if format {
        matches!(tokens[next].token, Token::SingleQuotedString(_)).then(|| word(&value))
    } else {
        match value.as_str() {
            "on" | "1" | "true" | "match" => Some(word("TRUE")),
            "off" | "0" | "false" => Some(word("FALSE")),
            _ => None,
        }
    };
    if let Some(replacement) = replacement {
        tokens[next].token = replacement;
    }
    boolean && value == "match"
}

/// `FORCE_QUOTE *` becomes `FORCE_QUOTE ("*")` and `FORCE QUOTE *` becomes `FORCE QUOTE
/// "*"`: the binder reads a column named `*` as every column.
fn force_quote_all(tokens: &mut Vec<TokenWithSpan>, at: usize) {
    let generic = is_keyword(&tokens[at].token, Keyword::FORCE_QUOTE);
    if !generic && !is_keyword(&tokens[at].token, Keyword::QUOTE) {
        return;
    }
    let Some(next) =
        (at + 1..tokens.len()).find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
    else {
        return;
    };
    if tokens[next].token != Token::Mul {
        return;
    }
    let span = tokens[next].span;
    tokens[next].token = Token::Word(Word {
        value: "*".to_string(),
        quote_style: Some('"'),
        keyword: Keyword::NoKeyword,
    });
    if generic {
        tokens.insert(next + 1, TokenWithSpan::new(Token::RParen, span));
        tokens.insert(next, TokenWithSpan::new(Token::LParen, span));
    }
}

fn check_one_character(tokens: &[TokenWithSpan], at: usize) -> Result<()> {
    let what = match &tokens[at].token {
        Token::Word(w) if w.keyword == Keyword::DELIMITER => "delimiter",
        Token::Word(w) if w.keyword == Keyword::QUOTE => "quote",
        Token::Word(w) if w.keyword == Keyword::ESCAPE => "escape",
        _ => return Ok(()),
    };
    let value = tokens[at + 1..]
        .iter()
        .map(|t| &t.token)
        .find(|t| !matches!(t, Token::Whitespace(_)) && !is_keyword(t, Keyword::AS));
    match value {
        Some(Token::SingleQuotedString(s) | Token::EscapedStringLiteral(s))
            if s.chars().count() != 1 =>
        {
            Err(Error::new(
                SqlState::FeatureNotSupported,
                format!("COPY {what} must be a single one-byte character"),
            ))
        }
        _ => Ok(()),
    }
}

fn word(value: &str) -> Token {
    Token::Word(Word {
        value: value.to_string(),
        quote_style: None,
        keyword: match value {
            "TRUE" => Keyword::TRUE,
            "FALSE" => Keyword::FALSE,
            _ => Keyword::NoKeyword,
        },
    })
}
