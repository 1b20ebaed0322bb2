//! A simulated disk for crash tests: files and directory entries live in memory, and
//! [`SimDisk::crash`] keeps only what a real disk would be sure to keep — file bytes up to
//! their last fsync plus a random part of what came after (its last bytes possibly torn),
//! and of the directory changes since a directory's last fsync a random prefix. It can also
//! fail an fsync (the bytes it should have saved are then lost at the next crash, as Linux
//! drops the pages of a failed writeback) and run out of space.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::io::{Disk, DiskFile};
use crate::sync::lock;

/// A small deterministic generator (SplitMix64): the tests print its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

#[derive(Clone, Default)]
struct Content {
    data: Vec<u8>,
    synced: Vec<u8>,
}

enum DirOp {
    Link(PathBuf, usize),
    Unlink(PathBuf),
    /// One directory operation: a crash keeps both halves or neither.
    Rename(PathBuf, PathBuf, usize),
}

fn apply(names: &mut BTreeMap<PathBuf, usize>, op: DirOp) {
    match op {
        DirOp::Link(path, id) => {
            names.insert(path, id);
        }
        DirOp::Unlink(path) => {
            names.remove(&path);
        }
        DirOp::Rename(from, to, id) => {
            names.remove(&from);
            names.insert(to, id);
        }
    }
}

#[derive(Default)]
struct SimState {
    /// Bumped by every crash: handles of an older epoch belong to the dead process.
    epoch: u64,
    contents: Vec<Content>,
    /// The names as the running process sees them.
    names: BTreeMap<PathBuf, usize>,
    /// The names a crash would certainly keep.
    durable_names: BTreeMap<PathBuf, usize>,
    /// Directory changes not yet made durable, per directory, in order.
    pending: BTreeMap<PathBuf, Vec<DirOp>>,
    fail_syncs_after: Option<u64>,
    space_left: Option<u64>,
    syncs: u64,
}

/// A handle on the simulated disk for one incarnation of the process: after a crash the
/// old incarnation's handle fails every operation, as a dead process does nothing more.
#[derive(Clone, Default)]
pub struct SimDisk {
    state: Arc<Mutex<SimState>>,
    epoch: u64,
}

fn parent(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{} does not exist", path.display()),
    )
}

impl SimDisk {
    fn lock(&self) -> MutexGuard<'_, SimState> {
        lock(&self.state)
    }

    /// A handle for the process running now (since the last crash).
    pub fn current(&self) -> SimDisk {
        SimDisk {
            state: self.state.clone(),
            epoch: self.lock().epoch,
        }
    }

    /// The state, if this handle's process is still alive.
    fn live(&self) -> io::Result<MutexGuard<'_, SimState>> {
        let state = self.lock();
        if state.epoch == self.epoch {
            Ok(state)
        } else {
            Err(io::Error::other(
                "the process that held this disk has crashed",
            ))
        }
    }

    /// The `n`th fsync from now fails, and so does every later one.
    pub fn fail_syncs_after(&self, n: u64) {
        self.lock().fail_syncs_after = Some(n);
    }

    /// Writes fail with "no space left" once `bytes` more have been written.
    pub fn fill_after(&self, bytes: u64) {
        self.lock().space_left = Some(bytes);
    }

    pub fn syncs(&self) -> u64 {
        self.lock().syncs
    }

    /// The process dies: what was not made durable is lost, partly or wholly.
    pub fn crash(&self, rng: &mut Rng) {
        let mut state = self.lock();
        state.epoch += 1;
        state.fail_syncs_after = None;
        state.space_left = None;
        let pending = std::mem::take(&mut state.pending);
        for (_, ops) in pending {
            let kept = rng.below(ops.len() as u64 + 1) as usize;
            for op in ops.into_iter().take(kept) {
                apply(&mut state.durable_names, op);
            }
        }
        state.names = state.durable_names.clone();
        for content in &mut state.contents {
            let synced = content.synced.len();
            let mut kept = content.synced.clone();
            if content.data.len() > synced && content.data.starts_with(&content.synced) {
                let extra = rng.below((content.data.len() - synced) as u64 + 1) as usize;
                kept.extend_from_slice(&content.data[synced..synced + extra]);
                if extra > 0 && rng.chance(30) {
                    // A torn sector: the tail of what was kept is garbage.
                    let torn = 1 + rng.below(extra.min(16) as u64) as usize;
                    let len = kept.len();
                    for byte in &mut kept[len - torn..] {
                        *byte = rng.next() as u8;
                    }
                }
            }
            content.data = kept.clone();
            content.synced = kept;
        }
    }

    fn link(state: &mut SimState, path: &Path, id: usize) {
        state.names.insert(path.to_path_buf(), id);
        state
            .pending
            .entry(parent(path))
            .or_default()
            .push(DirOp::Link(path.to_path_buf(), id));
    }
}

struct SimFile {
    disk: SimDisk,
    id: usize,
    epoch: u64,
}

impl SimFile {
    fn live(&self, state: &SimState) -> io::Result<()> {
        if state.epoch == self.epoch {
            Ok(())
        } else {
            Err(io::Error::other(
                "the process that opened this file has crashed",
            ))
        }
    }
}

impl DiskFile for SimFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let disk = self.disk.clone();
        let mut state = disk.lock();
        self.live(&state)?;
        if let Some(left) = state.space_left {
            if (bytes.len() as u64) > left {
                return Err(io::Error::new(
                    io::ErrorKind::StorageFull,
                    "No space left on device",
                ));
            }
            state.space_left = Some(left - bytes.len() as u64);
        }
        state.contents[self.id].data.extend_from_slice(bytes);
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        let disk = self.disk.clone();
        let mut state = disk.lock();
        self.live(&state)?;
        state.syncs += 1;
        if let Some(n) = state.fail_syncs_after {
            if n == 0 {
                return Err(io::Error::other("Input/output error"));
            }
            state.fail_syncs_after = Some(n - 1);
        }
        let content = &mut state.contents[self.id];
        content.synced = content.data.clone();
        Ok(())
    }
}

impl Disk for SimDisk {
    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let state = self.live()?;
        Ok(state
            .names
            .keys()
            .filter(|path| parent(path) == dir)
            .filter_map(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn exists(&self, path: &Path) -> bool {
        self.live()
            .is_ok_and(|state| state.names.contains_key(path))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let state = self.live()?;
        let id = *state.names.get(path).ok_or_else(|| not_found(path))?;
        Ok(state.contents[id].data.clone())
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn DiskFile>> {
        let mut state = self.live()?;
        let id = state.contents.len();
        state.contents.push(Content::default());
        SimDisk::link(&mut state, path, id);
        Ok(Box::new(SimFile {
            disk: self.clone(),
            id,
            epoch: state.epoch,
        }))
    }

    fn open_truncated(&self, path: &Path, len: u64) -> io::Result<Box<dyn DiskFile>> {
        let mut state = self.live()?;
        let id = *state.names.get(path).ok_or_else(|| not_found(path))?;
        let content = &mut state.contents[id];
        content.data.truncate(len as usize);
        // Truncation is made durable at once, as the real disk's set_len + sync_all.
        content.synced = content.data.clone();
        Ok(Box::new(SimFile {
            disk: self.clone(),
            id,
            epoch: state.epoch,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.live()?;
        let id = state.names.remove(from).ok_or_else(|| not_found(from))?;
        state.names.insert(to.to_path_buf(), id);
        state
            .pending
            .entry(parent(to))
            .or_default()
            .push(DirOp::Rename(from.to_path_buf(), to.to_path_buf(), id));
        Ok(())
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut state = self.live()?;
        state.names.remove(path).ok_or_else(|| not_found(path))?;
        state
            .pending
            .entry(parent(path))
            .or_default()
            .push(DirOp::Unlink(path.to_path_buf()));
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.live()?;
        if let Some(ops) = state.pending.remove(dir) {
            for op in ops {
                apply(&mut state.durable_names, op);
            }
        }
        Ok(())
    }
}
