//! LIKE and ILIKE pattern matching with PostgreSQL's rules: `%` any run, `_` one character,
//! backslash escapes the next character.

use crate::error::{Error, Result, SqlState};

/// A compiled LIKE pattern.
#[derive(Debug, Clone)]
pub struct LikePattern {
    tokens: Vec<Token>,
    case_insensitive: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(char),
    AnyOne,
    AnyRun,
}

impl LikePattern {
    pub fn compile(pattern: &str, case_insensitive: bool) -> Result<LikePattern> {
        let mut tokens = Vec::new();
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            tokens.push(match c {
                '%' => {
                    if tokens.last() == Some(&Token::AnyRun) {
                        continue;
                    }
                    Token::AnyRun
                }
                '_' => Token::AnyOne,
                '\\' => match chars.next() {
                    Some(escaped) => Token::Literal(fold(escaped, case_insensitive)),
                    None => {
                        return Err(Error::new(
                            SqlState::InvalidEscapeSequence,
                            "LIKE pattern must not end with escape character",
                        ))
                    }
                },
                c => Token::Literal(fold(c, case_insensitive)),
            });
        }
        Ok(LikePattern {
            tokens,
            case_insensitive,
        })
    }

    pub fn matches(&self, text: &str) -> bool {
        if self.case_insensitive {
            let folded: Vec<char> = text.chars().map(|c| fold(c, true)).collect();
            match_tokens(&self.tokens, &folded)
        } else {
            let chars: Vec<char> = text.chars().collect();
            match_tokens(&self.tokens, &chars)
        }
    }
}

fn fold(c: char, case_insensitive: bool) -> char {
    if case_insensitive {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

/// Greedy matching with backtracking to the last `%` only: linear in practice.
fn match_tokens(tokens: &[Token], text: &[char]) -> bool {
    let (mut t, mut s) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while s < text.len() {
        match tokens.get(t) {
            Some(Token::AnyRun) => {
                backtrack = Some((t, s));
                t += 1;
            }
            Some(Token::AnyOne) => {
                t += 1;
                s += 1;
            }
            Some(Token::Literal(c)) if *c == text[s] => {
                t += 1;
                s += 1;
            }
            _ => match backtrack {
                Some((bt, bs)) => {
                    t = bt + 1;
                    s = bs + 1;
                    backtrack = Some((bt, bs + 1));
                }
                None => return false,
            },
        }
    }
    tokens[t..].iter().all(|tok| *tok == Token::AnyRun)
}

#[cfg(test)]
mod tests {
    use super::LikePattern;

    fn like(text: &str, pattern: &str) -> bool {
        LikePattern::compile(pattern, false).map(|p| p.matches(text)) == Ok(true)
    }

    #[test]
    fn wildcards() {
        assert!(like("hello", "h%o"));
        assert!(like("hello", "%"));
        assert!(like("", "%"));
        assert!(!like("hello", "h_o"));
        assert!(like("hello", "h___o"));
        assert!(like("abcabc", "%abc"));
        assert!(!like("abcab", "%abc"));
        assert!(like("a%b", "a\\%b"));
        assert!(!like("axb", "a\\%b"));
    }

    #[test]
    fn ilike() {
        let p = LikePattern::compile("HE%", true);
        assert!(p.is_ok_and(|p| p.matches("hello")));
    }
}
