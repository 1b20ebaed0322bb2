//! `UPDATE t SET column[s1][s2] = value` and `INSERT INTO t (column[s1][s2], ...)`:
//! sqlparser takes only a column name as the target of either.
//!
//! A pre-pass rewrites each subscripted assignment of an UPDATE's SET list into
//! `column = "subscripted assignment"(column, (value), (s1), (s2))` (a slice `lo:hi` as
//! `"subscript slice"((lo), (hi))`), a call the binder
//! reads back as the assignment (see `binder::jsonb_subscript`); no other statement has
//! such a call, and a function of that name does not exist.
//!
//! In an INSERT's column list, a subscripted column becomes one quoted name: the
//! [`SUBSCRIPTED_TARGET`] mark followed by the column and its subscripts as written, which
//! the binder parses back as an expression (`column[s1][s2]`).

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use super::sequence_options::keyword;

/// The name of the call standing for a subscripted assignment.
pub const SUBSCRIPTED_ASSIGNMENT: &str = "subscripted assignment";

/// The call standing for a slice `lo:hi` among the subscripts of an assignment.
pub const SUBSCRIPT_SLICE: &str = "subscript slice";

/// The name standing for a slice bound left out (`a[:3]`).
pub const OMITTED_BOUND: &str = "omitted bound";

/// The mark that starts the name standing for a subscripted column of an INSERT's column
/// list; a control character, which no name written in SQL starts with.
pub const SUBSCRIPTED_TARGET: &str = "\u{1}subscripted target ";

/// Rewrites the subscripted assignments of every UPDATE and INSERT.
pub fn rewrite(tokens: &mut Vec<TokenWithSpan>) {
    let mut out = Vec::with_capacity(tokens.len());
    let mut start = 0;
    while start < tokens.len() {
        let end = (start..tokens.len())
            .find(|&i| tokens[i].token == Token::SemiColon)
            .map_or(tokens.len(), |i| i + 1);
        let statement = &tokens[start..end];
        match (set_list_start(statement), insert_column_list(statement)) {
            (Some(set), _) => {
                out.extend_from_slice(&statement[..set]);
                out.extend(rewrite_set_list(&statement[set..]));
            }
            (None, Some((open, close))) => {
                out.extend_from_slice(&statement[..=open]);
                out.extend(rewrite_column_list(&statement[open + 1..close]));
                out.extend_from_slice(&statement[close..]);
            }
            (None, None) => out.extend_from_slice(statement),
        }
        start = end;
    }
    *tokens = out;
}

/// Where the SET list of an UPDATE starts (after its SET), if `statement` is one.
fn set_list_start(statement: &[TokenWithSpan]) -> Option<usize> {
    let mut significant = statement
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)));
    let (_, first) = significant.next()?;
    if keyword(&first.token) != Keyword::UPDATE {
        return None;
    }
    let mut depth = 0usize;
    for (i, t) in significant {
        match t.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
            _ if depth == 0 && keyword(&t.token) == Keyword::SET => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// Where the column list of an INSERT opens and closes (its parentheses), if `statement` is
/// an INSERT with one: the first parenthesis after `INSERT INTO name [[AS] alias]`.
fn insert_column_list(statement: &[TokenWithSpan]) -> Option<(usize, usize)> {
    let mut significant = statement
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)));
    let (_, first) = significant.next()?;
    let (_, second) = significant.next()?;
    if keyword(&first.token) != Keyword::INSERT || keyword(&second.token) != Keyword::INTO {
        return None;
    }
    let open = significant
        .find(|(_, t)| match &t.token {
            Token::Word(_) => matches!(
                keyword(&t.token),
                Keyword::VALUES
                    | Keyword::SELECT
                    | Keyword::WITH
                    | Keyword::TABLE
                    | Keyword::DEFAULT
            ),
            Token::Period => false,
            _ => true,
        })
        .filter(|(_, t)| t.token == Token::LParen)?
        .0;
    let close = until(statement, open + 1, |_, t| *t == Token::RParen);
    let first_item = next_significant(statement, open + 1);
    let is_query = statement.get(first_item).is_some_and(|t| {
        matches!(
            keyword(&t.token),
            Keyword::SELECT | Keyword::WITH | Keyword::VALUES | Keyword::TABLE
        )
    });
    (close < statement.len() && !is_query).then_some((open, close))
}

/// An INSERT's column list with each subscripted column as the one name standing for it.
fn rewrite_column_list(tokens: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i <= tokens.len() {
        let end = until(tokens, i, |_, t| *t == Token::Comma);
        let item = &tokens[i..end];
        let start = next_significant(item, 0);
        let subscripted = item
            .get(start)
            .is_some_and(|t| matches!(t.token, Token::Word(_)))
            && item.iter().any(|t| t.token == Token::LBracket);
        if subscripted {
            let written: String = item[start..].iter().map(|t| t.token.to_string()).collect();
            let mut name = quoted_word(&format!("{SUBSCRIPTED_TARGET}{}", written.trim_end()));
            name.span = item[start].span;
            out.extend_from_slice(&item[..start]);
            out.push(name);
        } else {
            out.extend_from_slice(item);
        }
        if let Some(comma) = tokens.get(end) {
            out.push(comma.clone());
        }
        i = end + 1;
    }
    out
}

/// Whether `token`, after the significant token `previous`, ends an assignment's value at
/// depth zero (the FROM of `IS [NOT] DISTINCT FROM` does not).
fn ends_value(previous: Option<&Token>, token: &Token) -> bool {
    let distinct = previous.is_some_and(|p| keyword(p) == Keyword::DISTINCT);
    *token == Token::Comma
        || *token == Token::SemiColon
        || matches!(keyword(token), Keyword::WHERE | Keyword::RETURNING)
        || (keyword(token) == Keyword::FROM && !distinct)
}

/// The tokens from `from` up to (not including) the first at depth zero that `ends` after
/// the significant token before it.
fn until(
    tokens: &[TokenWithSpan],
    from: usize,
    ends: impl Fn(Option<&Token>, &Token) -> bool,
) -> usize {
    let mut depth = 0usize;
    let mut previous = None;
    for (i, t) in tokens.iter().enumerate().skip(from) {
        match t.token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket if depth > 0 => depth -= 1,
            Token::Whitespace(_) => continue,
            _ if depth == 0 && ends(previous, &t.token) => return i,
            _ => {}
        }
        previous = Some(&t.token);
    }
    tokens.len()
}

fn next_significant(tokens: &[TokenWithSpan], from: usize) -> usize {
    (from..tokens.len())
        .find(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .unwrap_or(tokens.len())
}

/// The SET list (and what follows it) with its subscripted assignments rewritten; as it is
/// when anything is unexpected, for the parser to report.
fn rewrite_set_list(tokens: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    loop {
        let target = next_significant(tokens, i);
        out.extend_from_slice(&tokens[i..target]);
        let end = until(tokens, target, ends_value);
        match subscripted(tokens, target, end) {
            Some(rewritten) => out.extend(rewritten),
            None => out.extend_from_slice(&tokens[target..end]),
        }
        match tokens.get(end) {
            Some(t) if t.token == Token::Comma => {
                out.push(t.clone());
                i = end + 1;
            }
            _ => {
                out.extend_from_slice(&tokens[end..]);
                return out;
            }
        }
    }
}

/// `column[s1]... = value` at `tokens[from..end]` as the call standing for it.
fn subscripted(tokens: &[TokenWithSpan], from: usize, end: usize) -> Option<Vec<TokenWithSpan>> {
    let column = tokens
        .get(from)
        .filter(|t| matches!(t.token, Token::Word(_)))?;
    let mut subscripts = Vec::new();
    let mut i = next_significant(tokens, from + 1);
    while i < end && tokens[i].token == Token::LBracket {
        let close = until(tokens, i + 1, |_, t| *t == Token::RBracket);
        if close >= end {
            return None;
        }
        subscripts.push(&tokens[i + 1..close]);
        i = next_significant(tokens, close + 1);
    }
    if subscripts.is_empty() || i >= end || tokens[i].token != Token::Eq {
        return None;
    }
    let value = &tokens[i + 1..end];
    let wrap = TokenWithSpan::wrap;
    let mut call = vec![
        column.clone(),
        wrap(Token::Eq),
        quoted_word(SUBSCRIPTED_ASSIGNMENT),
        wrap(Token::LParen),
        column.clone(),
    ];
    call.push(wrap(Token::Comma));
    call.extend(parenthesized(value));
    for part in subscripts {
        call.push(wrap(Token::Comma));
        call.extend(subscript(part));
    }
    call.push(wrap(Token::RParen));
    Some(call)
}

fn quoted_word(value: &str) -> TokenWithSpan {
    TokenWithSpan::wrap(Token::Word(Word {
        value: value.to_string(),
        quote_style: Some('"'),
        keyword: Keyword::NoKeyword,
    }))
}

fn parenthesized(part: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    let mut out = Vec::with_capacity(part.len() + 2);
    out.push(TokenWithSpan::wrap(Token::LParen));
    out.extend_from_slice(part);
    out.push(TokenWithSpan::wrap(Token::RParen));
    out
}

/// One subscript: `(i)`, or for a slice `lo:hi` the call `"subscript slice"((lo), (hi))`,
/// an omitted bound being the name [`OMITTED_BOUND`].
fn subscript(part: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    let colon = until(part, 0, |_, t| *t == Token::Colon);
    if colon == part.len() {
        return parenthesized(part);
    }
    let bound = |tokens: &[TokenWithSpan]| match tokens
        .iter()
        .all(|t| matches!(t.token, Token::Whitespace(_)))
    {
        true => vec![quoted_word(OMITTED_BOUND)],
        false => parenthesized(tokens),
    };
    let mut out = vec![
        quoted_word(SUBSCRIPT_SLICE),
        TokenWithSpan::wrap(Token::LParen),
    ];
    out.extend(bound(&part[..colon]));
    out.push(TokenWithSpan::wrap(Token::Comma));
    out.extend(bound(&part[colon + 1..]));
    out.push(TokenWithSpan::wrap(Token::RParen));
    out
}
