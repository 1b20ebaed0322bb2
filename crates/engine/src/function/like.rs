//! LIKE and ILIKE pattern matching with PostgreSQL's rules: `%` any run, `_` one character,
//! backslash escapes the next character.
//!
//! A pattern is split at its `%`s into pieces of fixed character length. The text must start
//! with the first piece and end with the last; every piece between is matched at its leftmost
//! place after the previous one, which is where a match leaves the most text for the rest.
//! Matching runs on the text's bytes (a literal is whole UTF-8 characters, so a byte match at
//! a character boundary is a character match): no UTF-8 check of the text, and no allocation
//! for LIKE.

use memchr::memmem::Finder;

use crate::error::{Error, Result, SqlState};
use crate::vector::utf8_width;

/// A compiled LIKE pattern.
#[derive(Debug, Clone)]
pub struct LikePattern {
    /// The pattern's parts between `%`s; one piece when it has no `%`.
    pieces: Vec<Piece>,
    case_insensitive: bool,
}

/// Literal runs and `_`s, matched at one place.
#[derive(Debug, Clone, Default)]
struct Piece {
    items: Vec<Item>,
    /// How many characters the piece matches.
    chars: usize,
    /// Finds the piece's leading literal, built once per pattern.
    leading: Option<Finder<'static>>,
}

#[derive(Debug, Clone)]
enum Item {
    Literal(Vec<u8>),
    /// This many `_`s in a row.
    AnyChars(usize),
}

impl Piece {
    fn push_literal(&mut self, c: char) {
        self.chars += 1;
        let mut utf8 = [0; 4];
        let encoded = c.encode_utf8(&mut utf8).as_bytes();
        if let Some(Item::Literal(run)) = self.items.last_mut() {
            run.extend_from_slice(encoded);
        } else {
            self.items.push(Item::Literal(encoded.to_vec()));
        }
    }

    fn finish(&mut self) {
        if let Some(Item::Literal(run)) = self.items.first() {
            self.leading = Some(Finder::new(run).into_owned());
        }
    }

    fn push_any_char(&mut self) {
        self.chars += 1;
        if let Some(Item::AnyChars(n)) = self.items.last_mut() {
            *n += 1;
        } else {
            self.items.push(Item::AnyChars(1));
        }
    }

    /// The end of the piece matched at byte `start` of `text`, a character boundary.
    fn match_at(&self, text: &[u8], start: usize) -> Option<usize> {
        let mut at = start;
        for item in &self.items {
            match item {
                Item::Literal(run) => {
                    if !text[at..].starts_with(run) {
                        return None;
                    }
                    at += run.len();
                }
                Item::AnyChars(n) => {
                    for _ in 0..*n {
                        let lead = *text.get(at)?;
                        at += utf8_width(lead);
                    }
                }
            }
        }
        Some(at)
    }

    /// The end of the leftmost match starting at or after byte `from`.
    fn find_from(&self, text: &[u8], from: usize) -> Option<usize> {
        let mut start = from;
        loop {
            if let Some(finder) = &self.leading {
                start += finder.find(&text[start..])?;
            }
            if let Some(end) = self.match_at(text, start) {
                return Some(end);
            }
            let lead = *text.get(start)?;
            start += utf8_width(lead);
        }
    }

    /// Where the piece must start to end exactly at the end of `text`.
    fn start_from_end(&self, text: &[u8]) -> Option<usize> {
        let mut at = text.len();
        for _ in 0..self.chars {
            at = at.checked_sub(1)?;
            while at > 0 && is_continuation(text[at]) {
                at -= 1;
            }
        }
        Some(at)
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

impl LikePattern {
    pub fn compile(pattern: &str, case_insensitive: bool) -> Result<LikePattern> {
        let mut pieces = vec![Piece::default()];
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            let piece = match pieces.last_mut() {
                Some(piece) => piece,
                None => return Err(Error::internal("LIKE pattern without pieces")),
            };
            match c {
                '%' => pieces.push(Piece::default()),
                '_' => piece.push_any_char(),
                '\\' => match chars.next() {
                    Some(escaped) => piece.push_literal(fold(escaped, case_insensitive)),
                    None => {
                        return Err(Error::new(
                            SqlState::InvalidEscapeSequence,
                            "LIKE pattern must not end with escape character",
                        ))
                    }
                },
                c => piece.push_literal(fold(c, case_insensitive)),
            }
        }
        pieces.iter_mut().for_each(Piece::finish);
        Ok(LikePattern {
            pieces,
            case_insensitive,
        })
    }

    /// Whether `text`, the UTF-8 bytes of a text value, matches; `scratch` holds the
    /// case-folded text of ILIKE.
    pub fn matches(&self, text: &[u8], scratch: &mut String) -> bool {
        if !self.case_insensitive {
            return self.matches_exact(text);
        }
        scratch.clear();
        if text.is_ascii() {
            scratch.extend(text.iter().map(|&b| char::from(b.to_ascii_lowercase())));
        } else {
            let text = String::from_utf8_lossy(text);
            scratch.extend(text.chars().map(|c| fold(c, true)));
        }
        self.matches_exact(scratch.as_bytes())
    }

    fn matches_exact(&self, text: &[u8]) -> bool {
        let (first, rest) = match self.pieces.split_first() {
            Some(split) => split,
            None => return text.is_empty(),
        };
        let Some(mut at) = first.match_at(text, 0) else {
            return false;
        };
        let Some((last, middle)) = rest.split_last() else {
            return at == text.len();
        };
        for piece in middle {
            match piece.find_from(text, at) {
                Some(end) => at = end,
                None => return false,
            }
        }
        last.start_from_end(text)
            .is_some_and(|start| start >= at && last.match_at(text, start) == Some(text.len()))
    }
}

fn fold(c: char, case_insensitive: bool) -> char {
    if case_insensitive {
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::LikePattern;

    fn like(text: &str, pattern: &str) -> bool {
        LikePattern::compile(pattern, false).map(|p| p.matches(text.as_bytes(), &mut String::new()))
            == Ok(true)
    }

    fn ilike(text: &str, pattern: &str) -> bool {
        LikePattern::compile(pattern, true).map(|p| p.matches(text.as_bytes(), &mut String::new()))
            == Ok(true)
    }

    #[test]
    fn wildcards() {
        assert!(like("hello", "h%o"));
        assert!(like("hello", "%"));
        assert!(like("", "%"));
        assert!(like("", ""));
        assert!(!like("a", ""));
        assert!(!like("hello", "h_o"));
        assert!(like("hello", "h___o"));
        assert!(like("abcabc", "%abc"));
        assert!(!like("abcab", "%abc"));
        assert!(like("a%b", "a\\%b"));
        assert!(!like("axb", "a\\%b"));
        assert!(like("aXbYc", "a%b%c"));
        assert!(!like("aXcYb", "a%b%c"));
        assert!(like("abab", "%ab%ab"));
        assert!(!like("aba", "%ab%ab"));
        assert!(like("xaab", "%a_b"));
        assert!(like("ab", "%%b%%"));
        assert!(!like("ab", "a%%_b"));
        assert!(like("axb", "a%%_b"));
    }

    #[test]
    fn multibyte_characters() {
        assert!(like("€uro", "_uro"));
        assert!(!like("€uro", "__uro"));
        assert!(like("naïve", "na_ve"));
        assert!(like("naïve", "%ï%"));
        assert!(like("日本語", "%_語"));
        assert!(like("日本語", "日%_"));
        assert!(!like("日本", "日_%_"));
    }

    #[test]
    fn case_insensitive() {
        assert!(ilike("hello", "HE%"));
        assert!(ilike("HÉLLO", "%él%"));
        assert!(!like("HELLO", "he%"));
    }

    #[test]
    fn trailing_escape_is_an_error() {
        assert!(LikePattern::compile("ab\\", false).is_err());
    }
}
