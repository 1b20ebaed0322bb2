//! Window frame offsets that start with a quoted string and go on: `RANGE BETWEEN '1
//! year'::interval PRECEDING AND ...`. sqlparser reads a frame bound that starts with a
//! string as an interval literal (`'1 day' PRECEDING`), so the `::` after it is a syntax
//! error, while PostgreSQL's grammar takes any expression there. The pre-pass puts such an
//! offset in parentheses, which sqlparser reads as an expression; a lone string is left
//! alone (the binder reads it as PostgreSQL's untyped literal). The parentheses carry the
//! string's location and the closing one PRECEDING's, so errors point near where they did.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{next_significant, previous_significant};

fn is_keyword(token: &Token, keywords: &[Keyword]) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && keywords.contains(&w.keyword))
}

/// Whether the significant token at `at` is where a frame bound starts right after: the
/// units (`ROWS`), `BETWEEN` after them, or the `AND` after a first bound.
fn bound_starts_after(tokens: &[TokenWithSpan], at: usize) -> bool {
    const UNITS: &[Keyword] = &[Keyword::ROWS, Keyword::RANGE, Keyword::GROUPS];
    let token = &tokens[at].token;
    let before = || previous_significant(tokens, at).map(|b| &tokens[b].token);
    if is_keyword(token, UNITS) {
        return true;
    }
    if is_keyword(token, &[Keyword::BETWEEN]) {
        return before().is_some_and(|t| is_keyword(t, UNITS));
    }
    is_keyword(token, &[Keyword::AND])
        && before()
            .is_some_and(|t| is_keyword(t, &[Keyword::PRECEDING, Keyword::FOLLOWING, Keyword::ROW]))
}

/// The last token of the offset whose string is at `start`: the one before the
/// `PRECEDING`/`FOLLOWING` at the same nesting, if the offset is more than the string.
fn offset_end(tokens: &[TokenWithSpan], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut last = start;
    let mut at = next_significant(tokens, start + 1)?;
    loop {
        match &tokens[at].token {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => depth = depth.checked_sub(1)?,
            Token::SemiColon | Token::EOF => return None,
            t if depth == 0 && is_keyword(t, &[Keyword::PRECEDING, Keyword::FOLLOWING]) => {
                return (last > start).then_some(last);
            }
            _ => {}
        }
        last = at;
        at = next_significant(tokens, at + 1)?;
    }
}

/// Puts every frame offset that starts with a string and goes on in parentheses.
pub fn parenthesize(tokens: &mut Vec<TokenWithSpan>) {
    if !tokens
        .iter()
        .any(|t| is_keyword(&t.token, &[Keyword::PRECEDING, Keyword::FOLLOWING]))
    {
        return;
    }
    let mut at = 0;
    while at < tokens.len() {
        let wraps = matches!(tokens[at].token, Token::SingleQuotedString(_))
            && previous_significant(tokens, at).is_some_and(|b| bound_starts_after(tokens, b));
        if let Some(end) = wraps.then(|| offset_end(tokens, at)).flatten() {
            // The closing one where PRECEDING/FOLLOWING is, the token it stands before.
            let close_span =
                next_significant(tokens, end + 1).map_or(tokens[end].span, |k| tokens[k].span);
            let span = tokens[at].span;
            tokens.insert(end + 1, TokenWithSpan::new(Token::RParen, close_span));
            tokens.insert(at, TokenWithSpan::new(Token::LParen, span));
            at = end + 3;
            continue;
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::parser::parse;

    fn window_sql(sql: &str) -> String {
        let parsed = parse(sql).expect("parses");
        parsed[0].statement.sql().expect("sqlparser's").to_string()
    }

    #[test]
    fn parenthesizes_cast_offsets_only() {
        let sql = "SELECT sum(x) OVER (ORDER BY d RANGE BETWEEN '1 year'::interval PRECEDING AND '2 days'::interval + '1 day' FOLLOWING) FROM t";
        assert!(window_sql(sql).contains(
            "RANGE BETWEEN ('1 year'::INTERVAL) PRECEDING AND ('2 days'::INTERVAL + '1 day') FOLLOWING"
        ));
        let sql = "SELECT sum(x) OVER (ORDER BY d ROWS '1'::int PRECEDING) FROM t";
        assert!(window_sql(sql).contains("ROWS ('1'::INT) PRECEDING"));
        let sql =
            "SELECT sum(x) OVER (ORDER BY d RANGE BETWEEN CURRENT ROW AND '1' FOLLOWING) FROM t";
        assert!(window_sql(sql).contains("AND INTERVAL '1' FOLLOWING"));
    }

    #[test]
    fn syntax_errors_keep_their_position() {
        let sql = "SELECT sum(x) OVER (ORDER BY d RANGE '1'::int + PRECEDING) FROM t";
        let error = parse(sql).expect_err("no operand");
        assert_eq!(error.position, Some(49));
    }
}
