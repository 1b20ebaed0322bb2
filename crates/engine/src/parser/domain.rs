//! CREATE DOMAIN, ALTER DOMAIN and DROP DOMAIN as PostgreSQL writes them: sqlparser's CREATE
//! DOMAIN needs AS and takes no NOT NULL, its DROP DOMAIN one name, and it has no ALTER
//! DOMAIN. Parsed with sqlparser's helpers for names, types and expressions.

use sqlparser::ast::{self, Ident, ObjectName};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

#[derive(Debug, Clone)]
pub enum DomainStatement {
    Create {
        name: ObjectName,
        data_type: ast::DataType,
        collation: Option<ObjectName>,
        default: Option<ast::Expr>,
        constraints: Vec<DomainConstraint>,
    },
    Alter {
        name: ObjectName,
        action: AlterDomainAction,
    },
    Drop {
        names: Vec<ObjectName>,
        if_exists: bool,
        cascade: bool,
    },
}

/// `[CONSTRAINT name] { NOT NULL | NULL | CHECK (expr) }`.
#[derive(Debug, Clone)]
pub struct DomainConstraint {
    pub name: Option<Ident>,
    pub kind: DomainConstraintKind,
}

#[derive(Debug, Clone)]
pub enum DomainConstraintKind {
    NotNull,
    Null,
    Check(Box<ast::Expr>),
}

#[derive(Debug, Clone)]
pub enum AlterDomainAction {
    /// SET DEFAULT expr, or DROP DEFAULT (`None`).
    SetDefault(Option<ast::Expr>),
    /// SET NOT NULL (`true`) or DROP NOT NULL.
    NotNull(bool),
    AddConstraint {
        constraint: DomainConstraint,
        not_valid: bool,
    },
    DropConstraint {
        name: Ident,
        if_exists: bool,
        cascade: bool,
    },
    RenameConstraint {
        old: Ident,
        new: Ident,
    },
    ValidateConstraint(Ident),
    OwnerTo(Ident),
    Rename(Ident),
    SetSchema(ObjectName),
}

/// The keyword `n` tokens ahead, unless quoted.
fn keyword_at(parser: &Parser, n: usize) -> Keyword {
    match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Whether the parser stands at one of the statements parsed here.
pub fn starts(parser: &Parser) -> bool {
    matches!(
        keyword_at(parser, 0),
        Keyword::CREATE | Keyword::ALTER | Keyword::DROP
    ) && keyword_at(parser, 1) == Keyword::DOMAIN
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<DomainStatement, ParserError> {
    if parser.parse_keywords(&[Keyword::CREATE, Keyword::DOMAIN]) {
        return parse_create(parser);
    }
    if parser.parse_keywords(&[Keyword::DROP, Keyword::DOMAIN]) {
        let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let names = parser.parse_comma_separated(|p| p.parse_object_name(false))?;
        let cascade = parse_drop_behavior(parser);
        return Ok(DomainStatement::Drop {
            names,
            if_exists,
            cascade,
        });
    }
    parser.expect_keywords(&[Keyword::ALTER, Keyword::DOMAIN])?;
    let name = parser.parse_object_name(false)?;
    let action = parse_alter_action(parser)?;
    Ok(DomainStatement::Alter { name, action })
}

fn parse_create(parser: &mut Parser) -> Result<DomainStatement, ParserError> {
    let name = parser.parse_object_name(false)?;
    // AS is optional in PostgreSQL.
    let _ = parser.parse_keyword(Keyword::AS);
    let data_type = parser.parse_data_type()?;
    let mut collation = None;
    let mut default = None;
    let mut constraints = Vec::new();
    loop {
        if parser.parse_keyword(Keyword::COLLATE) {
            collation = Some(parser.parse_object_name(false)?);
        } else if parser.parse_keyword(Keyword::DEFAULT) {
            if default.is_some() {
                return Err(ParserError::ParserError(
                    "multiple default expressions".to_string(),
                ));
            }
            default = Some(parse_default(parser)?);
        } else if let Some(constraint) = parse_constraint(parser)? {
            constraints.push(constraint);
        } else {
            break;
        }
    }
    Ok(DomainStatement::Create {
        name,
        data_type,
        collation,
        default,
        constraints,
    })
}

/// A DEFAULT's expression: PostgreSQL's b_expr, which stops before NOT NULL and IS.
fn parse_default(parser: &mut Parser) -> Result<ast::Expr, ParserError> {
    let is = PostgreSqlDialect {}.prec_value(Precedence::Is);
    parser.parse_subexpr(is)
}

fn parse_constraint(parser: &mut Parser) -> Result<Option<DomainConstraint>, ParserError> {
    let name = match parser.parse_keyword(Keyword::CONSTRAINT) {
        true => Some(parser.parse_identifier()?),
        false => None,
    };
    let kind = if parser.parse_keywords(&[Keyword::NOT, Keyword::NULL]) {
        DomainConstraintKind::NotNull
    } else if parser.parse_keyword(Keyword::NULL) {
        DomainConstraintKind::Null
    } else if parser.parse_keyword(Keyword::CHECK) {
        parser.expect_token(&Token::LParen)?;
        let expr = parser.parse_expr()?;
        parser.expect_token(&Token::RParen)?;
        DomainConstraintKind::Check(Box::new(expr))
    } else if name.is_some() {
        return parser.expected("NOT NULL, NULL or CHECK", parser.peek_token());
    } else {
        return Ok(None);
    };
    Ok(Some(DomainConstraint { name, kind }))
}

fn parse_drop_behavior(parser: &mut Parser) -> bool {
    matches!(
        parser.parse_one_of_keywords(&[Keyword::CASCADE, Keyword::RESTRICT]),
        Some(Keyword::CASCADE)
    )
}

fn parse_alter_action(parser: &mut Parser) -> Result<AlterDomainAction, ParserError> {
    if parser.parse_keywords(&[Keyword::SET, Keyword::DEFAULT]) {
        return Ok(AlterDomainAction::SetDefault(Some(parser.parse_expr()?)));
    }
    if parser.parse_keywords(&[Keyword::DROP, Keyword::DEFAULT]) {
        return Ok(AlterDomainAction::SetDefault(None));
    }
    if parser.parse_keywords(&[Keyword::SET, Keyword::NOT, Keyword::NULL]) {
        return Ok(AlterDomainAction::NotNull(true));
    }
    if parser.parse_keywords(&[Keyword::DROP, Keyword::NOT, Keyword::NULL]) {
        return Ok(AlterDomainAction::NotNull(false));
    }
    if parser.parse_keywords(&[Keyword::SET, Keyword::SCHEMA]) {
        return Ok(AlterDomainAction::SetSchema(
            parser.parse_object_name(false)?,
        ));
    }
    if parser.parse_keyword(Keyword::ADD) {
        let Some(constraint) = parse_constraint(parser)? else {
            return parser.expected("a domain constraint", parser.peek_token());
        };
        let not_valid = parser.parse_keywords(&[Keyword::NOT, Keyword::VALID]);
        return Ok(AlterDomainAction::AddConstraint {
            constraint,
            not_valid,
        });
    }
    if parser.parse_keywords(&[Keyword::DROP, Keyword::CONSTRAINT]) {
        let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let name = parser.parse_identifier()?;
        let cascade = parse_drop_behavior(parser);
        return Ok(AlterDomainAction::DropConstraint {
            name,
            if_exists,
            cascade,
        });
    }
    if parser.parse_keywords(&[Keyword::RENAME, Keyword::CONSTRAINT]) {
        let old = parser.parse_identifier()?;
        parser.expect_keyword_is(Keyword::TO)?;
        let new = parser.parse_identifier()?;
        return Ok(AlterDomainAction::RenameConstraint { old, new });
    }
    if parser.parse_keywords(&[Keyword::RENAME, Keyword::TO]) {
        return Ok(AlterDomainAction::Rename(parser.parse_identifier()?));
    }
    if parser.parse_keywords(&[Keyword::VALIDATE, Keyword::CONSTRAINT]) {
        return Ok(AlterDomainAction::ValidateConstraint(
            parser.parse_identifier()?,
        ));
    }
    if parser.parse_keywords(&[Keyword::OWNER, Keyword::TO]) {
        return Ok(AlterDomainAction::OwnerTo(parser.parse_identifier()?));
    }
    parser.expected("an ALTER DOMAIN action", parser.peek_token())
}
