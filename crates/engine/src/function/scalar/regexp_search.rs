//! PostgreSQL 15's match-finding functions: `regexp_count`, `regexp_instr`, `regexp_like`
//! and `regexp_substr`. They compile patterns and flags as [`super::pattern`] does and walk
//! the matches as PostgreSQL's setup_regexp_matches does: from character `start`, each
//! search beginning where the last match ended (one character later after an empty one).
//! Positions are in characters; the `g` flag is rejected (they find every match anyway).

use regex::Match;

use super::regex_preference::PgRegex;

use super::kernel::{char_count, map_rows, map_text_rows_nullable, texts, values};
use super::pattern::{
    check_parameter, next_search, optional, reject_global, search_start, RegexCache,
};
use crate::error::Result;
use crate::vector::{StringVec, Vector};

/// `regexp_count(s, pattern [, start [, flags]])`: how many matches there are.
pub(super) fn regexp_count(args: &[Vector]) -> Result<Vector> {
    let (s, pattern) = (texts(args, 0)?, texts(args, 1)?);
    let start = optional(args, 2, values::<i32>)?;
    let flags = optional(args, 3, texts)?;
    let mut cache = RegexCache::default();
    map_rows(args, |row| {
        let start = match start {
            Some(start) => check_parameter("start", start[row], start[row] > 0)?,
            None => 1,
        };
        let (regex, global) = cache.get(pattern.get(row), flags.map_or("", |f| f.get(row)))?;
        reject_global(global, "regexp_count")?;
        let s = s.get(row);
        let mut count = 0i32;
        let mut at = search_start(s, start);
        while let Some(whole) = at.map_or(Ok(None), |at| regex.find_at(s, at))? {
            count = count.saturating_add(1);
            at = next_search(s, whole);
        }
        Ok(count)
    })
}

/// `regexp_like(s, pattern [, flags])`: whether the pattern matches.
pub(super) fn regexp_like(args: &[Vector]) -> Result<Vector> {
    let (s, pattern) = (texts(args, 0)?, texts(args, 1)?);
    let flags = optional(args, 2, texts)?;
    let mut cache = RegexCache::default();
    map_rows(args, |row| {
        let (regex, global) = cache.get(pattern.get(row), flags.map_or("", |f| f.get(row)))?;
        reject_global(global, "regexp_like")?;
        Ok(regex.is_match(s.get(row)))
    })
}

/// `regexp_instr(s, pattern [, start [, n [, endoption [, flags [, subexpr]]]]])`: the
/// character position where the `n`th match (or its `subexpr`th group) starts, or just
/// after it ends with `endoption` 1; 0 when there is no such match or group.
pub(super) fn regexp_instr(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    let end_option = optional(args, 4, values::<i32>)?;
    let mut search = MatchSearch::new(args, 5, 6)?;
    map_rows(args, |row| {
        // PostgreSQL checks endoption before subexpr and the flags.
        let (start, n) = search.start_and_n(row)?;
        let at_end = match end_option {
            Some(e) => check_parameter("endoption", e[row], e[row] == 0 || e[row] == 1)? == 1,
            None => false,
        };
        let s = s.get(row);
        Ok(match search.find(row, s, start, n, "regexp_instr")? {
            Some((start, end)) => {
                let at = if at_end { end } else { start };
                i32::try_from(char_count(&s[..at]) + 1).unwrap_or(i32::MAX)
            }
            None => 0,
        })
    })
}

/// `regexp_substr(s, pattern [, start [, n [, flags [, subexpr]]]])`: the text of the
/// `n`th match (or its `subexpr`th group); NULL when there is no such match or group.
pub(super) fn regexp_substr(args: &[Vector]) -> Result<Vector> {
    let s = texts(args, 0)?;
    let mut search = MatchSearch::new(args, 4, 5)?;
    map_text_rows_nullable(args, |row, out| {
        let (start, n) = search.start_and_n(row)?;
        let s = s.get(row);
        Ok(match search.find(row, s, start, n, "regexp_substr")? {
            Some((start, end)) => {
                out.extend_from_slice(&s.as_bytes()[start..end]);
                true
            }
            None => false,
        })
    })
}

/// The arguments regexp_instr and regexp_substr share: the pattern, `start` and `n` (the
/// third and fourth), and the flags and `subexpr` at positions that differ.
struct MatchSearch<'a> {
    pattern: &'a StringVec,
    start: Option<&'a [i32]>,
    n: Option<&'a [i32]>,
    flags: Option<&'a StringVec>,
    subexpr: Option<&'a [i32]>,
    cache: RegexCache,
}

impl<'a> MatchSearch<'a> {
    fn new(args: &'a [Vector], flags_idx: usize, subexpr_idx: usize) -> Result<Self> {
        Ok(MatchSearch {
            pattern: texts(args, 1)?,
            start: optional(args, 2, values::<i32>)?,
            n: optional(args, 3, values::<i32>)?,
            flags: optional(args, flags_idx, texts)?,
            subexpr: optional(args, subexpr_idx, values::<i32>)?,
            cache: RegexCache::default(),
        })
    }

    /// Row `row`'s `start` and `n` (1 when absent), checked as PostgreSQL does.
    fn start_and_n(&self, row: usize) -> Result<(i32, i32)> {
        let start = match self.start {
            Some(start) => check_parameter("start", start[row], start[row] > 0)?,
            None => 1,
        };
        let n = match self.n {
            Some(n) => check_parameter("n", n[row], n[row] > 0)?,
            None => 1,
        };
        Ok((start, n))
    }

    /// The byte range of the `n`th match from character `start`, or of its `subexpr`th
    /// group; None without one. A pattern without groups answers subexpr 1 with the whole
    /// match, as PostgreSQL's does.
    fn find(
        &mut self,
        row: usize,
        s: &str,
        start: i32,
        n: i32,
        name: &str,
    ) -> Result<Option<(usize, usize)>> {
        let subexpr = match self.subexpr {
            Some(sub) => check_parameter("subexpr", sub[row], sub[row] >= 0)?,
            None => 0,
        };
        let flags = self.flags.map_or("", |f| f.get(row));
        let (regex, global) = self.cache.get(self.pattern.get(row), flags)?;
        reject_global(global, name)?;
        let Some((searched_from, whole)) = nth_match(regex, s, start, n)? else {
            return Ok(None);
        };
        let groups = regex.captures_len() - 1;
        let group = match (subexpr, groups) {
            (0, _) | (1, 0) => return Ok(Some((whole.start(), whole.end()))),
            (sub, groups) => match usize::try_from(sub) {
                Ok(sub) if sub <= groups => sub,
                _ => return Ok(None),
            },
        };
        // The same search finds the same match, now with its groups (slower, so only
        // for the match asked for).
        let captures = regex.captures_at(s, searched_from)?;
        Ok(captures
            .and_then(|c| c.get(group))
            .map(|m| (m.start(), m.end())))
    }
}

/// The `n`th (1-based) of PostgreSQL's successive matches of `regex` in `s` from
/// character `start`, and the byte offset the search that found it began at.
fn nth_match<'s>(
    regex: &PgRegex,
    s: &'s str,
    start: i32,
    n: i32,
) -> Result<Option<(usize, Match<'s>)>> {
    let mut at = search_start(s, start);
    let mut seen = 0;
    while let Some(from) = at {
        let Some(whole) = regex.find_at(s, from)? else {
            break;
        };
        seen += 1;
        if seen == n {
            return Ok(Some((from, whole)));
        }
        at = next_search(s, whole);
    }
    Ok(None)
}
