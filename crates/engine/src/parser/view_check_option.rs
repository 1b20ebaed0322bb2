//! `CREATE VIEW ... WITH [LOCAL | CASCADED] CHECK OPTION`, which sqlparser does not parse:
//! a pre-pass takes the clause off the end of each CREATE VIEW and returns it per statement.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::sequence_options::keyword;
use crate::catalog::ViewCheckOption;

/// Removes the check options from `tokens`; returns them per statement (counted as
/// sqlparser counts them).
pub fn strip(tokens: &mut Vec<TokenWithSpan>) -> Vec<Option<ViewCheckOption>> {
    let mut per_statement = Vec::new();
    let mut start = 0;
    while start < tokens.len() {
        let end = (start..tokens.len())
            .find(|&i| tokens[i].token == Token::SemiColon)
            .unwrap_or(tokens.len());
        let significant: Vec<usize> = (start..end)
            .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
            .collect();
        if significant.is_empty() {
            start = end + 1;
            continue;
        }
        let found = check_option(tokens, &significant);
        let removed = match found {
            Some((option, from)) => {
                tokens.drain(from..end);
                per_statement.push(Some(option));
                end - from
            }
            None => {
                per_statement.push(None);
                0
            }
        };
        start = end - removed + 1;
    }
    per_statement
}

/// The check option ending the CREATE VIEW statement of `significant` (its tokens but
/// whitespace), and the index of its WITH.
fn check_option(
    tokens: &[TokenWithSpan],
    significant: &[usize],
) -> Option<(ViewCheckOption, usize)> {
    let word = |i: usize| keyword(&tokens[i].token);
    let creates_view = word(*significant.first()?) == Keyword::CREATE
        && significant
            .iter()
            .take_while(|&&i| word(i) != Keyword::AS)
            .any(|&i| word(i) == Keyword::VIEW);
    if !creates_view {
        return None;
    }
    match significant {
        [.., with, level, check, option]
            if word(*with) == Keyword::WITH
                && word(*check) == Keyword::CHECK
                && word(*option) == Keyword::OPTION =>
        {
            match word(*level) {
                Keyword::LOCAL => Some((ViewCheckOption::Local, *with)),
                Keyword::CASCADED => Some((ViewCheckOption::Cascaded, *with)),
                _ => None,
            }
        }
        [.., with, check, option]
            if word(*with) == Keyword::WITH
                && word(*check) == Keyword::CHECK
                && word(*option) == Keyword::OPTION =>
        {
            // PostgreSQL's default.
            Some((ViewCheckOption::Cascaded, *with))
        }
        _ => None,
    }
}
