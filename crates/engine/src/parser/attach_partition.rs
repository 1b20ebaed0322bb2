//! `ALTER TABLE t ATTACH PARTITION c FOR VALUES ...` and `DETACH PARTITION c`, and ALTER
//! INDEX's ATTACH PARTITION: sqlparser does not parse them for PostgreSQL, so a pre-pass
//! answers them with 0A000 rather than a syntax error about valid SQL.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::error::{Error, Result};

/// 0A000 if a statement is ALTER TABLE or ALTER INDEX with ATTACH or DETACH PARTITION.
pub fn check(tokens: &[TokenWithSpan]) -> Result<()> {
    let word = |token: &Token| match token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let significant = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| !matches!(t, Token::Whitespace(_)));
    let mut statement: Vec<Option<String>> = Vec::new();
    for token in significant.chain(std::iter::once(&Token::SemiColon)) {
        if *token != Token::SemiColon {
            statement.push(word(token));
            continue;
        }
        let altered = match statement.as_slice() {
            [Some(alter), Some(kind), ..] if alter == "ALTER" => Some(kind.as_str()),
            _ => None,
        };
        let action = statement.windows(2).find_map(|pair| match pair {
            [Some(action), Some(partition)]
                if (action == "ATTACH" || action == "DETACH") && partition == "PARTITION" =>
            {
                Some(action.as_str())
            }
            _ => None,
        });
        if let (Some(kind @ ("TABLE" | "INDEX")), Some(action)) = (altered, action) {
            return Err(Error::unsupported(format!(
                "ALTER {kind} ... {action} PARTITION"
            )));
        }
        statement.clear();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn checked(sql: &str) -> Result<()> {
        let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql)
            .tokenize_with_location()
            .map_err(|e| Error::syntax(e.to_string()))?;
        check(&tokens)
    }

    #[test]
    fn attach_and_detach_are_unsupported() {
        for sql in [
            "ALTER TABLE p ATTACH PARTITION c FOR VALUES IN (1)",
            "select 1; alter table only p detach partition c concurrently",
            "ALTER INDEX pi ATTACH PARTITION ci",
        ] {
            let error = checked(sql).err().map(|e| e.state);
            assert_eq!(
                error,
                Some(crate::error::SqlState::FeatureNotSupported),
                "{sql}"
            );
        }
    }

    #[test]
    fn other_statements_pass() {
        for sql in [
            "ALTER TABLE p ADD COLUMN attach int",
            "SELECT 'ALTER TABLE p ATTACH PARTITION c'",
            "ALTER TABLE p RENAME TO partition",
        ] {
            assert!(checked(sql).is_ok(), "{sql}");
        }
    }
}
