//! Frontend (client → server) messages after startup, decoded from a frame's body without
//! copying: strings and parameter values borrow the input buffer.

use kestrel::{Error, SqlState};

/// What a Describe or Close names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Statement,
    Portal,
}

#[derive(Debug)]
pub(crate) struct Bind<'a> {
    pub portal: &'a str,
    pub statement: &'a str,
    pub param_formats: Vec<i16>,
    /// `None` is SQL NULL.
    pub params: Vec<Option<&'a [u8]>>,
    pub result_formats: Vec<i16>,
}

#[derive(Debug)]
pub(crate) enum FrontendMessage<'a> {
    Query(&'a str),
    Parse {
        name: &'a str,
        sql: &'a str,
        param_oids: Vec<u32>,
    },
    Bind(Bind<'a>),
    Describe(Target, &'a str),
    Execute {
        portal: &'a str,
        max_rows: i32,
    },
    Close(Target, &'a str),
    Sync,
    Flush,
    Terminate,
    /// CopyData, CopyDone, CopyFail outside COPY: PostgreSQL ignores them (they can trail
    /// a COPY that failed).
    CopyIgnored,
}

impl<'a> FrontendMessage<'a> {
    pub(crate) fn decode(tag: u8, body: &'a [u8]) -> Result<FrontendMessage<'a>, Error> {
        let mut reader = Reader { body, pos: 0 };
        let message = match tag {
            b'Q' => FrontendMessage::Query(reader.cstr()?),
            b'P' => FrontendMessage::Parse {
                name: reader.cstr()?,
                sql: reader.cstr()?,
                param_oids: {
                    let count = reader.count()?;
                    (0..count).map(|_| reader.u32()).collect::<Result<_, _>>()?
                },
            },
            b'B' => FrontendMessage::Bind(decode_bind(&mut reader)?),
            b'D' => FrontendMessage::Describe(reader.target()?, reader.cstr()?),
            b'E' => FrontendMessage::Execute {
                portal: reader.cstr()?,
                max_rows: reader.i32()?,
            },
            b'C' => FrontendMessage::Close(reader.target()?, reader.cstr()?),
            b'S' => FrontendMessage::Sync,
            b'H' => FrontendMessage::Flush,
            b'X' => FrontendMessage::Terminate,
            b'd' | b'c' | b'f' => return Ok(FrontendMessage::CopyIgnored),
            other => {
                return Err(protocol_violation(format!(
                    "invalid frontend message type {other}"
                )))
            }
        };
        reader.end()?;
        Ok(message)
    }
}

fn decode_bind<'a>(reader: &mut Reader<'a>) -> Result<Bind<'a>, Error> {
    let portal = reader.cstr()?;
    let statement = reader.cstr()?;
    let format_count = reader.count()?;
    let param_formats = (0..format_count)
        .map(|_| reader.i16())
        .collect::<Result<_, _>>()?;
    let param_count = reader.count()?;
    let params = (0..param_count)
        .map(|_| reader.value())
        .collect::<Result<_, _>>()?;
    let result_count = reader.count()?;
    let result_formats = (0..result_count)
        .map(|_| reader.i16())
        .collect::<Result<_, _>>()?;
    Ok(Bind {
        portal,
        statement,
        param_formats,
        params,
        result_formats,
    })
}

pub(crate) fn protocol_violation(message: impl Into<String>) -> Error {
    Error::new(SqlState::ProtocolViolation, message)
}

/// A cursor over a message body; every read checks the bounds.
pub(crate) struct Reader<'a> {
    pub body: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.body.len())
            .ok_or_else(|| protocol_violation("insufficient data left in message"))?;
        let bytes = &self.body[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn i16(&mut self) -> Result<i16, Error> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, Error> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    /// An Int16 element count, which must not be negative.
    fn count(&mut self) -> Result<usize, Error> {
        let count = self.i16()?;
        usize::try_from(count)
            .map_err(|_| protocol_violation(format!("invalid element count {count}")))
    }

    /// A NUL-terminated UTF-8 string.
    pub(crate) fn cstr(&mut self) -> Result<&'a str, Error> {
        let rest = &self.body[self.pos..];
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| protocol_violation("invalid string in message"))?;
        let text = std::str::from_utf8(&rest[..len])
            .map_err(|_| protocol_violation("invalid UTF-8 string in message"))?;
        self.pos += len + 1;
        Ok(text)
    }

    /// An Int32 length and that many bytes; length -1 is NULL.
    fn value(&mut self) -> Result<Option<&'a [u8]>, Error> {
        let len = self.i32()?;
        if len == -1 {
            return Ok(None);
        }
        let len = usize::try_from(len)
            .map_err(|_| protocol_violation(format!("invalid parameter length {len}")))?;
        Ok(Some(self.take(len)?))
    }

    fn target(&mut self) -> Result<Target, Error> {
        match self.u8()? {
            b'S' => Ok(Target::Statement),
            b'P' => Ok(Target::Portal),
            other => Err(protocol_violation(format!(
                "invalid DESCRIBE/CLOSE message subtype {other}"
            ))),
        }
    }

    pub(crate) fn end(&self) -> Result<(), Error> {
        if self.pos == self.body.len() {
            Ok(())
        } else {
            Err(protocol_violation("invalid message format"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_bind() -> Result<(), Error> {
        let mut body = b"p\0s\0".to_vec();
        body.extend_from_slice(&1i16.to_be_bytes());
        body.extend_from_slice(&1i16.to_be_bytes());
        body.extend_from_slice(&2i16.to_be_bytes());
        body.extend_from_slice(&2i32.to_be_bytes());
        body.extend_from_slice(&[0, 7]);
        body.extend_from_slice(&(-1i32).to_be_bytes());
        body.extend_from_slice(&0i16.to_be_bytes());
        let FrontendMessage::Bind(bind) = FrontendMessage::decode(b'B', &body)? else {
            return Err(protocol_violation("not a bind"));
        };
        assert_eq!((bind.portal, bind.statement), ("p", "s"));
        assert_eq!(bind.param_formats, vec![1]);
        assert_eq!(bind.params, vec![Some(&[0u8, 7][..]), None]);
        assert!(bind.result_formats.is_empty());
        Ok(())
    }

    #[test]
    fn rejects_truncated_and_trailing_bytes() {
        assert!(FrontendMessage::decode(b'Q', b"select 1").is_err());
        assert!(FrontendMessage::decode(b'E', b"\0\0\0").is_err());
        assert!(FrontendMessage::decode(b'S', b"x").is_err());
        assert!(FrontendMessage::decode(b'D', b"Zname\0").is_err());
        assert!(FrontendMessage::decode(b'B', b"\0\0\xff\xff").is_err());
        assert!(FrontendMessage::decode(b'?', b"").is_err());
    }
}
