//! Waiting for a client's next message: poll the socket for a moment before sleeping on it,
//! when nothing else runs.
//!
//! A client that answers each result with its next statement at once (`psql -f`, an ORM
//! running a sequence of queries, a driver without pipelining) would otherwise cost every
//! round trip a sleep and a wakeup of this thread, often on another, idle, processor: on the
//! 2-core machine that doubled a round trip (2,000 point queries through `psql -f`: ~200 ms
//! sleeping at once, ~80 ms polling first). While other connections are executing, the
//! processors are busy anyway and polling would only take time from them (8 pgbench clients
//! lost 15–25 % of their lookups to it), so a connection polls only when no other is
//! executing, stops as soon as one starts, and only one polls at a time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::input::{InputBuffer, ReadError};
use crate::transport::ClientStream;

/// How long a connection polls before it sleeps: a little more than a client takes to read
/// a short result and send its next statement.
const POLL_FOR: Duration = Duration::from_micros(50);

/// Connections executing statements (not waiting for their client).
static EXECUTING: AtomicUsize = AtomicUsize::new(0);
/// Connections polling their socket (at most one).
static POLLING: AtomicUsize = AtomicUsize::new(0);

/// Counts a connection as executing from its creation to its drop, except while it waits
/// in [`read_more`].
pub(crate) struct Executing(());

impl Executing {
    pub(crate) fn start() -> Executing {
        EXECUTING.fetch_add(1, Ordering::AcqRel);
        Executing(())
    }
}

impl Drop for Executing {
    fn drop(&mut self) {
        EXECUTING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Reads at least one more byte of input from `stream`, a blocking socket (and blocking
/// again on return), while the connection counts as waiting; [`ReadError::IdleTimeout`]
/// when nothing came within `idle_timeout`.
pub(crate) fn read_more(
    input: &mut InputBuffer,
    stream: &mut ClientStream,
    _executing: &Executing,
    idle_timeout: Option<Duration>,
) -> Result<(), ReadError> {
    EXECUTING.fetch_sub(1, Ordering::AcqRel);
    let outcome = match poll(input, stream) {
        Ok(false) => match idle_timeout {
            None => input.fill(stream),
            Some(timeout) => fill_within(input, stream, timeout),
        },
        Ok(true) => Ok(()),
        Err(closed) => Err(closed),
    };
    EXECUTING.fetch_add(1, Ordering::AcqRel);
    outcome
}

/// Sleeps on `stream` until input comes or `timeout` passes.
fn fill_within(
    input: &mut InputBuffer,
    stream: &mut ClientStream,
    timeout: Duration,
) -> Result<(), ReadError> {
    let deadline = Instant::now() + timeout;
    let outcome = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break Err(ReadError::IdleTimeout);
        }
        if stream.set_read_timeout(Some(left)).is_err() {
            break Err(ReadError::Closed);
        }
        // A read that times out fails with WouldBlock, which `try_fill` reports as no input.
        match input.try_fill(stream) {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            Err(error) => break Err(error),
        }
    };
    // Later reads (COPY data, the next wait) must block as long as it takes.
    match stream.set_read_timeout(None) {
        Ok(()) => outcome,
        Err(_) => Err(ReadError::Closed),
    }
}

/// Polls `stream` for up to [`POLL_FOR`] while no connection executes and none other
/// polls: whether input came.
fn poll(input: &mut InputBuffer, stream: &mut ClientStream) -> Result<bool, ReadError> {
    if EXECUTING.load(Ordering::Acquire) > 0
        || POLLING
            .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
    {
        return Ok(false);
    }
    let outcome = poll_nonblocking(input, stream);
    POLLING.store(0, Ordering::Release);
    outcome
}

fn poll_nonblocking(input: &mut InputBuffer, stream: &mut ClientStream) -> Result<bool, ReadError> {
    if stream.set_nonblocking(true).is_err() {
        return Ok(false);
    }
    let deadline = Instant::now() + POLL_FOR;
    let mut outcome = Ok(false);
    while matches!(outcome, Ok(false))
        && EXECUTING.load(Ordering::Acquire) == 0
        && Instant::now() < deadline
    {
        outcome = input.try_fill(stream);
        if matches!(outcome, Ok(false)) {
            thread::yield_now();
        }
    }
    // The output shares the socket, and every later read and write expects it blocking: a
    // socket that cannot be put back is closed rather than misread.
    if stream.set_nonblocking(false).is_err() {
        return Err(ReadError::Closed);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::thread;
    use std::time::Duration;

    use super::{read_more, Executing};
    use crate::protocol::input::{InputBuffer, ReadError};
    use crate::transport::ClientStream;

    #[test]
    fn input_is_read_whether_it_comes_while_polling_or_after() -> std::io::Result<()> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let mut client = TcpStream::connect(listener.local_addr()?)?;
        let mut server = ClientStream::Plain(listener.accept()?.0);
        let executing = Executing::start();
        let mut input = InputBuffer::new();
        // At once (read while polling), then long after any poll has given up.
        client.write_all(b"S\0\0\0\x04")?;
        assert!(read_more(&mut input, &mut server, &executing, None).is_ok());
        let writer = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            client.write_all(b"X\0\0\0\x04").map(|()| client)
        });
        let mut tags = Vec::new();
        while tags.len() < 2 {
            match input.next_frame() {
                Ok(Some(frame)) => tags.push(frame.tag),
                Ok(None) => assert!(read_more(&mut input, &mut server, &executing, None).is_ok()),
                Err(error) => panic!("{}", error.message),
            }
        }
        assert_eq!(tags, b"SX");
        // A client that goes away is reported as closed.
        let client = writer
            .join()
            .map_err(|_| std::io::Error::other("writer panicked"))??;
        drop(client);
        let closed = read_more(&mut input, &mut server, &executing, None);
        assert!(matches!(closed, Err(ReadError::Closed)));
        Ok(())
    }
}
