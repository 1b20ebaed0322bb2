//! The role statements sqlparser parses otherwise than PostgreSQL: `CREATE USER` (a
//! CREATE ROLE whose LOGIN defaults to on; sqlparser reads Snowflake's CREATE USER) and
//! role membership, `GRANT role [, ...] TO role [, ...] [WITH ADMIN OPTION]` and
//! `REVOKE [ADMIN OPTION FOR] role [, ...] FROM role [, ...] [CASCADE | RESTRICT]`
//! (sqlparser reads only privilege grants). `GRANTED BY` is kept to be refused. And
//! `CONNECTION LIMIT -1`, whose sign sqlparser does not read, is made one number token.

use sqlparser::ast::{CreateRole, Ident};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Joins the `-` of `CONNECTION LIMIT -n` to its number.
pub fn merge_negative_limits(tokens: &mut Vec<TokenWithSpan>) {
    let is_word = |token: &Token, word: &str| matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if !tokens.iter().any(|t| is_word(&t.token, "connection")) {
        return;
    }
    let significant: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    let mut merged = Vec::new();
    for window in significant.windows(4) {
        let [connection, limit, minus, number] = [window[0], window[1], window[2], window[3]];
        if is_word(&tokens[connection].token, "connection")
            && is_word(&tokens[limit].token, "limit")
            && tokens[minus].token == Token::Minus
        {
            if let Token::Number(digits, long) = &tokens[number].token {
                tokens[number].token = Token::Number(format!("-{digits}"), *long);
                merged.push(minus);
            }
        }
    }
    for minus in merged.into_iter().rev() {
        tokens.remove(minus);
    }
}

/// GRANT or REVOKE of role membership.
#[derive(Debug, Clone)]
pub struct RoleMembership {
    pub grant: bool,
    pub roles: Vec<Ident>,
    pub members: Vec<Ident>,
    /// WITH ADMIN OPTION (GRANT) or ADMIN OPTION FOR (REVOKE).
    pub admin_option: bool,
    pub granted_by: Option<Ident>,
    /// REVOKE ... CASCADE.
    pub cascade: bool,
}

fn word(parser: &Parser, n: usize) -> Keyword {
    match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Whether the parser stands at `CREATE USER`.
pub fn starts_create_user(parser: &Parser) -> bool {
    word(parser, 0) == Keyword::CREATE && word(parser, 1) == Keyword::USER
}

/// Parses the statement [`starts_create_user`] found.
pub fn parse_create_user(parser: &mut Parser) -> Result<CreateRole, ParserError> {
    parser.expect_keywords(&[Keyword::CREATE, Keyword::USER])?;
    parser.parse_create_role()
}

/// Whether the parser stands at a GRANT or REVOKE of roles: no `ON` before `TO` / `FROM`
/// (a privilege grant names its objects with ON), and no `ALL`.
pub fn starts_membership(parser: &Parser) -> bool {
    let end = match word(parser, 0) {
        Keyword::GRANT => Keyword::TO,
        Keyword::REVOKE => Keyword::FROM,
        _ => return false,
    };
    if word(parser, 1) == Keyword::ALL {
        return false;
    }
    for n in 1.. {
        match &parser.peek_nth_token_ref(n).token {
            Token::EOF | Token::SemiColon => return false,
            Token::Word(w) if w.quote_style.is_none() && w.keyword == Keyword::ON => return false,
            Token::Word(w) if w.quote_style.is_none() && w.keyword == end => return true,
            _ => {}
        }
    }
    false
}

/// Parses the statement [`starts_membership`] found.
pub fn parse_membership(parser: &mut Parser) -> Result<RoleMembership, ParserError> {
    let grant = parser.parse_keyword(Keyword::GRANT);
    if !grant {
        parser.expect_keyword(Keyword::REVOKE)?;
    }
    let mut admin_option = !grant && parser.parse_keywords(&[Keyword::ADMIN, Keyword::OPTION]);
    if admin_option {
        parser.expect_keyword(Keyword::FOR)?;
    }
    let roles = parser.parse_comma_separated(Parser::parse_identifier)?;
    parser.expect_keyword(if grant { Keyword::TO } else { Keyword::FROM })?;
    let members = parser.parse_comma_separated(Parser::parse_identifier)?;
    if grant && parser.parse_keyword(Keyword::WITH) {
        parser.expect_keywords(&[Keyword::ADMIN, Keyword::OPTION])?;
        admin_option = true;
    }
    let granted_by = match parser.parse_keywords(&[Keyword::GRANTED, Keyword::BY]) {
        true => Some(parser.parse_identifier()?),
        false => None,
    };
    // RESTRICT is the default; CASCADE matters only for grants made through admin
    // options, which REVOKE then takes away with the membership here anyway.
    let cascade = !grant && parser.parse_keyword(Keyword::CASCADE);
    let _restrict = !grant && !cascade && parser.parse_keyword(Keyword::RESTRICT);
    Ok(RoleMembership {
        grant,
        roles,
        members,
        admin_option,
        granted_by,
        cascade,
    })
}
