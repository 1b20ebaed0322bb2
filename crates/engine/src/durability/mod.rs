//! Durability: the data directory, its write-ahead log and checkpoints, and recovery.
//!
//! Every committed transaction is a redo record in the log before COMMIT answers; a
//! checkpoint writes each table as columnar files from an immutable committed state and
//! lets the log be truncated behind it; start-up loads the last checkpoint and replays the
//! log after it. Reads never touch the disk. All disk access goes through one I/O
//! interface, so tests can swap in a simulated disk that loses unsynced writes, tears them
//! and fails.

mod bytes;
mod checkpoint;
#[cfg(test)]
mod crash_sim;
mod data_dir;
mod durable_log;
mod encode_catalog;
mod encode_vector;
mod io;
mod log_format;
mod log_reader;
mod log_writer;
mod options;
mod record;
#[cfg(test)]
mod sim_disk;

pub use bytes::{corrupt, Decoder, Encoder, Persist};
pub use data_dir::DataDir;
pub use durable_log::{DurableLog, Recovered};
pub use encode_vector::{decode_table_data, decode_vector_of, encode_table_data};
pub use io::{Disk, DiskFile, RealDisk};
pub use options::DurableOptions;
