//! The differential random-query tester: random SELECTs over a few small tables with NULLs
//! ([`schema`], [`query`]) run on the engine in-process and on a real PostgreSQL, and every
//! difference in their answers reported ([`compare`]). Rows are compared as a multiset
//! unless the query's ORDER BY covers every output column; errors by SQLSTATE class, since
//! two engines may meet different bad rows first. The series of queries is fixed by a
//! seed, so a run reproduces. [`oracle`] checks the engine against itself, with no
//! reference: query partitioning and NoREC, each query also run with parallelism forced
//! and with the optimizer off, which must not change its rows.

pub mod compare;
pub mod oracle;
pub mod query;
mod random;
pub mod schema;

pub use random::Random;
