// Command driver is Tier 4 of bench/ (the driver matrix): one pgx v5 client that runs one
// workload in one mode against whatever server -dsn names, and prints one JSON line.
//
//	driver -dsn URL -mode setup                      creates and fills the tables
//	driver -dsn URL -mode verify -workload W         a digest of W's rows for fixed parameters
//	driver -dsn URL -mode single|pipeline|pool10 -workload W -duration 2s
//
// single: one connection, one query at a time (also gives per-query p50/p99 latency);
// pipeline: one connection, batches of -batch queries sent before any answer is read;
// pool10: ten connections, each running queries one at a time.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

type result struct {
	Queries int     `json:"queries,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	QPS     float64 `json:"qps,omitempty"`
	P50Ms   float64 `json:"p50_ms,omitempty"`
	P99Ms   float64 `json:"p99_ms,omitempty"`
	Digest  string  `json:"digest,omitempty"`
	Error   string  `json:"error,omitempty"`
}

const poolSize = 10

func main() {
	dsn := flag.String("dsn", "", "connection string")
	mode := flag.String("mode", "single", "setup, verify, single, pipeline or pool10")
	name := flag.String("workload", "point", "point, wide_rows, large_rows, many_params or aggregate")
	duration := flag.Duration("duration", 2*time.Second, "how long to run queries")
	batch := flag.Int("batch", 100, "pipeline mode: queries per batch")
	scale := flag.Float64("scale", 1, "table sizes relative to bench/README.md's")
	flag.Parse()
	out, err := run(context.Background(), *dsn, *mode, *name, *duration, *batch, *scale)
	if err != nil {
		out = result{Error: err.Error()}
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	if err != nil {
		os.Exit(1)
	}
}

func run(ctx context.Context, dsn, mode, name string, duration time.Duration, batch int, scale float64) (result, error) {
	if mode == "setup" {
		return result{}, setup(ctx, dsn, scale)
	}
	w, ok := workloads(scale)[name]
	if !ok {
		return result{}, fmt.Errorf("unknown workload %q", name)
	}
	switch mode {
	case "verify":
		return verify(ctx, dsn, w)
	case "single":
		return timed(ctx, dsn, w, 1, duration, runOneByOne)
	case "pipeline":
		return timed(ctx, dsn, w, 1, duration, func(ctx context.Context, conn *pgx.Conn, w workload,
			r *rand.Rand, deadline time.Time) (int, []time.Duration, error) {
			return runPipelined(ctx, conn, w, r, deadline, batch)
		})
	case "pool10":
		return timed(ctx, dsn, w, poolSize, duration, runOneByOne)
	}
	return result{}, fmt.Errorf("unknown mode %q", mode)
}

func setup(ctx context.Context, dsn string, scale float64) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, statement := range setupStatements(scale) {
		if _, err := conn.Exec(ctx, statement); err != nil {
			return fmt.Errorf("%s: %w", statement, err)
		}
	}
	return nil
}

// consume reads every row of a result, decoded into Go values as an application would.
func consume(rows pgx.Rows, each func([]any)) error {
	defer rows.Close()
	for rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return err
		}
		if each != nil {
			each(values)
		}
	}
	return rows.Err()
}

// verify hashes the rows of ten executions with parameters from a fixed seed.
func verify(ctx context.Context, dsn string, w workload) (result, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return result{}, err
	}
	defer conn.Close(ctx)
	r := rand.New(rand.NewPCG(1, 1))
	hash := sha256.New()
	for range 10 {
		rows, _ := conn.Query(ctx, w.sql, w.args(r)...)
		if err := consume(rows, func(values []any) { fmt.Fprintf(hash, "%v\n", values) }); err != nil {
			return result{}, err
		}
	}
	return result{Digest: hex.EncodeToString(hash.Sum(nil))}, nil
}

// A loop that runs queries on one connection until the deadline: how many, and the
// latency of each when it is measured one by one.
type loop func(ctx context.Context, conn *pgx.Conn, w workload, r *rand.Rand,
	deadline time.Time) (int, []time.Duration, error)

func runOneByOne(ctx context.Context, conn *pgx.Conn, w workload, r *rand.Rand,
	deadline time.Time) (int, []time.Duration, error) {
	var latencies []time.Duration
	for time.Now().Before(deadline) {
		start := time.Now()
		rows, _ := conn.Query(ctx, w.sql, w.args(r)...)
		if err := consume(rows, nil); err != nil {
			return 0, nil, err
		}
		latencies = append(latencies, time.Since(start))
	}
	return len(latencies), latencies, nil
}

func runPipelined(ctx context.Context, conn *pgx.Conn, w workload, r *rand.Rand,
	deadline time.Time, size int) (int, []time.Duration, error) {
	queries := 0
	for time.Now().Before(deadline) {
		batch := &pgx.Batch{}
		for range size {
			batch.Queue(w.sql, w.args(r)...)
		}
		results := conn.SendBatch(ctx, batch)
		for range size {
			rows, _ := results.Query()
			if err := consume(rows, nil); err != nil {
				results.Close()
				return 0, nil, err
			}
		}
		if err := results.Close(); err != nil {
			return 0, nil, err
		}
		queries += size
	}
	return queries, nil, nil
}

// timed connects `connections` clients, warms each up (its statement prepared, a few
// queries run), then runs `body` on all of them at once for `duration`.
func timed(ctx context.Context, dsn string, w workload, connections int, duration time.Duration,
	body loop) (result, error) {
	conns := make([]*pgx.Conn, connections)
	for i := range conns {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return result{}, err
		}
		defer conn.Close(ctx)
		warm := rand.New(rand.NewPCG(2, uint64(i)))
		if _, _, err := runOneByOne(ctx, conn, w, warm, time.Now().Add(50*time.Millisecond)); err != nil {
			return result{}, err
		}
		conns[i] = conn
	}
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		total     int
		latencies []time.Duration
		firstErr  error
	)
	start := time.Now()
	deadline := start.Add(duration)
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, lat, err := body(ctx, conn, w, rand.New(rand.NewPCG(3, uint64(i))), deadline)
			mu.Lock()
			defer mu.Unlock()
			total += n
			latencies = append(latencies, lat...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	if firstErr != nil {
		return result{}, firstErr
	}
	out := result{Queries: total, Seconds: elapsed, QPS: float64(total) / elapsed}
	if len(latencies) > 0 && connections == 1 {
		slices.Sort(latencies)
		out.P50Ms = percentile(latencies, 0.50)
		out.P99Ms = percentile(latencies, 0.99)
	}
	return out, nil
}

func percentile(sorted []time.Duration, q float64) float64 {
	idx := min(len(sorted)-1, int(q*float64(len(sorted))))
	return float64(sorted[idx]) / float64(time.Millisecond)
}
