//! The data directory itself: its format version, which a server checks before reading
//! anything else, and the lock that keeps a second server out (PostgreSQL's postmaster.pid).
//!
//! Layout (docs/STORAGE.md describes the files):
//! - `KESTREL_VERSION`: the format version, one line;
//! - `kestrel.lock`: locked by the running server, holding its process id;
//! - `checkpoint`: the last complete checkpoint's manifest;
//! - `tables/`: the checkpoint's table files;
//! - `wal/`: the write-ahead log's segments.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::io::{io_error, write_durably, Disk, RealDisk};
use crate::error::{Error, Result, SqlState};

/// The format this build writes and reads. A directory of another format is refused,
/// never guessed at.
/// Format 3 added CHECK constraints, generated columns, foreign keys and COMMENT ON's
/// comments to the catalog.
pub const FORMAT_VERSION: u32 = 3;
const VERSION_FILE: &str = "KESTREL_VERSION";
const LOCK_FILE: &str = "kestrel.lock";
/// Tries at taking the lock, 50 ms apart, before a directory counts as in use by another
/// process.
const LOCK_ATTEMPTS: u32 = 10;
/// The same while the holder is this process: a database of it that was just closed, whose
/// checkpointer may be finishing a checkpoint (seconds on a loaded machine) before it lets
/// go.
const OWN_LOCK_ATTEMPTS: u32 = 600;

fn version_line() -> String {
    format!("KestrelDB data directory format {FORMAT_VERSION}\n")
}

/// An open data directory, locked for this process until dropped.
pub struct DataDir {
    path: PathBuf,
    /// Holding the file holds the lock (released by the OS even if the process dies).
    _lock: File,
}

impl DataDir {
    /// Creates `path` if needed, checks its format and locks it.
    pub fn open(path: &Path) -> Result<DataDir> {
        let disk = RealDisk;
        disk.create_dir_all(path)
            .map_err(|e| io_error("create directory", path, &e))?;
        let path = path
            .canonicalize()
            .map_err(|e| io_error("resolve", path, &e))?;
        let lock = lock(&path)?;
        check_or_initialize(&disk, &path)?;
        Ok(DataDir { path, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| io_error("open", &path, &e))?;
    // A database of this process that was just dropped may still be letting go of the
    // lock (a background thread finishing a flush or checkpoint): wait for it; another
    // process's lock gets a moment before refusing.
    let mut attempts = 0;
    let locked = loop {
        match file.try_lock() {
            Err(TryLockError::WouldBlock) if attempts < LOCK_ATTEMPTS => {
                attempts += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(TryLockError::WouldBlock)
                if attempts < OWN_LOCK_ATTEMPTS
                    && holder(&mut file) == std::process::id().to_string() =>
            {
                attempts += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => break other,
        }
    };
    match locked {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let holder = holder(&mut file);
            return Err(Error::new(
                SqlState::ObjectInUse,
                format!(
                    "data directory \"{}\" is in use by another KestrelDB server (process {})",
                    dir.display(),
                    holder
                ),
            )
            .with_hint("Stop that server first, or start this one with another --data-dir."));
        }
        Err(TryLockError::Error(e)) => return Err(io_error("lock", &path, &e)),
    }
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .map_err(|e| io_error("write", &path, &e))?;
    writeln!(file, "{}", std::process::id()).map_err(|e| io_error("write", &path, &e))?;
    Ok(file)
}

/// The process ID the lock file names (written by whoever holds the lock).
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.seek(SeekFrom::Start(0));
    let _ = file.read_to_string(&mut text);
    text.trim().to_string()
}

fn check_or_initialize(disk: &dyn Disk, dir: &Path) -> Result<()> {
    let version_path = dir.join(VERSION_FILE);
    if disk.exists(&version_path) {
        let bytes = disk
            .read(&version_path)
            .map_err(|e| io_error("read", &version_path, &e))?;
        let text = String::from_utf8_lossy(&bytes);
        if text == version_line() {
            return Ok(());
        }
        let found = text
            .trim()
            .strip_prefix("KestrelDB data directory format ")
            .and_then(|v| v.parse::<u32>().ok());
        let message = match found {
            Some(v) if v > FORMAT_VERSION => format!(
                "data directory \"{}\" has format {v}, newer than format {FORMAT_VERSION} \
                 that this server reads",
                dir.display()
            ),
            _ => format!(
                "data directory \"{}\" has an unknown format (\"{}\")",
                dir.display(),
                text.trim()
            ),
        };
        return Err(Error::new(SqlState::DataCorrupted, message)
            .with_hint("Use the KestrelDB version that wrote it, or another --data-dir."));
    }
    let entries = disk.list(dir).map_err(|e| io_error("list", dir, &e))?;
    if entries.iter().any(|name| name != LOCK_FILE) {
        return Err(Error::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "directory \"{}\" is not empty and is not a KestrelDB data directory (it has \
                 no {VERSION_FILE})",
                dir.display()
            ),
        )
        .with_hint("Give --data-dir a new or empty directory."));
    }
    for sub in ["wal", "tables"] {
        let sub = dir.join(sub);
        disk.create_dir_all(&sub)
            .map_err(|e| io_error("create directory", &sub, &e))?;
    }
    write_durably(disk, &version_path, version_line().as_bytes())
        .map_err(|e| io_error("write", &version_path, &e))
}

#[cfg(test)]
mod tests {
    use super::DataDir;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("kestrel-datadir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_second_opener_is_refused_until_the_first_is_gone() {
        let dir = scratch("lock");
        let first = DataDir::open(&dir);
        assert!(first.is_ok());
        let second = DataDir::open(&dir);
        assert_eq!(second.err().map(|e| e.sqlstate()), Some("55006"));
        drop(first);
        assert!(DataDir::open(&dir).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_newer_or_foreign_directory_is_refused() {
        let dir = scratch("format");
        assert!(DataDir::open(&dir).is_ok());
        assert!(std::fs::write(
            dir.join("KESTREL_VERSION"),
            "KestrelDB data directory format 9\n"
        )
        .is_ok());
        let newer = DataDir::open(&dir).err().map(|e| e.message);
        assert!(newer.is_some_and(|m| m.contains("newer")));
        let _ = std::fs::remove_dir_all(&dir);

        let foreign = scratch("foreign");
        assert!(std::fs::create_dir_all(&foreign).is_ok());
        assert!(std::fs::write(foreign.join("PG_VERSION"), "15\n").is_ok());
        assert_eq!(
            DataDir::open(&foreign).err().map(|e| e.sqlstate()),
            Some("55000")
        );
        let _ = std::fs::remove_dir_all(&foreign);
    }
}
