//! Backend (server → client) messages, encoded straight into the connection's output
//! buffer. Every message is `tag, i32 length, body`; the length is reserved when a message
//! begins and back-patched when it ends, so no message is built in a temporary.

use kestrel::{ColumnInfo, Error, Notice, TransactionStatus};

use crate::values::Format;

/// Starts a message with `tag` and a placeholder length; returns where the length sits.
#[inline]
pub(crate) fn begin(out: &mut Vec<u8>, tag: u8) -> usize {
    out.push(tag);
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    start
}

/// Back-patches the length of the message begun at `start` (the length counts itself).
#[inline]
pub(crate) fn finish(out: &mut [u8], start: usize) {
    // A message over 2 GiB cannot be framed; the client will reject the clamped length
    // rather than the server panicking.
    let len = i32::try_from(out.len() - start).unwrap_or(i32::MAX);
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
}

#[inline]
pub(crate) fn put_i16(out: &mut Vec<u8>, value: i16) {
    out.extend_from_slice(&value.to_be_bytes());
}

#[inline]
pub(crate) fn put_i32(out: &mut Vec<u8>, value: i32) {
    out.extend_from_slice(&value.to_be_bytes());
}

#[inline]
pub(crate) fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_be_bytes());
}

/// A NUL-terminated string. An embedded NUL would end the string early on the client, so
/// it is cut there.
pub(crate) fn put_cstr(out: &mut Vec<u8>, value: &str) {
    let bytes = value.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    out.extend_from_slice(&bytes[..end]);
    out.push(0);
}

fn empty_message(out: &mut Vec<u8>, tag: u8) {
    out.push(tag);
    put_i32(out, 4);
}

pub(crate) fn authentication_ok(out: &mut Vec<u8>) {
    let start = begin(out, b'R');
    put_i32(out, 0);
    finish(out, start);
}

pub(crate) fn parameter_status(out: &mut Vec<u8>, name: &str, value: &str) {
    let start = begin(out, b'S');
    put_cstr(out, name);
    put_cstr(out, value);
    finish(out, start);
}

pub(crate) fn backend_key_data(out: &mut Vec<u8>, process_id: i32, secret_key: i32) {
    let start = begin(out, b'K');
    put_i32(out, process_id);
    put_i32(out, secret_key);
    finish(out, start);
}

/// NegotiateProtocolVersion: we speak 3.0 only and know no `_pq_.` options.
pub(crate) fn negotiate_protocol_version(out: &mut Vec<u8>, unknown_options: &[String]) {
    let start = begin(out, b'v');
    put_i32(out, 0x0003_0000);
    put_i32(
        out,
        i32::try_from(unknown_options.len()).unwrap_or(i32::MAX),
    );
    for option in unknown_options {
        put_cstr(out, option);
    }
    finish(out, start);
}

pub(crate) fn ready_for_query(out: &mut Vec<u8>, status: TransactionStatus) {
    let start = begin(out, b'Z');
    out.push(match status {
        TransactionStatus::Idle => b'I',
        TransactionStatus::InBlock => b'T',
        TransactionStatus::Failed => b'E',
    });
    finish(out, start);
}

/// RowDescription; `formats` has one entry per column (text for Describe of a statement).
pub(crate) fn row_description(out: &mut Vec<u8>, columns: &[ColumnInfo], formats: &[Format]) {
    let start = begin(out, b'T');
    put_i16(out, i16::try_from(columns.len()).unwrap_or(i16::MAX));
    for (idx, column) in columns.iter().enumerate() {
        put_cstr(out, &column.name);
        put_u32(out, column.table_oid);
        put_i16(out, column.column_attnum);
        let ty = column.wire_type();
        put_u32(out, ty.oid());
        put_i16(out, ty.type_len());
        put_i32(out, ty.typmod());
        let format = formats.get(idx).copied().unwrap_or(Format::Text);
        put_i16(out, format.code());
    }
    finish(out, start);
}

pub(crate) fn parameter_description(
    out: &mut Vec<u8>,
    type_oids: impl ExactSizeIterator<Item = u32>,
) {
    let start = begin(out, b't');
    put_i16(out, i16::try_from(type_oids.len()).unwrap_or(i16::MAX));
    for oid in type_oids {
        put_u32(out, oid);
    }
    finish(out, start);
}

pub(crate) fn command_complete(out: &mut Vec<u8>, tag: &str) {
    let start = begin(out, b'C');
    put_cstr(out, tag);
    finish(out, start);
}

/// CopyInResponse ('G') or CopyOutResponse ('H'): the overall format and each column's.
pub(crate) fn copy_response(out: &mut Vec<u8>, tag: u8, binary: bool, columns: usize) {
    let start = begin(out, tag);
    out.push(u8::from(binary));
    put_i16(out, i16::try_from(columns).unwrap_or(i16::MAX));
    for _ in 0..columns {
        put_i16(out, i16::from(binary));
    }
    finish(out, start);
}

pub(crate) fn copy_data(out: &mut Vec<u8>, data: &[u8]) {
    let start = begin(out, b'd');
    out.extend_from_slice(data);
    finish(out, start);
}

pub(crate) fn copy_done(out: &mut Vec<u8>) {
    empty_message(out, b'c');
}

pub(crate) fn empty_query_response(out: &mut Vec<u8>) {
    empty_message(out, b'I');
}

pub(crate) fn parse_complete(out: &mut Vec<u8>) {
    empty_message(out, b'1');
}

pub(crate) fn bind_complete(out: &mut Vec<u8>) {
    empty_message(out, b'2');
}

pub(crate) fn close_complete(out: &mut Vec<u8>) {
    empty_message(out, b'3');
}

pub(crate) fn no_data(out: &mut Vec<u8>) {
    empty_message(out, b'n');
}

pub(crate) fn portal_suspended(out: &mut Vec<u8>) {
    empty_message(out, b's');
}

/// How bad an error is: `Error` ends the statement, `Fatal` the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Severity {
    Error,
    Fatal,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
        }
    }
}

/// ErrorResponse with every field the error carries.
pub(crate) fn error_response(out: &mut Vec<u8>, error: &Error, severity: Severity) {
    let start = begin(out, b'E');
    put_field(out, b'S', severity.as_str());
    put_field(out, b'V', severity.as_str());
    put_field(out, b'C', error.sqlstate());
    put_field(out, b'M', &error.message);
    if let Some(detail) = &error.detail {
        put_field(out, b'D', detail);
    }
    if let Some(hint) = &error.hint {
        put_field(out, b'H', hint);
    }
    if let Some(context) = &error.context {
        put_field(out, b'W', context);
    }
    if let Some(position) = error.position {
        put_field(out, b'P', &position.to_string());
    }
    out.push(0);
    finish(out, start);
}

pub(crate) fn notice_response(out: &mut Vec<u8>, notice: &Notice) {
    let start = begin(out, b'N');
    put_field(out, b'S', notice.severity);
    put_field(out, b'V', notice.severity);
    put_field(out, b'C', notice.state.code());
    put_field(out, b'M', &notice.message);
    if let Some(detail) = &notice.detail {
        put_field(out, b'D', detail);
    }
    out.push(0);
    finish(out, start);
}

fn put_field(out: &mut Vec<u8>, code: u8, value: &str) {
    out.push(code);
    put_cstr(out, value);
}
