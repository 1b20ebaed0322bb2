//! The foreign-data statements sqlparser lacks or reads wrongly (its CREATE SERVER wants
//! identifiers where PostgreSQL writes option values as strings): CREATE and DROP SERVER,
//! CREATE and DROP FOREIGN TABLE, ALTER FOREIGN TABLE ... OPTIONS. A foreign table's columns are read by sqlparser's own
//! column parser.

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
    /// `CREATE FOREIGN TABLE [IF NOT EXISTS] name (columns) SERVER s [OPTIONS (...)]`.
    CreateTable {
        name: ObjectName,
        if_not_exists: bool,
        columns: Vec<ast::ColumnDef>,
        constraints: Vec<ast::TableConstraint>,
        server: Ident,
        options: Vec<(Ident, String)>,
    },
    /// `ALTER FOREIGN TABLE [IF EXISTS] name OPTIONS ([ADD | SET | DROP] name ['value'], ...)`.
    AlterTableOptions {
        name: ObjectName,
        if_exists: bool,
        changes: Vec<OptionChange>,
    },
    /// `DROP SERVER` (`table: false`) or `DROP FOREIGN TABLE`.
    Drop {
        table: bool,
        names: Vec<ObjectName>,
        if_exists: bool,
        cascade: bool,
    },
}

/// One item of ALTER ... OPTIONS: ADD (the default) and SET carry a value, DROP none.
#[derive(Debug, Clone)]
pub enum OptionChange {
    Add(Ident, String),
    Set(Ident, String),
    Drop(Ident),
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
    let verb = keyword_at(parser, 0);
    let server = keyword_at(parser, 1) == Keyword::SERVER;
    let foreign_table =
        keyword_at(parser, 1) == Keyword::FOREIGN && keyword_at(parser, 2) == Keyword::TABLE;
    matches!(verb, Keyword::CREATE | Keyword::DROP) && (server || foreign_table)
        || verb == Keyword::ALTER && foreign_table
}

/// Parses the statement [`starts`] found.
pub fn parse(parser: &mut Parser) -> Result<ForeignStatement, ParserError> {
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
        let (columns, constraints) = parser.parse_columns()?;
        parser.expect_keyword_is(Keyword::SERVER)?;
        let server = parser.parse_identifier()?;
        let options = parse_options(parser)?;
        return Ok(ForeignStatement::CreateTable {
            name,
            if_not_exists,
            columns,
            constraints,
            server,
            options,
        });
    }
    if parser.parse_keywords(&[Keyword::ALTER, Keyword::FOREIGN, Keyword::TABLE]) {
        let if_exists = parser.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let name = parser.parse_object_name(false)?;
        parser.expect_keyword_is(Keyword::OPTIONS)?;
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
        return Ok(ForeignStatement::AlterTableOptions {
            name,
            if_exists,
            changes,
        });
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
