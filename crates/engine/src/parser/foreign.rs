//! The foreign-data statements sqlparser lacks or reads wrongly (its CREATE SERVER wants
//! identifiers where PostgreSQL writes option values as strings): CREATE, ALTER ... OPTIONS
//! and DROP SERVER; CREATE, ALTER and DROP FOREIGN TABLE; CREATE, ALTER and DROP USER
//! MAPPING. A foreign table's columns are read by sqlparser's own column parser, with
//! PostgreSQL's per-column `OPTIONS (...)` taken out first; ALTER FOREIGN TABLE's actions
//! other than options are sqlparser's ALTER TABLE.

use sqlparser::ast::{self, Ident, ObjectName};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

#[derive(Debug, Clone)]
pub enum ForeignStatement {
    /// `CREATE SERVER [IF NOT EXISTS] name FOREIGN DATA WRAPPER fdw [OPTIONS (...)]`.
    CreateServer {
        name: Ident,
        if_not_exists: bool,
        wrapper: Ident,
        options: Vec<(Ident, String)>,
    },
    /// `ALTER SERVER name OPTIONS (...)`.
    AlterServerOptions {
        name: Ident,
        changes: Vec<OptionChange>,
    },
    /// `CREATE FOREIGN TABLE [IF NOT EXISTS] name (columns) SERVER s [OPTIONS (...)]`.
    CreateTable {
        name: ObjectName,
        if_not_exists: bool,
        columns: Vec<ast::ColumnDef>,
        /// Each column's `OPTIONS (...)`, in the order of `columns` (empty for none).
        column_options: Vec<GenericOptions>,
        constraints: Vec<ast::TableConstraint>,
        server: Ident,
        options: Vec<(Ident, String)>,
    },
    /// `ALTER FOREIGN TABLE [IF EXISTS] name` with only option changes: `OPTIONS (...)` and
    /// `ALTER [COLUMN] c OPTIONS (...)`, comma-separated.
    AlterTableOptions {
        name: ObjectName,
        if_exists: bool,
        actions: Vec<OptionsAction>,
    },
    /// Any other ALTER FOREIGN TABLE: sqlparser's ALTER TABLE of the same actions.
    AlterTable(Box<ast::Statement>),
    /// `CREATE USER MAPPING [IF NOT EXISTS] FOR user SERVER s [OPTIONS (...)]`.
    CreateUserMapping {
        user: MappingUser,
        server: Ident,
        if_not_exists: bool,
        options: Vec<(Ident, String)>,
    },
    /// `ALTER USER MAPPING FOR user SERVER s OPTIONS (...)`.
    AlterUserMapping {
        user: MappingUser,
        server: Ident,
        changes: Vec<OptionChange>,
    },
    /// `DROP USER MAPPING [IF EXISTS] FOR user SERVER s`.
    DropUserMapping {
        user: MappingUser,
        server: Ident,
        if_exists: bool,
    },
    /// `DROP SERVER` (`table: false`) or `DROP FOREIGN TABLE`.
    Drop {
        table: bool,
        names: Vec<ObjectName>,
        if_exists: bool,
        cascade: bool,
    },
}

/// `OPTIONS (name 'value', ...)` as written.
pub type GenericOptions = Vec<(Ident, String)>;

/// A foreign table's columns, each column's options, and its table constraints.
type ForeignColumns = (
    Vec<ast::ColumnDef>,
    Vec<GenericOptions>,
    Vec<ast::TableConstraint>,
);

/// One item of ALTER ... OPTIONS: ADD (the default) and SET carry a value, DROP none.
#[derive(Debug, Clone)]
pub enum OptionChange {
    Add(Ident, String),
    Set(Ident, String),
    Drop(Ident),
}

/// One action of an ALTER FOREIGN TABLE that only changes options.
#[derive(Debug, Clone)]
pub enum OptionsAction {
    Table(Vec<OptionChange>),
    Column(Ident, Vec<OptionChange>),
}

/// Whom a user mapping is for.
#[derive(Debug, Clone, PartialEq)]
pub enum MappingUser {
    /// `CURRENT_USER`, `CURRENT_ROLE` or `USER`.
    Current,
    SessionUser,
    Public,
    Role(Ident),
}

/// The keyword `n` tokens ahead, unless quoted.
fn keyword_at(parser: &Parser, n: usize) -> Keyword {
    match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) if w.quote_style.is_none() => w.keyword,
        _ => Keyword::NoKeyword,
    }
}

/// Whether the unquoted word `n` tokens ahead is `word` (for words that are no keyword
/// of sqlparser's, such as MAPPING).
fn word_at(parser: &Parser, n: usize, word: &str) -> bool {
    match &parser.peek_nth_token_ref(n).token {
        Token::Word(w) => w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word),
        _ => false,
    }
}

/// `verb USER MAPPING FOR` or `... IF`: not a role named mapping.
fn starts_user_mapping(parser: &Parser) -> bool {
    keyword_at(parser, 1) == Keyword::USER
        && word_at(parser, 2, "mapping")
        && matches!(keyword_at(parser, 3), Keyword::FOR | Keyword::IF)
}

/// Whether the parser stands at one of the statements parsed here.
pub fn starts(parser: &Parser) -> bool {
    let verb = keyword_at(parser, 0);
    let server = keyword_at(parser, 1) == Keyword::SERVER;
    let foreign_table =
        keyword_at(parser, 1) == Keyword::FOREIGN && keyword_at(parser, 2) == Keyword::TABLE;
    let user_mapping = starts_user_mapping(parser);
    matches!(verb, Keyword::CREATE | Keyword::ALTER | Keyword::DROP)
        && (server || foreign_table || user_mapping)
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<ForeignStatement, ParserError> {
    if starts_user_mapping(parser) {
        return parse_user_mapping(parser);
    }
    if parser.parse_keywords(&[Keyword::ALTER, Keyword::SERVER]) {
        let name = parser.parse_identifier()?;
        if !parser.parse_keyword(Keyword::OPTIONS) {
            return Err(ParserError::ParserError(
                "ALTER SERVER other than OPTIONS is not supported".into(),
            ));
        }
        let changes = parse_option_changes(parser)?;
        return Ok(ForeignStatement::AlterServerOptions { name, changes });
    }
    if parser.parse_keywords(&[Keyword::CREATE, Keyword::SERVER]) {
        let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
        let name = parser.parse_identifier()?;
        if matches!(keyword_at(parser, 0), Keyword::TYPE | Keyword::VERSION) {
            return Err(ParserError::ParserError(
                "CREATE SERVER ... TYPE or VERSION is not supported".into(),
            ));
        }
        parser.expect_keywords(&[Keyword::FOREIGN, Keyword::DATA, Keyword::WRAPPER])?;
        let wrapper = parser.parse_identifier()?;
        let options = parse_options(parser)?;
        return Ok(ForeignStatement::CreateServer {
            name,
            if_not_exists,
            wrapper,
            options,
        });
    }
    if parser.parse_keywords(&[Keyword::CREATE, Keyword::FOREIGN, Keyword::TABLE]) {
        let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
        let name = parser.parse_object_name(false)?;
        let (columns, column_options, constraints) = parse_columns(parser)?;
        parser.expect_keyword_is(Keyword::SERVER)?;
        let server = parser.parse_identifier()?;
        let options = parse_options(parser)?;
        return Ok(ForeignStatement::CreateTable {
            name,
            if_not_exists,
            columns,
            column_options,
            constraints,
            server,
            options,
        });
    }
    if keyword_at(parser, 0) == Keyword::ALTER {
        return parse_alter_table(parser);
    }
    parser.expect_keyword_is(Keyword::DROP)?;
    let table = parser.parse_keywords(&[Keyword::FOREIGN, Keyword::TABLE]);
    if !table {
        parser.expect_keyword_is(Keyword::SERVER)?;
    }
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let names = parser.parse_comma_separated(|p| p.parse_object_name(false))?;
    let cascade = parser.parse_keyword(Keyword::CASCADE);
    // RESTRICT is the default.
    let _restrict = !cascade && parser.parse_keyword(Keyword::RESTRICT);
    Ok(ForeignStatement::Drop {
        table,
        names,
        if_exists,
        cascade,
    })
}

/// A foreign table's parenthesized columns and table constraints, as sqlparser's
/// `parse_columns` reads them, except that a column may carry `OPTIONS (...)` after its
/// type.
fn parse_columns(parser: &mut Parser) -> Result<ForeignColumns, ParserError> {
    let (mut columns, mut column_options, mut constraints) = (Vec::new(), Vec::new(), Vec::new());
    parser.expect_token(&Token::LParen)?;
    if parser.consume_token(&Token::RParen) {
        return Ok((columns, column_options, constraints));
    }
    loop {
        if let Some(constraint) = parser.parse_optional_table_constraint()? {
            constraints.push(constraint);
        } else {
            let mut column = parser.parse_column_def()?;
            column_options.push(parse_options(parser)?);
            // PostgreSQL writes constraints after the options.
            loop {
                let name = match parser.parse_keyword(Keyword::CONSTRAINT) {
                    true => Some(parser.parse_identifier()?),
                    false => None,
                };
                match parser.parse_optional_column_option()? {
                    Some(option) => column.options.push(ast::ColumnOptionDef { name, option }),
                    None if name.is_some() => {
                        return Err(ParserError::ParserError(
                            "Expected: constraint details after CONSTRAINT <name>".into(),
                        ))
                    }
                    None => break,
                }
            }
            columns.push(column);
        }
        if parser.consume_token(&Token::RParen) {
            return Ok((columns, column_options, constraints));
        }
        parser.expect_token(&Token::Comma)?;
    }
}

/// ALTER FOREIGN TABLE: option changes read here, any other action by sqlparser's ALTER
/// TABLE (from the TABLE keyword on).
fn parse_alter_table(parser: &mut Parser) -> Result<ForeignStatement, ParserError> {
    let options_only = {
        let mut at = 3;
        if keyword_at(parser, at) == Keyword::IF {
            at += 2;
        }
        // The name: identifiers separated by periods.
        at += 1;
        while parser.peek_nth_token_ref(at).token == Token::Period {
            at += 2;
        }
        let column_options = keyword_at(parser, at) == Keyword::ALTER
            && (keyword_at(parser, at + 2) == Keyword::OPTIONS
                || keyword_at(parser, at + 1) == Keyword::COLUMN
                    && keyword_at(parser, at + 3) == Keyword::OPTIONS);
        keyword_at(parser, at) == Keyword::OPTIONS || column_options
    };
    parser.expect_keywords(&[Keyword::ALTER, Keyword::FOREIGN])?;
    if !options_only {
        return Ok(ForeignStatement::AlterTable(Box::new(
            parser.parse_alter()?,
        )));
    }
    parser.expect_keyword_is(Keyword::TABLE)?;
    let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = parser.parse_object_name(false)?;
    let actions = parser.parse_comma_separated(|p| {
        if p.parse_keyword(Keyword::OPTIONS) {
            return Ok(OptionsAction::Table(parse_option_changes(p)?));
        }
        p.expect_keyword_is(Keyword::ALTER)?;
        let _ = p.parse_keyword(Keyword::COLUMN);
        let column = p.parse_identifier()?;
        p.expect_keyword_is(Keyword::OPTIONS)?;
        Ok(OptionsAction::Column(column, parse_option_changes(p)?))
    })?;
    Ok(ForeignStatement::AlterTableOptions {
        name,
        if_exists,
        actions,
    })
}

/// CREATE, ALTER or DROP USER MAPPING.
fn parse_user_mapping(parser: &mut Parser) -> Result<ForeignStatement, ParserError> {
    let verb = parser.expect_one_of_keywords(&[Keyword::CREATE, Keyword::ALTER, Keyword::DROP])?;
    parser.expect_keyword_is(Keyword::USER)?;
    // MAPPING, checked by `starts`.
    parser.next_token();
    let if_not_exists = verb == Keyword::CREATE
        && parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let if_exists = verb == Keyword::DROP && parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    parser.expect_keyword_is(Keyword::FOR)?;
    let user = match keyword_at(parser, 0) {
        Keyword::CURRENT_USER | Keyword::CURRENT_ROLE | Keyword::USER => {
            parser.next_token();
            MappingUser::Current
        }
        Keyword::SESSION_USER => {
            parser.next_token();
            MappingUser::SessionUser
        }
        Keyword::PUBLIC => {
            parser.next_token();
            MappingUser::Public
        }
        _ => MappingUser::Role(parser.parse_identifier()?),
    };
    parser.expect_keyword_is(Keyword::SERVER)?;
    let server = parser.parse_identifier()?;
    Ok(match verb {
        Keyword::CREATE => ForeignStatement::CreateUserMapping {
            user,
            server,
            if_not_exists,
            options: parse_options(parser)?,
        },
        Keyword::ALTER => {
            parser.expect_keyword_is(Keyword::OPTIONS)?;
            ForeignStatement::AlterUserMapping {
                user,
                server,
                changes: parse_option_changes(parser)?,
            }
        }
        _ => ForeignStatement::DropUserMapping {
            user,
            server,
            if_exists,
        },
    })
}

/// The parenthesized list after ALTER ... OPTIONS: `[ADD | SET | DROP] name ['value']`.
fn parse_option_changes(parser: &mut Parser) -> Result<Vec<OptionChange>, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let changes = parser.parse_comma_separated(|p| {
        if p.parse_keyword(Keyword::DROP) {
            return Ok(OptionChange::Drop(p.parse_identifier()?));
        }
        let set = p.parse_keyword(Keyword::SET);
        let _add = !set && p.parse_keyword(Keyword::ADD);
        let name = p.parse_identifier()?;
        let value = p.parse_literal_string()?;
        Ok(match set {
            true => OptionChange::Set(name, value),
            false => OptionChange::Add(name, value),
        })
    })?;
    parser.expect_token(&Token::RParen)?;
    Ok(changes)
}

/// An optional `OPTIONS (name 'value', ...)`.
fn parse_options(parser: &mut Parser) -> Result<Vec<(Ident, String)>, ParserError> {
    if !parser.parse_keyword(Keyword::OPTIONS) {
        return Ok(Vec::new());
    }
    parser.expect_token(&Token::LParen)?;
    let options = parser.parse_comma_separated(|p| {
        let name = p.parse_identifier()?;
        let value = p.parse_literal_string()?;
        Ok((name, value))
    })?;
    parser.expect_token(&Token::RParen)?;
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::ForeignStatement;
    use crate::parser::{parse, Statement};

    fn foreign(sql: &str) -> ForeignStatement {
        let parsed = parse(sql).expect("parses");
        match &parsed[0].statement {
            Statement::Foreign(statement) => statement.clone(),
            other => panic!("not a foreign-data statement: {other:?}"),
        }
    }

    #[test]
    fn create_foreign_table() {
        let ForeignStatement::CreateTable {
            name,
            columns,
            server,
            options,
            ..
        } = foreign(
            "CREATE FOREIGN TABLE s.t (a int NOT NULL, b text) SERVER files \
             OPTIONS (filename '/tmp/x.csv', format 'csv')",
        )
        else {
            panic!("not CREATE FOREIGN TABLE");
        };
        assert_eq!(name.to_string(), "s.t");
        assert_eq!(columns.len(), 2);
        assert_eq!(server.value, "files");
        assert_eq!(options[1].0.value, "format");
        assert_eq!(options[1].1, "csv");
    }

    #[test]
    fn servers() {
        let ForeignStatement::CreateServer { wrapper, .. } =
            foreign("CREATE SERVER IF NOT EXISTS files FOREIGN DATA WRAPPER file_fdw")
        else {
            panic!("not CREATE SERVER");
        };
        assert_eq!(wrapper.value, "file_fdw");
        let ForeignStatement::Drop {
            table,
            names,
            cascade,
            ..
        } = foreign("DROP SERVER a, b CASCADE")
        else {
            panic!("not DROP SERVER");
        };
        assert!(!table && cascade && names.len() == 2);
    }
}
