//! `a JOIN b USING (i, ...) AS x` (PostgreSQL 14's join_using_alias), which sqlparser does
//! not know: the alias becomes one more, qualified, entry of the USING list,
//! `USING (i, ..., "AS".x)`, which the binder takes back out ([`split_join_alias`]). PostgreSQL
//! rejects a qualified name in USING, so no query it accepts is read differently.

use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

use super::{lower_word, next_significant};

/// The first part of the USING entry that carries a join alias.
const ALIAS_MARKER: &str = "AS";

/// Moves every `USING (names) AS alias` alias into its USING list.
pub fn rewrite(tokens: &mut Vec<TokenWithSpan>) {
    // Every statement is parsed through here: most have no USING at all.
    if !tokens
        .iter()
        .any(|t| lower_word(&t.token).as_deref() == Some("using"))
    {
        return;
    }
    let mut at = 0;
    while at < tokens.len() {
        if lower_word(&tokens[at].token).as_deref() == Some("using") {
            if let Some(close) = name_list_end(tokens, at) {
                move_alias(tokens, close);
            }
        }
        at += 1;
    }
}

/// The `)` closing `USING (name, ...)` at `using`, when the list holds only names.
fn name_list_end(tokens: &[TokenWithSpan], using: usize) -> Option<usize> {
    let open = next_significant(tokens, using + 1)?;
    if tokens[open].token != Token::LParen {
        return None;
    }
    let mut name_due = true;
    let mut at = open + 1;
    loop {
        at = next_significant(tokens, at)?;
        match &tokens[at].token {
            Token::Word(_) if name_due => name_due = false,
            Token::Comma if !name_due => name_due = true,
            Token::RParen if !name_due => return Some(at),
            _ => return None,
        }
        at += 1;
    }
}

/// Turns `) AS alias` after the list closed at `close` into `, "AS".alias)`.
fn move_alias(tokens: &mut Vec<TokenWithSpan>, close: usize) {
    let Some(as_at) = next_significant(tokens, close + 1) else {
        return;
    };
    if lower_word(&tokens[as_at].token).as_deref() != Some("as") {
        return;
    }
    let Some(alias_at) = next_significant(tokens, as_at + 1) else {
        return;
    };
    let Token::Word(alias) = &tokens[alias_at].token else {
        return;
    };
    let (alias, span) = (alias.clone(), tokens[alias_at].span);
    let marker = Token::Word(Word {
        value: ALIAS_MARKER.to_string(),
        quote_style: Some('"'),
        keyword: sqlparser::keywords::Keyword::NoKeyword,
    });
    let entry = [Token::Comma, marker, Token::Period, Token::Word(alias)]
        .map(|token| TokenWithSpan { token, span });
    tokens.drain(close + 1..=alias_at);
    tokens.splice(close..close, entry);
}

/// Splits a USING list into its column names and the join alias the pre-pass put there.
pub fn split_join_alias(using: &[ObjectName]) -> (&[ObjectName], Option<&Ident>) {
    if let Some((last, names)) = using.split_last() {
        if let [ObjectNamePart::Identifier(marker), ObjectNamePart::Identifier(alias)] =
            last.0.as_slice()
        {
            if marker.value == ALIAS_MARKER && marker.quote_style == Some('"') {
                return (names, Some(alias));
            }
        }
    }
    (using, None)
}

#[cfg(test)]
mod tests {
    use crate::parser::parsed_text as text;

    #[test]
    fn the_alias_joins_the_using_list() {
        assert_eq!(
            text("SELECT * FROM a JOIN b USING (i, j) AS x WHERE x.i = 1"),
            "SELECT * FROM a JOIN b USING(i, j, \"AS\".x) WHERE x.i = 1"
        );
        assert_eq!(
            text("DELETE FROM t USING (SELECT 1) AS s"),
            "DELETE FROM t USING (SELECT 1) AS s"
        );
    }
}
