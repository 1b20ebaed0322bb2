//! Window frame `EXCLUDE` clauses, which sqlparser does not parse. A pre-pass over the
//! tokens finds `EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS` where PostgreSQL's grammar
//! puts it (after a frame bound, right before the `)` that closes an `OVER (...)` or a
//! `WINDOW name AS (...)`), removes it, and records it under the location of the window's
//! owner: the first token of the function name for `OVER (...)`, the window name for
//! `WINDOW name AS (...)`. The binder finds the exclusion by the same location in the AST
//! (identifiers keep their source spans), and fails on any it did not use, so an exclusion
//! is never dropped silently. Tokens keep their original locations, so syntax errors point
//! at the same place as before.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan};

/// Which rows of the frame `EXCLUDE` removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameExclusion {
    NoOthers,
    CurrentRow,
    Group,
    Ties,
}

/// The exclusions of one statement, by the location of their window's owner.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameExclusions(Vec<(Location, FrameExclusion)>);

impl FrameExclusions {
    pub fn get(&self, owner: Location) -> Option<FrameExclusion> {
        self.0.iter().find(|(at, _)| *at == owner).map(|&(_, e)| e)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn owners(&self) -> impl Iterator<Item = Location> + '_ {
        self.0.iter().map(|(at, _)| *at)
    }
}

fn is_keyword(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword)
}

/// OTHERS is no sqlparser keyword.
fn is_others(token: &Token) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("others"))
}

/// Removes the frame exclusions from `tokens`; returns them per statement (statements are
/// counted as sqlparser counts them: empty ones between `;`s are skipped). `None` when
/// there is none, so the caller parses as usual.
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Option<Vec<FrameExclusions>> {
    if !tokens
        .iter()
        .any(|t| is_keyword(&t.token, Keyword::EXCLUDE))
    {
        return None;
    }
    // Indexes of the tokens that are not whitespace or comments.
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let at = |k: usize| &tokens[significant[k]].token;
    let mut found: Vec<(usize, Location, FrameExclusion, std::ops::Range<usize>)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut statement = 0;
    let mut statement_empty = true;
    for k in 0..significant.len() {
        match at(k) {
            Token::SemiColon => {
                statement += usize::from(!statement_empty);
                statement_empty = true;
                continue;
            }
            Token::LParen => open.push(k),
            Token::RParen => {
                open.pop();
            }
            Token::Word(w) if w.keyword == Keyword::EXCLUDE => {
                if let Some(hit) = exclusion_at(&at, significant.len(), k, open.last().copied()) {
                    let (owner, exclusion, len) = hit;
                    let owner = tokens[significant[owner]].span.start;
                    found.push((statement, owner, exclusion, k..k + len));
                }
            }
            _ => {}
        }
        statement_empty = false;
    }
    if found.is_empty() {
        return None;
    }
    let mut per_statement = vec![FrameExclusions::default(); statement + 1];
    let mut remove = vec![false; tokens.len()];
    for (statement, owner, exclusion, range) in found {
        per_statement[statement].0.push((owner, exclusion));
        for k in range {
            remove[significant[k]] = true;
        }
    }
    let mut index = 0;
    tokens.retain(|_| {
        index += 1;
        !remove[index - 1]
    });
    Some(per_statement)
}

/// The exclusion starting at significant token `k` (an EXCLUDE keyword) with the owner's
/// token and the clause's length, when it sits in a frame position of a window.
fn exclusion_at<'t>(
    at: &impl Fn(usize) -> &'t Token,
    count: usize,
    k: usize,
    paren: Option<usize>,
) -> Option<(usize, FrameExclusion, usize)> {
    let after_bound = k > 0
        && [Keyword::ROW, Keyword::PRECEDING, Keyword::FOLLOWING]
            .iter()
            .any(|&kw| is_keyword(at(k - 1), kw));
    let word = |i: usize, kw: Keyword| i < count && is_keyword(at(i), kw);
    let (exclusion, len) = if word(k + 1, Keyword::CURRENT) && word(k + 2, Keyword::ROW) {
        (FrameExclusion::CurrentRow, 3)
    } else if word(k + 1, Keyword::GROUP) {
        (FrameExclusion::Group, 2)
    } else if word(k + 1, Keyword::TIES) {
        (FrameExclusion::Ties, 2)
    } else if word(k + 1, Keyword::NO) && k + 2 < count && is_others(at(k + 2)) {
        (FrameExclusion::NoOthers, 3)
    } else {
        return None;
    };
    let closes = k + len < count && matches!(at(k + len), Token::RParen);
    if !after_bound || !closes {
        return None;
    }
    let paren = paren.filter(|&p| p > 0)?;
    if is_keyword(at(paren - 1), Keyword::OVER) {
        return function_start(at, paren - 1).map(|owner| (owner, exclusion, len));
    }
    // WINDOW name AS (...): the name owns it.
    if paren >= 2
        && is_keyword(at(paren - 1), Keyword::AS)
        && matches!(at(paren - 2), Token::Word(_))
    {
        return Some((paren - 2, exclusion, len));
    }
    None
}

/// The first token of the name of the function whose `OVER` is significant token `over`:
/// back over the argument list (and a FILTER clause) to the possibly qualified name.
fn function_start<'t>(at: &impl Fn(usize) -> &'t Token, over: usize) -> Option<usize> {
    let mut k = over;
    loop {
        let close = k.checked_sub(1)?;
        if !matches!(at(close), Token::RParen) {
            return None;
        }
        let mut depth = 0usize;
        let mut i = close;
        let open = loop {
            match at(i) {
                Token::RParen => depth += 1,
                Token::LParen => {
                    depth -= 1;
                    if depth == 0 {
                        break i;
                    }
                }
                _ => {}
            }
            i = i.checked_sub(1)?;
        };
        let before = open.checked_sub(1)?;
        if is_keyword(at(before), Keyword::FILTER) {
            k = before;
            continue;
        }
        let Token::Word(_) = at(before) else {
            return None;
        };
        let mut start = before;
        while start >= 2
            && matches!(at(start - 1), Token::Period)
            && matches!(at(start - 2), Token::Word(_))
        {
            start -= 2;
        }
        return Some(start);
    }
}

#[cfg(test)]
mod tests {
    use super::FrameExclusion;
    use crate::parser::parse;

    #[test]
    fn keys_each_exclusion_by_its_owner() {
        let sql = "SELECT a, s.f(b) FILTER (WHERE b) OVER (ORDER BY b ROWS 1 PRECEDING EXCLUDE TIES)\n FROM t WINDOW w AS (ROWS CURRENT ROW exclude no others); SELECT 1";
        let parsed = parse(sql).expect("parses");
        assert_eq!(parsed.len(), 2);
        let owners: Vec<_> = parsed[0].exclusions.owners().collect();
        assert_eq!(owners.len(), 2);
        assert_eq!((owners[0].line, owners[0].column), (1, 11));
        assert_eq!(
            parsed[0].exclusions.get(owners[0]),
            Some(FrameExclusion::Ties)
        );
        assert_eq!((owners[1].line, owners[1].column), (2, 16));
        assert_eq!(
            parsed[0].exclusions.get(owners[1]),
            Some(FrameExclusion::NoOthers)
        );
        assert!(parsed[1].exclusions.is_empty());
    }

    #[test]
    fn syntax_errors_keep_their_position() {
        let sql = "SELECT f() OVER (ROWS 1 PRECEDING EXCLUDE GROUP) FROM t WHERE";
        let error = parse(sql).expect_err("incomplete");
        assert_eq!(error.message, "syntax error at end of input");
        let sql = "SELECT f() OVER (ROWS 1 PRECEDING EXCLUDE GROUP) FROM t t2 t3";
        let error = parse(sql).expect_err("bad alias");
        assert_eq!(error.position, Some(60));
    }
}
