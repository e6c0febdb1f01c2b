// COMMIT of a transaction over many tables, through floe's SQL Session: BEGIN, one INSERT of
// one row into each of N tables (off the clock: the writes stage their data and manifest
// files), then COMMIT on the clock: every table read again, a metadata file written for each,
// every pointer swapped in one catalog transaction. Over 1, 10 and 100 tables, on SQLite and,
// when $FLOE_BENCH_POSTGRES names a server (scripts/bench.sh micro starts one), on PostgreSQL.

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "floe/sql/session.h"
#include "postgres_database.h"

namespace {

struct CommitBench {
  std::filesystem::path dir;
  std::unique_ptr<floe::sql::Session> session;

  ~CommitBench() {
    session.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

floe::Status Run(floe::sql::Session& session, const std::string& sql) {
  return session.Execute(sql).status();
}

floe::Result<std::unique_ptr<CommitBench>> MakeTables(int n, bool postgres) {
  auto b = std::make_unique<CommitBench>();
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "floe-txn-bench-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return floe::Status::IOError("mkdtemp failed for ", tmpl);
  b->dir = tmpl;
  floe::sql::SessionOptions options;
  options.catalog_uri = (b->dir / "catalog.db").string();
  if (postgres) {
    ARROW_ASSIGN_OR_RAISE(options.catalog_uri,
                          floe::testing::CreatePostgresDatabase(std::getenv("FLOE_BENCH_POSTGRES"),
                                                                "floe_transaction_bench"));
  }
  options.warehouse = (b->dir / "wh").string();
  options.catalog_name = "lakehouse";
  ARROW_ASSIGN_OR_RAISE(b->session, floe::sql::Session::Make(options));
  ARROW_RETURN_NOT_OK(Run(*b->session, "CREATE NAMESPACE db"));
  for (int i = 0; i < n; ++i) {
    const std::string t = "db.t" + std::to_string(i);
    ARROW_RETURN_NOT_OK(Run(*b->session, "CREATE TABLE " + t + " (id BIGINT, run INT) USING iceberg"));
    ARROW_RETURN_NOT_OK(Run(*b->session, "INSERT INTO " + t + " VALUES (0, 0)"));
  }
  return b;
}

void BM_TransactionCommit(benchmark::State& state, bool postgres) {
  if (postgres && !std::getenv("FLOE_BENCH_POSTGRES")) {
    state.SkipWithError("FLOE_BENCH_POSTGRES is not set (scripts/bench.sh micro sets it)");
    return;
  }
  const int n = static_cast<int>(state.range(0));
  auto made = MakeTables(n, postgres);
  if (!made.ok()) {
    state.SkipWithError(made.status().ToString().c_str());
    return;
  }
  floe::sql::Session& session = *(*made)->session;
  int run = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ++run;
    floe::Status st = Run(session, "BEGIN");
    for (int i = 0; i < n && st.ok(); ++i) {
      st = Run(session, "INSERT INTO db.t" + std::to_string(i) + " VALUES (" +
                            std::to_string(run) + ", " + std::to_string(run) + ")");
    }
    state.ResumeTiming();
    if (st.ok()) st = Run(session, "COMMIT");
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  state.counters["tables"] = n;
}

BENCHMARK_CAPTURE(BM_TransactionCommit, sqlite, false)
    ->Arg(1)->Arg(10)->Arg(100)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TransactionCommit, postgresql, true)
    ->Arg(1)->Arg(10)->Arg(100)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
