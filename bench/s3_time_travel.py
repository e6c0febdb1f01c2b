#!/usr/bin/env python3
"""Time travel from S3 against local files, through `floe sql`, same data, same run.

    .venv/bin/python bench/s3_time_travel.py build/floe [--rows 10000000] [--runs 5]

Writes the same table (ROWS rows of (id BIGINT, v DOUBLE, s STRING) from range(), with
scrambled values, then a small second insert) into a local warehouse and into an s3:// warehouse on a moto server on
loopback (tests/support/s3_server.py), then times, alternating between the two,
    SELECT count(*), sum(v), max(s) FROM db.t VERSION AS OF <first snapshot>
as whole `floe sql` processes (start-up, catalog, metadata, manifests, Parquet reads). Prints
each run and the median and best of each side; both must answer the same row.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
import s3_server  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("floe", help="the floe binary (build/floe)")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    floe = os.path.realpath(args.floe)

    with tempfile.TemporaryDirectory(prefix="floe-s3-bench-") as tmp, \
            s3_server.S3Server(os.path.join(tmp, "s3")) as server:
        server.create_bucket("bench")
        env = dict(os.environ)
        env.update({"AWS_ACCESS_KEY_ID": s3_server.ACCESS_KEY,
                    "AWS_SECRET_ACCESS_KEY": s3_server.SECRET_KEY,
                    "AWS_REGION": s3_server.REGION, "AWS_ENDPOINT_URL_S3": server.endpoint})
        sides = {
            "local": ["--catalog", os.path.join(tmp, "local.db"),
                      "--warehouse", os.path.join(tmp, "local-wh")],
            "s3": ["--catalog", os.path.join(tmp, "s3.db"), "--warehouse", "s3://bench/wh"],
        }

        def sql(side, *statements):
            cmd = [floe, "sql", "--format", "csv", *sides[side]]
            for s in statements:
                cmd += ["-c", s]
            start = time.perf_counter()
            r = subprocess.run(cmd, env=env, text=True, capture_output=True)
            seconds = time.perf_counter() - start
            if r.returncode != 0:
                raise SystemExit(f"{side}: {statements}: {r.stderr}")
            return r.stdout.strip().splitlines()[1:], seconds

        snapshot = {}
        for side in sides:
            _, seconds = sql(side, "CREATE NAMESPACE db",
                             "CREATE TABLE db.t (id BIGINT, v DOUBLE, s STRING) USING iceberg",
                             # Scrambled values, so the Parquet files are not trivially small.
                             f"INSERT INTO db.t SELECT id, ((id * 40503) % 65536) * 0.25, "
                             f"CAST((id * 2654435761) % 4294967291 AS STRING) "
                             f"FROM range({args.rows})")
            print(f"{side}: wrote {args.rows:,} rows in {seconds:.1f} s", flush=True)
            rows, _ = sql(side, "SELECT snapshot_id FROM db.t.refs WHERE name = 'main'")
            snapshot[side] = int(rows[0])
            sql(side, "INSERT INTO db.t VALUES (-1, -1.0, 'later')")
        sizes = sum(size for _, size in server.list_objects("bench"))
        print(f"s3: {sizes / 1e6:.1f} MB in the bucket", flush=True)

        times = {side: [] for side in sides}
        answers = {}
        for run in range(args.runs):
            for side in sides:
                rows, seconds = sql(side, f"SELECT count(*), sum(v), max(s) FROM db.t "
                                          f"VERSION AS OF {snapshot[side]}")
                answers.setdefault(side, rows)
                if rows != answers[side]:
                    raise SystemExit(f"{side}: run {run} answered {rows}, before {answers[side]}")
                times[side].append(seconds)
                print(f"run {run + 1} {side:5}: {seconds:.3f} s  {rows[0]}", flush=True)
        if answers["local"] != answers["s3"]:
            raise SystemExit(f"the answers differ: {answers}")
        print()
        print(f"{'':6} {'median':>8} {'best':>8}   ({args.runs} runs, {args.rows:,} rows, "
              f"answer {answers['s3'][0]})")
        for side in sides:
            print(f"{side:6} {statistics.median(times[side]):7.3f}s {min(times[side]):7.3f}s")
        ratio = statistics.median(times["s3"]) / statistics.median(times["local"])
        print(f"s3/local median: {ratio:.2f}x")


if __name__ == "__main__":
    main()
