//! `->` without a tree: the member of a JSON text found by skipping over the others.

use super::{parse, Json, JsonFlavor};

/// The text of a top-level object member or array element of a valid JSON text, found by
/// skipping over the others without building a tree: `->` on a column of short documents
/// then costs one pass over each document and one copy of the result. A jsonb value's
/// members are themselves canonical text, so the slice is the result. For json (verbatim
/// text, duplicate keys kept) the last member of the key wins, as PostgreSQL's `->` does.
pub fn member<'a>(text: &'a str, step: Step<'_>) -> Option<&'a str> {
    let mut scan = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    scan.skip_space();
    let (open, close) = match (scan.peek()?, step) {
        (b'{', Step::Key(_)) => (b'{', b'}'),
        (b'[', Step::Index(_)) => (b'[', b']'),
        _ => return None,
    };
    if scan.peek() != Some(open) {
        return None;
    }
    scan.at += 1;
    let mut found = None;
    let mut elements = Vec::new();
    loop {
        scan.skip_space();
        if scan.peek()? == close {
            break;
        }
        let key = match step {
            Step::Key(_) => {
                let key = scan.skip_value()?;
                scan.skip_space();
                scan.at += 1; // ':'
                scan.skip_space();
                Some(key)
            }
            Step::Index(_) => None,
        };
        let value = scan.skip_value()?;
        match (step, key) {
            (Step::Key(wanted), Some((from, to))) if key_matches(&text[from..to], wanted) => {
                found = Some(value)
            }
            (Step::Index(_), _) => elements.push(value),
            _ => {}
        }
        scan.skip_space();
        if scan.peek()? == b',' {
            scan.at += 1;
        }
    }
    match step {
        Step::Key(_) => found.map(|(from, to)| &text[from..to]),
        Step::Index(index) => {
            let at = if index < 0 {
                elements.len() as i64 + index
            } else {
                index
            };
            let (from, to) = *elements.get(usize::try_from(at).ok()?)?;
            Some(&text[from..to])
        }
    }
}

/// What [`member`] looks for.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    Key(&'a str),
    Index(i64),
}

/// Whether the quoted key `raw` (escapes and all) is `wanted`.
fn key_matches(raw: &str, wanted: &str) -> bool {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains('\\') {
        return inner == wanted;
    }
    matches!(parse(raw, JsonFlavor::Json), Ok(Json::String(key)) if key == wanted)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Skips one value, returning its byte range.
    fn skip_value(&mut self) -> Option<(usize, usize)> {
        let start = self.at;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => self.skip_string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.at += 1;
                }
                b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => self.at += 1,
            }
            if depth == 0 && matches!(self.bytes.get(self.at - 1), Some(b'"' | b'}' | b']')) {
                break;
            }
        }
        Some((start, self.at))
    }

    fn skip_string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }
}
