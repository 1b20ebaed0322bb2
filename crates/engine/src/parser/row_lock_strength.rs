//! `FOR NO KEY UPDATE` and `FOR KEY SHARE`, which sqlparser does not know, become `FOR
//! UPDATE` and `FOR SHARE`. Row locks here have two strengths, so the weaker PostgreSQL
//! ones take the stronger lock: a NO KEY UPDATE or KEY SHARE locker may wait where
//! PostgreSQL would not (they differ only towards foreign key checks), never the reverse.

use sqlparser::tokenizer::{Token, TokenWithSpan};

fn word(token: &Token) -> Option<String> {
    match token {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_lowercase()),
        _ => None,
    }
}

/// Takes NO KEY / KEY out of `FOR NO KEY UPDATE` / `FOR KEY SHARE` in `tokens`.
pub fn normalize(tokens: &mut Vec<TokenWithSpan>) {
    // Every statement is parsed through here: most have no KEY at all.
    if !tokens
        .iter()
        .any(|t| matches!(&t.token, Token::Word(w) if w.value.eq_ignore_ascii_case("key")))
    {
        return;
    }
    let significant = |tokens: &[TokenWithSpan]| -> Vec<usize> {
        (0..tokens.len())
            .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
            .collect()
    };
    let mut at = 0;
    loop {
        let positions = significant(tokens);
        let words: Vec<Option<String>> =
            positions.iter().map(|&i| word(&tokens[i].token)).collect();
        let found = (at..words.len()).find_map(|k| {
            let is = |offset: usize, w: &str| {
                words.get(k + offset).and_then(|x| x.as_deref()) == Some(w)
            };
            if !is(0, "for") {
                return None;
            }
            if is(1, "no") && is(2, "key") && is(3, "update") {
                Some((k, vec![positions[k + 1], positions[k + 2]]))
            } else if is(1, "key") && is(2, "share") {
                Some((k, vec![positions[k + 1]]))
            } else {
                None
            }
        });
        let Some((k, remove)) = found else {
            return;
        };
        for index in remove.into_iter().rev() {
            tokens.remove(index);
        }
        at = k + 1;
    }
}

#[cfg(test)]
mod tests {
    use crate::parser::parsed_text as text;

    #[test]
    fn weaker_strengths_read_as_the_stronger() {
        assert_eq!(
            text("SELECT a FROM t FOR NO KEY UPDATE"),
            "SELECT a FROM t FOR UPDATE"
        );
        assert_eq!(
            text("SELECT a FROM t FOR KEY SHARE SKIP LOCKED"),
            "SELECT a FROM t FOR SHARE SKIP LOCKED"
        );
    }
}
