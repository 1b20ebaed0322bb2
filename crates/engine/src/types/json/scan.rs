//! `->` without a tree: the members of a JSON text found by skipping over the others.

use super::{parse, Json, JsonFlavor};

/// The text of a top-level object member or array element of a valid JSON text, found by
/// skipping over the others without building a tree: `->` on a column of short documents
/// then costs one pass over each document and one copy of the result. A jsonb value's
/// members are themselves canonical text, so the slice is the result. For json (verbatim
/// text, duplicate keys kept) the last member of the key wins, as PostgreSQL's `->` does.
pub fn member<'a>(text: &'a str, step: Step<'_>) -> Option<&'a str> {
    let (kind, mut members) = Members::of(text)?;
    match (kind, step) {
        (Container::Object, Step::Key(wanted)) => members
            .filter(|(key, _)| key.and_then(unquote).is_some_and(|k| k == wanted))
            .last()
            .map(|(_, value)| value),
        (Container::Array, Step::Index(index)) if index >= 0 => members
            .nth(usize::try_from(index).ok()?)
            .map(|(_, value)| value),
        (Container::Array, Step::Index(index)) => {
            let elements: Vec<&str> = members.map(|(_, value)| value).collect();
            let at = elements.len() as i64 + index;
            elements.get(usize::try_from(at).ok()?).copied()
        }
        _ => None,
    }
}

/// What a JSON text holds at its top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Object,
    Array,
    Scalar,
}

/// The top-level members of a valid JSON text in order, each as its quoted key's raw text
/// (objects only) and its value's text, white space trimmed: the set-returning functions
/// (`json_each`, `json_array_elements`, ...) and `->` read a document through it.
pub struct Members<'a> {
    text: &'a str,
    scan: Scanner<'a>,
    close: u8,
    done: bool,
}

impl<'a> Members<'a> {
    /// The container kind of `text` and its members (none for a scalar); `None` if the
    /// text is cut short.
    pub fn of(text: &'a str) -> Option<(Container, Members<'a>)> {
        let mut scan = Scanner {
            bytes: text.as_bytes(),
            at: 0,
        };
        scan.skip_space();
        let (kind, close) = match scan.peek()? {
            b'{' => (Container::Object, b'}'),
            b'[' => (Container::Array, b']'),
            _ => (Container::Scalar, 0),
        };
        scan.at += usize::from(kind != Container::Scalar);
        let done = kind == Container::Scalar;
        Some((
            kind,
            Members {
                text,
                scan,
                close,
                done,
            },
        ))
    }

    fn next_member(&mut self) -> Option<(Option<&'a str>, &'a str)> {
        let scan = &mut self.scan;
        scan.skip_space();
        if scan.peek()? == self.close {
            return None;
        }
        let key = match self.close {
            b'}' => {
                let (from, to) = scan.skip_value()?;
                scan.skip_space();
                scan.at += 1; // ':'
                scan.skip_space();
                Some(&self.text[from..to])
            }
            _ => None,
        };
        let (from, to) = scan.skip_value()?;
        scan.skip_space();
        if scan.peek()? == b',' {
            scan.at += 1;
        }
        Some((key, &self.text[from..to]))
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (Option<&'a str>, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let member = self.next_member();
        self.done = member.is_none();
        member
    }
}

/// What [`member`] looks for.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    Key(&'a str),
    Index(i64),
}

/// The text of a quoted JSON string `raw` (a key or a string value), escapes resolved.
pub fn unquote(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(std::borrow::Cow::Borrowed(inner));
    }
    match parse(raw, JsonFlavor::Json) {
        Ok(Json::String(s)) => Some(std::borrow::Cow::Owned(s)),
        _ => None,
    }
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
