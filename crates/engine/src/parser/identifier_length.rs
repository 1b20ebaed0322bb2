//! Identifiers longer than PostgreSQL's NAMEDATALEN - 1 (63) bytes are cut to that length
//! on a character boundary, quoted or not, as PostgreSQL's scanner does
//! (`truncate_identifier`), so two long names sharing their first 63 bytes are one name.
//! Each cut is reported, for the session to raise PostgreSQL's NOTICE 42622.

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// PostgreSQL's NAMEDATALEN - 1: the longest identifier, in bytes.
pub const IDENTIFIER_BYTES_MAX: usize = 63;

/// An identifier as written, and as it was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncatedIdentifier {
    pub written: String,
    pub truncated: String,
}

impl TruncatedIdentifier {
    /// PostgreSQL's NOTICE text.
    pub fn message(&self) -> String {
        format!(
            "identifier \"{}\" will be truncated to \"{}\"",
            self.written, self.truncated
        )
    }
}

/// Cuts every over-long word of `tokens`; returns what it cut, in order.
pub fn truncate(tokens: &mut [TokenWithSpan]) -> Vec<TruncatedIdentifier> {
    let mut cut = Vec::new();
    for token in tokens {
        if let Token::Word(word) = &mut token.token {
            if word.value.len() > IDENTIFIER_BYTES_MAX {
                let end = (0..=IDENTIFIER_BYTES_MAX)
                    .rev()
                    .find(|&end| word.value.is_char_boundary(end))
                    .unwrap_or(0);
                let truncated = word.value[..end].to_string();
                let written = std::mem::replace(&mut word.value, truncated.clone());
                // The notice shows an unquoted name folded, as the binder will read it.
                let fold = |name: String| match word.quote_style {
                    None => name.to_ascii_lowercase(),
                    Some(_) => name,
                };
                cut.push(TruncatedIdentifier {
                    written: fold(written),
                    truncated: fold(truncated),
                });
            }
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn cut(sql: &str) -> Vec<TruncatedIdentifier> {
        let mut tokens = Tokenizer::new(&PostgreSqlDialect {}, sql)
            .tokenize_with_location()
            .expect("tokenizes");
        truncate(&mut tokens)
    }

    #[test]
    fn cuts_at_63_bytes_on_a_character_boundary() {
        let long = "a".repeat(70);
        assert_eq!(
            cut(&format!("SELECT 1 AS {long}"))[0].truncated,
            "a".repeat(63)
        );
        // 62 ASCII bytes, then a two-byte character that would end at byte 64.
        let multibyte = format!("{}éé", "b".repeat(62));
        let cuts = cut(&format!("SELECT 1 AS \"{multibyte}\""));
        assert_eq!(cuts[0].truncated, "b".repeat(62));
        assert!(
            cut(&format!("SELECT '{long}'")).is_empty(),
            "a string is no identifier"
        );
        assert!(cut(&format!("SELECT 1 AS {}", "c".repeat(63))).is_empty());
    }
}
