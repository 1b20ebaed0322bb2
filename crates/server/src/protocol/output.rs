//! The connection's one output buffer (DESIGN.md §5.4). Messages accumulate in it and go
//! to the socket in one write when the client must see them (before the server waits for
//! input) or when the buffer passes [`FLUSH_THRESHOLD_BYTES`] — never once per row.
//!
//! It is a `Vec<u8>` rather than a `BytesMut` because the engine's value writers
//! (`Vector::write_text`) append to a `Vec<u8>`: values land in the buffer with no copy.

use std::io::{self, Write};

use kestrel::CancelHandle;

use crate::transport::ClientStream;

/// Buffer size at rest, and the size past which it is written out mid-result.
pub(crate) const FLUSH_THRESHOLD_BYTES: usize = 64 * 1024;

/// After a result of many megabytes, give the memory back.
const RETAINED_BYTES_MAX: usize = 4 * 1024 * 1024;

pub(crate) struct Output {
    pub buf: Vec<u8>,
    stream: ClientStream,
    /// Set once a write failed: the client is gone, later output is dropped.
    broken: bool,
    /// Cancels the running statement when the client disappears mid-result.
    cancel: CancelHandle,
}

impl Output {
    pub(crate) fn new(stream: ClientStream, cancel: CancelHandle) -> Output {
        Output {
            buf: Vec::with_capacity(2 * FLUSH_THRESHOLD_BYTES),
            stream,
            broken: false,
            cancel,
        }
    }

    pub(crate) fn is_broken(&self) -> bool {
        self.broken
    }

    /// The connection's statement interrupt (cancel and statement_timeout).
    pub(crate) fn cancel_handle(&self) -> &CancelHandle {
        &self.cancel
    }

    /// Ends the connection from the server's side: later output is dropped, and the
    /// connection's next read finds the socket closed.
    pub(crate) fn shutdown(&mut self) {
        self.broken = true;
        // A socket that is gone already needs no shutting.
        let _ = self.stream.shutdown();
    }

    /// Writes the buffer out if it has grown past the threshold (called between batches).
    #[inline]
    pub(crate) fn flush_if_full(&mut self) {
        if self.buf.len() >= FLUSH_THRESHOLD_BYTES {
            self.flush();
        }
    }

    /// Writes everything buffered. A failure marks the output broken and cancels the
    /// running statement instead of returning an error, so encoders need no error path.
    pub(crate) fn flush(&mut self) {
        if !self.broken && !self.buf.is_empty() {
            // TLS may hold the last record until flushed; a socket has nothing to flush.
            let written = self.stream.write_all(&self.buf);
            if let Err(error) = written.and_then(|()| self.stream.flush()) {
                self.fail(&error);
            }
        }
        self.buf.clear();
        if self.buf.capacity() > RETAINED_BYTES_MAX {
            self.buf.shrink_to(2 * FLUSH_THRESHOLD_BYTES);
        }
    }

    fn fail(&mut self, error: &io::Error) {
        // Only unexpected failures are worth a log line; a client going away is normal.
        if !matches!(
            error.kind(),
            io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
        ) {
            eprintln!("kestrel: write to client failed: {error}");
        }
        self.broken = true;
        self.cancel.cancel();
    }
}
