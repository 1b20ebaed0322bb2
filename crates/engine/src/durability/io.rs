//! The one door to the disk. Everything the data directory holds is read and written
//! through [`Disk`], so that tests can put a simulated disk behind it that loses what was
//! not synced at a crash, tears writes, fails fsync and runs out of space.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, SqlState};

/// A file open for appending.
pub trait DiskFile: Send {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// fsync: everything written so far survives a crash once this returns Ok.
    fn sync(&mut self) -> io::Result<()>;
}

pub trait Disk: Send + Sync {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;
    /// The names of the entries of `dir`.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    fn exists(&self, path: &Path) -> bool;
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// A new empty file (replacing any), open for appending.
    fn create(&self, path: &Path) -> io::Result<Box<dyn DiskFile>>;
    /// An existing file cut to `len` bytes and open for appending after them.
    fn open_truncated(&self, path: &Path, len: u64) -> io::Result<Box<dyn DiskFile>>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// fsync of a directory: its entries (created, renamed, removed) survive a crash.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
}

/// A whole file written and made durable under its final name: written to `<path>.tmp`,
/// synced, renamed over `path`, and the directory synced.
pub fn write_durably(disk: &dyn Disk, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let mut file = disk.create(&temporary)?;
    file.write_all(bytes)?;
    file.sync()?;
    disk.rename(&temporary, path)?;
    disk.sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// An I/O failure as the client sees it: 53100 when the disk is full, else 58030.
pub fn io_error(action: &str, path: &Path, error: &io::Error) -> Error {
    let state = match error.kind() {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => SqlState::DiskFull,
        _ => SqlState::IoError,
    };
    Error::new(
        state,
        format!("could not {action} file \"{}\": {error}", path.display()),
    )
}

/// The real file system.
pub struct RealDisk;

struct RealFile(File);

impl DiskFile for RealFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        // fdatasync: the log's and checkpoint's files need their data and length, not
        // their times.
        self.0.sync_data()
    }
}

impl Disk for RealDisk {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn DiskFile>> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(path)?;
        Ok(Box::new(RealFile(file)))
    }

    fn open_truncated(&self, path: &Path, len: u64) -> io::Result<Box<dyn DiskFile>> {
        let file = OpenOptions::new().append(true).open(path)?;
        file.set_len(len)?;
        file.sync_all()?;
        Ok(Box::new(RealFile(file)))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
}
