// The runner's side of the pgx checks: where to connect (libpq's PG* variables, set by
// tests/clients/run.sh) and one line per check, `ok pgx/CHECK` or `FAIL pgx/CHECK: error`.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const checkTimeout = 20 * time.Second

type check struct {
	name string
	run  func(ctx context.Context, conn *pgx.Conn) error
}

// runChecks runs each check on a connection of its own, so one failure cannot spoil the next.
func runChecks(client string, checks []check) {
	for _, c := range checks {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		err := runOne(ctx, c)
		cancel()
		if err != nil {
			fmt.Printf("FAIL %s/%s: %s\n", client, c.name, describe(err))
		} else {
			fmt.Printf("ok   %s/%s\n", client, c.name)
		}
	}
}

func runOne(ctx context.Context, c check) error {
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return c.run(ctx, conn)
}

func connString() string {
	return fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable",
		os.Getenv("PGHOST"), os.Getenv("PGPORT"), os.Getenv("PGUSER"), os.Getenv("PGDATABASE"))
}

// describe gives one line: the server's message and SQLSTATE when there is one.
func describe(err error) string {
	var pgErr *pgconn.PgError
	message := err.Error()
	if errors.As(err, &pgErr) {
		message = fmt.Sprintf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	message = strings.SplitN(message, "\n", 2)[0]
	if len(message) > 300 {
		message = message[:300]
	}
	return message
}

func expect(what string, actual, expected any) error {
	if !reflect.DeepEqual(actual, expected) {
		return fmt.Errorf("%s: expected %#v, got %#v", what, expected, actual)
	}
	return nil
}

func freshTable(ctx context.Context, conn *pgx.Conn, name, columns string) error {
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", name, columns))
	return err
}
