//! POSIX regular expressions: `regexp_replace`, `regexp_match`, `regexp_split_to_array`,
//! `substring(s FROM pattern)` and the `~` operators, on the `regex` crate, and the pattern
//! and flag compilation and match walking that [`super::regexp_search`] shares. PostgreSQL's
//! defaults are kept: `.` matches a newline and `^`/`$` anchor at the ends of the string
//! unless the `n` flag asks otherwise. A pattern is compiled once per batch while
//! consecutive rows repeat it (always, for a constant).
//!
//! Patterns are rewritten from PostgreSQL's syntax by [`super::regex_syntax`]. Known
//! differences from PostgreSQL's engine: back-references and lookaround (`(a)\1`,
//! `a(?=b)`) are refused with 0A000, and alternations choose the leftmost alternative
//! rather than the longest match.

use regex::{Captures, RegexBuilder};

use super::regex_preference::{PgRegex, Syntax};

use super::kernel::{
    is_valid, map_rows, map_text_rows, map_text_rows_nullable, strict_validity, texts, values,
};
use super::regex_syntax::translate;
use crate::error::{Error, Result, SqlState};
use crate::types::{PhysicalType, ScalarValue};
use crate::vector::Vector;

/// The compiled form of the last (pattern, flags) pair seen.
#[derive(Default)]
pub(crate) struct RegexCache {
    pattern: String,
    flags: String,
    compiled: Option<(PgRegex, bool)>,
}

impl RegexCache {
    /// The regex for `pattern` with PostgreSQL `flags`, and whether `g` (replace all) is set.
    pub(super) fn get(&mut self, pattern: &str, flags: &str) -> Result<(&PgRegex, bool)> {
        if self.compiled.is_none() || self.pattern != pattern || self.flags != flags {
            self.compiled = Some(compile(pattern, flags)?);
            self.pattern.clear();
            self.pattern.push_str(pattern);
            self.flags.clear();
            self.flags.push_str(flags);
        }
        match &self.compiled {
            Some((regex, global)) => Ok((regex, *global)),
            None => Err(Error::internal("regex cache is empty after compiling")),
        }
    }
}

/// The options PostgreSQL's flag letters set.
struct Options {
    global: bool,
    case_insensitive: bool,
    dot_newline: bool,
    multi_line: bool,
    expanded: bool,
    literal: bool,
}

impl Options {
    /// Applies PostgreSQL's flag letters: `g` global, `i`/`c` case, `n`/`s`/`p`/`w`
    /// newline sensitivity, `x` expanded syntax, `q` a literal string; 22023 for others.
    fn apply(&mut self, flags: &str) -> Result<()> {
        for flag in flags.chars() {
            match flag {
                'g' => self.global = true,
                'i' => self.case_insensitive = true,
                'c' => self.case_insensitive = false,
                'n' | 'm' => (self.dot_newline, self.multi_line) = (false, true),
                's' => (self.dot_newline, self.multi_line) = (true, false),
                'p' => (self.dot_newline, self.multi_line) = (false, false),
                'w' => (self.dot_newline, self.multi_line) = (true, true),
                'x' => self.expanded = true,
                't' => self.expanded = false,
                'q' => self.literal = true,
                other => {
                    return Err(Error::new(
                        SqlState::InvalidParameterValue,
                        format!("invalid regular expression option: \"{other}\""),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Compiles a pattern in PostgreSQL's syntax with its flag letters ([`Options::apply`]).
fn compile(pattern: &str, flags: &str) -> Result<(PgRegex, bool)> {
    let mut options = Options {
        global: false,
        case_insensitive: false,
        // PostgreSQL's default: not newline-sensitive.
        dot_newline: true,
        multi_line: false,
        expanded: false,
        literal: false,
    };
    options.apply(flags)?;
    let pattern = if options.literal {
        regex::escape(pattern)
    } else {
        // The options a pattern embeds override the flags argument.
        let translated = translate(pattern)?;
        options.apply(&translated.flags)?;
        if translated.literal {
            regex::escape(&translated.pattern)
        } else {
            translated.pattern
        }
    };
    let regex = RegexBuilder::new(&pattern)
        .case_insensitive(options.case_insensitive)
        .dot_matches_new_line(options.dot_newline)
        .multi_line(options.multi_line)
        .ignore_whitespace(options.expanded)
        .build()
        .map_err(|e| {
            let reason = match e {
                regex::Error::Syntax(text) => text.lines().last().unwrap_or_default().to_string(),
                other => other.to_string(),
            };
            Error::new(
                SqlState::InvalidRegularExpression,
                format!("invalid regular expression: {}", reason.trim()),
            )
        })?;
    let syntax = Syntax {
        case_insensitive: options.case_insensitive,
        dot_newline: options.dot_newline,
        multi_line: options.multi_line,
        expanded: options.expanded,
    };
    Ok((PgRegex::new(regex, &pattern, &syntax), options.global))
}

/// `regexp_replace(s, pattern, replacement [, flags])`: the first match, or every one
/// with `g`.
pub(super) fn regexp_replace(args: &[Vector]) -> Result<Vector> {
    let (pattern, flags) = (texts(args, 1)?, optional(args, 3, texts)?);
    replace_rows(args, |row, cache| {
        let flags = flags.map_or("", |f| f.get(row));
        if let Some(digit) = flags.chars().next().filter(char::is_ascii_digit) {
            // An unknown-typed fourth argument resolves to this form, not to `start`.
            return Err(Error::new(
                SqlState::InvalidParameterValue,
                format!("invalid regular expression option: \"{digit}\""),
            )
            .with_hint("If you meant to use regexp_replace() with a start parameter, cast the fourth argument to integer explicitly."));
        }
        let (regex, global) = cache.get(pattern.get(row), flags)?;
        Ok((regex, 1, if global { 0 } else { 1 }))
    })
}

/// `regexp_replace(s, pattern, replacement, start [, n [, flags]])`: the `n`th match from
/// character `start` (every one for `n` 0; the `g` flag is then ignored, as in PostgreSQL).
pub(super) fn regexp_replace_from(args: &[Vector]) -> Result<Vector> {
    let (start, n) = (values::<i32>(args, 3)?, optional(args, 4, values::<i32>)?);
    let (pattern, flags) = (texts(args, 1)?, optional(args, 5, texts)?);
    replace_rows(args, |row, cache| {
        let start = check_parameter("start", start[row], start[row] > 0)?;
        let n = match n {
            Some(n) => check_parameter("n", n[row], n[row] >= 0)?,
            None => 1,
        };
        let (regex, _) = cache.get(pattern.get(row), flags.map_or("", |f| f.get(row)))?;
        Ok((regex, start, n))
    })
}

/// How many matches `regexp_replace` replaces between looks at the statement's interrupt
/// and memory.
const MATCHES_PER_CHECK: i32 = 4096;

/// The rows of a `regexp_replace`: `choose` gives a row's regex, start character and which
/// match to replace (0 for all).
fn replace_rows(
    args: &[Vector],
    mut choose: impl for<'c> FnMut(usize, &'c mut RegexCache) -> Result<(&'c PgRegex, i32, i32)>,
) -> Result<Vector> {
    let (s, replacement) = (texts(args, 0)?, texts(args, 2)?);
    let mut cache = RegexCache::default();
    map_text_rows(args, |row, out| {
        let (regex, start, n) = choose(row, &mut cache)?;
        let (s, replacement) = (s.get(row), replacement.get(row));
        let mut last = 0;
        let mut at = search_start(s, start);
        let mut seen = 0;
        while let Some(captures) = at.map_or(Ok(None), |at| regex.captures_at(s, at))? {
            let Some(whole) = captures.get(0) else {
                break;
            };
            at = next_search(s, whole);
            seen += 1;
            // Millions of matches take seconds and may grow the text tenfold: look for a
            // cancel and for room as it grows.
            if seen % MATCHES_PER_CHECK == 0 {
                crate::interrupt::check_value_bytes(out.len())?;
            }
            if n > 0 && seen != n {
                continue;
            }
            out.extend_from_slice(&s.as_bytes()[last..whole.start()]);
            expand_replacement(replacement, &captures, out);
            last = whole.end();
            if n > 0 {
                break;
            }
        }
        out.extend_from_slice(&s.as_bytes()[last..]);
        Ok(())
    })
}

/// Argument `idx` read by `get` when the call has it.
pub(super) fn optional<'a, T: ?Sized>(
    args: &'a [Vector],
    idx: usize,
    get: impl FnOnce(&'a [Vector], usize) -> Result<&'a T>,
) -> Result<Option<&'a T>> {
    if idx < args.len() {
        get(args, idx).map(Some)
    } else {
        Ok(None)
    }
}

/// `value` when `valid`, else PostgreSQL's 22023 for an out-of-range optional argument.
pub(super) fn check_parameter(name: &str, value: i32, valid: bool) -> Result<i32> {
    if valid {
        Ok(value)
    } else {
        Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"{name}\": {value}"),
        ))
    }
}

/// The byte offset where a search from character `start` (1-based) begins; None past the
/// end of `s`, where PostgreSQL finds no match at all.
pub(super) fn search_start(s: &str, start: i32) -> Option<usize> {
    let skip = usize::try_from(start.saturating_sub(1)).unwrap_or(0);
    if skip == 0 {
        return Some(0);
    }
    if s.is_ascii() {
        return (skip <= s.len()).then_some(skip);
    }
    let mut offsets = s.char_indices().map(|(i, _)| i).chain([s.len()]);
    offsets.nth(skip)
}

/// Where PostgreSQL searches after `whole`: at its end, or one character later for an
/// empty match (None past the end of `s`). Unlike the regex crate's iterators, an empty
/// match right after a non-empty one counts, as it does in PostgreSQL.
pub(super) fn next_search(s: &str, whole: regex::Match) -> Option<usize> {
    if !whole.is_empty() {
        return Some(whole.end());
    }
    s[whole.end()..]
        .chars()
        .next()
        .map(|c| whole.end() + c.len_utf8())
}

/// 22023 for the `g` flag on a function that returns a single match.
pub(super) fn reject_global(global: bool, name: &str) -> Result<()> {
    if global {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("{name}() does not support the \"global\" option"),
        ));
    }
    Ok(())
}

/// `regexp_match(s, pattern [, flags])`: the capture groups of the first match (the whole
/// match without groups; NULL for a group that did not take part), NULL without a match.
pub(super) fn regexp_match(args: &[Vector]) -> Result<Vector> {
    map_array_rows(args, "regexp_match", |regex, s| {
        Ok(regex.captures(s)?.map(|c| match_groups(&c)))
    })
}

/// The capture groups of a match as text (the whole match when there are none; NULL for a
/// group that did not take part).
fn match_groups(captures: &Captures) -> Vec<ScalarValue> {
    let text = |m: Option<regex::Match>| {
        m.map_or(ScalarValue::Null, |m| {
            ScalarValue::Text(m.as_str().to_string())
        })
    };
    if captures.len() == 1 {
        vec![text(captures.get(0))]
    } else {
        captures.iter().skip(1).map(text).collect()
    }
}

/// The rows of `regexp_matches(s, pattern, flags)`: a text[] of [`match_groups`] for the
/// first match, or for every one with `g`, walked as PostgreSQL's setup_regexp_matches does.
pub(crate) fn regexp_matches_rows(
    cache: &mut RegexCache,
    s: &str,
    pattern: &str,
    flags: &str,
) -> Result<Vec<ScalarValue>> {
    let (regex, global) = cache.get(pattern, flags)?;
    let mut rows = Vec::new();
    let mut at = Some(0);
    while let Some(captures) = at.map_or(Ok(None), |at| regex.captures_at(s, at))? {
        let Some(whole) = captures.get(0) else {
            break;
        };
        rows.push(ScalarValue::Array(match_groups(&captures)));
        if !global {
            break;
        }
        at = next_search(s, whole);
    }
    Ok(rows)
}

/// The rows of `regexp_split_to_table(s, pattern, flags)`: [`split_pieces`] as text.
pub(crate) fn regexp_split_rows(
    cache: &mut RegexCache,
    s: &str,
    pattern: &str,
    flags: &str,
) -> Result<Vec<ScalarValue>> {
    let (regex, global) = cache.get(pattern, flags)?;
    reject_global(global, "regexp_split_to_table")?;
    split_pieces(regex, s)
}

/// `regexp_split_to_array(s, pattern [, flags])`: the text between matches; an empty
/// match at either end of the string is ignored, so `''` splits into characters.
pub(super) fn regexp_split_to_array(args: &[Vector]) -> Result<Vector> {
    map_array_rows(args, "regexp_split_to_array", |regex, s| {
        split_pieces(regex, s).map(Some)
    })
}

/// The text between the matches of `regex` in `s`. As in PostgreSQL, a match at the end
/// of the string or ending no later than the previous one (an empty one at the start, or
/// right after a match) is ignored, so `''` splits into characters.
fn split_pieces(regex: &PgRegex, s: &str) -> Result<Vec<ScalarValue>> {
    let mut pieces = Vec::new();
    let mut last = 0;
    let mut at = Some(0);
    while let Some(m) = at.map_or(Ok(None), |at| regex.find_at(s, at))? {
        at = next_search(s, m);
        if m.start() >= s.len() || m.end() <= last {
            continue;
        }
        pieces.push(ScalarValue::Text(s[last..m.start()].to_string()));
        last = m.end();
    }
    pieces.push(ScalarValue::Text(s[last..].to_string()));
    Ok(pieces)
}

/// A strict `(s, pattern [, flags])` function giving a text[] (or NULL) per row; the `g`
/// flag is rejected as PostgreSQL does for these single-result functions.
fn map_array_rows(
    args: &[Vector],
    name: &str,
    mut f: impl FnMut(&PgRegex, &str) -> Result<Option<Vec<ScalarValue>>>,
) -> Result<Vector> {
    let (s, pattern) = (texts(args, 0)?, texts(args, 1)?);
    let flags = optional(args, 2, texts)?;
    let validity = strict_validity(args);
    let mut out = Vector::with_capacity(PhysicalType::List(&PhysicalType::Text), s.len());
    let mut cache = RegexCache::default();
    for row in 0..s.len() {
        if !is_valid(&validity, row) {
            out.push_null();
            continue;
        }
        let (regex, global) = cache.get(pattern.get(row), flags.map_or("", |f| f.get(row)))?;
        reject_global(global, name)?;
        match f(regex, s.get(row))? {
            Some(values) => out.push_scalar(&ScalarValue::Array(values)),
            None => {
                out.push_null();
                Ok(())
            }
        }?;
    }
    Ok(out)
}

/// Writes a replacement with PostgreSQL's escapes: `\1`..`\9` a group, `\&` the whole
/// match, `\\` a backslash; any other backslash is copied as it is.
fn expand_replacement(replacement: &str, captures: &Captures, out: &mut Vec<u8>) {
    let bytes = replacement.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match bytes[i + 1] {
            d @ b'1'..=b'9' => {
                if let Some(group) = captures.get(usize::from(d - b'0')) {
                    out.extend_from_slice(group.as_str().as_bytes());
                }
            }
            b'&' => {
                if let Some(whole) = captures.get(0) {
                    out.extend_from_slice(whole.as_str().as_bytes());
                }
            }
            b'\\' => out.push(b'\\'),
            _ => {
                out.push(b'\\');
                i += 1;
                continue;
            }
        }
        i += 2;
    }
}

/// `substring(s FROM pattern)`: the part matching the first parenthesized subexpression
/// if there is one, else the whole match; NULL without a match.
pub(super) fn substring(args: &[Vector]) -> Result<Vector> {
    let (s, pattern) = (texts(args, 0)?, texts(args, 1)?);
    let mut cache = RegexCache::default();
    map_text_rows_nullable(args, |row, out| {
        let (regex, _) = cache.get(pattern.get(row), "")?;
        let Some(captures) = regex.captures(s.get(row))? else {
            return Ok(false);
        };
        let group = if regex.captures_len() > 1 { 1 } else { 0 };
        Ok(match captures.get(group) {
            Some(m) => {
                out.extend_from_slice(m.as_str().as_bytes());
                true
            }
            None => false,
        })
    })
}

/// `s ~ pattern` and its case-insensitive and negated forms.
pub(super) fn regex_match(
    args: &[Vector],
    case_insensitive: bool,
    negated: bool,
) -> Result<Vector> {
    let (s, pattern) = (texts(args, 0)?, texts(args, 1)?);
    let flags = if case_insensitive { "i" } else { "" };
    let mut cache = RegexCache::default();
    map_rows(args, |row| {
        let (regex, _) = cache.get(pattern.get(row), flags)?;
        Ok(regex.is_match(s.get(row)) != negated)
    })
}

/// `similar_to_escape(pattern [, escape])`: the POSIX regular expression a SQL `SIMILAR TO`
/// pattern means, as PostgreSQL's similar_escape_internal builds it: `%` and `_` become
/// `.*` and `.`, parentheses do not capture, `.`, `^`, `$` and backslashes are literal, the
/// escape character (backslash by default, none when empty) quotes the next one, and the
/// whole pattern must match the whole string.
pub(super) fn similar_to_escape(args: &[Vector]) -> Result<Vector> {
    let pattern = texts(args, 0)?;
    let escape = if args.len() > 1 {
        Some(texts(args, 1)?)
    } else {
        None
    };
    map_text_rows(args, |row, out| {
        let escape = match escape {
            None => Some('\\'),
            Some(escape) => {
                let mut chars = escape.get(row).chars();
                match (chars.next(), chars.next()) {
                    (None, _) => None,
                    (Some(c), None) => Some(c),
                    _ => {
                        return Err(Error::new(
                            SqlState::InvalidEscapeSequence,
                            "invalid escape string",
                        )
                        .with_hint("Escape string must be empty or one character."))
                    }
                }
            }
        };
        let regex = similar_to_regex(pattern.get(row), escape)?;
        out.extend_from_slice(regex.as_bytes());
        Ok(())
    })
}

fn similar_to_regex(pattern: &str, escape: Option<char>) -> Result<String> {
    let mut out = String::with_capacity(pattern.len() * 2 + 8);
    out.push_str("^(?:");
    let (mut after_escape, mut in_class, mut quotes) = (false, false, 0);
    for c in pattern.chars() {
        if after_escape {
            if c == '"' && !in_class {
                // Escape-double-quotes split the pattern into the parts SUBSTRING returns.
                match quotes {
                    0 => out.push_str("){1,1}?("),
                    1 => out.push_str("){1,1}(?:"),
                    _ => {
                        return Err(Error::new(
                            SqlState::InvalidUseOfEscapeCharacter,
                            "SQL regular expression may not contain more than two escape-double-quote separators",
                        ))
                    }
                }
                quotes += 1;
            } else {
                out.push('\\');
                out.push(c);
            }
            after_escape = false;
        } else if Some(c) == escape {
            after_escape = true;
        } else if in_class {
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
            in_class = c != ']';
        } else {
            match c {
                '[' => {
                    out.push(c);
                    in_class = true;
                }
                '%' => out.push_str(".*"),
                '_' => out.push('.'),
                '(' => out.push_str("(?:"),
                '\\' | '.' | '^' | '$' => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
    }
    out.push_str(")$");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace_once(s: &str, pattern: &str, replacement: &str) -> String {
        let Ok((regex, _)) = compile(pattern, "") else {
            return "<invalid>".into();
        };
        let mut out = Vec::new();
        if let Ok(Some(captures)) = regex.captures(s) {
            expand_replacement(replacement, &captures, &mut out);
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn replacement_escapes() {
        assert_eq!(replace_once("abc", "(b)(c)", r"[\2\1]"), "[cb]");
        assert_eq!(replace_once("abc", "b", r"<\&>"), "<b>");
        assert_eq!(replace_once("abc", "b", r"\\x\q\"), r"\x\q\");
    }

    #[test]
    fn flags() {
        assert!(compile("a", "z").is_err());
        assert!(compile("(", "").is_err());
        assert!(compile("a.b", "").is_ok_and(|(r, _)| r.is_match("a\nb")));
        assert!(compile("a.b", "n").is_ok_and(|(r, _)| !r.is_match("a\nb")));
        assert!(compile("A", "gi").is_ok_and(|(r, g)| g && r.is_match("a")));
    }
}
