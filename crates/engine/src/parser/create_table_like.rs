//! `CREATE TABLE t (..., LIKE source [INCLUDING | EXCLUDING option]..., ...)`: sqlparser
//! takes only a lone `(LIKE source [INCLUDING DEFAULTS])`, while PostgreSQL mixes LIKE
//! clauses with columns and takes any of its options. A pre-pass takes each LIKE element out
//! of the column list and returns it per statement with the number of columns written
//! before it, where the binder puts the source's columns.

use sqlparser::ast::Ident;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::sequence_options::keyword;

/// One LIKE element of a CREATE TABLE.
#[derive(Debug, Clone, PartialEq)]
pub struct TableLike {
    /// How many column definitions come before it in the list.
    pub column_position: usize,
    pub source: Vec<Ident>,
    /// Each `INCLUDING` (true) or `EXCLUDING` (false) option in order, as written.
    pub options: Vec<(bool, String)>,
}

/// Takes the LIKE elements out of every CREATE TABLE's column list; returns them per
/// statement (counted as sqlparser counts them). Anything unexpected is left in place, for
/// the parser to report.
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Vec<Vec<TableLike>> {
    strip_from_column_lists(tokens, strip_list)
}

/// Runs `strip_list` on the column list of every CREATE TABLE (with the position of its `(`
/// and the end of its statement); returns what it took out per statement, and lets it remove
/// tokens (it says how many).
pub(super) fn strip_from_column_lists<T>(
    tokens: &mut Vec<TokenWithSpan>,
    mut strip_list: impl FnMut(&mut Vec<TokenWithSpan>, usize, usize) -> (Vec<T>, usize),
) -> Vec<Vec<T>> {
    let mut per_statement = Vec::new();
    let mut start = 0;
    while start < tokens.len() {
        let end = (start..tokens.len())
            .find(|&i| tokens[i].token == Token::SemiColon)
            .unwrap_or(tokens.len());
        let significant = (start..end).any(|i| !matches!(tokens[i].token, Token::Whitespace(_)));
        let (taken, removed) = match list_start(tokens, start, end) {
            Some(open) => strip_list(tokens, open, end),
            None => (Vec::new(), 0),
        };
        if significant {
            per_statement.push(taken);
        }
        start = end - removed + 1;
    }
    per_statement
}

fn significant_from(tokens: &[TokenWithSpan], from: usize, end: usize) -> Vec<usize> {
    (from..end)
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect()
}

/// The `(` opening the column list of `CREATE [options] TABLE [IF NOT EXISTS] name (`.
pub(super) fn list_start(tokens: &[TokenWithSpan], start: usize, end: usize) -> Option<usize> {
    let words = significant_from(tokens, start, end);
    let mut k = 0;
    let word = |k: usize| words.get(k).map(|&i| keyword(&tokens[i].token));
    if word(k)? != Keyword::CREATE {
        return None;
    }
    k += 1;
    while matches!(
        word(k)?,
        Keyword::TEMP
            | Keyword::TEMPORARY
            | Keyword::UNLOGGED
            | Keyword::LOCAL
            | Keyword::GLOBAL
            | Keyword::OR
            | Keyword::REPLACE
    ) {
        k += 1;
    }
    if word(k)? != Keyword::TABLE {
        return None;
    }
    k += 1;
    if word(k)? == Keyword::IF {
        k += 3;
    }
    // The name: words joined by periods.
    k += 1;
    while words
        .get(k)
        .is_some_and(|&i| tokens[i].token == Token::Period)
    {
        k += 2;
    }
    let open = *words.get(k)?;
    (tokens[open].token == Token::LParen).then_some(open)
}

/// Removes the LIKE elements of the list opened at `open`; returns them and how many tokens
/// went.
fn strip_list(tokens: &mut Vec<TokenWithSpan>, open: usize, end: usize) -> (Vec<TableLike>, usize) {
    // The elements: ranges between the commas at depth one, up to the closing `)`.
    let mut elements = Vec::new();
    let mut depth = 0usize;
    let mut element_start = open + 1;
    for (i, token) in tokens.iter().enumerate().take(end).skip(open) {
        match token.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    elements.push(element_start..i);
                    break;
                }
            }
            Token::Comma if depth == 1 => {
                elements.push(element_start..i);
                element_start = i + 1;
            }
            _ => {}
        }
    }
    let (Some(first), Some(last)) = (elements.first(), elements.last()) else {
        return (Vec::new(), 0);
    };
    let list = first.start..last.end;
    let mut likes = Vec::new();
    let mut kept: Vec<TokenWithSpan> = Vec::new();
    let mut columns = 0;
    for range in &elements {
        let words = significant_from(tokens, range.start, range.end);
        let first_word = words.first().map(|&i| keyword(&tokens[i].token));
        match first_word {
            Some(Keyword::LIKE) => match parse_like(tokens, &words[1..], columns) {
                Some(like) => {
                    likes.push(like);
                    continue;
                }
                None => return (Vec::new(), 0),
            },
            Some(
                Keyword::PRIMARY
                | Keyword::UNIQUE
                | Keyword::CONSTRAINT
                | Keyword::CHECK
                | Keyword::FOREIGN
                | Keyword::EXCLUDE,
            ) => {}
            _ => columns += 1,
        }
        // Joined again by the comma that came before the element.
        if !kept.is_empty() {
            kept.push(tokens[range.start - 1].clone());
        }
        kept.extend_from_slice(&tokens[range.clone()]);
    }
    if likes.is_empty() {
        return (Vec::new(), 0);
    }
    let removed = list.len() - kept.len();
    tokens.splice(list, kept);
    (likes, removed)
}

/// `source [INCLUDING | EXCLUDING option]...` at the significant tokens `words`.
fn parse_like(tokens: &[TokenWithSpan], words: &[usize], columns: usize) -> Option<TableLike> {
    let mut source = Vec::new();
    let mut k = 0;
    loop {
        let Token::Word(word) = &tokens[*words.get(k)?].token else {
            return None;
        };
        source.push(Ident {
            value: word.value.clone(),
            quote_style: word.quote_style,
            span: tokens[words[k]].span,
        });
        k += 1;
        match words.get(k) {
            Some(&i) if tokens[i].token == Token::Period => k += 1,
            _ => break,
        }
    }
    let mut options = Vec::new();
    while k < words.len() {
        let including = match keyword(&tokens[words[k]].token) {
            Keyword::INCLUDING => true,
            Keyword::EXCLUDING => false,
            _ => return None,
        };
        let Token::Word(option) = &tokens[*words.get(k + 1)?].token else {
            return None;
        };
        options.push((including, option.value.clone()));
        k += 2;
    }
    Some(TableLike {
        column_position: columns,
        source,
        options,
    })
}
