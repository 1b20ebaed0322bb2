//! `CREATE TABLE name (column, ...) AS query`: the names given to the query's columns.
//! sqlparser reads a parenthesized list after the name as column definitions and wants a
//! type after each name, so a pre-pass takes a list of bare names out of a CREATE TABLE
//! and returns it per statement; the binder renames the query's columns with it.

use sqlparser::ast::Ident;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::create_table_like::strip_from_column_lists;

/// Takes the column name list out of every CREATE TABLE whose list holds only names;
/// returns the names per statement (empty where there is none). Anything else is left in
/// place, for the parser to read or report.
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Vec<Vec<Ident>> {
    strip_from_column_lists(tokens, strip_names)
}

/// Removes the list opened at `open` if it is `(name, ...)`; returns the names and how many
/// tokens went.
fn strip_names(tokens: &mut Vec<TokenWithSpan>, open: usize, end: usize) -> (Vec<Ident>, usize) {
    let mut names = Vec::new();
    // A name is due after `(` and after each `,`.
    let mut name_due = true;
    for i in open + 1..end {
        match &tokens[i].token {
            Token::Whitespace(_) => {}
            Token::Word(word) if name_due => {
                names.push(Ident {
                    value: word.value.clone(),
                    quote_style: word.quote_style,
                    span: tokens[i].span,
                });
                name_due = false;
            }
            Token::Comma if !name_due => name_due = true,
            Token::RParen if !name_due => {
                tokens.drain(open..=i);
                return (names, i + 1 - open);
            }
            _ => return (Vec::new(), 0),
        }
    }
    (Vec::new(), 0)
}
