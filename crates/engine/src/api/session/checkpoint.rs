//! CHECKPOINT, which sqlparser does not know: recognised by its text (the whole statement,
//! alone, as psql, pgbench and drivers send it) before parsing.

use super::transaction_block::failed_block_error;
use super::{Block, Session};
use crate::api::StatementResult;
use crate::error::Result;

/// Whether `sql` is a CHECKPOINT statement: the one word, any case, with optional
/// surrounding whitespace, `--` comments and semicolons.
pub(super) fn is_checkpoint(sql: &str) -> bool {
    let words: Vec<&str> = sql
        .lines()
        .map(|line| line.split("--").next().unwrap_or(""))
        .flat_map(|line| line.split(|c: char| c.is_whitespace() || c == ';'))
        .filter(|word| !word.is_empty())
        .collect();
    matches!(words.as_slice(), [word] if word.eq_ignore_ascii_case("checkpoint"))
}

impl Session {
    /// Writes a checkpoint now (nothing to write for an in-memory database).
    pub(super) fn run_checkpoint(&mut self) -> Result<StatementResult> {
        if self.block == Block::Failed {
            return Err(failed_block_error());
        }
        self.store.checkpoint()?;
        Ok(StatementResult::command("CHECKPOINT"))
    }
}

#[cfg(test)]
mod tests {
    use super::is_checkpoint;

    #[test]
    fn only_the_bare_statement_is_a_checkpoint() {
        for sql in [
            "CHECKPOINT",
            "checkpoint;",
            "  Checkpoint ; ",
            "-- now\nCHECKPOINT",
        ] {
            assert!(is_checkpoint(sql), "{sql}");
        }
        for sql in [
            "SELECT 'checkpoint'",
            "CHECKPOINT; SELECT 1",
            "checkpoints",
            "",
        ] {
            assert!(!is_checkpoint(sql), "{sql}");
        }
    }
}
