//! ALTER SEQUENCE, which sqlparser does not parse (pg_dump writes `ALTER SEQUENCE ... OWNED
//! BY` for every serial column). Parsed here with sqlparser's own token-level helpers, its
//! options in any order as PostgreSQL takes them, into the option type CREATE SEQUENCE uses.

use sqlparser::ast::{DataType, Expr, Ident, ObjectName, Owner, SequenceOptions};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// `ALTER SEQUENCE [IF EXISTS] name action`.
#[derive(Debug, Clone)]
pub struct AlterSequence {
    pub if_exists: bool,
    pub name: ObjectName,
    pub action: AlterSequenceAction,
}

#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per statement text, never in bulk
pub enum AlterSequenceAction {
    /// The options given, in the order written.
    Options {
        data_type: Option<DataType>,
        options: Vec<SequenceOptions>,
        /// `RESTART` (`None`: back to START) or `RESTART [WITH] n`.
        restart: Option<Option<Expr>>,
        /// `OWNED BY table.column`, or `NONE` as a one-part name.
        owned_by: Option<ObjectName>,
    },
    RenameTo(Ident),
    SetSchema(Ident),
    OwnerTo(Owner),
}

/// Whether the parser stands at `ALTER SEQUENCE`.
pub fn starts(parser: &Parser) -> bool {
    let word = |n: usize| match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    };
    word(0) == Keyword::ALTER && word(1) == Keyword::SEQUENCE
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<AlterSequence, ParserError> {
    parser.expect_keywords(&[Keyword::ALTER, Keyword::SEQUENCE])?;
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let action = if parser.parse_keywords(&[Keyword::RENAME, Keyword::TO]) {
        AlterSequenceAction::RenameTo(parser.parse_identifier()?)
    } else if parser.parse_keywords(&[Keyword::SET, Keyword::SCHEMA]) {
        AlterSequenceAction::SetSchema(parser.parse_identifier()?)
    } else if parser.parse_keywords(&[Keyword::OWNER, Keyword::TO]) {
        AlterSequenceAction::OwnerTo(parse_owner(parser)?)
    } else {
        parse_options(parser)?
    };
    Ok(AlterSequence {
        if_exists,
        name,
        action,
    })
}

/// The role of OWNER TO: a name, CURRENT_USER, CURRENT_ROLE or SESSION_USER.
fn parse_owner(parser: &mut Parser) -> Result<Owner, ParserError> {
    if parser.parse_keyword(Keyword::CURRENT_USER) {
        Ok(Owner::CurrentUser)
    } else if parser.parse_keyword(Keyword::CURRENT_ROLE) {
        Ok(Owner::CurrentRole)
    } else if parser.parse_keyword(Keyword::SESSION_USER) {
        Ok(Owner::SessionUser)
    } else {
        Ok(Owner::Ident(parser.parse_identifier()?))
    }
}

fn parse_options(parser: &mut Parser) -> Result<AlterSequenceAction, ParserError> {
    let (mut data_type, mut options, mut restart, mut owned_by) = (None, Vec::new(), None, None);
    loop {
        if parser.parse_keyword(Keyword::AS) {
            data_type = Some(parser.parse_data_type()?);
        } else if parser.parse_keyword(Keyword::INCREMENT) {
            let by = parser.parse_keyword(Keyword::BY);
            options.push(SequenceOptions::IncrementBy(parser.parse_number()?, by));
        } else if parser.parse_keyword(Keyword::MINVALUE) {
            options.push(SequenceOptions::MinValue(Some(parser.parse_number()?)));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::MINVALUE]) {
            options.push(SequenceOptions::MinValue(None));
        } else if parser.parse_keyword(Keyword::MAXVALUE) {
            options.push(SequenceOptions::MaxValue(Some(parser.parse_number()?)));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::MAXVALUE]) {
            options.push(SequenceOptions::MaxValue(None));
        } else if parser.parse_keyword(Keyword::START) {
            let with = parser.parse_keyword(Keyword::WITH);
            options.push(SequenceOptions::StartWith(parser.parse_number()?, with));
        } else if parser.parse_keyword(Keyword::RESTART) {
            let with = parser.parse_keyword(Keyword::WITH);
            let number_follows = matches!(
                parser.peek_token_ref().token,
                Token::Number(..) | Token::Minus | Token::Plus
            );
            restart = Some(match with || number_follows {
                true => Some(parser.parse_number()?),
                false => None,
            });
        } else if parser.parse_keyword(Keyword::CACHE) {
            options.push(SequenceOptions::Cache(parser.parse_number()?));
        } else if parser.parse_keywords(&[Keyword::NO, Keyword::CYCLE]) {
            options.push(SequenceOptions::Cycle(true));
        } else if parser.parse_keyword(Keyword::CYCLE) {
            options.push(SequenceOptions::Cycle(false));
        } else if parser.parse_keywords(&[Keyword::OWNED, Keyword::BY]) {
            owned_by = Some(parser.parse_object_name(false)?);
        } else {
            break;
        }
    }
    if data_type.is_none() && options.is_empty() && restart.is_none() && owned_by.is_none() {
        return parser.expected("a sequence option", parser.peek_token());
    }
    Ok(AlterSequenceAction::Options {
        data_type,
        options,
        restart,
        owned_by,
    })
}
