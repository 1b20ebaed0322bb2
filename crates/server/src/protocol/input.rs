//! Framing of frontend messages after startup: `tag, i32 length, body`. Bytes are read
//! into one reusable buffer and handed out as body ranges, so decoding a message copies
//! nothing and a pipeline of messages is read with as few system calls as possible.

use std::io::{self, Read};
use std::ops::Range;

use kestrel::{Error, SqlState};

/// Bytes read per system call at least; also the buffer's resting size.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Largest message a client may send, PostgreSQL's limit (`PQ_LARGE_MESSAGE_LIMIT`).
pub(crate) const MESSAGE_BYTES_MAX: usize = (1 << 30) - 1;

/// One complete message in the buffer.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub tag: u8,
    pub body: Range<usize>,
}

pub(crate) struct InputBuffer {
    /// Always fully initialised (zeroed once when it grows), so reads need no unsafe code.
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

/// Why no more input came: the client broke the framing, the socket ended (EOF or an
/// error, which for a reading server means the same), or the client stayed idle too long.
pub(crate) enum ReadError {
    Protocol(Error),
    Closed,
    IdleTimeout,
}

impl InputBuffer {
    pub(crate) fn new() -> InputBuffer {
        InputBuffer {
            buf: vec![0; READ_BUFFER_BYTES],
            start: 0,
            end: 0,
        }
    }

    pub(crate) fn body(&self, frame: &Frame) -> &[u8] {
        &self.buf[frame.body.clone()]
    }

    /// The next complete message already buffered, if any.
    pub(crate) fn next_frame(&mut self) -> Result<Option<Frame>, Error> {
        let Some(message_len) = self.pending_message_len()? else {
            return Ok(None);
        };
        if self.end - self.start < message_len {
            return Ok(None);
        }
        let tag = self.buf[self.start];
        let body = self.start + 5..self.start + message_len;
        self.start += message_len;
        Ok(Some(Frame { tag, body }))
    }

    /// Total bytes (tag included) of the message at the front, once its header is here.
    fn pending_message_len(&self) -> Result<Option<usize>, Error> {
        if self.end - self.start < 5 {
            return Ok(None);
        }
        let header = &self.buf[self.start + 1..self.start + 5];
        let declared = i32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        match usize::try_from(declared) {
            Ok(len) if (4..=MESSAGE_BYTES_MAX).contains(&len) => Ok(Some(len + 1)),
            _ => Err(Error::new(
                SqlState::ProtocolViolation,
                format!("invalid message length {declared}"),
            )),
        }
    }

    /// Reads at least one more byte from `reader` (blocking).
    pub(crate) fn fill(&mut self, reader: &mut impl Read) -> Result<(), ReadError> {
        while !self.try_fill(reader)? {}
        Ok(())
    }

    /// Reads what `reader` has: whether any bytes came (none when a non-blocking socket has
    /// nothing yet, or a read was interrupted).
    pub(crate) fn try_fill(&mut self, reader: &mut impl Read) -> Result<bool, ReadError> {
        self.make_room_for_next()?;
        match reader.read(&mut self.buf[self.end..]) {
            Ok(0) => Err(ReadError::Closed),
            Ok(n) => {
                self.end += n;
                Ok(true)
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(false)
            }
            Err(_) => Err(ReadError::Closed),
        }
    }

    /// Room for the rest of the message at the front (or a header) plus a full read.
    fn make_room_for_next(&mut self) -> Result<(), ReadError> {
        let needed = self
            .pending_message_len()
            .map_err(ReadError::Protocol)?
            .unwrap_or(5);
        self.make_room(needed);
        Ok(())
    }

    /// Moves the unread bytes to the front and grows the buffer to hold a message of
    /// `needed` bytes plus a full read; shrinks it back after a huge message.
    fn make_room(&mut self, needed: usize) {
        let unread = self.end - self.start;
        if unread == 0 && self.buf.len() > 16 * READ_BUFFER_BYTES {
            self.buf = vec![0; READ_BUFFER_BYTES];
        }
        if self.start > 0 && (unread == 0 || self.buf.len() - self.end < READ_BUFFER_BYTES / 4) {
            self.buf.copy_within(self.start..self.end, 0);
            self.start = 0;
            self.end = unread;
        }
        // Grow with the bytes that actually arrive, not with the length a client declares,
        // so a lying 1 GiB header costs nothing until 1 GiB is sent.
        let target = needed.max(unread).min(2 * unread + READ_BUFFER_BYTES);
        let wanted = self.start + target + READ_BUFFER_BYTES / 4;
        if wanted > self.buf.len() {
            self.buf.resize(wanted, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        out.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn frames_split_across_reads() -> Result<(), String> {
        let mut bytes = message(b'Q', b"select 1\0");
        bytes.extend(message(b'S', b""));
        let mut input = InputBuffer::new();
        let mut frames = Vec::new();
        for chunk in bytes.chunks(3) {
            input
                .fill(&mut &chunk[..])
                .map_err(|_| "fill failed".to_string())?;
            while let Some(frame) = input.next_frame().map_err(|e| e.message)? {
                frames.push((frame.tag, input.body(&frame).to_vec()));
            }
        }
        assert_eq!(frames, vec![(b'Q', b"select 1\0".to_vec()), (b'S', vec![])]);
        Ok(())
    }

    #[test]
    fn large_message_grows_buffer() -> Result<(), String> {
        let body = vec![7u8; 3 * READ_BUFFER_BYTES];
        let bytes = message(b'd', &body);
        let mut reader = &bytes[..];
        let mut input = InputBuffer::new();
        loop {
            input
                .fill(&mut reader)
                .map_err(|_| "fill failed".to_string())?;
            if let Some(frame) = input.next_frame().map_err(|e| e.message)? {
                assert_eq!(input.body(&frame), &body[..]);
                return Ok(());
            }
        }
    }

    #[test]
    fn bad_lengths_are_protocol_errors() {
        for len in [0i32, 3, -1, i32::MAX] {
            let mut bytes = vec![b'Q'];
            bytes.extend_from_slice(&len.to_be_bytes());
            let mut input = InputBuffer::new();
            assert!(input.fill(&mut &bytes[..]).is_ok());
            let result = input.next_frame();
            assert!(matches!(result, Err(e) if e.state == SqlState::ProtocolViolation));
        }
    }
}
