//! COPY over the wire: CopyIn / CopyOut through tokio-postgres (extended protocol) and the
//! simple protocol over a raw socket, and the ways a COPY can fail — a bad line (with its
//! CONTEXT), CopyFail, a client that goes away — each leaving nothing behind.

mod common;
#[path = "common/raw.rs"]
mod raw;

use std::io::{Read, Write};
use std::time::Duration;

use bytes::Bytes;
use common::{connect, start_server, TestResult};
use futures_util::{SinkExt, StreamExt};
use raw::{connected, read_until};
use tokio_postgres::Client;

async fn count(client: &Client, table: &str) -> Result<i64, tokio_postgres::Error> {
    let row = client
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .await?;
    row.try_get(0)
}

#[tokio::test]
async fn copy_in_and_out_stream_many_pieces() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client
        .batch_execute("CREATE TABLE t (id int PRIMARY KEY, name text, n numeric DEFAULT 2)")
        .await?;
    let sink = client
        .copy_in::<_, Bytes>("COPY t (id, name) FROM STDIN")
        .await?;
    let mut sink = std::pin::pin!(sink);
    let mut expected = Vec::new();
    for chunk in 0..50 {
        let mut data = String::new();
        for i in 0..200 {
            let id = chunk * 200 + i;
            data.push_str(&format!("{id}\tname {id}\\twith tab\n"));
            expected.extend_from_slice(format!("{id}\tname {id}\\twith tab\t2\n").as_bytes());
        }
        // Rows cut across CopyData messages.
        let (head, tail) = data.split_at(data.len() / 3);
        sink.send(Bytes::from(head.to_string())).await?;
        sink.send(Bytes::from(tail.to_string())).await?;
    }
    assert_eq!(sink.as_mut().finish().await?, 10_000);
    assert_eq!(count(&client, "t").await?, 10_000);

    let stream = client.copy_out("COPY t TO STDOUT").await?;
    let mut stream = std::pin::pin!(stream);
    let mut out = Vec::new();
    let mut messages = 0;
    while let Some(data) = stream.next().await {
        out.extend_from_slice(&data?);
        messages += 1;
    }
    assert_eq!(out, expected);
    // One CopyData per row, as PostgreSQL sends them.
    assert_eq!(messages, 10_000);
    Ok(())
}

#[tokio::test]
async fn bad_line_fails_the_copy_with_its_context() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client
        .batch_execute("CREATE TABLE t (a int, b int)")
        .await?;
    let sink = client.copy_in::<_, Bytes>("COPY t FROM STDIN").await?;
    let mut sink = std::pin::pin!(sink);
    sink.send(Bytes::from_static(b"1\t2\n3\tx\n5\t6\n")).await?;
    let error = sink.as_mut().finish().await.err().ok_or("COPY succeeded")?;
    let db = error.as_db_error().ok_or("not a database error")?;
    assert_eq!(db.code().code(), "22P02");
    assert_eq!(db.message(), "invalid input syntax for type integer: \"x\"");
    assert_eq!(db.where_(), Some("COPY t, line 2, column b: \"x\""));
    assert_eq!(count(&client, "t").await?, 0);
    Ok(())
}

#[tokio::test]
async fn copy_fail_leaves_nothing() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client.batch_execute("CREATE TABLE t (a int)").await?;
    {
        let sink = client.copy_in::<_, Bytes>("COPY t FROM STDIN").await?;
        let mut sink = Box::pin(sink);
        sink.send(Bytes::from_static(b"1\n2\n")).await?;
        // Dropped without finishing: tokio-postgres sends CopyFail.
    }
    assert_eq!(count(&client, "t").await?, 0);
    Ok(())
}

fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[tokio::test]
async fn simple_protocol_copy_and_a_client_that_goes_away() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client
        .batch_execute("CREATE TABLE t (a int, b text)")
        .await?;

    // COPY FROM STDIN in a Query, its data in CopyData messages, then CopyDone.
    let mut stream = connected(port)?;
    stream.write_all(&message(b'Q', b"COPY t FROM STDIN WITH (FORMAT csv)\0"))?;
    let messages = read_until(&mut stream, b'G')?;
    let (_, response) = messages.last().ok_or("no CopyInResponse")?;
    assert_eq!(response, &[0, 0, 2, 0, 0, 0, 0]);
    stream.write_all(&message(b'd', b"1,one\n2,\"t"))?;
    stream.write_all(&message(b'd', b"wo\"\n3,"))?;
    stream.write_all(&message(b'c', b""))?;
    let messages = read_until(&mut stream, b'Z')?;
    assert_eq!(messages[0], (b'C', b"COPY 3\0".to_vec()));

    // COPY TO STDOUT: CopyOutResponse, a CopyData per row, CopyDone, CommandComplete.
    stream.write_all(&message(
        b'Q',
        b"COPY (SELECT * FROM t ORDER BY a) TO STDOUT\0",
    ))?;
    let messages = read_until(&mut stream, b'Z')?;
    let tags: Vec<u8> = messages.iter().map(|(tag, _)| *tag).collect();
    assert_eq!(tags, b"HdddcCZ");
    assert_eq!(messages[1].1, b"1\tone\n");
    assert_eq!(messages[3].1, b"3\t\\N\n");

    // A client that leaves mid-COPY leaves nothing behind.
    stream.write_all(&message(b'Q', b"COPY t FROM STDIN\0"))?;
    read_until(&mut stream, b'G')?;
    stream.write_all(&message(b'd', b"10\tten\n11\televen\n"))?;
    drop(stream);
    // A COPY failing inside a transaction block fails the block.
    let mut stream = connected(port)?;
    stream.write_all(&message(b'Q', b"BEGIN\0"))?;
    read_until(&mut stream, b'Z')?;
    stream.write_all(&message(b'Q', b"COPY t FROM STDIN\0"))?;
    read_until(&mut stream, b'G')?;
    stream.write_all(&message(b'd', b"20\ttwenty\n"))?;
    stream.write_all(&message(b'f', b"client gave up\0"))?;
    let messages = read_until(&mut stream, b'Z')?;
    let error = String::from_utf8_lossy(&messages[0].1).into_owned();
    assert!(error.contains("C57014"), "{error}");
    assert!(
        error.contains("MCOPY from stdin failed: client gave up"),
        "{error}"
    );
    assert_eq!(messages.last().map(|m| m.1.clone()), Some(b"E".to_vec()));
    // Copy messages after the failure are ignored, as PostgreSQL does.
    stream.write_all(&message(b'd', b"21\tlate\n"))?;
    stream.write_all(&message(b'c', b""))?;
    stream.write_all(&message(b'Q', b"ROLLBACK\0"))?;
    read_until(&mut stream, b'Z')?;

    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(count(&client, "t").await?, 3);
    Ok(())
}

#[tokio::test]
async fn binary_copy_in_and_out_round_trip() -> TestResult {
    use tokio_postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutStream};
    use tokio_postgres::types::{ToSql, Type};

    let port = start_server()?;
    let client = connect(port).await?;
    client
        .batch_execute(
            "CREATE TABLE t (b bool, i2 int2, i4 int, i8 bigint, f4 real, f8 float8, t text, \
             v varchar(3), by bytea, ai int[], at text[])",
        )
        .await?;
    let types = [
        Type::BOOL,
        Type::INT2,
        Type::INT4,
        Type::INT8,
        Type::FLOAT4,
        Type::FLOAT8,
        Type::TEXT,
        Type::VARCHAR,
        Type::BYTEA,
        Type::INT4_ARRAY,
        Type::TEXT_ARRAY,
    ];
    let sink = client.copy_in("COPY t FROM STDIN (FORMAT binary)").await?;
    let writer = BinaryCopyInWriter::new(sink, &types);
    let mut writer = std::pin::pin!(writer);
    for i in 0..3000i32 {
        let text = format!("row {i}");
        let array = vec![Some(i), None];
        let row: [&(dyn ToSql + Sync); 11] = [
            &(i % 2 == 0),
            &(i as i16),
            &i,
            &(i64::from(i) << 33),
            &(i as f32 / 2.0),
            &(f64::from(i) / 4.0),
            &text,
            &"abc",
            &vec![0u8, 255, i as u8],
            &array,
            &vec!["x".to_string(), text.clone()],
        ];
        writer.as_mut().write(&row).await?;
    }
    let nulls: [&(dyn ToSql + Sync); 11] = [
        &None::<bool>,
        &None::<i16>,
        &None::<i32>,
        &None::<i64>,
        &None::<f32>,
        &None::<f64>,
        &None::<String>,
        &None::<String>,
        &None::<Vec<u8>>,
        &None::<Vec<i32>>,
        &None::<Vec<String>>,
    ];
    writer.as_mut().write(&nulls).await?;
    assert_eq!(writer.as_mut().finish().await?, 3001);

    let stream = client
        .copy_out("COPY (SELECT * FROM t ORDER BY i4 NULLS LAST) TO STDOUT (FORMAT binary)")
        .await?;
    let rows = BinaryCopyOutStream::new(stream, &types);
    let mut rows = std::pin::pin!(rows);
    let mut seen = 0i32;
    while let Some(row) = rows.next().await {
        let row = row?;
        if seen == 3000 {
            assert_eq!(row.try_get::<Option<i32>>(2)?, None);
            assert_eq!(row.try_get::<Option<Vec<u8>>>(8)?, None);
        } else {
            let i = seen;
            assert_eq!(row.try_get::<bool>(0)?, i % 2 == 0);
            assert_eq!(row.try_get::<i16>(1)?, i as i16);
            assert_eq!(row.try_get::<i32>(2)?, i);
            assert_eq!(row.try_get::<i64>(3)?, i64::from(i) << 33);
            assert_eq!(row.try_get::<f32>(4)?, i as f32 / 2.0);
            assert_eq!(row.try_get::<f64>(5)?, f64::from(i) / 4.0);
            assert_eq!(row.try_get::<String>(6)?, format!("row {i}"));
            assert_eq!(row.try_get::<String>(7)?, "abc");
            assert_eq!(row.try_get::<Vec<u8>>(8)?, vec![0u8, 255, i as u8]);
            assert_eq!(row.try_get::<Vec<Option<i32>>>(9)?, vec![Some(i), None]);
            assert_eq!(
                row.try_get::<Vec<String>>(10)?,
                vec!["x".to_string(), format!("row {i}")]
            );
        }
        seen += 1;
    }
    assert_eq!(seen, 3001);
    Ok(())
}

#[tokio::test]
async fn binary_copy_errors_load_nothing() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client
        .batch_execute("CREATE TABLE t (a int, b text)")
        .await?;
    let header: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";
    let good_row: &[u8] = b"\0\x02\0\0\0\x04\0\0\0\x01\0\0\0\x02hi";
    let cases: [(&[u8], &str, &str, Option<&str>); 4] = [
        (
            b"PGCOPY\n\xff\r\n\x01",
            "22P04",
            "COPY file signature not recognized",
            None,
        ),
        (
            b"\0\x03\0\0\0\x04\0\0\0\x01",
            "22P04",
            "row field count is 3, expected 2",
            Some("COPY t, line 2"),
        ),
        (
            b"\0\x02\0\0\0\x05\0\0\0\0\x01\xff\xff\xff\xff",
            "22P03",
            "incorrect binary data format",
            Some("COPY t, line 2, column a"),
        ),
        (
            b"\0\x02\0\0\0\x04\0\0\0\x01\0\0\0\x09hi",
            "22P04",
            "unexpected EOF in COPY data",
            Some("COPY t, line 2, column b"),
        ),
    ];
    for (tail, code, message, context) in cases {
        let data = if tail.starts_with(b"PGCOPY") {
            tail.to_vec()
        } else {
            [header, good_row, tail].concat()
        };
        let sink = client
            .copy_in::<_, Bytes>("COPY t FROM STDIN (FORMAT binary)")
            .await?;
        let mut sink = std::pin::pin!(sink);
        sink.send(Bytes::from(data)).await?;
        let error = sink.as_mut().finish().await.err().ok_or("COPY succeeded")?;
        let db = error.as_db_error().ok_or("not a database error")?;
        assert_eq!((db.code().code(), db.message()), (code, message));
        assert_eq!(db.where_(), context);
        assert_eq!(count(&client, "t").await?, 0);
    }
    Ok(())
}

/// The SQLSTATE field of the ErrorResponse among `messages`.
fn error_state(messages: &[(u8, Vec<u8>)]) -> Option<String> {
    let (_, body) = messages.iter().find(|(tag, _)| *tag == b'E')?;
    body.split(|&b| b == 0)
        .find_map(|field| field.strip_prefix(b"C"))
        .map(|code| String::from_utf8_lossy(code).into_owned())
}

/// Starts `COPY t FROM STDIN` on `stream`, sends one row, then stalls.
fn stall_mid_copy(stream: &mut std::net::TcpStream) -> std::io::Result<()> {
    stream.write_all(&message(b'Q', b"COPY t FROM STDIN\0"))?;
    read_until(stream, b'G')?;
    stream.write_all(&message(b'd', b"1\n"))
}

#[tokio::test]
async fn a_stalled_copy_ends_at_statement_timeout_and_on_cancel() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client.batch_execute("CREATE TABLE t (a int)").await?;

    let mut stream = connected(port)?;
    stream.write_all(&message(b'Q', b"SET statement_timeout = '200ms'\0"))?;
    read_until(&mut stream, b'Z')?;
    stall_mid_copy(&mut stream)?;
    let messages = read_until(&mut stream, b'Z')?;
    assert_eq!(error_state(&messages).as_deref(), Some("57014"));
    // The table is free again: a write that needs its lock goes through at once.
    client.batch_execute("TRUNCATE t").await?;
    // The client's late copy messages are ignored, and the connection goes on.
    stream.write_all(&message(b'd', b"2\n"))?;
    stream.write_all(&message(b'c', b""))?;
    stream.write_all(&message(b'Q', b"SELECT 1\0"))?;
    let messages = read_until(&mut stream, b'Z')?;
    assert!(messages.iter().any(|(tag, _)| *tag == b'D'));

    // With no timeout, a CancelRequest stops the wait (tokio-postgres sends it).
    let copying = client.copy_in::<_, Bytes>("COPY t FROM STDIN").await?;
    let mut copying = std::pin::pin!(copying);
    copying.send(Bytes::from_static(b"3\n")).await?;
    let canceller = client.cancel_token();
    canceller.cancel_query(tokio_postgres::NoTls).await?;
    // The cancel travels on its own connection: let it land before CopyDone would.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let finished = tokio::time::timeout(Duration::from_secs(5), copying.as_mut().finish()).await?;
    let state = finished
        .err()
        .and_then(|e| e.code().map(|c| c.code().to_string()));
    assert_eq!(state.as_deref(), Some("57014"));
    assert_eq!(count(&client, "t").await?, 0);
    Ok(())
}

#[tokio::test]
async fn a_stalled_copy_ends_its_connection_at_idle_in_transaction_timeout() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    client.batch_execute("CREATE TABLE t (a int)").await?;
    let mut stream = connected(port)?;
    let set = b"SET idle_in_transaction_session_timeout = '200ms'\0";
    stream.write_all(&message(b'Q', set))?;
    read_until(&mut stream, b'Z')?;
    stall_mid_copy(&mut stream)?;
    let messages = read_until(&mut stream, b'E')?;
    assert_eq!(error_state(&messages).as_deref(), Some("25P03"));
    // The connection is closed, and the COPY left nothing and holds no lock.
    let mut rest = Vec::new();
    assert!(matches!(stream.read_to_end(&mut rest), Ok(0) | Err(_)));
    client.batch_execute("TRUNCATE t").await?;
    assert_eq!(count(&client, "t").await?, 0);
    Ok(())
}
