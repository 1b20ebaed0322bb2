//! PostgreSQL's `TABLE name`, short for `SELECT * FROM name`. sqlparser reads it only after
//! a WITH clause or a set operator, and not as a statement, in parentheses or after INSERT's
//! target; a pre-pass spells it out as `SELECT * FROM` wherever a query may start, keeping
//! the TABLE token's location so errors still point at it.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

fn keyword(token: &Token) -> Keyword {
    match token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Rewrites every `TABLE name` that starts a query in `tokens`.
pub fn expand(tokens: &mut Vec<TokenWithSpan>) {
    if !tokens.iter().any(|t| keyword(&t.token) == Keyword::TABLE) {
        return;
    }
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let starts: Vec<usize> = (0..significant.len())
        .filter(|&k| {
            let at = |k: usize| &tokens[significant[k]].token;
            keyword(at(k)) == Keyword::TABLE
                && k + 1 < significant.len()
                && matches!(at(k + 1), Token::Word(w) if w.keyword != Keyword::ONLY)
                && starts_query(&at, k)
        })
        .map(|k| significant[k])
        .collect();
    for &index in starts.iter().rev() {
        let span = tokens[index].span;
        let spelled = [
            Token::make_keyword("SELECT"),
            Token::Mul,
            Token::make_keyword("FROM"),
        ]
        .map(|token| TokenWithSpan { token, span });
        tokens.splice(index..=index, spelled);
    }
}

/// Whether the TABLE at significant token `k` is where a query begins: at a statement's
/// start, after `(`, a set operator, `AS` (CREATE VIEW/TABLE ... AS), the `)` closing a WITH
/// query or an INSERT column list, or an INSERT's target name.
fn starts_query<'t>(at: &impl Fn(usize) -> &'t Token, k: usize) -> bool {
    let Some(previous) = k.checked_sub(1) else {
        return true;
    };
    match at(previous) {
        Token::SemiColon | Token::LParen | Token::RParen => true,
        token => match keyword(token) {
            Keyword::UNION | Keyword::EXCEPT | Keyword::INTERSECT | Keyword::AS => true,
            Keyword::ALL | Keyword::DISTINCT => previous.checked_sub(1).is_some_and(|p| {
                matches!(
                    keyword(at(p)),
                    Keyword::UNION | Keyword::EXCEPT | Keyword::INTERSECT
                )
            }),
            _ => after_insert_target(at, previous),
        },
    }
}

/// Whether significant token `last` ends `INTO name` or `INTO schema.name`.
fn after_insert_target<'t>(at: &impl Fn(usize) -> &'t Token, last: usize) -> bool {
    let mut k = last;
    if !matches!(at(k), Token::Word(_)) {
        return false;
    }
    while k >= 2 && matches!(at(k - 1), Token::Period) && matches!(at(k - 2), Token::Word(_)) {
        k -= 2;
    }
    k >= 1 && keyword(at(k - 1)) == Keyword::INTO
}

#[cfg(test)]
mod tests {
    use crate::parser::parse;

    fn round_trip(sql: &str) -> String {
        let parsed = parse(sql).expect("parses");
        parsed
            .iter()
            .map(|p| {
                p.statement
                    .sql()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    #[test]
    fn spells_out_table_where_a_query_starts() {
        assert_eq!(round_trip("TABLE t"), "SELECT * FROM t");
        assert_eq!(
            round_trip("table s.t union all TABLE u; (TABLE v)"),
            "SELECT * FROM s.t UNION ALL SELECT * FROM u; (SELECT * FROM v)"
        );
        assert_eq!(
            round_trip("INSERT INTO s.t TABLE u"),
            "INSERT INTO s.t SELECT * FROM u"
        );
        assert_eq!(
            round_trip("WITH c AS (TABLE t) TABLE c"),
            "WITH c AS (SELECT * FROM t) SELECT * FROM c"
        );
    }

    #[test]
    fn leaves_other_table_keywords_alone() {
        assert_eq!(round_trip("DROP TABLE t"), "DROP TABLE t");
        assert_eq!(round_trip("TRUNCATE TABLE t"), "TRUNCATE TABLE t");
        assert!(parse("SELECT 1 FROM TABLE t").is_err());
    }
}
