//! COPY over the wire: CopyIn / CopyOut through tokio-postgres (extended protocol) and the
//! simple protocol over a raw socket, and the ways a COPY can fail — a bad line (with its
//! CONTEXT), CopyFail, a client that goes away — each leaving nothing behind.

mod common;
#[path = "common/raw.rs"]
mod raw;

use std::io::Write;
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
