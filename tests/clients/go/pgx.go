// pgx v5: Query, QueryRow, Exec, Batch, CopyFrom, prepared statements, and pgtype round trips
// (numeric, timestamptz, date, arrays, text, bool), in pgx's default binary formats.
package main

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

func main() {
	runChecks("pgx", []check{
		{"query", query},
		{"query_row", queryRow},
		{"exec", exec},
		{"returning", returning},
		{"batch", batch},
		{"copy_from", copyFrom},
		{"prepared", prepared},
		{"types_round_trip", typesRoundTrip},
		{"transaction", transaction},
	})
}

func query(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, "SELECT x, 'v' || x FROM generate_series(1, $1::int) AS x", 3)
	if err != nil {
		return err
	}
	type pair struct {
		N int32
		S string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pair])
	if err != nil {
		return err
	}
	return expect("rows", got, []pair{{1, "v1"}, {2, "v2"}, {3, "v3"}})
}

func queryRow(ctx context.Context, conn *pgx.Conn) error {
	var sum int64
	var label string
	err := conn.QueryRow(ctx, "SELECT $1::int8 + $2::int8, $3::text", 40, 2, "answer").Scan(&sum, &label)
	if err != nil {
		return err
	}
	if err := expect("sum", sum, int64(42)); err != nil {
		return err
	}
	var none *int32
	if err := conn.QueryRow(ctx, "SELECT NULL::int").Scan(&none); err != nil {
		return err
	}
	return expect("null", none, (*int32)(nil))
}

func exec(ctx context.Context, conn *pgx.Conn) error {
	if err := freshTable(ctx, conn, "pgx_exec", "id int PRIMARY KEY, v text"); err != nil {
		return err
	}
	tag, err := conn.Exec(ctx, "INSERT INTO pgx_exec VALUES ($1, $2), ($3, $4)", 1, "a", 2, "b")
	if err != nil {
		return err
	}
	if err := expect("insert tag", tag.String(), "INSERT 0 2"); err != nil {
		return err
	}
	tag, err = conn.Exec(ctx, "UPDATE pgx_exec SET v = upper(v) WHERE id >= $1", 1)
	if err != nil {
		return err
	}
	return expect("update tag", tag.RowsAffected(), int64(2))
}

func returning(ctx context.Context, conn *pgx.Conn) error {
	if err := freshTable(ctx, conn, "pgx_returning", "id serial PRIMARY KEY, v text"); err != nil {
		return err
	}
	var id int32
	var v string
	err := conn.QueryRow(ctx, "INSERT INTO pgx_returning (v) VALUES ($1) RETURNING id, v", "a").Scan(&id, &v)
	if err != nil {
		return err
	}
	return expect("returned", []any{id, v}, []any{int32(1), "a"})
}

func batch(ctx context.Context, conn *pgx.Conn) error {
	if err := freshTable(ctx, conn, "pgx_batch", "id int, v text"); err != nil {
		return err
	}
	b := &pgx.Batch{}
	for i := 0; i < 10; i++ {
		b.Queue("INSERT INTO pgx_batch VALUES ($1, $2)", i, "row")
	}
	b.Queue("SELECT count(*), sum(id) FROM pgx_batch")
	results := conn.SendBatch(ctx, b)
	for i := 0; i < 10; i++ {
		if _, err := results.Exec(); err != nil {
			return err
		}
	}
	var count, sum int64
	if err := results.QueryRow().Scan(&count, &sum); err != nil {
		return err
	}
	if err := results.Close(); err != nil {
		return err
	}
	return expect("count, sum", []int64{count, sum}, []int64{10, 45})
}

func copyFrom(ctx context.Context, conn *pgx.Conn) error {
	if err := freshTable(ctx, conn, "pgx_copy", "id int, v text, d date, n numeric"); err != nil {
		return err
	}
	rows := [][]any{
		{int32(1), "one", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "1.5"},
		{int32(2), nil, nil, nil},
	}
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"pgx_copy"}, []string{"id", "v", "d", "n"},
		pgx.CopyFromRows(rows))
	if err != nil {
		return err
	}
	if err := expect("copied", copied, int64(2)); err != nil {
		return err
	}
	var text string
	err = conn.QueryRow(ctx,
		"SELECT string_agg(concat_ws('|', id, v, d, n), ';' ORDER BY id) FROM pgx_copy").Scan(&text)
	if err != nil {
		return err
	}
	return expect("table", text, "1|one|2024-02-29|1.5;2")
}

func prepared(ctx context.Context, conn *pgx.Conn) error {
	sd, err := conn.Prepare(ctx, "double", "SELECT $1::int4 * 2 AS doubled")
	if err != nil {
		return err
	}
	if err := expect("parameter OIDs", sd.ParamOIDs, []uint32{pgtype.Int4OID}); err != nil {
		return err
	}
	if err := expect("column", sd.Fields[0].Name, "doubled"); err != nil {
		return err
	}
	for _, n := range []int32{3, 21} {
		var doubled int32
		if err := conn.QueryRow(ctx, "double", n).Scan(&doubled); err != nil {
			return err
		}
		if err := expect("doubled", doubled, 2*n); err != nil {
			return err
		}
	}
	return conn.Deallocate(ctx, "double")
}

func typesRoundTrip(ctx context.Context, conn *pgx.Conn) error {
	numeric := pgtype.Numeric{Int: big.NewInt(-1234567), Exp: -3, Valid: true}
	moment := time.Date(2024, 3, 10, 8, 30, 15, 250000000, time.UTC)
	date := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	var (
		gotNumeric pgtype.Numeric
		gotMoment  time.Time
		gotDate    time.Time
		gotInts    []int32
		gotTexts   []string
		gotText    string
		gotBool    bool
	)
	err := conn.QueryRow(ctx,
		"SELECT $1::numeric, $2::timestamptz, $3::date, $4::int4[], $5::text[], $6::text, $7::bool",
		numeric, moment, date, []int32{1, 2, 3}, []string{"a", "b c"}, "héllo", true,
	).Scan(&gotNumeric, &gotMoment, &gotDate, &gotInts, &gotTexts, &gotText, &gotBool)
	if err != nil {
		return err
	}
	value, err := gotNumeric.Value()
	if err != nil {
		return err
	}
	return errors.Join(
		expect("numeric", value, "-1234.567"),
		expect("timestamptz", gotMoment.UTC(), moment),
		expect("date", gotDate, date),
		expect("int4[]", gotInts, []int32{1, 2, 3}),
		expect("text[]", gotTexts, []string{"a", "b c"}),
		expect("text", gotText, "héllo"),
		expect("bool", gotBool, true),
	)
}

func transaction(ctx context.Context, conn *pgx.Conn) error {
	if err := freshTable(ctx, conn, "pgx_txn", "id int"); err != nil {
		return err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO pgx_txn VALUES (1)"); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	tx, err = conn.Begin(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO pgx_txn VALUES (2)"); err != nil {
		return err
	}
	if err := tx.Rollback(ctx); err != nil {
		return err
	}
	var count int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgx_txn").Scan(&count); err != nil {
		return err
	}
	return expect("rows", count, int64(1))
}
