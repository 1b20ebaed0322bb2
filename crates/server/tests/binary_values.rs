//! Binary results and text parameters as drivers use them, byte for byte as PostgreSQL 15
//! answers (the expected bytes were read from one): an array's header names its element
//! type (varchar, not text), and pgjdbc's date and timestamp texts with zones are read as
//! parameters whether their type is unspecified (OID 0) or declared; numeric's NaN and
//! infinities are numeric_send's sign words; arrays of more dimensions travel both ways.

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

/// Parse, Bind (text parameters, binary results), Execute and Sync of `sql`; the values of
/// its first DataRow.
fn binary_row(
    stream: &mut TcpStream,
    sql: &str,
    params: &[(u32, &str)],
) -> std::io::Result<Vec<Option<Vec<u8>>>> {
    let params: Vec<(u32, &[u8])> = params.iter().map(|&(oid, v)| (oid, v.as_bytes())).collect();
    bound_row(stream, sql, &params, 0)
}

/// [`binary_row`] with the parameters' bytes in format `param_format` (0 text, 1 binary).
fn bound_row(
    stream: &mut TcpStream,
    sql: &str,
    params: &[(u32, &[u8])],
    param_format: i16,
) -> std::io::Result<Vec<Option<Vec<u8>>>> {
    let mut parse = vec![0];
    parse.extend_from_slice(sql.as_bytes());
    parse.push(0);
    parse.extend_from_slice(&(params.len() as i16).to_be_bytes());
    for (oid, _) in params {
        parse.extend_from_slice(&oid.to_be_bytes());
    }
    let mut bind = vec![0, 0];
    bind.extend_from_slice(&1i16.to_be_bytes());
    bind.extend_from_slice(&param_format.to_be_bytes());
    bind.extend_from_slice(&(params.len() as i16).to_be_bytes());
    for (_, value) in params {
        bind.extend_from_slice(&(value.len() as i32).to_be_bytes());
        bind.extend_from_slice(value);
    }
    bind.extend_from_slice(&1i16.to_be_bytes());
    bind.extend_from_slice(&1i16.to_be_bytes());
    let mut batch = message(b'P', &parse);
    batch.extend(message(b'B', &bind));
    batch.extend(message(b'E', &[0, 0, 0, 0, 0]));
    batch.extend(message(b'S', &[]));
    stream.write_all(&batch)?;
    let messages = read_until(stream, b'Z')?;
    let Some((_, row)) = messages.iter().find(|(tag, _)| *tag == b'D') else {
        let errors: Vec<String> = messages
            .iter()
            .filter(|(tag, _)| *tag == b'E')
            .map(|(_, body)| String::from_utf8_lossy(body).into_owned())
            .collect();
        return Err(std::io::Error::other(format!("no row: {errors:?}")));
    };
    let mut values = Vec::new();
    let mut rest = &row[2..];
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = i32::from_be_bytes(*len);
        let Ok(len) = usize::try_from(len) else {
            values.push(None);
            rest = tail;
            continue;
        };
        values.push(Some(tail[..len].to_vec()));
        rest = &tail[len..];
    }
    Ok(values)
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[test]
fn binary_arrays_and_zoned_date_parameters_match_postgresql(
) -> Result<(), Box<dyn std::error::Error>> {
    let port = kestrel_server::spawn_background(kestrel::Database::new())?.port;
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.write_all(&startup_packet(&[("user", "postgres")]))?;
    read_until(&mut stream, b'Z')?;

    let row = binary_row(
        &mut stream,
        "SELECT ARRAY['a','b']::varchar[], $1::date, $2::timestamptz",
        &[
            (0, "2024-01-15 +01"),
            (1184, "2024-01-15 10:00:00.123456+05:30"),
        ],
    )?;
    let expected = [
        "000000010000000000000413000000020000000100000001610000000162",
        "0000224c",
        "0002b1f33c4ac440",
    ];
    let expected: Vec<Option<Vec<u8>>> = expected.iter().map(|h| Some(hex(h))).collect();
    assert_eq!(row, expected);

    let row = binary_row(
        &mut stream,
        "SELECT $1::date + 1",
        &[(1082, "2024-01-15 +01")],
    )?;
    assert_eq!(row, vec![Some(hex("0000224d"))]);

    // int2vectorsend / oidvectorsend: array_send's form with lower bound 0, and one
    // dimension even when empty.
    let row = binary_row(
        &mut stream,
        "SELECT '1 2'::int2vector, '23 25'::oidvector, ''::int2vector",
        &[],
    )?;
    let expected = [
        "0000000100000000000000150000000200000000000000020001000000020002",
        "00000001000000000000001a000000020000000000000004000000170000000400000019",
        "0000000100000000000000150000000000000000",
    ];
    let expected: Vec<Option<Vec<u8>>> = expected.iter().map(|h| Some(hex(h))).collect();
    assert_eq!(row, expected);

    // array_send of more dimensions and other lower bounds: each dimension's length and
    // lower bound; array_recv reads the same bytes back as a parameter.
    let row = binary_row(
        &mut stream,
        "SELECT '[0:1][1:2]={{1,2},{3,NULL}}'::int[], '{{a},{b}}'::text[], '[5:6]={7,8}'::int[]",
        &[],
    )?;
    let two_dims = "00000002000000010000001700000002000000000000000200000001000000040000000100000004000000020000000400000003ffffffff";
    let expected = [
        two_dims,
        "0000000200000000000000190000000200000001000000010000000100000001610000000162",
        "000000010000000000000017000000020000000500000004000000070000000400000008",
    ];
    let expected: Vec<Option<Vec<u8>>> = expected.iter().map(|h| Some(hex(h))).collect();
    assert_eq!(row, expected);
    let sent = hex(two_dims);
    let row = bound_row(
        &mut stream,
        "SELECT $1::int[], array_dims($1::int[])",
        &[(1007, &sent)],
        1,
    )?;
    assert_eq!(row, vec![Some(sent.clone()), Some(b"[0:1][1:2]".to_vec())]);

    // numeric_send: NaN is sign 0xC000; the infinities 0xD000 and 0xF000 with the dscale of
    // 32 that PostgreSQL reads out of their header.
    let row = binary_row(
        &mut stream,
        "SELECT 'NaN'::numeric, $1::numeric, '-Infinity'::numeric, -1.50, 'nan'::numeric(5,2)",
        &[(1700, " +inf ")],
    )?;
    let expected = [
        "00000000c0000000",
        "00000000d0000020",
        "00000000f0000020",
        "000200004000000200011388",
        "00000000c0000000",
    ];
    let expected: Vec<Option<Vec<u8>>> = expected.iter().map(|h| Some(hex(h))).collect();
    assert_eq!(row, expected);
    Ok(())
}
