//! The sqllogictest runner behind `cargo test` and `scripts/pg_diff.sh`. It runs the same
//! `tests/slt/**/*.slt` files against three targets — the engine in-process ([`engine`]), a
//! `kestrel serve` process over the wire ([`server`]), and a real PostgreSQL ([`wire`] into a
//! fresh database per file) — and all three print values and errors the same way
//! ([`format`]), so one expected output, produced by PostgreSQL 15, fits every target.

pub mod engine;
pub mod format;
pub mod run;
pub mod server;
pub mod wire;

pub use format::SqlError;
pub use run::{corpus_dir, slt_files, FileReport, Target};
pub use server::kestrel_binary;
