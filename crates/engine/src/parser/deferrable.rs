//! `[NOT] DEFERRABLE` among the modes of BEGIN, START TRANSACTION, SET TRANSACTION and SET
//! SESSION CHARACTERISTICS AS TRANSACTION (pg_dump sends `SERIALIZABLE, READ ONLY,
//! DEFERRABLE`), which sqlparser does not know. A pre-pass takes the mode out of the tokens.
//! Dropping it changes nothing: DEFERRABLE makes a SERIALIZABLE READ ONLY transaction wait
//! for a snapshot that no serialization failure can touch, and here a transaction that only
//! reads never fails (see `storage/isolation.rs`), so every snapshot is one.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{lower_word as word, next_significant};

/// Removes `[NOT] DEFERRABLE` (and the comma that separates it) from every statement of
/// `tokens` that sets transaction modes.
pub fn strip(tokens: &mut Vec<TokenWithSpan>) {
    // Every statement is parsed through here: most never say DEFERRABLE.
    if !tokens
        .iter()
        .any(|t| matches!(&t.token, Token::Word(w) if w.value.eq_ignore_ascii_case("deferrable")))
    {
        return;
    }
    let mut i = 0;
    let mut statement: Vec<String> = Vec::new();
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::SemiColon => statement.clear(),
            token => {
                let current = word(token);
                if current.as_deref() == Some("deferrable") && sets_modes(&statement) {
                    let mut start = i;
                    if statement.last().is_some_and(|w| w == "not") {
                        start = previous_significant(tokens, i).unwrap_or(i);
                    }
                    let mut end = i + 1;
                    // One comma goes with the mode: the one before it, else the one after.
                    match previous_significant(tokens, start) {
                        Some(comma) if tokens[comma].token == Token::Comma => start = comma,
                        _ => {
                            if let Some(next) = next_significant(tokens, end) {
                                if tokens[next].token == Token::Comma {
                                    end = next + 1;
                                }
                            }
                        }
                    }
                    tokens.drain(start..end);
                    i = start;
                    continue;
                }
                statement.push(current.unwrap_or_default());
            }
        }
        i += 1;
    }
}

/// Whether a statement starting with `words` takes transaction modes.
fn sets_modes(words: &[String]) -> bool {
    let starts = |prefix: &[&str]| {
        words.len() >= prefix.len() && words.iter().zip(prefix).all(|(w, p)| w == p)
    };
    starts(&["begin"])
        || starts(&["start", "transaction"])
        || starts(&["set", "transaction"])
        || starts(&["set", "session", "characteristics"])
}

fn previous_significant(tokens: &[TokenWithSpan], before: usize) -> Option<usize> {
    (0..before)
        .rev()
        .find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
}

#[cfg(test)]
mod tests {
    use crate::parser::parse;

    fn text(sql: &str) -> Vec<String> {
        parse(sql)
            .map(|s| {
                s.iter()
                    .map(|p| {
                        p.statement
                            .sql()
                            .map(ToString::to_string)
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_else(|e| vec![e.to_string()])
    }

    #[test]
    fn deferrable_modes_are_taken_out() {
        assert_eq!(
            text("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE"),
            ["SET TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY"]
        );
        assert_eq!(
            text("BEGIN NOT DEFERRABLE, READ ONLY; SELECT 1"),
            ["BEGIN READ ONLY", "SELECT 1"]
        );
        assert_eq!(text("START TRANSACTION DEFERRABLE"), ["START TRANSACTION"]);
        assert_eq!(text("SELECT 1 AS deferrable"), ["SELECT 1 AS deferrable"]);
    }
}
