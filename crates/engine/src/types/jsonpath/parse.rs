//! jsonpath_in: the text of a jsonpath into its tree, with PostgreSQL's grammar
//! (`jsonpath_gram.y`): `lax`/`strict`, accessors, filters, arithmetic, predicates and the
//! item methods, with the same operator precedence.

use super::{Accessor, ArithOp, CmpOp, Expr, JsonPath, Method};
use crate::error::{Error, Result, SqlState};
use crate::types::json::Json;

/// Parses a jsonpath text.
pub fn parse(text: &str) -> Result<JsonPath> {
    let tokens = lex(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
    };
    let strict = match parser.peek() {
        Some(Token::Word(w)) if w == "strict" => {
            parser.at += 1;
            true
        }
        Some(Token::Word(w)) if w == "lax" => {
            parser.at += 1;
            false
        }
        _ => false,
    };
    let expr = parser.or()?;
    match parser.peek() {
        None => Ok(JsonPath { strict, expr }),
        Some(token) => Err(syntax_error(Some(token))),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A bare word: a key, a keyword or a method name.
    Word(String),
    /// A quoted string.
    Str(String),
    /// A number as written.
    Number(String),
    /// `$name` or `$"name"`.
    Variable(String),
    /// Punctuation and operators.
    Punct(&'static str),
}

fn syntax_error(at: Option<&Token>) -> Error {
    let message = match at {
        None => "syntax error at end of jsonpath input".to_string(),
        Some(token) => {
            let text = match token {
                Token::Word(w) | Token::Number(w) => w.clone(),
                Token::Str(s) => format!("\"{s}\""),
                Token::Variable(v) => format!("${v}"),
                Token::Punct(p) => p.to_string(),
            };
            format!("syntax error at or near \"{text}\" of jsonpath input")
        }
    };
    Error::new(SqlState::SyntaxError, message)
}

/// Punctuation, longest first so `**` and `<=` win over `*` and `<`.
const PUNCTUATION: &[&str] = &[
    "**", "==", "!=", "<>", "<=", ">=", "&&", "||", "$", "@", ".", "[", "]", "(", ")", ",", "?",
    "*", "{", "}", "+", "-", "/", "%", "<", ">", "!",
];

fn lex(text: &str) -> Result<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii_whitespace() {
            at += 1;
        } else if b == b'"' {
            let (s, next) = lex_string(text, at)?;
            tokens.push(Token::Str(s));
            at = next;
        } else if b.is_ascii_digit()
            || (b == b'.'
                && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
                && !after_value(&tokens))
        {
            let next = number_end(bytes, at);
            tokens.push(Token::Number(text[at..next].to_string()));
            at = next;
        } else if b == b'$' && bytes.get(at + 1) == Some(&b'"') {
            let (s, next) = lex_string(text, at + 1)?;
            tokens.push(Token::Variable(s));
            at = next;
        } else if b == b'$' && bytes.get(at + 1).is_some_and(|&c| is_word_byte(c)) {
            let next = word_end(bytes, at + 1);
            tokens.push(Token::Variable(text[at + 1..next].to_string()));
            at = next;
        } else if is_word_byte(b) {
            let next = word_end(bytes, at);
            tokens.push(Token::Word(text[at..next].to_string()));
            at = next;
        } else if let Some(p) = PUNCTUATION.iter().find(|p| text[at..].starts_with(**p)) {
            tokens.push(Token::Punct(p));
            at += p.len();
        } else {
            let c = text[at..].chars().next().unwrap_or_default();
            return Err(Error::new(
                SqlState::SyntaxError,
                format!("syntax error at or near \"{c}\" of jsonpath input"),
            ));
        }
    }
    Ok(tokens)
}

/// Whether the previous token ends a value, so `.` starts an accessor, not a number.
fn after_value(tokens: &[Token]) -> bool {
    matches!(
        tokens.last(),
        Some(Token::Word(_) | Token::Str(_) | Token::Variable(_) | Token::Number(_))
            | Some(Token::Punct("$" | "@" | "]" | ")" | "*"))
    )
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn word_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_word_byte(b)) {
        at += 1;
    }
    at
}

fn number_end(bytes: &[u8], mut at: usize) -> usize {
    let digits = |at: &mut usize| {
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
    };
    digits(&mut at);
    if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at += 1;
        digits(&mut at);
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        let mut exp = at + 1;
        if matches!(bytes.get(exp), Some(b'+' | b'-')) {
            exp += 1;
        }
        if bytes.get(exp).is_some_and(u8::is_ascii_digit) {
            at = exp;
            digits(&mut at);
        }
    }
    at
}

/// A quoted string from the `"` at `start`: its text, escapes resolved, and where it ends.
fn lex_string(text: &str, start: usize) -> Result<(String, usize)> {
    let mut out = String::new();
    let mut chars = text[start + 1..].char_indices();
    let unterminated = || {
        Error::new(
            SqlState::SyntaxError,
            "syntax error at end of jsonpath input",
        )
    };
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, start + 1 + i + 1)),
            '\\' => {
                let (_, e) = chars.next().ok_or_else(unterminated)?;
                match e {
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'v' => out.push('\u{b}'),
                    'u' | 'x' => {
                        let len = if e == 'u' { 4 } else { 2 };
                        let hex: String = chars.by_ref().take(len).map(|(_, h)| h).collect();
                        let code = u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| hex.len() == len)
                            .and_then(char::from_u32)
                            .ok_or_else(|| {
                                Error::new(
                                    SqlState::SyntaxError,
                                    "invalid Unicode escape sequence in jsonpath input",
                                )
                            })?;
                        out.push(code);
                    }
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    Err(unterminated())
}

/// How deep a path may nest (parentheses, signs, negations and accessors in a chain), so
/// that parsing, evaluating, printing and dropping it stay within the stack; PostgreSQL's
/// own limit is its stack depth.
const DEPTH_MAX: usize = 64;

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    /// Counts `levels` more levels of nesting; the caller gives them back with `leave`.
    fn enter(&mut self, levels: usize) -> Result<()> {
        self.depth += levels;
        match self.depth > DEPTH_MAX {
            true => Err(Error::new(
                SqlState::StatementTooComplex,
                "stack depth limit exceeded",
            )),
            false => Ok(()),
        }
    }

    fn leave(&mut self, levels: usize) {
        self.depth -= levels;
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn eat(&mut self, punct: &str) -> bool {
        let found = matches!(self.peek(), Some(Token::Punct(p)) if *p == punct);
        self.at += usize::from(found);
        found
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let found = matches!(self.peek(), Some(Token::Word(w)) if w == word);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, punct: &str) -> Result<()> {
        match self.eat(punct) {
            true => Ok(()),
            false => Err(syntax_error(self.peek())),
        }
    }

    fn or(&mut self) -> Result<Expr> {
        self.enter(1)?;
        let mut left = self.and()?;
        while self.eat("||") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        self.leave(1);
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr> {
        let mut left = self.not()?;
        while self.eat("&&") {
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr> {
        if !self.eat("!") {
            return self.comparison();
        }
        self.enter(1)?;
        let inner = self.not()?;
        self.leave(1);
        Ok(Expr::Not(Box::new(inner)))
    }

    fn comparison(&mut self) -> Result<Expr> {
        let left = self.additive()?;
        let op = match self.peek() {
            Some(Token::Punct("==")) => CmpOp::Eq,
            Some(Token::Punct("!=" | "<>")) => CmpOp::Ne,
            Some(Token::Punct("<")) => CmpOp::Lt,
            Some(Token::Punct("<=")) => CmpOp::Le,
            Some(Token::Punct(">")) => CmpOp::Gt,
            Some(Token::Punct(">=")) => CmpOp::Ge,
            Some(Token::Word(w)) if w == "starts" => {
                self.at += 1;
                if !self.eat_word("with") {
                    return Err(syntax_error(self.peek()));
                }
                let prefix = match self.next() {
                    Some(Token::Str(s)) => Expr::Literal(Json::String(s)),
                    Some(Token::Variable(v)) => Expr::Variable(v),
                    other => return Err(syntax_error(other.as_ref())),
                };
                return Ok(Expr::StartsWith(Box::new(left), Box::new(prefix)));
            }
            Some(Token::Word(w)) if w == "like_regex" => {
                self.at += 1;
                let pattern = match self.next() {
                    Some(Token::Str(s)) => s,
                    other => return Err(syntax_error(other.as_ref())),
                };
                let flags = match self.eat_word("flag") {
                    true => match self.next() {
                        Some(Token::Str(s)) => s,
                        other => return Err(syntax_error(other.as_ref())),
                    },
                    false => String::new(),
                };
                let regex = super::like_regex(&pattern, &flags)?;
                return Ok(Expr::LikeRegex(Box::new(left), Box::new(regex)));
            }
            _ => return Ok(left),
        };
        self.at += 1;
        let right = self.additive()?;
        Ok(Expr::Compare(op, Box::new(left), Box::new(right)))
    }

    fn additive(&mut self) -> Result<Expr> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match self.peek() {
                Some(Token::Punct("+")) => ArithOp::Add,
                Some(Token::Punct("-")) => ArithOp::Sub,
                _ => return Ok(left),
            };
            self.at += 1;
            left = Expr::Arith(op, Box::new(left), Box::new(self.multiplicative()?));
        }
    }

    fn multiplicative(&mut self) -> Result<Expr> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Token::Punct("*")) => ArithOp::Mul,
                Some(Token::Punct("/")) => ArithOp::Div,
                Some(Token::Punct("%")) => ArithOp::Mod,
                _ => return Ok(left),
            };
            self.at += 1;
            left = Expr::Arith(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr> {
        for (sign, minus) in [("-", true), ("+", false)] {
            if self.eat(sign) {
                self.enter(1)?;
                let operand = self.unary()?;
                self.leave(1);
                // A signed number is a number, as PostgreSQL's grammar folds it.
                return Ok(match (operand, minus) {
                    (Expr::Literal(Json::Number(n)), true) => {
                        Expr::Literal(Json::Number(negate_number(n)))
                    }
                    (literal @ Expr::Literal(Json::Number(_)), false) => literal,
                    (operand, minus) => Expr::Negate(Box::new(operand), minus),
                });
            }
        }
        let mut expr = self.primary()?;
        let mut chain = 0;
        while let Some(accessor) = self.accessor()? {
            self.enter(1)?;
            chain += 1;
            expr = Expr::Access(Box::new(expr), accessor);
        }
        self.leave(chain);
        Ok(expr)
    }

    fn primary(&mut self) -> Result<Expr> {
        let token = self.next();
        Ok(match token {
            Some(Token::Punct("$")) => Expr::Root,
            Some(Token::Punct("@")) => Expr::Current,
            Some(Token::Variable(name)) => Expr::Variable(name),
            Some(Token::Number(n)) => Expr::Literal(Json::Number(
                crate::types::json::numeric_text(&n).map_err(|_| syntax_error(None))?,
            )),
            Some(Token::Str(s)) => Expr::Literal(Json::String(s)),
            Some(Token::Word(w)) => match w.as_str() {
                "true" => Expr::Literal(Json::Bool(true)),
                "false" => Expr::Literal(Json::Bool(false)),
                "null" => Expr::Literal(Json::Null),
                "last" => Expr::Last,
                "exists" => {
                    self.expect("(")?;
                    let inner = self.or()?;
                    self.expect(")")?;
                    Expr::Exists(Box::new(inner))
                }
                _ => return Err(syntax_error(Some(&Token::Word(w)))),
            },
            Some(Token::Punct("(")) => {
                let inner = self.or()?;
                self.expect(")")?;
                if self.eat_word("is") {
                    if !self.eat_word("unknown") {
                        return Err(syntax_error(self.peek()));
                    }
                    return Ok(Expr::IsUnknown(Box::new(inner)));
                }
                inner
            }
            other => return Err(syntax_error(other.as_ref())),
        })
    }

    /// The accessor that follows, if any.
    fn accessor(&mut self) -> Result<Option<Accessor>> {
        if self.eat("[") {
            if self.eat("*") {
                self.expect("]")?;
                return Ok(Some(Accessor::AnyElement));
            }
            let mut subscripts = Vec::new();
            loop {
                let from = self.or()?;
                let to = match self.eat_word("to") {
                    true => Some(self.or()?),
                    false => None,
                };
                subscripts.push((from, to));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("]")?;
            return Ok(Some(Accessor::Subscripts(subscripts)));
        }
        if self.eat("?") {
            self.expect("(")?;
            let predicate = self.or()?;
            self.expect(")")?;
            return Ok(Some(Accessor::Filter(Box::new(predicate))));
        }
        if !self.eat(".") {
            return Ok(None);
        }
        let token = self.next();
        Ok(Some(match token {
            Some(Token::Punct("*")) => Accessor::AnyKey,
            Some(Token::Punct("**")) => {
                let (from, to) = match self.eat("{") {
                    true => {
                        let from = self.level()?;
                        let to = match self.eat_word("to") {
                            true => self.level()?,
                            false => from,
                        };
                        self.expect("}")?;
                        (from, to)
                    }
                    false => (0, u32::MAX),
                };
                Accessor::Descendants { from, to }
            }
            Some(Token::Str(key)) => Accessor::Key(key),
            Some(Token::Word(word)) if matches!(self.peek(), Some(Token::Punct("("))) => {
                self.at += 1;
                let method = match word.as_str() {
                    "type" => Method::Type,
                    "size" => Method::Size,
                    "double" => Method::Double,
                    "abs" => Method::Abs,
                    "floor" => Method::Floor,
                    "ceiling" => Method::Ceiling,
                    "keyvalue" => Method::KeyValue,
                    "datetime" => {
                        return Err(Error::unsupported("the jsonpath method .datetime()"))
                    }
                    _ => return Err(syntax_error(Some(&Token::Punct("(")))),
                };
                self.expect(")")?;
                Accessor::Method(method)
            }
            Some(Token::Word(key)) => Accessor::Key(key),
            other => return Err(syntax_error(other.as_ref())),
        }))
    }

    /// A level of `.**{n}`: an integer or `last`.
    fn level(&mut self) -> Result<u32> {
        match self.next() {
            Some(Token::Word(w)) if w == "last" => Ok(u32::MAX),
            Some(Token::Number(n)) => n.parse().map_err(|_| syntax_error(None)),
            other => Err(syntax_error(other.as_ref())),
        }
    }
}

/// The text of `-n` for a NUMERIC text `n` (zero stays unsigned).
fn negate_number(n: String) -> String {
    match n.strip_prefix('-') {
        Some(positive) => positive.to_string(),
        None if n.bytes().all(|b| b == b'0' || b == b'.') => n,
        None => format!("-{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_paths_are_refused_not_overflowed() {
        let deep = |open: &str, middle: &str, close: &str| {
            format!("{}{middle}{}", open.repeat(5000), close.repeat(5000))
        };
        for text in [
            deep("(", "$", ")"),
            deep("-", "$", ""),
            deep("!(", "$ > 1", ")"),
            deep("", "$", ".a"),
            deep("$ ? (", "@ > 1", ")"),
        ] {
            let error = parse(&text).map(|p| p.to_text()).err();
            assert_eq!(
                error.map(|e| e.sqlstate()),
                Some("54001"),
                "{}",
                &text[..20]
            );
        }
        let long = format!("${}", ".a".repeat(40));
        assert_eq!(
            parse(&long).map(|p| p.to_text().len()).ok(),
            Some(1 + 40 * 4)
        );
    }
}
