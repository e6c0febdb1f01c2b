"""The REST catalog under load: `floe serve --rest` beside Iceberg's reference RESTCatalogServer
(iceberg-open-api 1.10.0, fetched by scripts/setup-rest-kit.sh), each over its own SQLite catalog
file and warehouse, on this machine in one run. For 1, 4 and 16 clients (processes, each with
its own persistent connection):

- loadTable: GET of a table with 20 snapshots, for --seconds; p50 and p99 latency, loads/s;
- commits: each client commits `set-properties` to a table of its own (a new metadata file and a
  catalog swap per commit, as any commit), for --seconds; commits/s, p50 and p99 latency, and
  the requests that did not answer 200.

Usage: .venv/bin/python bench/rest_catalog_bench.py build/floe [--seconds 10] [--clients 1,4,16]
Prints a Markdown table and writes the figures to build/bench-results/rest_catalog.json."""

import argparse
import http.client
import json
import multiprocessing
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from reference_rest_server import REFERENCE_JAR, ReferenceRestServer  # noqa: E402

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"}]}


def start_floe(binary, directory):
    proc = subprocess.Popen(
        [binary, "serve", "--catalog", f"{directory}/catalog.db", "--warehouse",
         f"{directory}/warehouse", "--rest", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    m = re.search(r"http://127\.0\.0\.1:(\d+) ", proc.stdout.readline())
    assert m, "floe serve did not start"
    return proc, int(m.group(1))


def call(conn, method, path, body=None):
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    return r.status, data


def prepare(port, tables):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    assert call(c, "POST", "/v1/namespaces", {"namespace": ["bench"]})[0] == 200
    for i in range(tables):
        status, data = call(c, "POST", "/v1/namespaces/bench/tables",
                            {"name": f"t{i}", "schema": SCHEMA})
        assert status == 200, data
    # The loaded table carries some history: 20 property commits.
    for k in range(20):
        assert call(c, "POST", "/v1/namespaces/bench/tables/t0",
                    {"requirements": [], "updates": [
                        {"action": "set-properties", "updates": {"k": str(k)}}]})[0] == 200


def client(args):
    port, kind, index, seconds, start_at = args
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while time.time() < start_at:
        time.sleep(0.001)
    took, failed, n = [], 0, 0
    end = start_at + seconds
    while time.time() < end:
        t0 = time.perf_counter()
        if kind == "load":
            status, _ = call(c, "GET", "/v1/namespaces/bench/tables/t0")
        else:
            status, _ = call(c, "POST", f"/v1/namespaces/bench/tables/t{index}",
                             {"requirements": [], "updates": [
                                 {"action": "set-properties", "updates": {"n": str(n)}}]})
        took.append((time.perf_counter() - t0) * 1000)
        n += 1
        if status != 200:
            failed += 1
    return took, failed


def measure(port, kind, clients, seconds):
    start_at = time.time() + 0.5
    with multiprocessing.Pool(clients) as pool:
        results = pool.map(client, [(port, kind, i, seconds, start_at) for i in range(clients)])
    took = sorted(t for r in results for t in r[0])
    failed = sum(r[1] for r in results)
    ok = len(took) - failed
    return {"per_second": round(ok / seconds, 1), "p50_ms": round(statistics.median(took), 2),
            "p99_ms": round(took[int(len(took) * 0.99) - 1], 2), "requests": len(took),
            "failed": failed}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("floe")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", default="1,4,16")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    if not REFERENCE_JAR.exists():
        raise SystemExit("run scripts/setup-rest-kit.sh first: it fetches the reference server")
    results = {}
    for name in ["floe", "reference"]:
        with tempfile.TemporaryDirectory(prefix=f"rest-bench-{name}-") as d:
            if name == "floe":
                proc, port = start_floe(args.floe, d)
            else:
                reference = ReferenceRestServer(Path(d)).start()
                port = reference.port
            try:
                prepare(port, max(clients))
                for n in clients:
                    results[(name, "load", n)] = measure(port, "load", n, args.seconds)
                    results[(name, "commit", n)] = measure(port, "commit", n, args.seconds)
            finally:
                if name == "floe":
                    proc.terminate()
                    proc.wait(timeout=60)
                else:
                    reference.stop()
    print("| clients | floe loads/s | reference loads/s | floe load p50 / p99 ms | "
          "reference load p50 / p99 ms | floe commits/s | reference commits/s | "
          "floe commit p50 / p99 ms | reference commit p50 / p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in clients:
        fl, rl = results[("floe", "load", n)], results[("reference", "load", n)]
        fc, rc = results[("floe", "commit", n)], results[("reference", "commit", n)]
        print(f"| {n} | {fl['per_second']} | {rl['per_second']} | {fl['p50_ms']} / {fl['p99_ms']} "
              f"| {rl['p50_ms']} / {rl['p99_ms']} | {fc['per_second']} | {rc['per_second']} "
              f"| {fc['p50_ms']} / {fc['p99_ms']} | {rc['p50_ms']} / {rc['p99_ms']} |")
    failed = {f"{k[0]} {k[1]} {k[2]}": v["failed"] for k, v in results.items() if v["failed"]}
    if failed:
        print("requests that did not answer 200:", failed)
    out = ROOT / "build" / "bench-results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "rest_catalog.json").write_text(json.dumps(
        {f"{k[0]} {k[1]} {k[2]}": v for k, v in results.items()}, indent=2))


if __name__ == "__main__":
    main()
