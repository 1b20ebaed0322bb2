//! CREATE EXTENSION's options as PostgreSQL writes them: `WITH` is optional before
//! `SCHEMA s`, `VERSION v` and `CASCADE`, and a version may be a string. sqlparser requires
//! the WITH and an identifier, so a pre-pass adds the one and turns the other into a quoted
//! identifier.

use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use super::{lower_word, next_significant};

/// Rewrites the options of every CREATE EXTENSION statement in `tokens`.
pub fn normalize(tokens: &mut Vec<TokenWithSpan>) {
    let mut statement: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::SemiColon => statement.clear(),
            token => {
                statement.push(lower_word(token).unwrap_or_default());
                if statement.len() >= 3 && statement[..2] == ["create", "extension"] {
                    let name_at = match statement[2].as_str() {
                        "if" => 6,
                        _ => 3,
                    };
                    if statement.len() == name_at {
                        add_with(tokens, i);
                    }
                    if statement.last().is_some_and(|w| w == "version") {
                        quote_version(tokens, i);
                    }
                }
            }
        }
        i += 1;
    }
}

/// Puts `WITH` after the extension's name at `name` when an option follows it directly.
fn add_with(tokens: &mut Vec<TokenWithSpan>, name: usize) {
    let Some(next) = next_significant(tokens, name + 1) else {
        return;
    };
    if matches!(
        lower_word(&tokens[next].token).as_deref(),
        Some("schema" | "version" | "cascade")
    ) {
        let span = tokens[next].span;
        tokens.insert(
            next,
            TokenWithSpan::new(
                Token::Whitespace(sqlparser::tokenizer::Whitespace::Space),
                span,
            ),
        );
        tokens.insert(next, TokenWithSpan::new(Token::make_keyword("WITH"), span));
    }
}

/// A string after VERSION (at `version`) becomes the quoted identifier sqlparser wants.
fn quote_version(tokens: &mut [TokenWithSpan], version: usize) {
    if let Some(next) = next_significant(tokens, version + 1) {
        if let Token::SingleQuotedString(text) = &tokens[next].token {
            tokens[next].token = Token::Word(Word {
                value: text.clone(),
                quote_style: Some('"'),
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::parser::{parse, Statement};
    use sqlparser::ast;

    fn create(sql: &str) -> ast::CreateExtension {
        let parsed = parse(sql).expect("parses");
        match &parsed[0].statement {
            Statement::Sql(ast::Statement::CreateExtension(create)) => create.clone(),
            other => panic!("not CREATE EXTENSION: {other:?}"),
        }
    }

    #[test]
    fn options_without_with() {
        let c =
            create("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public VERSION '0.7.0' CASCADE");
        assert!(c.if_not_exists && c.cascade);
        assert_eq!(c.schema.map(|s| s.value).as_deref(), Some("public"));
        assert_eq!(c.version.map(|v| v.value).as_deref(), Some("0.7.0"));
        let c = create("create extension vector with schema s");
        assert_eq!(c.schema.map(|s| s.value).as_deref(), Some("s"));
        let c = create("CREATE EXTENSION vector");
        assert!(c.schema.is_none() && c.version.is_none());
    }
}
