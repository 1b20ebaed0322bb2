//! FETCH and MOVE on a cursor, which sqlparser does not parse as PostgreSQL writes them
//! (`FETCH c`, `FORWARD` alone, negative counts, MOVE). Parsed here with its token helpers.

use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `FETCH|MOVE [direction] [FROM|IN] cursor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchCursor {
    /// MOVE: positions the cursor and returns no rows.
    pub move_only: bool,
    pub direction: FetchDirection,
    pub cursor: sqlparser::ast::Ident,
}

/// Where a FETCH goes, in PostgreSQL's terms: `count` rows forward (`None`: all), backward,
/// or to one row by its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchDirection {
    Forward(Option<i64>),
    Backward(Option<i64>),
    /// ABSOLUTE n (FIRST is 1, LAST is -1: counted from the end).
    Absolute(i64),
    /// RELATIVE n (0 refetches the current row).
    Relative(i64),
}

/// Whether the parser stands at FETCH or MOVE.
pub fn starts(parser: &Parser) -> bool {
    matches!(
        &parser.peek_token_ref().token,
        Token::Word(w) if w.quote_style.is_none() && (w.keyword == Keyword::FETCH || is_move(w))
    )
}

/// MOVE, which is no keyword of sqlparser's.
fn is_move(word: &sqlparser::tokenizer::Word) -> bool {
    word.quote_style.is_none() && word.value.eq_ignore_ascii_case("move")
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<FetchCursor, ParserError> {
    let move_only = match &parser.next_token().token {
        Token::Word(w) => is_move(w),
        _ => false,
    };
    let direction = direction(parser)?;
    // FROM/IN is optional; the cursor name is the last word either way.
    let _ = parser.parse_one_of_keywords(&[Keyword::FROM, Keyword::IN]);
    let cursor = parser.parse_identifier()?;
    Ok(FetchCursor {
        move_only,
        direction,
        cursor,
    })
}

fn direction(parser: &mut Parser) -> Result<FetchDirection, ParserError> {
    use FetchDirection as D;
    let keyword = match &parser.peek_token_ref().token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        Token::Number(..) | Token::Minus | Token::Plus => {
            return Ok(signed(count(parser)?, D::Forward, D::Backward));
        }
        _ => Keyword::NoKeyword,
    };
    // A lone name is the cursor: FETCH c.
    let cursor_follows = !matches!(
        parser.peek_nth_token_ref(1).token,
        Token::EOF | Token::SemiColon
    );
    let taken = |parser: &mut Parser| parser.next_token();
    Ok(match keyword {
        Keyword::NEXT if cursor_follows => {
            taken(parser);
            D::Forward(Some(1))
        }
        Keyword::PRIOR if cursor_follows => {
            taken(parser);
            D::Backward(Some(1))
        }
        Keyword::FIRST if cursor_follows => {
            taken(parser);
            D::Absolute(1)
        }
        Keyword::LAST if cursor_follows => {
            taken(parser);
            D::Absolute(-1)
        }
        Keyword::ABSOLUTE if cursor_follows => {
            taken(parser);
            D::Absolute(count(parser)?)
        }
        Keyword::RELATIVE if cursor_follows => {
            taken(parser);
            D::Relative(count(parser)?)
        }
        Keyword::ALL if cursor_follows => {
            taken(parser);
            D::Forward(None)
        }
        Keyword::FORWARD | Keyword::BACKWARD if cursor_follows => {
            taken(parser);
            let (ahead, back): (Toward, Toward) = match keyword == Keyword::FORWARD {
                true => (D::Forward, D::Backward),
                false => (D::Backward, D::Forward),
            };
            if parser.parse_keyword(Keyword::ALL) {
                ahead(None)
            } else if matches!(
                parser.peek_token_ref().token,
                Token::Number(..) | Token::Minus | Token::Plus
            ) {
                signed(count(parser)?, ahead, back)
            } else {
                ahead(Some(1))
            }
        }
        _ => D::Forward(Some(1)),
    })
}

/// A direction with its count.
type Toward = fn(Option<i64>) -> FetchDirection;

/// `n` rows one way, or `-n` the other.
fn signed(n: i64, ahead: Toward, back: Toward) -> FetchDirection {
    match n < 0 {
        true => back(Some(n.saturating_neg())),
        false => ahead(Some(n)),
    }
}

/// A signed integer constant.
fn count(parser: &mut Parser) -> Result<i64, ParserError> {
    let negative = match parser.peek_token_ref().token {
        Token::Minus => {
            parser.next_token();
            true
        }
        Token::Plus => {
            parser.next_token();
            false
        }
        _ => false,
    };
    let token = parser.next_token();
    let Token::Number(text, _) = &token.token else {
        return parser.expected("a row count", token);
    };
    let n: i64 = text
        .parse()
        .map_err(|_| ParserError::ParserError(format!("syntax error at or near \"{text}\"")))?;
    Ok(if negative { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::{FetchCursor, FetchDirection as D};
    use crate::parser::{parse, Statement};

    fn fetch(sql: &str) -> FetchCursor {
        let parsed = parse(sql).ok().and_then(|mut p| p.pop());
        match parsed.map(|p| p.statement) {
            Some(Statement::Fetch(fetch)) => fetch,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn directions() {
        for (sql, direction) in [
            ("FETCH c", D::Forward(Some(1))),
            ("FETCH NEXT FROM c", D::Forward(Some(1))),
            ("FETCH PRIOR c", D::Backward(Some(1))),
            ("FETCH FIRST IN c", D::Absolute(1)),
            ("FETCH LAST c", D::Absolute(-1)),
            ("FETCH ABSOLUTE -2 c", D::Absolute(-2)),
            ("FETCH RELATIVE 0 c", D::Relative(0)),
            ("FETCH 3 c", D::Forward(Some(3))),
            ("FETCH -3 c", D::Backward(Some(3))),
            ("FETCH ALL c", D::Forward(None)),
            ("FETCH FORWARD c", D::Forward(Some(1))),
            ("FETCH FORWARD 5 FROM c", D::Forward(Some(5))),
            ("FETCH FORWARD ALL c", D::Forward(None)),
            ("FETCH BACKWARD -2 c", D::Forward(Some(2))),
            ("FETCH BACKWARD ALL FROM c", D::Backward(None)),
        ] {
            assert_eq!(fetch(sql).direction, direction, "{sql}");
            assert_eq!(fetch(sql).cursor.value, "c", "{sql}");
        }
        assert!(fetch("MOVE LAST IN \"C\"").move_only);
        assert_eq!(fetch("MOVE next \"C\"").cursor.value, "C");
    }
}
