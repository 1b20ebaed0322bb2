//! PostgreSQL's rule for which match a regular expression finds, checked against the
//! `regex` crate's. PostgreSQL's engine returns, at the leftmost position where the pattern
//! matches, the longest match (or the shortest, when the pattern's first quantifier is
//! non-greedy and it has no top-level `|`); the crate returns the match its first-listed
//! alternatives give (`a|ab` finds `a` in `abcd` where PostgreSQL finds `ab`). Both start
//! at the same place, so a lazy DFA run from there with every match kept finds
//! PostgreSQL's end: when it differs from the crate's, the search is refused with 0A000
//! rather than answered differently. Patterns without alternation or quantifiers have one
//! match at a place and are not checked. The groups of a pattern mixing greedy and
//! non-greedy quantifiers follow PostgreSQL's subexpression rules, which the crate does not
//! have: they are refused too.

use std::cell::RefCell;

use regex::{Captures, Match, Regex};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

use crate::error::{Error, Result};

/// A compiled pattern and, when its matches may differ from PostgreSQL's, the DFA that
/// finds PostgreSQL's end of a match.
pub(crate) struct PgRegex {
    regex: Regex,
    check: Option<Check>,
    /// Whether the capture groups may differ from PostgreSQL's ([`Shape::groups_may_differ`]).
    groups_may_differ: bool,
}

struct Check {
    dfa: DFA,
    cache: RefCell<Cache>,
    shortest: bool,
}

/// The regex options the DFA is built with, the same as the crate regex's.
pub(super) struct Syntax {
    pub(super) case_insensitive: bool,
    pub(super) dot_newline: bool,
    pub(super) multi_line: bool,
    pub(super) expanded: bool,
}

impl PgRegex {
    /// `regex`, compiled from `pattern` with `options`.
    pub(super) fn new(regex: Regex, pattern: &str, options: &Syntax) -> PgRegex {
        let may_differ = pattern.contains(['|', '?', '*', '+', '{']);
        let check = may_differ.then(|| build(pattern, options)).flatten();
        let groups_may_differ = may_differ && Shape::of(pattern).groups_may_differ();
        PgRegex {
            regex,
            check,
            groups_may_differ,
        }
    }

    pub(crate) fn is_match(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }

    pub(crate) fn captures_len(&self) -> usize {
        self.regex.captures_len()
    }

    pub(crate) fn find_at<'s>(&self, s: &'s str, at: usize) -> Result<Option<Match<'s>>> {
        let found = self.regex.find_at(s, at);
        if let Some(m) = found {
            self.verify(s, m)?;
        }
        Ok(found)
    }

    pub(crate) fn captures_at<'s>(&self, s: &'s str, at: usize) -> Result<Option<Captures<'s>>> {
        if self.groups_may_differ {
            return Err(Error::unsupported(
                "capture groups of a regular expression mixing greedy and non-greedy quantifiers",
            ));
        }
        let found = self.regex.captures_at(s, at);
        if let Some(m) = found.as_ref().and_then(|c| c.get(0)) {
            self.verify(s, m)?;
        }
        Ok(found)
    }

    pub(crate) fn captures<'s>(&self, s: &'s str) -> Result<Option<Captures<'s>>> {
        self.captures_at(s, 0)
    }

    /// 0A000 when PostgreSQL's match at `m`'s start ends elsewhere. A search the DFA
    /// gives up on (a Unicode word boundary beside a non-ASCII character) is not checked.
    fn verify(&self, s: &str, m: Match) -> Result<()> {
        let Some(check) = &self.check else {
            return Ok(());
        };
        let input = Input::new(s)
            .range(m.start()..)
            .anchored(Anchored::Yes)
            .earliest(check.shortest);
        let mut cache = check.cache.borrow_mut();
        match check.dfa.try_search_fwd(&mut cache, &input) {
            Ok(Some(end)) if end.offset() != m.end() => Err(Error::unsupported(
                "a regular expression whose match under PostgreSQL's longest-match rule differs from its first alternative's",
            )),
            Ok(_) | Err(_) => Ok(()),
        }
    }
}

/// The DFA for `pattern`; None if it cannot be built (the crate regex then still runs).
fn build(pattern: &str, options: &Syntax) -> Option<Check> {
    let dfa = DFA::builder()
        .configure(
            DFA::config()
                .match_kind(MatchKind::All)
                .unicode_word_boundary(true),
        )
        .syntax(
            syntax::Config::new()
                .case_insensitive(options.case_insensitive)
                .dot_matches_new_line(options.dot_newline)
                .multi_line(options.multi_line)
                .ignore_whitespace(options.expanded),
        )
        .build(pattern)
        .ok()?;
    let cache = RefCell::new(dfa.create_cache());
    Some(Check {
        dfa,
        cache,
        shortest: Shape::of(pattern).non_greedy(),
    })
}

/// What PostgreSQL's preference rules read in a pattern.
#[derive(Default)]
struct Shape {
    /// Whether the first quantifier is non-greedy.
    first_lazy: Option<bool>,
    /// Whether there is a `|` outside parentheses.
    top_level_alternation: bool,
    lazy: bool,
    greedy: bool,
    /// Whether there is a capturing group.
    groups: bool,
}

impl Shape {
    fn of(pattern: &str) -> Shape {
        let bytes = pattern.as_bytes();
        let mut shape = Shape::default();
        let (mut depth, mut in_bracket, mut i) = (0usize, false, 0);
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 1,
                b'[' if !in_bracket => in_bracket = true,
                b']' if in_bracket => in_bracket = false,
                _ if in_bracket => {}
                b'(' => {
                    depth += 1;
                    // `(?:` is not a quantifier.
                    if bytes.get(i + 1) == Some(&b'?') {
                        i += 1;
                    } else {
                        shape.groups = true;
                    }
                }
                b')' => depth = depth.saturating_sub(1),
                b'|' if depth == 0 => shape.top_level_alternation = true,
                b'*' | b'+' | b'?' | b'{' => {
                    if bytes[i] == b'{' {
                        i += bytes[i..].iter().position(|&b| b == b'}').unwrap_or(0);
                    }
                    let lazy = bytes.get(i + 1) == Some(&b'?');
                    if lazy {
                        i += 1;
                    }
                    shape.first_lazy.get_or_insert(lazy);
                    shape.lazy |= lazy;
                    shape.greedy |= !lazy;
                }
                _ => {}
            }
            i += 1;
        }
        shape
    }

    /// Whether PostgreSQL prefers the shortest match: the first quantifier is non-greedy
    /// and there is no `|` outside parentheses.
    fn non_greedy(&self) -> bool {
        !self.top_level_alternation && self.first_lazy.unwrap_or(false)
    }

    /// Whether PostgreSQL may give the groups other text than the crate: greedy and
    /// non-greedy quantifiers mixed (`^(l*){1,1}?(.*)`), which PostgreSQL resolves by its
    /// subexpression preference rules.
    fn groups_may_differ(&self) -> bool {
        self.groups && self.lazy && self.greedy
    }
}
