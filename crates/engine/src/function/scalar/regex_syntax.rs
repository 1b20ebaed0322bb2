//! PostgreSQL's advanced regular expression (ARE) syntax rewritten into the `regex` crate's,
//! for [`super::pattern`]. It receives a pattern as a user wrote it and produces the
//! equivalent pattern, the options embedded in it (`(?i)` at its start), or an error: 0A000
//! for what the crate cannot express (back-references, lookaround), 2201B for what
//! PostgreSQL rejects. Escapes whose meaning differs are rewritten (`\m \M \y \Y`, `\Z`,
//! `\B`, `\b`, `\e`, `\x` with any number of digits), as are the word-boundary brackets
//! `[[:<:]]` and `[[:>:]]` and the characters the crate treats as class operators or
//! nested classes inside brackets (`&`, `~`, `[`).

use std::fmt::Write;

use crate::error::{Error, Result, SqlState};

/// A pattern in the crate's syntax, with the flag letters embedded at its start.
pub(super) struct Translated {
    pub(super) pattern: String,
    pub(super) flags: String,
    /// Whether the rest is a literal string (`***=`).
    pub(super) literal: bool,
}

/// Rewrites `pattern`; see the module comment.
pub(super) fn translate(pattern: &str) -> Result<Translated> {
    if let Some(rest) = pattern.strip_prefix("***=") {
        return Ok(Translated {
            pattern: rest.to_string(),
            flags: String::new(),
            literal: true,
        });
    }
    let mut rest = pattern.strip_prefix("***:").unwrap_or(pattern);
    let mut flags = String::new();
    // `(?letters)` at the start; `(?:`, `(?=` and the like are groups.
    let embedded = rest.strip_prefix("(?").and_then(|options| {
        let end = options.find(')')?;
        let letters = &options[..end];
        (!letters.is_empty() && letters.chars().all(|c| c.is_ascii_alphabetic()))
            .then_some((letters, &options[end + 1..]))
    });
    if let Some((letters, after)) = embedded {
        flags.push_str(letters);
        rest = after;
        if flags.contains('q') {
            return Ok(Translated {
                pattern: rest.to_string(),
                flags,
                literal: true,
            });
        }
    }
    Ok(Translated {
        pattern: rewrite(rest)?,
        flags,
        literal: false,
    })
}

fn invalid(reason: &str) -> Error {
    Error::new(
        SqlState::InvalidRegularExpression,
        format!("invalid regular expression: {reason}"),
    )
}

/// The escapes and brackets of `pattern` rewritten.
fn rewrite(pattern: &str) -> Result<String> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                let Some((_, escaped)) = chars.next() else {
                    return Err(invalid("invalid escape \\ sequence"));
                };
                escape(escaped, &mut chars, &mut out, false)?;
            }
            '[' => {
                let rest = &pattern[at..];
                if let Some(boundary) = [("[[:<:]]", r"\b{start}"), ("[[:>:]]", r"\b{end}")]
                    .into_iter()
                    .find_map(|(word, crate_syntax)| {
                        rest.starts_with(word).then_some((word, crate_syntax))
                    })
                {
                    out.push_str(boundary.1);
                    for _ in 1..boundary.0.len() {
                        chars.next();
                    }
                    continue;
                }
                bracket(&mut chars, &mut out)?;
            }
            '(' if chars.peek().is_some_and(|&(_, next)| next == '?') => {
                chars.next();
                match chars.next() {
                    Some((_, ':')) => out.push_str("(?:"),
                    Some((_, '=' | '!' | '<')) => {
                        return Err(Error::unsupported(
                            "lookahead and lookbehind constraints in regular expressions",
                        ))
                    }
                    _ => return Err(invalid("quantifier operand invalid")),
                }
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

type Chars<'a> = std::iter::Peekable<std::str::CharIndices<'a>>;

/// A bracket expression, from after its `[` to its `]`.
fn bracket(chars: &mut Chars, out: &mut String) -> Result<()> {
    out.push('[');
    if chars.peek().is_some_and(|&(_, c)| c == '^') {
        chars.next();
        out.push('^');
    }
    // A `]` first is a member, as in PostgreSQL.
    if chars.peek().is_some_and(|&(_, c)| c == ']') {
        chars.next();
        out.push_str(r"\]");
    }
    while let Some((_, c)) = chars.next() {
        match c {
            ']' => {
                out.push(']');
                return Ok(());
            }
            '\\' => {
                let Some((_, escaped)) = chars.next() else {
                    break;
                };
                escape(escaped, chars, out, true)?;
            }
            '[' => match chars.peek().map(|&(_, c)| c) {
                // `[:alpha:]`, copied to its closing `:]`.
                Some(':') => {
                    out.push('[');
                    let mut last = '[';
                    for (_, c) in chars.by_ref() {
                        out.push(c);
                        if last == ':' && c == ']' {
                            break;
                        }
                        last = c;
                    }
                }
                Some('.' | '=') => {
                    return Err(Error::unsupported(
                        "collating elements and equivalence classes in regular expressions",
                    ))
                }
                _ => out.push_str(r"\["),
            },
            // Class operators of the crate (`&&`, `~~`), members in PostgreSQL.
            '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            other => out.push(other),
        }
    }
    Err(invalid("brackets [] not balanced"))
}

/// The escape `\c`, inside a bracket expression or not.
fn escape(c: char, chars: &mut Chars, out: &mut String, in_bracket: bool) -> Result<()> {
    match c {
        '1'..='9' if !in_bracket => {
            return Err(Error::unsupported("back-references in regular expressions"))
        }
        // Word boundaries: start, end, either, neither.
        'm' if !in_bracket => out.push_str(r"\b{start}"),
        'M' if !in_bracket => out.push_str(r"\b{end}"),
        'y' if !in_bracket => out.push_str(r"\b"),
        'Y' if !in_bracket => out.push_str(r"\B"),
        'A' if !in_bracket => out.push_str(r"\A"),
        'Z' if !in_bracket => out.push_str(r"\z"),
        // Backspace, a backslash, escape.
        'b' => out.push_str(r"\x08"),
        'B' => out.push_str(r"\\"),
        'e' => out.push_str(r"\x1B"),
        'x' => {
            let mut code = 0u32;
            let mut digits = 0;
            while let Some(d) = chars.peek().and_then(|&(_, c)| c.to_digit(16)) {
                chars.next();
                code = code.saturating_mul(16).saturating_add(d);
                digits += 1;
            }
            if digits == 0 {
                return Err(invalid("invalid escape \\ sequence"));
            }
            let _ = write!(out, r"\x{{{code:X}}}");
        }
        'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'n' | 'r' | 't' | 'f' | 'v' | 'a' | 'u' | 'U' => {
            out.push('\\');
            out.push(c);
        }
        letter if letter.is_ascii_alphanumeric() => {
            return Err(invalid("invalid escape \\ sequence"));
        }
        // Any other character stands for itself.
        other => out.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_syntax(pattern: &str) -> String {
        translate(pattern).map_or_else(|e| e.to_string(), |t| t.pattern)
    }

    #[test]
    fn rewrites() {
        assert_eq!(crate_syntax(r"\mfoo\M"), r"\b{start}foo\b{end}");
        assert_eq!(crate_syntax("[[:<:]]a[[:>:]]"), r"\b{start}a\b{end}");
        assert_eq!(crate_syntax(r"[\d&]x\Z"), r"[\d\&]x\z");
        assert_eq!(crate_syntax(r"[]a[]"), r"[\]a\[]");
        assert_eq!(crate_syntax(r"\<\x41"), r"<\x{41}");
        assert_eq!(translate("(?i)ab").map(|t| t.flags).ok(), Some("i".into()));
        assert!(translate(r"(a)\1").is_err());
        assert!(translate(r"a(?=b)").is_err());
    }
}
