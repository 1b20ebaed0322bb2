//! The server against a real client (tokio-postgres): simple and extended query,
//! parameters, binary results, pipelining, portals, and errors that leave the connection
//! usable.

mod common;
#[path = "common/raw.rs"]
mod raw;

use std::io::Write;

use common::{connect, start_server, TestResult};
use raw::{connected, read_until};
use tokio_postgres::{SimpleQueryMessage, SimpleQueryRow};

fn rows(messages: &[SimpleQueryMessage]) -> Vec<&SimpleQueryRow> {
    messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(row) => Some(row),
            _ => None,
        })
        .collect()
}

fn completions(messages: &[SimpleQueryMessage]) -> Vec<u64> {
    messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn simple_query_runs_every_statement() -> TestResult {
    let client = connect(start_server()?).await?;
    let messages = client
        .simple_query(
            "SELECT 1 AS one; CREATE TABLE t (a int, b text); \
             INSERT INTO t VALUES (1, 'x'), (2, NULL); SELECT a, b FROM t ORDER BY a",
        )
        .await?;
    assert_eq!(completions(&messages), vec![1, 0, 2, 2]);
    let data = rows(&messages);
    assert_eq!(data.len(), 3);
    assert_eq!(data[0].columns()[0].name(), "one");
    assert_eq!(data[0].get(0), Some("1"));
    assert_eq!((data[1].get(0), data[1].get(1)), (Some("1"), Some("x")));
    assert_eq!((data[2].get(0), data[2].get(1)), (Some("2"), None));
    // tokio-postgres reports EmptyQueryResponse as a CommandComplete without rows.
    let empty = client.simple_query("").await?;
    assert_eq!(completions(&empty), vec![0]);
    assert!(rows(&empty).is_empty());
    Ok(())
}

#[tokio::test]
async fn extended_query_with_parameters_and_binary_results() -> TestResult {
    let client = connect(start_server()?).await?;
    client
        .batch_execute(
            "CREATE TABLE items (id int, name text, price float8, big bigint, small smallint, ok boolean); \
             INSERT INTO items VALUES (1, 'apple', 1.5, 10000000000, 7, true), \
                                      (2, 'pear', 2.25, -1, -7, false), (3, NULL, NULL, NULL, NULL, NULL)",
        )
        .await?;
    let statement = client
        .prepare("SELECT id, name, price, big, small, ok FROM items WHERE id >= $1 AND id <= $2 ORDER BY id")
        .await?;
    let rows = client.query(&statement, &[&1i32, &2i32]).await?;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].get::<_, i32>(0), 1);
    assert_eq!(rows[0].get::<_, &str>(1), "apple");
    assert_eq!(rows[0].get::<_, f64>(2), 1.5);
    assert_eq!(rows[0].get::<_, i64>(3), 10_000_000_000);
    assert_eq!(rows[0].get::<_, i16>(4), 7);
    assert!(rows[0].get::<_, bool>(5));
    assert_eq!(rows[1].get::<_, &str>(1), "pear");
    assert!(!rows[1].get::<_, bool>(5));

    // The same statement again, and NULLs in both directions.
    let rows = client.query(&statement, &[&3i32, &3i32]).await?;
    assert_eq!(rows[0].get::<_, Option<&str>>(1), None);
    assert_eq!(rows[0].get::<_, Option<f64>>(2), None);
    let row = client
        .query_one(
            "SELECT $1::text IS NULL, $2::bigint + 1",
            &[&None::<&str>, &41i64],
        )
        .await?;
    assert!(row.get::<_, bool>(0));
    assert_eq!(row.get::<_, i64>(1), 42);

    let updated = client
        .execute(
            "UPDATE items SET name = $1 WHERE id = $2",
            &[&"plum", &3i32],
        )
        .await?;
    assert_eq!(updated, 1);
    Ok(())
}

#[tokio::test]
async fn pipelined_queries_answer_in_order() -> TestResult {
    let client = connect(start_server()?).await?;
    client
        .batch_execute("CREATE TABLE p (a int); INSERT INTO p VALUES (1), (2), (3)")
        .await?;
    let count = client
        .prepare("SELECT count(*) FROM p WHERE a >= $1")
        .await?;
    let echo = client.prepare("SELECT $1::text").await?;
    let (a, b, c, d) = tokio::join!(
        client.query_one(&count, &[&1i32]),
        client.query_one(&echo, &[&"hello"]),
        client.query_one(&count, &[&3i32]),
        client.query_one(&count, &[&9i32]),
    );
    assert_eq!(a?.get::<_, i64>(0), 3);
    assert_eq!(b?.get::<_, &str>(0), "hello");
    assert_eq!(c?.get::<_, i64>(0), 1);
    assert_eq!(d?.get::<_, i64>(0), 0);
    Ok(())
}

#[tokio::test]
async fn portal_hands_out_rows_in_pieces() -> TestResult {
    let mut client = connect(start_server()?).await?;
    client
        .batch_execute("CREATE TABLE g (a int); INSERT INTO g VALUES (1), (2), (3), (4), (5)")
        .await?;
    let transaction = client.transaction().await?;
    let portal = transaction.bind("SELECT a FROM g ORDER BY a", &[]).await?;
    let mut seen = Vec::new();
    loop {
        let piece = transaction.query_portal(&portal, 2).await?;
        if piece.is_empty() {
            break;
        }
        assert!(piece.len() <= 2);
        seen.extend(piece.iter().map(|row| row.get::<_, i32>(0)));
    }
    assert_eq!(seen, vec![1, 2, 3, 4, 5]);
    transaction.commit().await?;
    Ok(())
}

#[tokio::test]
async fn errors_leave_the_connection_usable() -> TestResult {
    let client = connect(start_server()?).await?;
    let error = client
        .simple_query("SELECT 1/0")
        .await
        .err()
        .ok_or("division by zero succeeded")?;
    assert_eq!(error.code().map(|c| c.code()), Some("22012"));
    let messages = client.simple_query("SELECT 2").await?;
    assert_eq!(rows(&messages)[0].get(0), Some("2"));

    // Errors at Parse and at Execute skip to Sync, then the next query works.
    let error = client
        .prepare("SELEC 1")
        .await
        .err()
        .ok_or("bad SQL parsed")?;
    assert_eq!(error.code().map(|c| c.code()), Some("42601"));
    let error = client
        .query("SELECT $1::int / 0", &[&1i32])
        .await
        .err()
        .ok_or("division by zero succeeded")?;
    assert_eq!(error.code().map(|c| c.code()), Some("22012"));
    let missing = client
        .query("SELECT * FROM missing_table", &[])
        .await
        .err()
        .ok_or("missing table found")?;
    assert_eq!(missing.code().map(|c| c.code()), Some("42P01"));
    let row = client.query_one("SELECT $1::int + 1", &[&1i32]).await?;
    assert_eq!(row.get::<_, i32>(0), 2);
    Ok(())
}

#[tokio::test]
async fn settings_are_reported_at_startup() -> TestResult {
    let client = connect(start_server()?).await?;
    let messages = client.simple_query("SHOW application_name").await?;
    assert_eq!(rows(&messages)[0].get(0), Some("wire_test"));
    Ok(())
}

#[tokio::test]
async fn cancel_request_stops_the_running_statement() -> TestResult {
    let client = connect(start_server()?).await?;
    let values: Vec<String> = (1..=300).map(|x| format!("({x})")).collect();
    client
        .batch_execute(&format!(
            "CREATE TABLE g (x int); INSERT INTO g VALUES {}",
            values.join(",")
        ))
        .await?;
    let token = client.cancel_token();
    // 300^4 combinations through nested-loop joins: hours unless cancelled.
    let query =
        client.simple_query("SELECT count(*) FROM g a, g b, g c, g d WHERE a.x + b.x > c.x + d.x");
    let cancel = async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        token.cancel_query(tokio_postgres::NoTls).await
    };
    let both = async { tokio::join!(query, cancel) };
    let (result, cancelled) =
        tokio::time::timeout(std::time::Duration::from_secs(60), both).await?;
    cancelled?;
    let error = result.err().ok_or("the statement was not cancelled")?;
    assert_eq!(error.code().map(|c| c.code()), Some("57014"));
    let messages = client.simple_query("SELECT 1").await?;
    assert_eq!(rows(&messages)[0].get(0), Some("1"));
    Ok(())
}

/// Startup `options` (PGOPTIONS) set session parameters; a bad value refuses the connection.
#[tokio::test]
async fn startup_options_set_parameters() -> TestResult {
    let port = start_server()?;
    let config = format!(
        "host=127.0.0.1 port={port} user=kestrel options='-c kestrel.result_cache=off --extra-float-digits=2'"
    );
    let (client, connection) = tokio_postgres::connect(&config, tokio_postgres::NoTls).await?;
    tokio::spawn(connection);
    let shown = client.simple_query("SHOW kestrel.result_cache").await?;
    assert_eq!(rows(&shown)[0].get(0), Some("off"));
    let shown = client.simple_query("SHOW extra_float_digits").await?;
    assert_eq!(rows(&shown)[0].get(0), Some("2"));
    let bad =
        format!("host=127.0.0.1 port={port} user=kestrel options='-c kestrel.result_cache=bogus'");
    assert!(tokio_postgres::connect(&bad, tokio_postgres::NoTls)
        .await
        .is_err());
    Ok(())
}

#[tokio::test]
async fn arrays_round_trip_in_binary_and_text() -> TestResult {
    let client = connect(start_server()?).await?;
    client
        .batch_execute(
            "CREATE TABLE arrs (id int, nums int[], tags text[]); \
             INSERT INTO arrs VALUES (1, '{1,2,NULL}', '{a,\"b c\"}'), (2, '{}', NULL)",
        )
        .await?;
    let rows = client
        .query("SELECT nums, tags FROM arrs ORDER BY id", &[])
        .await?;
    assert_eq!(
        rows[0].columns()[0].type_(),
        &tokio_postgres::types::Type::INT4_ARRAY
    );
    let nums: Vec<Option<i32>> = rows[0].try_get(0)?;
    assert_eq!(nums, vec![Some(1), Some(2), None]);
    let tags: Option<Vec<String>> = rows[0].try_get(1)?;
    assert_eq!(tags, Some(vec!["a".to_string(), "b c".to_string()]));
    let empty: Vec<i32> = rows[1].try_get(0)?;
    assert!(empty.is_empty());
    let no_tags: Option<Vec<String>> = rows[1].try_get(1)?;
    assert_eq!(no_tags, None);
    // A Vec<i32> parameter goes out in binary and comes back unchanged.
    let sent = vec![3, -4, i32::MAX];
    let row = client
        .query_one("SELECT $1::int[], cardinality($1::int[])", &[&sent])
        .await?;
    let back: Vec<i32> = row.try_get(0)?;
    assert_eq!(back, sent);
    assert_eq!(row.try_get::<_, i32>(1)?, 3);
    let big: Vec<i64> = client
        .query_one(
            "SELECT array_agg(x::bigint ORDER BY x) FROM unnest(ARRAY[2,1]) AS x",
            &[],
        )
        .await?
        .try_get(0)?;
    assert_eq!(big, vec![1, 2]);
    // Text format through the simple query protocol.
    let messages = client
        .simple_query("SELECT tags FROM arrs WHERE id = 1")
        .await?;
    assert_eq!(first_value(&messages), Some("{a,\"b c\"}"));
    Ok(())
}

fn first_value(messages: &[SimpleQueryMessage]) -> Option<&str> {
    rows(messages).first().and_then(|row| row.get(0))
}

#[tokio::test]
async fn cached_results_are_encoded_once_and_invalidated() -> TestResult {
    let port = start_server()?;
    let (writer, reader) = (connect(port).await?, connect(port).await?);
    writer
        .simple_query("CREATE TABLE c (a int, b text); INSERT INTO c VALUES (1, 'x'), (2, NULL)")
        .await?;
    let query = "SELECT a, b FROM c ORDER BY a";
    let values = |messages: &[SimpleQueryMessage]| -> Vec<(Option<String>, Option<String>)> {
        rows(messages)
            .iter()
            .map(|r| (r.get(0).map(str::to_owned), r.get(1).map(str::to_owned)))
            .collect()
    };
    let first = values(&reader.simple_query(query).await?);
    // A hit on another connection copies the rows the first run encoded.
    let hit = values(&writer.simple_query(query).await?);
    assert_eq!(first, hit);
    assert_eq!(hit[1], (Some("2".into()), None));
    writer
        .simple_query("UPDATE c SET b = 'y' WHERE a = 2")
        .await?;
    let after = values(&reader.simple_query(query).await?);
    assert_eq!(after[1], (Some("2".into()), Some("y".into())));
    Ok(())
}

/// Any value's binary bytes, as the server sent them.
struct RawValue(Vec<u8>);

impl<'a> tokio_postgres::types::FromSql<'a> for RawValue {
    fn from_sql(
        _: &tokio_postgres::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue(raw.to_vec()))
    }

    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }
}

/// A parameter sent as these binary bytes, whatever its type.
#[derive(Debug)]
struct RawParam(Vec<u8>);

impl tokio_postgres::types::ToSql for RawParam {
    fn to_sql(
        &self,
        _: &tokio_postgres::types::Type,
        out: &mut bytes::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(tokio_postgres::types::IsNull::No)
    }

    fn accepts(_: &tokio_postgres::types::Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

#[tokio::test]
async fn bytea_uuid_json_jsonb_round_trip_in_binary() -> TestResult {
    use tokio_postgres::types::Type;
    let client = connect(start_server()?).await?;
    client
        .batch_execute("CREATE TABLE docs (b bytea, u uuid, j json, jb jsonb)")
        .await?;
    let uuid: Vec<u8> = (1..=16).collect();
    let mut jsonb = vec![1u8];
    jsonb.extend_from_slice(br#"{"b": 2,  "a": 1}"#);
    client
        .execute(
            "INSERT INTO docs VALUES ($1, $2, $3, $4)",
            &[
                &vec![0u8, 0xff, b'\\'],
                &RawParam(uuid.clone()),
                &RawParam(br#"{"x" :  1}"#.to_vec()),
                &RawParam(jsonb),
            ],
        )
        .await?;
    let row = client
        .query_one("SELECT b, u, j, jb, ARRAY[u], ARRAY[jb] FROM docs", &[])
        .await?;
    let types: Vec<&Type> = row.columns().iter().map(|c| c.type_()).collect();
    assert_eq!(
        types,
        [
            &Type::BYTEA,
            &Type::UUID,
            &Type::JSON,
            &Type::JSONB,
            &Type::UUID_ARRAY,
            &Type::JSONB_ARRAY
        ]
    );
    assert_eq!(row.try_get::<_, Vec<u8>>(0)?, vec![0u8, 0xff, b'\\']);
    assert_eq!(row.try_get::<_, RawValue>(1)?.0, uuid);
    // json keeps its text verbatim; jsonb is version 1, then its normalised text.
    assert_eq!(row.try_get::<_, RawValue>(2)?.0, br#"{"x" :  1}"#);
    let mut expected = vec![1u8];
    expected.extend_from_slice(br#"{"a": 1, "b": 2}"#);
    assert_eq!(row.try_get::<_, RawValue>(3)?.0, expected);
    // Text format of the same row.
    let messages = client.simple_query("SELECT b, u FROM docs").await?;
    let data = rows(&messages);
    assert_eq!(data[0].get(0), Some("\\x00ff5c"));
    assert_eq!(data[0].get(1), Some("01020304-0506-0708-090a-0b0c0d0e0f10"));
    // A jsonb of another format version, or a uuid of 15 bytes, is refused.
    let error = client
        .query_one("SELECT $1::jsonb", &[&RawParam(b"\x02{}".to_vec())])
        .await;
    let code = error.err().and_then(|e| e.code().cloned());
    assert_eq!(code.as_ref().map(|c| c.code()), Some("22P03"));
    let error = client
        .query_one("SELECT $1::uuid", &[&RawParam(vec![0; 15])])
        .await;
    assert!(error.is_err());
    Ok(())
}

#[tokio::test]
async fn returning_is_described_and_runs_every_time() -> TestResult {
    let client = connect(start_server()?).await?;
    client
        .batch_execute("CREATE TABLE r (id serial, name text)")
        .await?;
    // Describe of the statement announces the RETURNING list, as PostgreSQL does.
    let insert = client
        .prepare("INSERT INTO r (name) VALUES ($1) RETURNING id, name AS label")
        .await?;
    let described: Vec<_> = insert
        .columns()
        .iter()
        .map(|c| (c.name(), c.type_().name()))
        .collect();
    assert_eq!(described, vec![("id", "int4"), ("label", "text")]);
    // The same text and parameters twice: two rows written, never a cached answer.
    for expected_id in [1, 2] {
        let row = client.query_one(&insert, &[&"a"]).await?;
        assert_eq!(row.get::<_, i32>(0), expected_id);
        assert_eq!(row.get::<_, &str>(1), "a");
    }
    let update = client
        .query(
            "UPDATE r SET name = $1 WHERE id = 2 RETURNING name",
            &[&"b"],
        )
        .await?;
    assert_eq!(update[0].get::<_, &str>(0), "b");
    let delete = client.query("DELETE FROM r RETURNING id", &[]).await?;
    assert_eq!(delete.len(), 2);
    let explain = client.prepare("EXPLAIN SELECT * FROM r").await?;
    assert_eq!(explain.columns()[0].name(), "QUERY PLAN");
    Ok(())
}

/// A frontend message: its tag, length and body.
fn message(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    out.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[test]
fn portal_describe_of_returning_gives_its_row_description() -> TestResult {
    let mut stream = connected(start_server()?)?;
    stream.write_all(&message(b'Q', b"CREATE TABLE r2 (id int, name text)\0"))?;
    read_until(&mut stream, b'Z')?;
    let mut parse = b"\0INSERT INTO r2 VALUES (7, 'a') RETURNING id, name\0".to_vec();
    parse.extend_from_slice(&0i16.to_be_bytes());
    // Unnamed portal of the unnamed statement: no parameters, default (text) result formats.
    let bind = [&b"\0\0"[..], &[0; 6]].concat();
    let exchange = [
        message(b'P', &parse),
        message(b'B', &bind),
        message(b'D', b"P\0"),
        message(b'E', b"\0\0\0\0\0"),
        message(b'S', b""),
    ]
    .concat();
    stream.write_all(&exchange)?;
    let messages = read_until(&mut stream, b'Z')?;
    let tags: Vec<u8> = messages.iter().map(|(tag, _)| *tag).collect();
    assert_eq!(tags, b"12TDCZ".to_vec());
    let description = &messages[2].1;
    assert_eq!(&description[..2], &2i16.to_be_bytes());
    assert!(description[2..].starts_with(b"id\0"));
    // DataRow: two fields, "7" and "a".
    let row = [
        &2i16.to_be_bytes()[..],
        &1i32.to_be_bytes(),
        b"7",
        &1i32.to_be_bytes(),
        b"a",
    ]
    .concat();
    assert_eq!(messages[3].1, row);
    assert_eq!(messages[4].1, b"INSERT 0 1\0".to_vec());
    Ok(())
}

/// Catalog OID columns go out as type oid (26), four bytes in binary, as PostgreSQL sends
/// them; reg* columns as their names.
#[tokio::test]
async fn oid_columns_are_sent_as_oid() -> TestResult {
    let client = connect(start_server()?).await?;
    let row = client
        .query_one(
            "SELECT c.oid, c.relnamespace, c.oid::regclass::text FROM pg_class c WHERE c.relname = 'pg_class'",
            &[],
        )
        .await?;
    assert_eq!(row.columns()[0].type_(), &tokio_postgres::types::Type::OID);
    assert_eq!(row.columns()[1].type_(), &tokio_postgres::types::Type::OID);
    assert_eq!(row.try_get::<_, u32>(0)?, 1259);
    assert_eq!(row.try_get::<_, u32>(1)?, 11);
    assert_eq!(row.try_get::<_, String>(2)?, "pg_class");
    let text = client
        .simple_query("SELECT oid FROM pg_namespace WHERE nspname = 'pg_catalog'")
        .await?;
    assert_eq!(rows(&text)[0].get(0), Some("11"));
    Ok(())
}

#[tokio::test]
async fn bit_strings_round_trip_in_binary() -> TestResult {
    use tokio_postgres::types::Type;
    let client = connect(start_server()?).await?;
    client
        .batch_execute("CREATE TABLE flags (b bit(10), v varbit)")
        .await?;
    // bit_send: the length in bits, then the bits packed from the most significant one.
    let packed = vec![0, 0, 0, 10, 0b1010_0000, 0b1100_0000];
    client
        .execute(
            "INSERT INTO flags VALUES ($1, $2)",
            &[&RawParam(packed.clone()), &RawParam(vec![0, 0, 0, 0])],
        )
        .await?;
    let row = client
        .query_one("SELECT b, v, ARRAY[b] FROM flags", &[])
        .await?;
    let types: Vec<&Type> = row.columns().iter().map(|c| c.type_()).collect();
    assert_eq!(types, [&Type::BIT, &Type::VARBIT, &Type::BIT_ARRAY]);
    assert_eq!(row.try_get::<_, RawValue>(0)?.0, packed);
    assert_eq!(row.try_get::<_, RawValue>(1)?.0, [0, 0, 0, 0]);
    let messages = client.simple_query("SELECT b, v FROM flags").await?;
    let data = rows(&messages);
    assert_eq!(data[0].get(0), Some("1010000011"));
    assert_eq!(data[0].get(1), Some(""));
    // Set padding bits and a length that does not fit the column are refused.
    let error = client
        .query_one("SELECT $1::varbit", &[&RawParam(vec![0, 0, 0, 2, 0xff])])
        .await;
    let code = error.err().and_then(|e| e.code().cloned());
    assert_eq!(code.as_ref().map(|c| c.code()), Some("22P03"));
    let error = client
        .execute(
            "INSERT INTO flags VALUES ($1, NULL)",
            &[&RawParam(vec![0, 0, 0, 1, 0x80])],
        )
        .await;
    let code = error.err().and_then(|e| e.code().cloned());
    assert_eq!(code.as_ref().map(|c| c.code()), Some("22026"));
    Ok(())
}

#[tokio::test]
async fn timetz_round_trips_in_binary() -> TestResult {
    use tokio_postgres::types::Type;
    let client = connect(start_server()?).await?;
    client
        .batch_execute("CREATE TABLE clocks (t timetz)")
        .await?;
    // timetz_send: the time in microseconds, then the zone in seconds west of UTC.
    let mut raw = 14_706_000_000i64.to_be_bytes().to_vec();
    raw.extend_from_slice(&(-7200i32).to_be_bytes());
    client
        .execute("INSERT INTO clocks VALUES ($1)", &[&RawParam(raw.clone())])
        .await?;
    let row = client
        .query_one("SELECT t, ARRAY[t] FROM clocks", &[])
        .await?;
    let types: Vec<&Type> = row.columns().iter().map(|c| c.type_()).collect();
    assert_eq!(types, [&Type::TIMETZ, &Type::TIMETZ_ARRAY]);
    assert_eq!(row.try_get::<_, RawValue>(0)?.0, raw);
    let messages = client.simple_query("SELECT t FROM clocks").await?;
    assert_eq!(rows(&messages)[0].get(0), Some("04:05:06+02"));
    // A zone beyond ±15:59:59 is refused.
    let mut bad = 0i64.to_be_bytes().to_vec();
    bad.extend_from_slice(&(16 * 3600i32).to_be_bytes());
    let error = client
        .query_one("SELECT $1::timetz", &[&RawParam(bad)])
        .await;
    let code = error.err().and_then(|e| e.code().cloned());
    assert_eq!(code.as_ref().map(|c| c.code()), Some("22P03"));
    Ok(())
}

#[tokio::test]
async fn named_protocol_statements_are_listed_in_pg_prepared_statements_until_closed() -> TestResult
{
    let client = connect(start_server()?).await?;
    let listing = "SELECT name, statement, parameter_types::text, from_sql::text, \
                   generic_plans::text FROM pg_prepared_statements ORDER BY name";
    let listed = |messages: Vec<SimpleQueryMessage>| -> Vec<Vec<String>> {
        rows(&messages)
            .iter()
            .map(|row| {
                (0..5)
                    .map(|i| row.get(i).unwrap_or("").to_string())
                    .collect()
            })
            .collect()
    };
    // tokio-postgres prepares with a named Parse message.
    let statement = client.prepare("SELECT $1::int4 + 1").await?;
    let sum: i32 = client.query_one(&statement, &[&41i32]).await?.get(0);
    assert_eq!(sum, 42);
    client.simple_query("PREPARE by_sql AS SELECT 1").await?;
    let shown = listed(client.simple_query(listing).await?);
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[0][0], "by_sql");
    assert_eq!(shown[0][3], "true");
    assert_eq!(shown[1][1], "SELECT $1::int4 + 1");
    assert_eq!(shown[1][2], "{integer}");
    assert_eq!(shown[1][3], "false");
    assert_eq!(shown[1][4], "1");
    // Dropping the statement sends Close; the statement leaves the view.
    drop(statement);
    client.simple_query("DEALLOCATE by_sql").await?;
    let shown = listed(client.simple_query(listing).await?);
    assert!(shown.is_empty(), "{shown:?}");
    Ok(())
}
