package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The tables every workload reads, at `scale` (1.0 = the sizes in bench/README.md). The data
// is a fixed function of the row number, so both servers hold the same rows.
func setupStatements(scale float64) []string {
	users := scaled(10_000, scale)
	wide := scaled(10_000, scale)
	large := scaled(1_000, scale)
	orders := scaled(100_000, scale)
	wideColumns := make([]string, 0, 20)
	wideValues := make([]string, 0, 20)
	for i := 1; i <= 5; i++ {
		wideColumns = append(wideColumns,
			fmt.Sprintf("i%d int", i), fmt.Sprintf("b%d bigint", i),
			fmt.Sprintf("f%d float8", i), fmt.Sprintf("t%d text", i))
		wideValues = append(wideValues,
			fmt.Sprintf("g * %d %% 100000", i), fmt.Sprintf("g::bigint * %d000003", i),
			fmt.Sprintf("g / %d.0", i+1), fmt.Sprintf("'text ' || (g * %d)", i))
	}
	return []string{
		"DROP TABLE IF EXISTS bench_users",
		"DROP TABLE IF EXISTS bench_wide",
		"DROP TABLE IF EXISTS bench_large",
		"DROP TABLE IF EXISTS bench_orders",
		"CREATE TABLE bench_users (id int PRIMARY KEY, name text, email text, score int, active boolean)",
		fmt.Sprintf("INSERT INTO bench_users SELECT g, 'user ' || g, 'user' || g || '@example.com', "+
			"g * 7919 %% 1000, g %% 3 = 0 FROM generate_series(1, %d) g", users),
		"CREATE TABLE bench_wide (id int PRIMARY KEY, " + strings.Join(wideColumns, ", ") + ")",
		fmt.Sprintf("INSERT INTO bench_wide SELECT g, %s FROM generate_series(1, %d) g",
			strings.Join(wideValues, ", "), wide),
		"CREATE TABLE bench_large (id int PRIMARY KEY, payload text)",
		fmt.Sprintf("INSERT INTO bench_large SELECT g, repeat('kestrel ' || g || ' ', 400) "+
			"FROM generate_series(1, %d) g", large),
		"CREATE TABLE bench_orders (id int PRIMARY KEY, category int, amount int)",
		fmt.Sprintf("INSERT INTO bench_orders SELECT g, g * 31 %% 16, g * 7919 %% 1000 "+
			"FROM generate_series(1, %d) g", orders),
	}
}

func scaled(rows int, scale float64) int {
	return max(100, int(float64(rows)*scale))
}

// A workload: one statement and how each execution draws its parameters.
type workload struct {
	sql  string
	args func(r *rand.Rand) []any
}

const manyParams = 20

func workloads(scale float64) map[string]workload {
	users := scaled(10_000, scale)
	wide := scaled(10_000, scale)
	large := scaled(1_000, scale)
	placeholders := make([]string, manyParams)
	for i := range placeholders {
		placeholders[i] = fmt.Sprintf("$%d", i+1)
	}
	return map[string]workload{
		// One row by primary key.
		"point": {
			sql:  "SELECT id, name, email, score, active FROM bench_users WHERE id = $1",
			args: func(r *rand.Rand) []any { return []any{int32(1 + r.IntN(users))} },
		},
		// 100 rows of 21 columns (ints, bigints, floats, texts) by a key range.
		"wide_rows": {
			sql: "SELECT * FROM bench_wide WHERE id >= $1 AND id < $2",
			args: func(r *rand.Rand) []any {
				first := 1 + r.IntN(wide-99)
				return []any{int32(first), int32(first + 100)}
			},
		},
		// 100 rows of about 5 KB each: half a megabyte per query.
		"large_rows": {
			sql: "SELECT id, payload FROM bench_large WHERE id >= $1 AND id < $2",
			args: func(r *rand.Rand) []any {
				first := 1 + r.IntN(large-99)
				return []any{int32(first), int32(first + 100)}
			},
		},
		// 20 parameters, 20 rows back.
		"many_params": {
			sql: "SELECT id, score FROM bench_users WHERE id IN (" + strings.Join(placeholders, ", ") + ") ORDER BY id",
			args: func(r *rand.Rand) []any {
				args := make([]any, manyParams)
				for i := range args {
					args[i] = int32(1 + r.IntN(users))
				}
				return args
			},
		},
		// GROUP BY over the whole orders table, 16 groups of four columns.
		"aggregate": {
			sql: "SELECT category, count(*), sum(amount), avg(amount::float8) FROM bench_orders " +
				"WHERE amount >= $1 GROUP BY category ORDER BY category",
			args: func(r *rand.Rand) []any { return []any{int32(r.IntN(10))} },
		},
	}
}
