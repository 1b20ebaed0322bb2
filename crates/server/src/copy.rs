//! COPY FROM STDIN and COPY TO STDOUT on the wire: the engine drives the copy through
//! [`kestrel::CopyChannel`], and this side speaks CopyInResponse / CopyData / CopyDone /
//! CopyFail and CopyOutResponse / CopyData / CopyDone. Input is taken straight from the
//! connection's input buffer as the client sends it, a bounded piece at a time, so a load
//! of any size streams.

use std::cell::RefCell;

use kestrel::{CopyChannel, Error, SqlState};

use crate::protocol::backend;
use crate::protocol::input::{InputBuffer, ReadError};
use crate::protocol::output::Output;
use crate::protocol::wait;
use crate::transport::ClientStream;

/// CopyData bytes handed to the engine at a time (several messages when they are small).
const COPY_PIECE_BYTES: usize = 64 * 1024;

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
}

impl<'a, 'o> WireCopy<'a, 'o> {
    pub(crate) fn new(
        out: &'a RefCell<&'o mut Output>,
        client: Option<&'a mut ClientInput>,
    ) -> WireCopy<'a, 'o> {
        WireCopy {
            out,
            client,
            done: false,
        }
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
        let client = self.client()?;
        let start = buf.len();
        loop {
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
                None => {
                    match wait::read_more(
                        &mut client.input,
                        &mut client.reader,
                        &client.executing,
                        None,
                    ) {
                        Ok(()) => {}
                        Err(ReadError::Closed | ReadError::IdleTimeout) => {
                            return Err(connection_lost())
                        }
                        Err(ReadError::Protocol(error)) => return Err(error),
                    }
                }
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
