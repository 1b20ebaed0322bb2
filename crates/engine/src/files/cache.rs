//! What was decoded from a file, kept while the file is unchanged: every key holds the
//! file's identity (size and modification time), so a rewritten file is a miss and its
//! next read sees the new data; entries of the old identity age out. Bounded in bytes,
//! evicted oldest first. Process-wide, as the files are.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use crate::error::Result;

/// What tells one version of a file from the next: its size and modification time (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileIdentity {
    pub len: u64,
    pub modified_ns: u128,
}

impl FileIdentity {
    pub fn of(file: &std::fs::File, path: &str) -> Result<FileIdentity> {
        let meta = file.metadata().map_err(|e| super::open_error(&e, path))?;
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Ok(FileIdentity {
            len: meta.len(),
            modified_ns,
        })
    }

    /// The cache key of `part` of `path` in this version.
    pub fn key(&self, path: &str, part: &str) -> String {
        format!("{path}\0{}\0{}\0{part}", self.len, self.modified_ns)
    }
}

pub struct FileCache<V> {
    inner: Mutex<Entries<V>>,
    bytes_max: usize,
}

struct Entries<V> {
    map: HashMap<String, (Arc<V>, usize)>,
    order: VecDeque<String>,
    bytes: usize,
}

impl<V> FileCache<V> {
    pub fn new(bytes_max: usize) -> FileCache<V> {
        FileCache {
            inner: Mutex::new(Entries {
                map: HashMap::new(),
                order: VecDeque::new(),
                bytes: 0,
            }),
            bytes_max,
        }
    }

    /// The value under `key`, computed by `load` (with its size in bytes) on a miss. The
    /// lock is not held while loading: two readers of a new file may both decode it.
    pub fn get_or_load(
        &self,
        key: String,
        load: impl FnOnce() -> Result<(V, usize)>,
    ) -> Result<Arc<V>> {
        if let Some((value, _)) = self.lock().map.get(&key) {
            return Ok(Arc::clone(value));
        }
        let (value, bytes) = load()?;
        let value = Arc::new(value);
        if bytes <= self.bytes_max {
            let mut entries = self.lock();
            while entries.bytes + bytes > self.bytes_max {
                let Some(oldest) = entries.order.pop_front() else {
                    break;
                };
                if let Some((_, freed)) = entries.map.remove(&oldest) {
                    entries.bytes -= freed;
                }
            }
            if entries
                .map
                .insert(key.clone(), (Arc::clone(&value), bytes))
                .is_none()
            {
                entries.order.push_back(key);
                entries.bytes += bytes;
            }
        }
        Ok(value)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<V>> {
        // A panic while holding the lock leaves a consistent map (every update is one
        // insert or remove), so a poisoned lock is used as it is.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}
