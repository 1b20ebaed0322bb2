//! Working memory limits over the wire: a statement that would hold more than its own
//! limit (`kestrel.query_memory_limit`) or the server's fails with 53200, and the server,
//! its other sessions and its data carry on.

use kestrel::Database;
use tokio_postgres::error::SqlState;
use tokio_postgres::Client;

mod common;

use common::{connect, start_server, TestResult};

/// The SQLSTATE of `sql`'s error (a test failure if it succeeded).
async fn error_code(client: &Client, sql: &str) -> Result<SqlState, String> {
    match client.simple_query(sql).await {
        Ok(_) => Err(format!("{sql} succeeded")),
        Err(error) => error
            .code()
            .cloned()
            .ok_or_else(|| format!("{sql}: {error}")),
    }
}

async fn count(client: &Client, sql: &str) -> Result<i64, tokio_postgres::Error> {
    Ok(client.query_one(sql, &[]).await?.get(0))
}

#[tokio::test]
async fn statements_past_the_query_limit_fail_and_the_rest_carries_on() -> TestResult {
    let port = start_server()?;
    let client = connect(port).await?;
    let other = connect(port).await?;
    client
        .simple_query("CREATE TABLE kept AS SELECT g AS id FROM generate_series(1, 5000) g")
        .await?;
    client
        .simple_query("SET kestrel.query_memory_limit = '32MB'")
        .await?;
    // `big` is one 100 kB string, made once (repeat() per row is slow in debug builds).
    let big = "(SELECT repeat('x', 100000) AS s) big";
    for sql in [
        // A cross join whose result would take about 160 GB.
        "SELECT * FROM generate_series(1, 100000) a, generate_series(1, 100000) b".to_string(),
        // One string of a gigabyte.
        format!("SELECT length(string_agg(s, ',')) FROM generate_series(1, 10000), {big}"),
        // A recursive CTE that grows without end.
        "WITH RECURSIVE r(n, s) AS (SELECT g, repeat('x', 100) FROM generate_series(1, 1000) g \
         UNION ALL SELECT n + 1000, s FROM r) SELECT count(*) FROM r"
            .to_string(),
        // A sort, a window, a hash join's build side and aggregate groups past the limit.
        format!("SELECT count(*) FROM (SELECT s || g AS t FROM generate_series(1, 1000) g, {big} ORDER BY t) o"),
        format!("SELECT max(c), max(length(s)) FROM (SELECT count(*) OVER (PARTITION BY g % 7) AS c, s \
                 FROM generate_series(1, 1000) g, {big}) w"),
        "SELECT count(*) FROM generate_series(1, 5000000) a JOIN generate_series(1, 5000000) b ON a = b"
            .to_string(),
        "SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, 3000000) g GROUP BY g) t"
            .to_string(),
        // A hash join whose one shared key matches every probe row with every build row.
        "SELECT count(*) FROM generate_series(1, 100000) a JOIN generate_series(1, 100000) b \
         ON a % 2 = b % 2"
            .to_string(),
    ] {
        assert_eq!(error_code(&client, &sql).await?, SqlState::OUT_OF_MEMORY, "{sql}");
    }
    // Streaming work holds nothing and is not limited, a join's output included.
    assert_eq!(
        count(&client, "SELECT count(*) FROM generate_series(1, 3000000)").await?,
        3_000_000
    );
    // 3 million joined rows, about 70 MB passing through: each probe batch's matches are
    // given back once handed on.
    let fanout = "SELECT count(*) FROM generate_series(1, 1000000) a \
                  JOIN generate_series(1, 300) b ON a % 100 = b % 100";
    assert_eq!(count(&client, fanout).await?, 3_000_000);
    assert_eq!(count(&other, "SELECT count(*) FROM kept").await?, 5000);
    assert_eq!(
        count(&client, "SELECT sum(id)::int8 FROM kept").await?,
        12_502_500
    );
    Ok(())
}

#[tokio::test]
async fn the_server_limit_binds_every_session() -> TestResult {
    let mut db = Database::new();
    db.set_memory_limit(32 << 20);
    let port = kestrel_server::spawn_background(db)?.port;
    let client = connect(port).await?;
    client
        .simple_query("SET kestrel.query_memory_limit = '1GB'")
        .await?;
    let sql = "SELECT * FROM generate_series(1, 100000) a, generate_series(1, 100000) b";
    let error = client
        .simple_query(sql)
        .await
        .err()
        .and_then(|e| e.as_db_error().cloned())
        .ok_or("the cross join succeeded")?;
    assert_eq!(error.code(), &SqlState::OUT_OF_MEMORY);
    assert!(error
        .detail()
        .is_some_and(|d| d.contains("server's memory limit")));
    // What it held went back: the next statement has the whole pool again.
    assert_eq!(
        count(
            &client,
            "SELECT count(*) FROM (SELECT g FROM generate_series(1, 100000) g ORDER BY g DESC) s"
        )
        .await?,
        100_000
    );
    Ok(())
}

/// Requests whose size the client chooses — a value built by a function, a statement's
/// text, one line of COPY — fail with 53200 before the server holds them, and another
/// session carries on meanwhile.
#[tokio::test]
async fn values_statements_and_copy_lines_past_the_query_limit_fail() -> TestResult {
    use bytes::Bytes;
    use futures_util::SinkExt;

    let port = start_server()?;
    let client = connect(port).await?;
    let other = connect(port).await?;
    client
        .batch_execute("CREATE TABLE lines (t text); SET kestrel.query_memory_limit = '16MB'")
        .await?;
    let many_terms = format!("SELECT {}", vec!["1"; 100_000].join("+"));
    for sql in [
        "SELECT length(repeat('x', 100000000))".to_string(),
        "SELECT cardinality(ARRAY(SELECT generate_series(1, 10000000)))".to_string(),
        many_terms,
    ] {
        assert_eq!(
            error_code(&client, &sql).await?,
            SqlState::OUT_OF_MEMORY,
            "{}",
            &sql[..60.min(sql.len())]
        );
    }
    let sink = client.copy_in::<_, Bytes>("COPY lines FROM STDIN").await?;
    let mut sink = std::pin::pin!(sink);
    let piece = Bytes::from(vec![b'x'; 1 << 20]);
    let mut outcome = Ok(0);
    // 64 MB without a line break; the server refuses it once past 16 MB.
    for _ in 0..64 {
        if let Err(error) = sink.send(piece.clone()).await {
            outcome = Err(error);
            break;
        }
    }
    if outcome.is_ok() {
        outcome = sink.as_mut().finish().await;
    }
    // tokio-postgres may report the refused COPY as its sink closing.
    let error = outcome.err().ok_or("the enormous line was accepted")?;
    assert!(
        matches!(error.code(), Some(&SqlState::OUT_OF_MEMORY) | None),
        "{error}"
    );
    assert_eq!(count(&other, "SELECT count(*) FROM lines").await?, 0);
    let again = connect(port).await?;
    assert_eq!(count(&again, "SELECT count(*) FROM lines").await?, 0);
    Ok(())
}
