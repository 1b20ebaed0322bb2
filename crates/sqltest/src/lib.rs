//! The sqllogictest runner behind `cargo test` and `scripts/pg_diff.sh`. It runs the same
//! `tests/slt/**/*.slt` files against the engine in-process ([`engine`]), the engine on a
//! data directory that a file can restart ([`durable`]), a `kestrel serve` process over the
//! wire ([`server`]), and a real PostgreSQL ([`wire`] into a fresh database per file) — and
//! all of them print values and errors the same way ([`format`]), so one expected output,
//! produced by PostgreSQL 15, fits every target. Each connection of a file runs on its own
//! task, so a statement blocked on another connection's lock lets the file go on
//! ([`steps`]). [`differential`] is the random-query tester that compares the engine with
//! PostgreSQL on generated queries.

pub mod copy;
pub mod differential;
pub mod durable;
pub mod engine;
pub mod format;
pub mod run;
pub mod server;
pub mod steps;
pub mod wire;

pub use format::SqlError;
pub use run::{corpus_dir, slt_files, FileReport, Target};
pub use server::kestrel_binary;
