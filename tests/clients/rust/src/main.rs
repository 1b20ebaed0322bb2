//! tokio-postgres: simple_query, queries with parameters, binary types (tokio-postgres reads
//! and writes every value in binary), transactions and COPY FROM STDIN. One line per check for
//! tests/clients/run.sh: `ok tokio-postgres/CHECK` or `FAIL tokio-postgres/CHECK: error`.
//! Connects with libpq's PG* variables.

use std::fmt::Debug;
use std::time::{Duration, SystemTime};

use futures_util::SinkExt;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

const CHECK_TIMEOUT: Duration = Duration::from_secs(20);

type Outcome = Result<(), String>;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let checks: [(&str, Check); 7] = [
        ("simple_query", |c| Box::pin(simple_query(c))),
        ("query_params", |c| Box::pin(query_params(c))),
        ("binary_types", |c| Box::pin(binary_types(c))),
        ("arrays", |c| Box::pin(arrays(c))),
        ("transactions", |c| Box::pin(transactions(c))),
        ("portal", |c| Box::pin(portal(c))),
        ("copy_in", |c| Box::pin(copy_in(c))),
    ];
    for (name, check) in checks {
        let outcome = match tokio::time::timeout(CHECK_TIMEOUT, run(check)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(format!("no answer within {CHECK_TIMEOUT:?}")),
        };
        match outcome {
            Ok(()) => println!("ok   tokio-postgres/{name}"),
            Err(message) => println!("FAIL tokio-postgres/{name}: {message}"),
        }
    }
}

type CheckFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Outcome>>>;
type Check = fn(Client) -> CheckFuture;

/// Runs one check on a connection of its own, so one failure cannot spoil the next.
async fn run(check: Check) -> Outcome {
    let config = format!(
        "host={} port={} user={} dbname={}",
        env("PGHOST"),
        env("PGPORT"),
        env("PGUSER"),
        env("PGDATABASE")
    );
    let (client, connection) = tokio_postgres::connect(&config, NoTls)
        .await
        .map_err(describe)?;
    let driver = tokio::spawn(connection);
    let outcome = check(client).await;
    driver.abort();
    outcome
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

/// One line: the server's message and SQLSTATE when there is one.
fn describe(error: tokio_postgres::Error) -> String {
    let message = match error.as_db_error() {
        Some(db) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        None => error.to_string(),
    };
    message
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect()
}

fn expect<T: PartialEq + Debug>(what: &str, actual: T, expected: T) -> Outcome {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}, got {actual:?}"))
    }
}

async fn fresh_table(client: &Client, name: &str, columns: &str) -> Outcome {
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS {name}; CREATE TABLE {name} ({columns})"
        ))
        .await
        .map_err(describe)
}

async fn simple_query(client: Client) -> Outcome {
    let messages = client
        .simple_query("SELECT 1 AS one, NULL::text AS nothing, 'x y' AS text")
        .await
        .map_err(describe)?;
    let rows: Vec<_> = messages
        .iter()
        .filter_map(|message| match message {
            SimpleQueryMessage::Row(row) => Some((row.get(0), row.get(1), row.get(2))),
            _ => None,
        })
        .collect();
    expect("rows", rows, vec![(Some("1"), None, Some("x y"))])
}

async fn query_params(client: Client) -> Outcome {
    let row = client
        .query_one("SELECT $1::int4 + 1, $2::text || '!'", &[&41i32, &"hi"])
        .await
        .map_err(describe)?;
    expect(
        "row",
        (row.get::<_, i32>(0), row.get::<_, String>(1)),
        (42, "hi!".to_string()),
    )?;
    let statement = client
        .prepare("SELECT $1::int8 * 2 AS doubled")
        .await
        .map_err(describe)?;
    expect("column", statement.columns()[0].name(), "doubled")?;
    for n in [3i64, 21] {
        let doubled: i64 = client
            .query_one(&statement, &[&n])
            .await
            .map_err(describe)?
            .get(0);
        expect("doubled", doubled, 2 * n)?;
    }
    Ok(())
}

async fn binary_types(client: Client) -> Outcome {
    let moment = SystemTime::UNIX_EPOCH + Duration::from_micros(1_710_059_415_250_000);
    let row = client
        .query_one(
            "SELECT $1::int2, $2::int4, $3::int8, $4::float8, $5::bool, $6::text, $7::timestamptz, $8::int4",
            &[&-7i16, &70_000i32, &5_000_000_000i64, &1.5f64, &true, &"héllo", &moment, &None::<i32>],
        )
        .await
        .map_err(describe)?;
    expect("int2", row.get::<_, i16>(0), -7)?;
    expect("int4", row.get::<_, i32>(1), 70_000)?;
    expect("int8", row.get::<_, i64>(2), 5_000_000_000)?;
    expect("float8", row.get::<_, f64>(3), 1.5)?;
    expect("bool", row.get::<_, bool>(4), true)?;
    expect("text", row.get::<_, String>(5), "héllo".to_string())?;
    expect("timestamptz", row.get::<_, SystemTime>(6), moment)?;
    expect("null", row.get::<_, Option<i32>>(7), None)
}

async fn arrays(client: Client) -> Outcome {
    let row = client
        .query_one(
            "SELECT $1::int4[], $2::text[]",
            &[&vec![1i32, 2, 3], &vec![Some("a"), None, Some("b c")]],
        )
        .await
        .map_err(describe)?;
    expect("int4[]", row.get::<_, Vec<i32>>(0), vec![1, 2, 3])?;
    expect(
        "text[]",
        row.get::<_, Vec<Option<String>>>(1),
        vec![Some("a".to_string()), None, Some("b c".to_string())],
    )
}

async fn transactions(mut client: Client) -> Outcome {
    fresh_table(&client, "tokio_txn", "id int").await?;
    let transaction = client.transaction().await.map_err(describe)?;
    transaction
        .execute("INSERT INTO tokio_txn VALUES (1)", &[])
        .await
        .map_err(describe)?;
    transaction.commit().await.map_err(describe)?;
    let transaction = client.transaction().await.map_err(describe)?;
    transaction
        .execute("INSERT INTO tokio_txn VALUES (2)", &[])
        .await
        .map_err(describe)?;
    transaction.rollback().await.map_err(describe)?;
    let count: i64 = client
        .query_one("SELECT count(*) FROM tokio_txn", &[])
        .await
        .map_err(describe)?
        .get(0);
    expect("rows", count, 1)
}

/// A portal read a few rows per Execute (PortalSuspended between them).
async fn portal(mut client: Client) -> Outcome {
    let transaction = client.transaction().await.map_err(describe)?;
    let portal = transaction
        .bind("SELECT x FROM generate_series(1, $1::int4) AS x", &[&5i32])
        .await
        .map_err(describe)?;
    let mut batches = Vec::new();
    loop {
        let rows = transaction
            .query_portal(&portal, 2)
            .await
            .map_err(describe)?;
        if rows.is_empty() {
            break;
        }
        batches.push(rows.iter().map(|row| row.get(0)).collect::<Vec<i32>>());
    }
    expect("batches", batches, vec![vec![1, 2], vec![3, 4], vec![5]])
}

async fn copy_in(client: Client) -> Outcome {
    fresh_table(&client, "tokio_copy", "id int, v text").await?;
    let sink = client
        .copy_in("COPY tokio_copy (id, v) FROM STDIN")
        .await
        .map_err(describe)?;
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::from_static(b"1\tone\n2\t\\N\n"))
        .await
        .map_err(describe)?;
    let copied = sink.as_mut().finish().await.map_err(describe)?;
    expect("copied", copied, 2)?;
    let rows: Vec<(i32, Option<String>)> = client
        .query("SELECT id, v FROM tokio_copy ORDER BY id", &[])
        .await
        .map_err(describe)?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    expect("rows", rows, vec![(1, Some("one".to_string())), (2, None)])
}
