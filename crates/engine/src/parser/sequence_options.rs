//! The options of CREATE SEQUENCE in any order, as PostgreSQL takes them: sqlparser reads
//! them only in one order (AS, INCREMENT, MINVALUE, MAXVALUE, START, CACHE, CYCLE, OWNED BY)
//! while pg_dump writes START before INCREMENT. A pre-pass moves each option, with its
//! words, to its place in sqlparser's order; the options themselves are unchanged.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Reorders the options of every CREATE SEQUENCE statement in `tokens`.
pub fn reorder(tokens: &mut [TokenWithSpan]) {
    let mut statement_start = 0;
    for i in 0..=tokens.len() {
        if i == tokens.len() || tokens[i].token == Token::SemiColon {
            if let Some(options_start) = options_start(&tokens[statement_start..i]) {
                reorder_options(&mut tokens[statement_start + options_start..i]);
            }
            statement_start = i + 1;
        }
    }
}

fn significant(tokens: &[TokenWithSpan]) -> impl Iterator<Item = (usize, &Token)> {
    tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)))
        .map(|(i, t)| (i, &t.token))
}

pub(super) fn keyword(token: &Token) -> Keyword {
    match token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Where the options of `CREATE [TEMP] SEQUENCE [IF NOT EXISTS] name` begin: after the name.
fn options_start(statement: &[TokenWithSpan]) -> Option<usize> {
    let mut words = significant(statement).peekable();
    if keyword(words.next()?.1) != Keyword::CREATE {
        return None;
    }
    let (_, mut token) = words.next()?;
    if matches!(keyword(token), Keyword::TEMP | Keyword::TEMPORARY) {
        token = words.next()?.1;
    }
    if keyword(token) != Keyword::SEQUENCE {
        return None;
    }
    if words.peek().is_some_and(|(_, t)| keyword(t) == Keyword::IF) {
        words.next();
        words.next();
        words.next();
    }
    // The name: identifiers joined by periods.
    let (mut last, _) = words.next()?;
    while words.peek().is_some_and(|(_, t)| **t == Token::Period) {
        words.next();
        last = words.next()?.0;
    }
    Some(last + 1)
}

/// The place of the option a keyword starts in sqlparser's order; `None` for other words.
fn rank(token: &Token, next: Option<&Token>) -> Option<u8> {
    match keyword(token) {
        Keyword::AS => Some(0),
        Keyword::INCREMENT => Some(1),
        Keyword::MINVALUE => Some(2),
        Keyword::MAXVALUE => Some(3),
        Keyword::START => Some(4),
        Keyword::CACHE => Some(5),
        Keyword::CYCLE => Some(6),
        Keyword::OWNED => Some(7),
        Keyword::NO => match next.map(keyword) {
            Some(Keyword::MINVALUE) => Some(2),
            Some(Keyword::MAXVALUE) => Some(3),
            Some(Keyword::CYCLE) => Some(6),
            _ => None,
        },
        _ => None,
    }
}

/// Splits `options` where each option begins and sorts them (stably) into sqlparser's order.
pub(super) fn reorder_options(options: &mut [TokenWithSpan]) {
    let words: Vec<(usize, &Token)> = significant(options).collect();
    let mut starts = Vec::new();
    for (n, &(i, token)) in words.iter().enumerate() {
        let previous = n.checked_sub(1).map(|p| words[p].1);
        let next = words.get(n + 1).map(|w| w.1);
        // A word after NO, BY (OWNED BY) or a period is part of the option before it.
        let continues = previous.is_some_and(|p| {
            *p == Token::Period || matches!(keyword(p), Keyword::NO | Keyword::BY)
        }) || next == Some(&Token::Period);
        if !continues {
            if let Some(rank) = rank(token, next) {
                starts.push((i, rank));
            }
        }
    }
    // Only options from the first token on can move; anything else is left to the parser.
    let leading = match (starts.first(), words.first()) {
        (Some(&(start, _)), Some(&(first, _))) if start == first => start,
        _ => return,
    };
    let mut groups: Vec<(u8, Vec<TokenWithSpan>)> = starts
        .iter()
        .enumerate()
        .map(|(n, &(start, rank))| {
            let end = starts.get(n + 1).map_or(options.len(), |s| s.0);
            (rank, options[start..end].to_vec())
        })
        .collect();
    groups.sort_by_key(|(rank, _)| *rank);
    for (slot, token) in options[leading..]
        .iter_mut()
        .zip(groups.into_iter().flat_map(|(_, g)| g))
    {
        *slot = token;
    }
}
