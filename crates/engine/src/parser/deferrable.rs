//! `[NOT] DEFERRABLE` among the modes of BEGIN, START TRANSACTION, SET TRANSACTION and SET
//! SESSION CHARACTERISTICS AS TRANSACTION (pg_dump sends `SERIALIZABLE, READ ONLY,
//! DEFERRABLE`), which sqlparser does not know. A pre-pass takes the mode out of the tokens
//! and returns it per statement, for `transaction_deferrable` to show. It changes nothing
//! else: DEFERRABLE makes a SERIALIZABLE READ ONLY transaction wait for a snapshot that no
//! serialization failure can touch, and here a transaction that only reads never fails
//! (see `storage/isolation.rs`), so every snapshot is one.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{lower_word as word, next_significant, previous_significant};

/// Removes `[NOT] DEFERRABLE` (and the comma that separates it) from every statement of
/// `tokens` that sets transaction modes; returns per statement (counted as sqlparser counts
/// them) whether the last such mode said DEFERRABLE (true) or NOT DEFERRABLE (false).
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Vec<Option<bool>> {
    let mut per_statement = Vec::new();
    // Every statement is parsed through here: most never say DEFERRABLE.
    if !tokens
        .iter()
        .any(|t| matches!(&t.token, Token::Word(w) if w.value.eq_ignore_ascii_case("deferrable")))
    {
        return per_statement;
    }
    let mut i = 0;
    let mut statement: Vec<String> = Vec::new();
    let mut deferrable = None;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::SemiColon => {
                if !statement.is_empty() {
                    per_statement.push(deferrable.take());
                }
                statement.clear();
            }
            token => {
                let current = word(token);
                if current.as_deref() == Some("deferrable") && sets_modes(&statement) {
                    let mut start = i;
                    let negated = statement.last().is_some_and(|w| w == "not");
                    if negated {
                        start = previous_significant(tokens, i).unwrap_or(i);
                    }
                    deferrable = Some(!negated);
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
    if !statement.is_empty() {
        per_statement.push(deferrable);
    }
    per_statement
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

    #[test]
    fn deferrable_modes_are_returned_per_statement() {
        let modes =
            parse("BEGIN NOT DEFERRABLE; SELECT 1 AS deferrable; ; START TRANSACTION DEFERRABLE")
                .map(|s| {
                    s.iter()
                        .map(|p| p.transaction_deferrable)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
        assert_eq!(modes, [Some(false), None, Some(true)]);
    }
}
