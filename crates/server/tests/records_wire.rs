//! Record values on the wire and BINARY cursors, byte for byte as PostgreSQL 15 sends them
//! (the expected bytes are its record_send output): a record column is type 2249 in
//! RowDescription, its binary form the field count then each field's type OID, length and
//! value; a FETCH from a BINARY cursor in the simple query protocol comes in binary format,
//! marked so in its RowDescription.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use raw::{read_until, startup_packet};

#[path = "common/raw.rs"]
mod raw;

fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

fn query(sql: &str) -> Vec<u8> {
    let mut body = sql.as_bytes().to_vec();
    body.push(0);
    message(b'Q', &body)
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// Each column of a RowDescription: its type OID and format code.
fn described(body: &[u8]) -> Vec<(u32, i16)> {
    let mut columns = Vec::new();
    let mut rest = &body[2..];
    while let Some(end) = rest.iter().position(|&b| b == 0) {
        let fields = &rest[end + 1..];
        if fields.len() < 18 {
            break;
        }
        let oid = u32::from_be_bytes([fields[6], fields[7], fields[8], fields[9]]);
        let format = i16::from_be_bytes([fields[16], fields[17]]);
        columns.push((oid, format));
        rest = &fields[18..];
    }
    columns
}

/// The values of a DataRow.
fn values(body: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut values = Vec::new();
    let mut rest = &body[2..];
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        match usize::try_from(i32::from_be_bytes(*len)) {
            Ok(len) => {
                values.push(Some(tail[..len].to_vec()));
                rest = &tail[len..];
            }
            Err(_) => {
                values.push(None);
                rest = tail;
            }
        }
    }
    values
}

#[test]
fn records_and_binary_cursors_match_postgresql() -> Result<(), Box<dyn std::error::Error>> {
    let port = kestrel_server::spawn_background(kestrel::Database::new())?.port;
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&startup_packet(&[("user", "postgres")]))?;
    read_until(&mut stream, b'Z')?;

    // Text: record_out.
    stream.write_all(&query("SELECT ROW(1, 'a b'::text, NULL::int)"))?;
    let messages = read_until(&mut stream, b'Z')?;
    let find = |tag: u8, messages: &[(u8, Vec<u8>)]| {
        messages
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|(_, body)| body.clone())
            .unwrap_or_default()
    };
    assert_eq!(described(&find(b'T', &messages)), vec![(2249, 0)]);
    assert_eq!(
        values(&find(b'D', &messages)),
        vec![Some(b"(1,\"a b\",)".to_vec())]
    );

    // Binary: record_send, through a BINARY cursor.
    stream.write_all(&query(
        "BEGIN; DECLARE c BINARY CURSOR FOR SELECT 7::int4, ROW(1, 'ab'::text, NULL::int), \
         ROW(ROW(1, 'a'::text), 2); FETCH ALL FROM c; COMMIT",
    ))?;
    let messages = read_until(&mut stream, b'Z')?;
    let errors: Vec<_> = messages.iter().filter(|(t, _)| *t == b'E').collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(
        described(&find(b'T', &messages)),
        vec![(23, 1), (2249, 1), (2249, 1)]
    );
    let expected = [
        "00000007",
        "000000030000001700000004000000010000001900000002616200000017ffffffff",
        "00000002000008c90000001900000002000000170000000400000001000000190000000161000000170000000400000002",
    ];
    let expected: Vec<Option<Vec<u8>>> = expected.iter().map(|h| Some(hex(h))).collect();
    assert_eq!(values(&find(b'D', &messages)), expected);

    // A plain cursor's FETCH stays in text.
    stream.write_all(&query(
        "BEGIN; DECLARE t CURSOR FOR SELECT 7::int4; FETCH t; COMMIT",
    ))?;
    let messages = read_until(&mut stream, b'Z')?;
    assert_eq!(described(&find(b'T', &messages)), vec![(23, 0)]);
    assert_eq!(values(&find(b'D', &messages)), vec![Some(b"7".to_vec())]);
    Ok(())
}

/// A whole-row reference and a cast to a table's row type are described by the row type's
/// own OID (pg_type's), as PostgreSQL does, also inside a record in binary.
#[test]
fn table_row_types_are_described_by_their_oid() -> Result<(), Box<dyn std::error::Error>> {
    let db = kestrel::Database::new();
    db.connect()
        .execute("CREATE TABLE rw_t (a int, b text); INSERT INTO rw_t VALUES (1, 'x')")?;
    let port = kestrel_server::spawn_background(db)?.port;
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&startup_packet(&[("user", "postgres")]))?;
    read_until(&mut stream, b'Z')?;
    let find = |tag: u8, messages: &[(u8, Vec<u8>)]| {
        messages
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|(_, body)| body.clone())
            .unwrap_or_default()
    };

    stream.write_all(&query(
        "SELECT oid FROM pg_type WHERE typname = 'rw_t' AND typrelid = 'rw_t'::regclass",
    ))?;
    let messages = read_until(&mut stream, b'Z')?;
    let row = values(&find(b'D', &messages));
    let type_oid: u32 = std::str::from_utf8(row[0].as_deref().unwrap_or_default())?.parse()?;

    stream.write_all(&query(
        "SELECT rw_t, ROW(2, 'y')::rw_t, ROW(1, 'x'::text) FROM rw_t",
    ))?;
    let messages = read_until(&mut stream, b'Z')?;
    assert_eq!(
        described(&find(b'T', &messages)),
        vec![(type_oid, 0), (type_oid, 0), (2249, 0)]
    );
    assert_eq!(
        values(&find(b'D', &messages)),
        vec![
            Some(b"(1,x)".to_vec()),
            Some(b"(2,y)".to_vec()),
            Some(b"(1,x)".to_vec())
        ]
    );

    stream.write_all(&query(
        "BEGIN; DECLARE c BINARY CURSOR FOR SELECT ROW(rw_t, 2) FROM rw_t; FETCH ALL FROM c; \
         COMMIT",
    ))?;
    let messages = read_until(&mut stream, b'Z')?;
    let inner = "00000002000000170000000400000001000000190000000178";
    let expected = format!("00000002{type_oid:08x}00000019{inner}000000170000000400000002");
    assert_eq!(values(&find(b'D', &messages)), vec![Some(hex(&expected))]);
    Ok(())
}
