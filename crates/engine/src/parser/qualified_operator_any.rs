//! `x OPERATOR(pg_catalog.=) ANY (array)`: pg_dump writes its pattern queries so, and
//! sqlparser reads a quantified comparison only after a bare operator. pg_catalog's
//! operator is the only one of that name here, so a pre-pass drops the qualification when
//! ANY, ALL or SOME follows (elsewhere the binder resolves `OPERATOR(...)` itself).

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

fn keyword(token: &Token) -> Keyword {
    match token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Rewrites `OPERATOR ( pg_catalog . op ) ANY|ALL|SOME` to `op ANY|ALL|SOME` in `tokens`.
pub fn unqualify(tokens: &mut Vec<TokenWithSpan>) {
    if !tokens
        .iter()
        .any(|t| keyword(&t.token) == Keyword::OPERATOR)
    {
        return;
    }
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let at = |k: usize| significant.get(k).map(|&i| &tokens[i].token);
    let mut rewrites = Vec::new();
    for k in 0..significant.len() {
        let shape = (at(k), at(k + 1), at(k + 2), at(k + 3), at(k + 5), at(k + 6));
        let (
            Some(start),
            Some(Token::LParen),
            Some(Token::Word(schema)),
            Some(Token::Period),
            Some(Token::RParen),
            Some(next),
        ) = shape
        else {
            continue;
        };
        let quantified = matches!(keyword(next), Keyword::ANY | Keyword::ALL | Keyword::SOME);
        if keyword(start) == Keyword::OPERATOR
            && schema.quote_style.is_none()
            && schema.value.eq_ignore_ascii_case("pg_catalog")
            && quantified
        {
            rewrites.push((significant[k], significant[k + 4], significant[k + 5]));
        }
    }
    for &(start, operator, end) in rewrites.iter().rev() {
        let operator = tokens[operator].clone();
        tokens.splice(start..=end, [operator]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quantified_comparison_loses_its_schema() {
        let parsed = crate::parser::parse("SELECT 1 OPERATOR(pg_catalog.=) ANY (array[1, 2])");
        assert!(parsed.is_ok(), "{parsed:?}");
    }
}
