"""Nearest-neighbour search on random vectors: KestrelDB over the wire against hnswlib and
faiss-cpu in the same run, with the same data, queries, M and ef values.

For each system: build time, then per ef_search value recall@10 (against numpy's exact
answers) and queries per second, one query at a time. KestrelDB answers
`SELECT id FROM ann ORDER BY embedding <-> $1 LIMIT 10` as a prepared statement through its
hnsw index, then again after DROP INDEX as an exact scan (recall 1.0), the baseline the index
is measured against.

    bench/.venv-ann/bin/python bench/vector_ann.py --port 5433 [--rows 100000] [--dims 128]

Install: python3 -m venv bench/.venv-ann && bench/.venv-ann/bin/pip install -r
bench/vector_requirements.txt. Start the server yourself (target/release/kestrel serve
--memory --port N); the script creates and drops its table `ann`."""

import argparse
import time

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

K = 10


def exact_neighbours(data, queries):
    """The ids of each query's K nearest rows by L2, from numpy in blocks."""
    norms = (data.astype(np.float64) ** 2).sum(axis=1)
    out = []
    for q in queries.astype(np.float64):
        distances = norms - 2 * data.astype(np.float64) @ q
        out.append(np.argsort(distances, kind="stable")[:K])
    return np.array(out)


def recall(found, truth):
    hits = sum(len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth))
    return hits / (len(truth) * K)


def time_queries(search, queries):
    """(answers, queries per second) of one query at a time."""
    started = time.perf_counter()
    answers = [search(q) for q in queries]
    return np.array(answers), len(queries) / (time.perf_counter() - started)


def bench_hnswlib(data, queries, truth, args):
    import hnswlib

    index = hnswlib.Index(space="l2", dim=data.shape[1])
    started = time.perf_counter()
    index.init_index(max_elements=len(data), M=args.m, ef_construction=args.ef_construction)
    index.add_items(data, np.arange(len(data)))
    build_s = time.perf_counter() - started
    rows = []
    for ef in args.ef:
        index.set_ef(ef)
        found, qps = time_queries(lambda q: index.knn_query(q, k=K)[0][0], queries)
        rows.append(("hnswlib", ef, recall(found, truth), qps, build_s))
    return rows


def bench_faiss(data, queries, truth, args):
    import faiss

    faiss.omp_set_num_threads(1)
    index = faiss.IndexHNSWFlat(data.shape[1], args.m)
    index.hnsw.efConstruction = args.ef_construction
    started = time.perf_counter()
    index.add(data)
    build_s = time.perf_counter() - started
    rows = []
    for ef in args.ef:
        index.hnsw.efSearch = ef
        found, qps = time_queries(lambda q: index.search(q.reshape(1, -1), K)[1][0], queries)
        rows.append(("faiss-cpu", ef, recall(found, truth), qps, build_s))
    return rows


def bench_kestrel(data, queries, truth, args):
    conn = psycopg.connect(host=args.host, port=args.port, user="kestrel", dbname="kestrel",
                           autocommit=True)
    register_vector(conn)
    conn.execute("DROP TABLE IF EXISTS ann")
    conn.execute(f"CREATE TABLE ann (id int, embedding vector({data.shape[1]}))")
    started = time.perf_counter()
    with conn.cursor().copy("COPY ann (id, embedding) FROM STDIN WITH (FORMAT binary)") as copy:
        copy.set_types(["int4", "vector"])
        for i, v in enumerate(data):
            copy.write_row((i, v))
    load_s = time.perf_counter() - started
    index_note = "exact scan"
    try:
        started = time.perf_counter()
        conn.execute(
            "CREATE INDEX ON ann USING hnsw (embedding vector_l2_ops) "
            f"WITH (m = {args.m}, ef_construction = {args.ef_construction})"
        )
        build_s = time.perf_counter() - started
        index_note = "hnsw"
    except psycopg.Error as error:
        build_s = 0.0
        index_note = f"exact scan, no index: SQLSTATE {error.sqlstate}"
    conn.execute("SET kestrel.result_cache = off")
    cur = conn.cursor()
    search = lambda q: [r[0] for r in cur.execute(
        "SELECT id FROM ann ORDER BY embedding <-> %s LIMIT 10", (q,), prepare=True
    ).fetchall()]
    rows = []
    if index_note == "hnsw":
        for ef in args.ef:
            conn.execute(f"SET hnsw.ef_search = {ef}")
            found, qps = time_queries(search, queries)
            rows.append(("KestrelDB (hnsw)", ef, recall(found, truth), qps, build_s))
        # The same queries without the index: the exact scan the index is measured against.
        conn.execute("DROP INDEX ann_embedding_idx")
    found, qps = time_queries(search, queries[: args.exact_queries])
    exact_note = "exact scan" if index_note == "hnsw" else index_note
    rows.append((f"KestrelDB ({exact_note})", "-", recall(found, truth[: args.exact_queries]),
                 qps, 0.0))
    conn.execute("DROP TABLE ann")
    conn.close()
    return rows, load_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=128)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=64)
    parser.add_argument("--ef", type=int, nargs="+", default=[10, 20, 40, 80, 160])
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--exact-queries", type=int, default=50,
                        help="queries timed for KestrelDB's exact scan (without the index)")
    parser.add_argument("--only-kestrel", action="store_true",
                        help="skip hnswlib and faiss-cpu")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    data = rng.random((args.rows, args.dims), dtype=np.float32)
    queries = rng.random((args.queries, args.dims), dtype=np.float32)
    truth = exact_neighbours(data, queries)
    rows = []
    if not args.only_kestrel:
        rows += bench_hnswlib(data, queries, truth, args) + bench_faiss(data, queries, truth, args)
    kestrel_rows, load_s = bench_kestrel(data, queries, truth, args)
    rows += kestrel_rows
    print(f"{args.rows} random {args.dims}-d vectors, {args.queries} queries one at a time, "
          f"M={args.m}, ef_construction={args.ef_construction}; KestrelDB COPY load {load_s:.1f} s")
    print("| system | ef_search | recall@10 | QPS | build s |")
    print("|---|---:|---:|---:|---:|")
    for system, ef, r, qps, build_s in rows:
        print(f"| {system} | {ef} | {r:.3f} | {qps:.0f} | {build_s:.1f} |")


if __name__ == "__main__":
    main()
