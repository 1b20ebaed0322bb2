//! How COPY ... FROM STDIN / TO STDOUT reaches the client: the front end (the wire server,
//! or an embedder's reader and writer) implements [`CopyChannel`].

use std::io::{Read, Write};

use crate::error::{Error, Result, SqlState};

/// The client side of COPY FROM STDIN and COPY TO STDOUT.
pub trait CopyChannel {
    /// COPY FROM STDIN starts (CopyInResponse): `binary` data of `columns` columns.
    fn begin_copy_in(&mut self, binary: bool, columns: usize) -> Result<()>;
    /// Appends the next piece of data to `buf`; false once the client has sent everything
    /// (CopyDone). An error when the client gives up (CopyFail) or goes away.
    fn read_copy_data(&mut self, buf: &mut Vec<u8>) -> Result<bool>;
    /// COPY TO STDOUT starts (CopyOutResponse).
    fn begin_copy_out(&mut self, binary: bool, columns: usize) -> Result<()>;
    /// One row (or the header, or for binary a piece of the stream).
    fn write_copy_data(&mut self, data: &[u8]) -> Result<()>;
    /// The data is complete (CopyDone).
    fn end_copy_out(&mut self) -> Result<()>;
}

/// For callers without a client to copy with (`Session::execute`).
pub struct NoCopyChannel;

fn no_client() -> Error {
    Error::new(
        SqlState::FeatureNotSupported,
        "COPY FROM STDIN and COPY TO STDOUT need a client: use Session::copy_from or Session::copy_to",
    )
}

impl CopyChannel for NoCopyChannel {
    fn begin_copy_in(&mut self, _binary: bool, _columns: usize) -> Result<()> {
        Err(no_client())
    }

    fn read_copy_data(&mut self, _buf: &mut Vec<u8>) -> Result<bool> {
        Err(no_client())
    }

    fn begin_copy_out(&mut self, _binary: bool, _columns: usize) -> Result<()> {
        Err(no_client())
    }

    fn write_copy_data(&mut self, _data: &[u8]) -> Result<()> {
        Err(no_client())
    }

    fn end_copy_out(&mut self) -> Result<()> {
        Err(no_client())
    }
}

/// Bytes read from or written to a file or stream at a time.
pub(crate) const COPY_CHUNK_BYTES: usize = 64 * 1024;

/// Appends up to [`COPY_CHUNK_BYTES`] from `reader` to `buf`: false at the end.
pub(crate) fn read_chunk(reader: &mut dyn Read, buf: &mut Vec<u8>, what: &str) -> Result<bool> {
    let start = buf.len();
    buf.resize(start + COPY_CHUNK_BYTES, 0);
    loop {
        match reader.read(&mut buf[start..]) {
            Ok(n) => {
                buf.truncate(start + n);
                return Ok(n > 0);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(start);
                return Err(Error::new(
                    SqlState::IoError,
                    format!("could not read from {what}: {e}"),
                ));
            }
        }
    }
}

/// An embedder's reader as the client of COPY FROM STDIN.
pub(crate) struct ReaderChannel<'a>(pub &'a mut dyn Read);

impl CopyChannel for ReaderChannel<'_> {
    fn begin_copy_in(&mut self, _binary: bool, _columns: usize) -> Result<()> {
        Ok(())
    }

    fn read_copy_data(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        read_chunk(self.0, buf, "COPY input")
    }

    fn begin_copy_out(&mut self, binary: bool, columns: usize) -> Result<()> {
        NoCopyChannel.begin_copy_out(binary, columns)
    }

    fn write_copy_data(&mut self, data: &[u8]) -> Result<()> {
        NoCopyChannel.write_copy_data(data)
    }

    fn end_copy_out(&mut self) -> Result<()> {
        NoCopyChannel.end_copy_out()
    }
}

/// An embedder's writer as the client of COPY TO STDOUT.
pub(crate) struct WriterChannel<'a>(pub &'a mut dyn Write);

impl CopyChannel for WriterChannel<'_> {
    fn begin_copy_in(&mut self, binary: bool, columns: usize) -> Result<()> {
        NoCopyChannel.begin_copy_in(binary, columns)
    }

    fn read_copy_data(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        NoCopyChannel.read_copy_data(buf)
    }

    fn begin_copy_out(&mut self, _binary: bool, _columns: usize) -> Result<()> {
        Ok(())
    }

    fn write_copy_data(&mut self, data: &[u8]) -> Result<()> {
        self.0
            .write_all(data)
            .map_err(|e| write_error(&e, "COPY output"))
    }

    fn end_copy_out(&mut self) -> Result<()> {
        self.0.flush().map_err(|e| write_error(&e, "COPY output"))
    }
}

pub(crate) fn write_error(error: &std::io::Error, what: &str) -> Error {
    Error::new(
        SqlState::IoError,
        format!("could not write to {what}: {error}"),
    )
}
