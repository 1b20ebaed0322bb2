//! A view: its defining query as SQL text, bound again wherever the view is read, and the
//! columns it had when it was created, which PostgreSQL fixes at that moment (so `SELECT *`
//! does not grow with the table it reads).

use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::QualifiedName;
use crate::types::DataType;

#[derive(Debug, Clone, PartialEq)]
pub struct ViewDef {
    pub name: String,
    pub oid: u32,
    /// The OID of the schema the view lives in.
    pub namespace: u32,
    /// The query, as sqlparser prints it: it parses back to the same statement.
    pub query_sql: String,
    /// Names (after the view's column list) and types of the output columns.
    pub columns: Vec<(String, DataType)>,
    /// The schemas (OIDs) unqualified names in the query were looked up in when the view
    /// was created: PostgreSQL resolves a view's names once, so a later `search_path`
    /// never changes what it reads.
    pub search_path: Vec<u32>,
    /// The tables and views the query reads directly: they cannot be dropped while the
    /// view exists, except with CASCADE.
    pub depends_on: Vec<QualifiedName>,
    /// COMMENT ON VIEW.
    pub comment: Option<String>,
    /// WITH [LOCAL | CASCADED] CHECK OPTION: rows written through the view must be rows it
    /// shows.
    pub check_option: Option<ViewCheckOption>,
}

/// Which views' conditions a row written through a view WITH CHECK OPTION must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewCheckOption {
    /// The view's own, and those of the views under it that have a check option.
    Local,
    /// The view's own and those of every view under it.
    Cascaded,
}

impl ViewDef {
    pub fn qualified_name(&self) -> QualifiedName {
        QualifiedName::new(self.namespace, self.name.as_str())
    }

    /// Whether the view's query names `column` (or reads every column with `*`).
    pub fn mentions(&self, column: &str) -> bool {
        sql_mentions(&self.query_sql, column)
    }
}

/// Whether SQL text names `column` (or reads every column with `*`); text that does not
/// tokenize is taken to name it.
pub fn sql_mentions(sql: &str, column: &str) -> bool {
    let Ok(tokens) = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize() else {
        return true;
    };
    tokens.iter().any(|token| match token {
        Token::Mul => true,
        Token::Word(word) => match word.quote_style {
            Some(_) => word.value == column,
            None => word.value.to_lowercase() == column,
        },
        _ => false,
    })
}
