//! What DROP reports about the objects that depend on what it drops, as PostgreSQL's
//! reportDependentObjects words it: without CASCADE, 2BP01 with a DETAIL line per
//! dependent; with CASCADE, a NOTICE naming the one object dropped with it, or counting
//! them and listing each in its DETAIL.

use crate::api::Notice;
use crate::error::{Error, SqlState};

/// The 2BP01 of dropping `object` (`table t`, `type d`, ...) while `lines` (`view v
/// depends on table t`, ...) stand.
pub(crate) fn dependents_still_exist(object: &str, lines: &[String]) -> Error {
    Error::new(
        SqlState::DependentObjectsStillExist,
        format!("cannot drop {object} because other objects depend on it"),
    )
    .with_detail(lines.join("\n"))
    .with_hint("Use DROP ... CASCADE to drop the dependent objects too.")
}

/// The NOTICE of a CASCADE that drops `dropped` (`view v`, `function f(integer)`, ...).
pub(crate) fn cascade_notice(dropped: &[String]) -> Notice {
    let (message, detail) = match dropped {
        [one] => (format!("drop cascades to {one}"), None),
        many => (
            format!("drop cascades to {} other objects", many.len()),
            Some(
                many.iter()
                    .map(|object| format!("drop cascades to {object}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        ),
    };
    Notice {
        detail,
        ..Notice::skipped(message)
    }
}
