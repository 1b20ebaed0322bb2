//! Noticing a client that closed its socket while its statement runs, and cancelling it.
//!
//! The connection thread is inside the engine while a statement runs and reads the socket
//! only afterwards, so a client that disconnects mid-statement (a killed psql, a driver's
//! timeout) would otherwise leave a long query burning a processor until it ends, which
//! may be never. A watcher thread per connection waits on a second handle of the socket
//! with a blocking `peek`, which consumes nothing the connection thread will read, and
//! returns 0 only at end of input. From then on it cancels whatever the session runs
//! until the connection ends, as PostgreSQL does when `client_connection_check_interval`
//! finds the socket closed (its check, too, treats a half-closed socket as gone).
//!
//! While input is waiting (a pipelining client) `peek` returns at once, so the watcher
//! then sleeps between looks instead of spinning.

use std::io::{self, ErrorKind};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use kestrel::CancelHandle;

/// How long the watcher sleeps while unread input is waiting, and between the cancels of
/// a gone client's statements: the delay before a disconnect ends a statement.
const LOOK_INTERVAL: Duration = Duration::from_millis(100);

/// The watcher does nothing but wait on the socket.
const WATCHER_STACK_BYTES: usize = 64 * 1024;

/// Ends the watcher of a connection when dropped (the connection thread is done).
pub(crate) struct Watch {
    finished: Arc<AtomicBool>,
    socket: TcpStream,
}

/// Starts watching `socket` (a handle sharing the connection's socket) for the client's
/// end of input, cancelling through `cancel` from then on.
pub(crate) fn watch(socket: TcpStream, cancel: CancelHandle) -> io::Result<Watch> {
    let finished = Arc::new(AtomicBool::new(false));
    let watcher_socket = socket.try_clone()?;
    let watcher_finished = Arc::clone(&finished);
    thread::Builder::new()
        .name("kestrel-disconnect".to_owned())
        .stack_size(WATCHER_STACK_BYTES)
        .spawn(move || wait_for_end(&watcher_socket, &watcher_finished, &cancel))?;
    Ok(Watch { finished, socket })
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.finished.store(true, Ordering::Release);
        // Wakes the watcher's peek with end of input; the watcher's handle would otherwise
        // keep the socket open after the connection is done with it.
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }
}

fn wait_for_end(socket: &TcpStream, finished: &AtomicBool, cancel: &CancelHandle) {
    let mut byte = [0u8; 1];
    while !finished.load(Ordering::Acquire) {
        match socket.peek(&mut byte) {
            Ok(0) => break,
            // Unread input, or the socket briefly non-blocking or under a read timeout
            // (the connection thread's own waits set both on the shared socket).
            Ok(_) => thread::sleep(LOOK_INTERVAL),
            Err(error) if is_transient(error.kind()) => thread::sleep(LOOK_INTERVAL),
            Err(_) => break,
        }
    }
    // The client is gone: a statement started before the connection thread notices (which
    // forgets earlier cancels) must be cancelled too.
    while !finished.load(Ordering::Acquire) {
        cancel.cancel();
        thread::sleep(LOOK_INTERVAL);
    }
}

fn is_transient(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
    )
}
