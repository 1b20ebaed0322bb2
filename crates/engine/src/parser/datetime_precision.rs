//! The precision of `timestamp(p)`, `time(p)`, `timestamptz(p)`, `timetz(p)` and
//! `interval(p)` as PostgreSQL's typmodin functions take it: above 6 it is 6, with a
//! WARNING; below 0 it is error 22023 (for `timestamptz(-1)` and `timetz(-1)`: after the
//! keywords, a minus sign is a syntax error). sqlparser reads the precision as an unsigned number,
//! so a pre-pass clamps it and reports, before the parse.

use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

use super::{lower_word, next_significant, previous_significant};
use crate::error::Result;
use crate::types::precision;

/// Clamps every datetime precision above 6 in `tokens`; returns the warnings, in order.
pub fn clamp(tokens: &mut [TokenWithSpan]) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    for at in 0..tokens.len() {
        let Some(word) = lower_word(&tokens[at].token) else {
            continue;
        };
        let Some(name) = type_name(&word).or_else(|| interval_second(tokens, at, &word)) else {
            continue;
        };
        let Some(open) = next_significant(tokens, at + 1) else {
            continue;
        };
        if tokens[open].token != Token::LParen {
            continue;
        }
        let Some(mut number) = next_significant(tokens, open + 1) else {
            continue;
        };
        let negative = tokens[number].token == Token::Minus;
        // PostgreSQL's grammar takes only an unsigned precision after the keywords
        // (a syntax error at "-"); the other names reach the typmodin function.
        if negative && !matches!(word.as_str(), "timestamptz" | "timetz") {
            continue;
        }
        if negative {
            match next_significant(tokens, number + 1) {
                Some(next) => number = next,
                None => continue,
            }
        }
        let Token::Number(digits, _) = &tokens[number].token else {
            continue;
        };
        let Ok(value) = digits.parse::<i64>() else {
            continue;
        };
        let closed = next_significant(tokens, number + 1)
            .is_some_and(|close| tokens[close].token == Token::RParen);
        if !closed {
            continue;
        }
        let value = if negative { -value } else { value };
        let name = match name {
            "TIMESTAMP" | "TIME" if with_time_zone(tokens, number) => match name {
                "TIMESTAMP" => "TIMESTAMP WITH TIME ZONE",
                _ => "TIME WITH TIME ZONE",
            },
            name => name,
        };
        let (clamped, warning) = precision::declared(name, value)?;
        if let Some(warning) = warning {
            tokens[number].token = Token::Number(clamped.to_string(), false);
            warnings.push(warning);
        }
    }
    Ok(warnings)
}

/// Rewrites `interval(p) 'text'`, which sqlparser reads as `interval 'text'` with the
/// precision lost, into `CAST('text' AS interval(p))`: the same value, rounded.
pub fn cast_interval_literals(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at < tokens.len() {
        if let Some(end) = interval_literal_end(tokens, at) {
            let span = tokens[at].span;
            let literal = tokens[end].clone();
            let type_tokens: Vec<TokenWithSpan> = tokens[at..end].to_vec();
            let token = |token| TokenWithSpan::new(token, span);
            let mut cast = vec![
                token(Token::make_keyword("CAST")),
                token(Token::LParen),
                literal,
                token(Token::Whitespace(Whitespace::Space)),
                token(Token::make_keyword("AS")),
                token(Token::Whitespace(Whitespace::Space)),
            ];
            cast.extend(type_tokens);
            cast.push(token(Token::RParen));
            let added = cast.len();
            tokens.splice(at..=end, cast);
            at += added;
            continue;
        }
        at += 1;
    }
}

/// Where the string of an `interval ( n ) 'text'` starting at `at` is.
fn interval_literal_end(tokens: &[TokenWithSpan], at: usize) -> Option<usize> {
    if lower_word(&tokens[at].token).as_deref() != Some("interval") {
        return None;
    }
    let open = next_significant(tokens, at + 1)?;
    let number = next_significant(tokens, open + 1)?;
    let close = next_significant(tokens, number + 1)?;
    let literal = next_significant(tokens, close + 1)?;
    let shape = (
        &tokens[open].token,
        &tokens[number].token,
        &tokens[close].token,
        &tokens[literal].token,
    );
    matches!(
        shape,
        (
            Token::LParen,
            Token::Number(..),
            Token::RParen,
            Token::SingleQuotedString(_)
        )
    )
    .then_some(literal)
}

/// How the typmodin messages name the type a word starts, if it takes a precision.
/// `second(p)` as an interval's last field (`interval second(7)`, `day to second(7)`,
/// `interval '1' second(7)`), whose precision PostgreSQL reports as INTERVAL's.
fn interval_second(tokens: &[TokenWithSpan], at: usize, word: &str) -> Option<&'static str> {
    if word != "second" {
        return None;
    }
    let mut previous = previous_significant(tokens, at)?;
    if matches!(tokens[previous].token, Token::SingleQuotedString(_)) {
        previous = previous_significant(tokens, previous)?;
        let interval = lower_word(&tokens[previous].token).as_deref() == Some("interval");
        return interval.then_some("INTERVAL");
    }
    let after_fields = matches!(
        lower_word(&tokens[previous].token).as_deref(),
        Some("interval" | "to")
    );
    after_fields.then_some("INTERVAL")
}

fn type_name(word: &str) -> Option<&'static str> {
    Some(match word {
        "timestamp" => "TIMESTAMP",
        "timestamptz" => "TIMESTAMP WITH TIME ZONE",
        "time" => "TIME",
        "timetz" => "TIME WITH TIME ZONE",
        "interval" => "INTERVAL",
        _ => return None,
    })
}

/// Whether `WITH TIME ZONE` follows the `)` after the precision at `number`.
fn with_time_zone(tokens: &[TokenWithSpan], number: usize) -> bool {
    let mut at = next_significant(tokens, number + 1);
    for expected in ["with", "time", "zone"] {
        let Some(i) = at.and_then(|i| next_significant(tokens, i + 1)) else {
            return false;
        };
        if lower_word(&tokens[i].token).as_deref() != Some(expected) {
            return false;
        }
        at = Some(i);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn clamped(sql: &str) -> Result<(String, Vec<String>)> {
        let mut tokens = Tokenizer::new(&PostgreSqlDialect {}, sql)
            .tokenize_with_location()
            .expect("tokenizes");
        let warnings = clamp(&mut tokens)?;
        let text = tokens.iter().map(|t| t.token.to_string()).collect();
        Ok((text, warnings))
    }

    #[test]
    fn clamps_and_warns() {
        let (sql, warnings) =
            clamped("CREATE TABLE t (a timestamp(7) with time zone, b time (3))").expect("clamps");
        assert_eq!(
            sql,
            "CREATE TABLE t (a timestamp(6) with time zone, b time (3))"
        );
        assert_eq!(
            warnings,
            ["TIMESTAMP(7) WITH TIME ZONE precision reduced to maximum allowed, 6"]
        );
        let (_, warnings) = clamped("SELECT interval(9) '1 s'").expect("clamps");
        assert_eq!(
            warnings,
            ["INTERVAL(9) precision reduced to maximum allowed, 6"]
        );
    }

    #[test]
    fn clamps_the_second_field_of_an_interval() {
        let (sql, warnings) =
            clamped("SELECT interval '1' second(7), '1'::interval day to second (8), second(9)")
                .expect("clamps");
        assert_eq!(
            sql,
            "SELECT interval '1' second(6), '1'::interval day to second (6), second(9)"
        );
        assert_eq!(
            warnings,
            [
                "INTERVAL(7) precision reduced to maximum allowed, 6",
                "INTERVAL(8) precision reduced to maximum allowed, 6"
            ]
        );
    }

    #[test]
    fn casts_interval_literals() {
        let mut tokens = Tokenizer::new(
            &PostgreSqlDialect {},
            "SELECT interval (2) '1.2345 s', interval '1 s'",
        )
        .tokenize_with_location()
        .expect("tokenizes");
        cast_interval_literals(&mut tokens);
        let text: String = tokens.iter().map(|t| t.token.to_string()).collect();
        assert_eq!(
            text,
            "SELECT CAST('1.2345 s' AS interval (2) ), interval '1 s'"
        );
    }

    #[test]
    fn refuses_a_negative_precision() {
        let err = clamped("SELECT '1:00'::timetz(-1)").expect_err("negative");
        assert_eq!(
            err.message,
            "TIME(-1) WITH TIME ZONE precision must not be negative"
        );
        assert_eq!(err.sqlstate(), "22023");
    }
}
