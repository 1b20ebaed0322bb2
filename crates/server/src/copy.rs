//! COPY FROM STDIN and COPY TO STDOUT on the wire: the engine drives the copy through
//! [`kestrel::CopyChannel`], and this side speaks CopyInResponse / CopyData / CopyDone /
//! CopyFail and CopyOutResponse / CopyData / CopyDone. Input is taken straight from the
//! connection's input buffer as the client sends it, a bounded piece at a time, so a load
//! of any size streams.
//!
//! A COPY FROM holds its table's lock while it waits for data, so a client that stalls
//! mid-COPY must not hold it forever: the wait ends with the statement when it is
//! cancelled or passes `statement_timeout` (57014, as PostgreSQL's interrupt of a blocked
//! read does), and with the connection after `idle_in_transaction_session_timeout`
//! without data (25P03, FATAL). PostgreSQL itself relies on TCP keepalives for the latter.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use kestrel::{CopyChannel, Error, Session, SqlState};

use crate::protocol::backend;
use crate::protocol::input::{InputBuffer, ReadError};
use crate::protocol::output::Output;
use crate::protocol::wait;
use crate::transport::ClientStream;

/// CopyData bytes handed to the engine at a time (several messages when they are small).
const COPY_PIECE_BYTES: usize = 64 * 1024;

/// How often a COPY waiting for data looks for a CancelRequest.
const CANCEL_CHECK_INTERVAL: Duration = Duration::from_millis(100);

/// What a connection reads from: its input buffer and socket.
pub(crate) struct ClientInput {
    pub input: InputBuffer,
    pub reader: ClientStream,
    pub executing: wait::Executing,
}

/// The channel of one statement: the output it writes to (shared with the statement's
/// result encoding, which never runs at the same time) and the client input, if the
/// message that started the statement may be followed by copy data.
pub(crate) struct WireCopy<'a, 'o> {
    pub out: &'a RefCell<&'o mut Output>,
    pub client: Option<&'a mut ClientInput>,
    /// CopyDone arrived with the last piece handed over.
    pub done: bool,
    /// How long the client may leave COPY FROM waiting for data, and the FATAL error then.
    idle_timeout: Option<(Duration, Error)>,
}

impl<'a, 'o> WireCopy<'a, 'o> {
    /// The channel for a statement `session` is about to run.
    pub(crate) fn new(
        out: &'a RefCell<&'o mut Output>,
        client: Option<&'a mut ClientInput>,
        session: &Session,
    ) -> WireCopy<'a, 'o> {
        WireCopy {
            out,
            client,
            done: false,
            idle_timeout: session.idle_in_transaction_timeout(),
        }
    }

    /// Waits until more input arrives, within the statement's and the session's limits.
    fn wait_for_data(&mut self) -> Result<(), Error> {
        let idle_deadline = self.idle_timeout.as_ref().map(|(t, _)| Instant::now() + *t);
        loop {
            let statement_deadline = {
                let out = self.out.borrow();
                out.cancel_handle().check()?;
                out.cancel_handle().deadline()
            };
            let now = Instant::now();
            if idle_deadline.is_some_and(|deadline| now >= deadline) {
                return Err(self.terminate_idle());
            }
            let wake = [statement_deadline, idle_deadline]
                .into_iter()
                .flatten()
                .fold(now + CANCEL_CHECK_INTERVAL, Instant::min);
            let client = self.client()?;
            let waited = wait::read_more(
                &mut client.input,
                &mut client.reader,
                &client.executing,
                Some(wake.saturating_duration_since(now)),
            );
            match waited {
                Ok(()) => return Ok(()),
                Err(ReadError::IdleTimeout) => {}
                Err(ReadError::Closed) => return Err(connection_lost()),
                Err(ReadError::Protocol(error)) => return Err(error),
            }
        }
    }

    /// Ends a connection that left its COPY waiting too long: the FATAL error goes out and
    /// the socket is shut, so the COPY's own error reaches nobody and the connection ends
    /// once the engine has rolled the COPY back.
    fn terminate_idle(&mut self) -> Error {
        let Some((_, error)) = self.idle_timeout.take() else {
            return connection_lost();
        };
        let mut out = self.out.borrow_mut();
        backend::error_response(&mut out.buf, &error, backend::Severity::Fatal);
        out.flush();
        out.shutdown();
        error
    }
}

fn connection_lost() -> Error {
    Error::new(
        SqlState::ProtocolViolation,
        "unexpected EOF on client connection with an open transaction",
    )
}

impl WireCopy<'_, '_> {
    fn client(&mut self) -> Result<&mut ClientInput, Error> {
        self.client
            .as_deref_mut()
            .ok_or_else(|| Error::unsupported("COPY FROM STDIN in this message"))
    }
}

impl CopyChannel for WireCopy<'_, '_> {
    fn begin_copy_in(&mut self, binary: bool, columns: usize) -> Result<(), Error> {
        self.client()?;
        self.done = false;
        let mut out = self.out.borrow_mut();
        backend::copy_response(&mut out.buf, b'G', binary, columns);
        out.flush();
        Ok(())
    }

    fn read_copy_data(&mut self, buf: &mut Vec<u8>) -> Result<bool, Error> {
        if self.done {
            return Ok(false);
        }
        let start = buf.len();
        loop {
            let client = self.client()?;
            match client.input.next_frame()? {
                Some(frame) => match frame.tag {
                    b'd' => {
                        buf.extend_from_slice(client.input.body(&frame));
                        if buf.len() - start >= COPY_PIECE_BYTES {
                            return Ok(true);
                        }
                    }
                    b'c' => {
                        let more = buf.len() > start;
                        self.done = more;
                        return Ok(more);
                    }
                    b'f' => {
                        let body = client.input.body(&frame);
                        let message =
                            String::from_utf8_lossy(body.strip_suffix(&[0]).unwrap_or(body));
                        return Err(Error::new(
                            SqlState::QueryCanceled,
                            format!("COPY from stdin failed: {message}"),
                        ));
                    }
                    // Ignored during copy-in, as PostgreSQL does.
                    b'H' | b'S' => {}
                    other => {
                        return Err(Error::new(
                            SqlState::ProtocolViolation,
                            format!("unexpected message type 0x{other:02X} during COPY from stdin"),
                        ))
                    }
                },
                // What is buffered goes to the engine before waiting for more.
                None if buf.len() > start => return Ok(true),
                None => self.wait_for_data()?,
            }
        }
    }

    fn begin_copy_out(&mut self, binary: bool, columns: usize) -> Result<(), Error> {
        let mut out = self.out.borrow_mut();
        backend::copy_response(&mut out.buf, b'H', binary, columns);
        Ok(())
    }

    fn write_copy_data(&mut self, data: &[u8]) -> Result<(), Error> {
        let mut out = self.out.borrow_mut();
        backend::copy_data(&mut out.buf, data);
        out.flush_if_full();
        if out.is_broken() {
            return Err(connection_lost());
        }
        Ok(())
    }

    fn end_copy_out(&mut self) -> Result<(), Error> {
        backend::copy_done(&mut self.out.borrow_mut().buf);
        Ok(())
    }
}
