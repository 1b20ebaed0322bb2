//! Where the database lives: a data directory or memory, and opening it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kestrel::durability::DurableOptions;
use kestrel::Database;

/// An open database and the absolute path of its data directory (`None`: in memory).
pub(crate) struct Opened {
    pub database: Database,
    pub directory: Option<PathBuf>,
}

/// Opens the database in `directory` (made absolute first, so it is what the start-up line
/// and SHOW data_directory print), or in memory. On failure says why on stderr and
/// returns exit code 1.
pub(crate) fn open(directory: Option<&Path>, options: DurableOptions) -> Result<Opened, ExitCode> {
    let Some(directory) = directory else {
        return Ok(Opened {
            database: Database::in_memory(),
            directory: None,
        });
    };
    let failed = |message: String| {
        eprintln!("kestrel: {message}");
        ExitCode::FAILURE
    };
    let absolute = std::path::absolute(directory)
        .map_err(|error| failed(format!("{}: {error}", directory.display())))?;
    let database = Database::open_with(&absolute, options).map_err(|error| {
        let hint = error
            .hint
            .map(|h| format!("\nHINT:  {h}"))
            .unwrap_or_default();
        failed(format!("{}{hint}", error.message))
    })?;
    Ok(Opened {
        database,
        directory: Some(absolute),
    })
}
