// SQL scan throughput: four queries through floe's SQL Session over one generated table
// (10M rows by default) written once per process, through SQL, into a temporary directory.
//
//   id BIGINT, region STRING (10 values), amount DECIMAL(12,2), ts TIMESTAMP (30 days),
//   status STRING (3 values, 5% 'cancelled')
//
// Counters per query: rows_per_s (table rows / wall second), rows_per_s_per_core (that divided
// by Arrow's CPU thread pool size), rows_per_cpu_s (table rows / process CPU second, all
// threads together), cores_used (process CPU time / wall time) and wall_ms (per run).
//
// FLOE_BENCH_ROWS (default 10000000) and FLOE_BENCH_CHUNK (rows per INSERT, default 2000000)
// change the table's size; FLOE_BENCH_KEEP=1 keeps the temporary directory (catalog and
// warehouse) after the run. The table generation time goes to stderr and into the context.

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <arrow/api.h>
#include <arrow/util/thread_pool.h>
#include <benchmark/benchmark.h>

#include "floe/sql/session.h"

namespace {

struct Fixture {
  std::filesystem::path dir;
  std::unique_ptr<floe::sql::Session> session;
  int64_t rows = 0;

  ~Fixture() {
    session.reset();
    std::error_code ec;
    const char* keep = std::getenv("FLOE_BENCH_KEEP");
    if (keep != nullptr && *keep != '\0' && *keep != '0') return;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

Fixture* g_fixture = nullptr;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 10);
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

floe::Status Run(floe::sql::Session& session, const std::string& sql) {
  return session.Execute(sql).status();
}

// Creates the table through SQL and fills it in chunks of `chunk` rows.
floe::Status Generate(Fixture& f, int64_t rows, int64_t chunk) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "floe-sql-bench-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return floe::Status::IOError("mkdtemp failed for ", tmpl);
  f.dir = tmpl;
  floe::sql::SessionOptions options;
  options.catalog_uri = (f.dir / "catalog.db").string();
  options.warehouse = (f.dir / "wh").string();
  options.catalog_name = "lakehouse";
  ARROW_ASSIGN_OR_RAISE(f.session, floe::sql::Session::Make(options));
  auto& s = *f.session;
  ARROW_RETURN_NOT_OK(Run(s, "CREATE NAMESPACE db"));
  ARROW_RETURN_NOT_OK(Run(s,
                          "CREATE TABLE db.t (id BIGINT, region STRING, amount DECIMAL(12,2), ts TIMESTAMP, "
                          "status STRING) USING iceberg"));
  for (int64_t start = 0; start < rows; start += chunk) {
    const int64_t end = std::min(rows, start + chunk);
    const double t0 = WallSeconds();
    // amount: a permutation-like spread over 0.00 .. 9999.99; ts: 2024-01-01 + up to 30 days.
    ARROW_RETURN_NOT_OK(Run(
        s, "INSERT INTO db.t SELECT id, concat('region-', CAST(id % 10 AS STRING)), "
           "CAST((id * 7919 % 1000000) / 100.0 AS DECIMAL(12,2)), "
           "CAST(timestamp_seconds(1704067200 + (id * 37 % 2592000)) AS TIMESTAMP), "
           "CASE WHEN id % 20 = 0 THEN 'cancelled' WHEN id % 3 = 0 THEN 'shipped' ELSE 'pending' END "
           "FROM range(" + std::to_string(start) + ", " + std::to_string(end) + ")"));
    std::fprintf(stderr, "  inserted rows [%lld, %lld) in %.0f ms\n", static_cast<long long>(start),
                 static_cast<long long>(end), (WallSeconds() - t0) * 1e3);
  }
  f.rows = rows;
  return floe::Status::OK();
}

// Runs `sql` once per iteration and checks the answer with `check` (empty = fine).
template <typename Check>
void RunQuery(benchmark::State& state, const std::string& sql, Check check) {
  if (g_fixture == nullptr) {
    state.SkipWithError("no table");
    return;
  }
  auto& session = *g_fixture->session;
  const double cpu0 = ProcessCpuSeconds();
  const double wall0 = WallSeconds();
  for (auto _ : state) {
    auto result = session.Execute(sql);
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return;
    }
    if (std::string problem = check(result->rows); !problem.empty()) {
      state.SkipWithError(problem.c_str());
      return;
    }
    benchmark::DoNotOptimize(result->rows);
  }
  const double wall = WallSeconds() - wall0;
  const double cpu = ProcessCpuSeconds() - cpu0;
  const double iters = static_cast<double>(state.iterations());
  const double rows = static_cast<double>(g_fixture->rows) * iters;
  const double threads = static_cast<double>(arrow::GetCpuThreadPoolCapacity());
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["rows_per_s"] = rows / wall;
  state.counters["rows_per_s_per_core"] = rows / wall / threads;
  state.counters["rows_per_cpu_s"] = cpu > 0 ? rows / cpu : 0.0;
  state.counters["cores_used"] = cpu / wall;
  state.counters["wall_ms"] = wall * 1e3 / iters;
}

int64_t FirstInt(const std::shared_ptr<arrow::Table>& t) {
  if (t == nullptr || t->num_rows() != 1 || t->num_columns() < 1) return -1;
  auto scalar = t->column(0)->GetScalar(0);
  if (!scalar.ok() || !(*scalar)->is_valid) return -1;
  auto cast = (*scalar)->CastTo(arrow::int64());
  if (!cast.ok()) return -1;
  return static_cast<const arrow::Int64Scalar&>(**cast).value;
}

std::string ExpectCount(const std::shared_ptr<arrow::Table>& t, int64_t expected) {
  const int64_t got = FirstInt(t);
  if (got == expected) return "";
  return "count was " + std::to_string(got) + ", expected " + std::to_string(expected);
}

std::string ExpectRows(const std::shared_ptr<arrow::Table>& t, int64_t expected) {
  const int64_t got = t == nullptr ? -1 : t->num_rows();
  if (got == expected) return "";
  return "got " + std::to_string(got) + " rows, expected " + std::to_string(expected);
}

void BM_FullScanCount(benchmark::State& state) {
  RunQuery(state, "SELECT count(*) FROM db.t",
           [](const std::shared_ptr<arrow::Table>& t) { return ExpectCount(t, g_fixture->rows); });
}

void BM_FilterGroupBy(benchmark::State& state) {
  RunQuery(state,
           "SELECT region, count(*), sum(amount) FROM db.t WHERE status != 'cancelled' GROUP BY region",
           [](const std::shared_ptr<arrow::Table>& t) {
             return ExpectRows(t, std::min<int64_t>(10, g_fixture->rows));
           });
}

void BM_SelectiveFilterCount(benchmark::State& state) {
  RunQuery(state, "SELECT count(*) FROM db.t WHERE id < 100000", [](const std::shared_ptr<arrow::Table>& t) {
    return ExpectCount(t, std::min<int64_t>(100000, g_fixture->rows));
  });
}

void BM_OrderByLimit(benchmark::State& state) {
  RunQuery(state, "SELECT * FROM db.t ORDER BY amount DESC LIMIT 10", [](const std::shared_ptr<arrow::Table>& t) {
    return ExpectRows(t, std::min<int64_t>(10, g_fixture->rows));
  });
}

BENCHMARK(BM_FullScanCount)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FilterGroupBy)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SelectiveFilterCount)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OrderByLimit)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  bool list_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--benchmark_list_tests", 0) == 0) list_only = true;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  Fixture fixture;
  if (!list_only) {
    const int64_t rows = EnvInt("FLOE_BENCH_ROWS", 10'000'000);
    const int64_t chunk = std::max<int64_t>(1, EnvInt("FLOE_BENCH_CHUNK", 2'000'000));
    std::fprintf(stderr, "generating %lld rows through SQL (INSERT chunks of %lld rows)\n",
                 static_cast<long long>(rows), static_cast<long long>(chunk));
    const double t0 = WallSeconds();
    const double cpu0 = ProcessCpuSeconds();
    if (auto st = Generate(fixture, rows, chunk); !st.ok()) {
      std::fprintf(stderr, "table generation failed: %s\n", st.ToString().c_str());
      return 1;
    }
    const double gen_ms = (WallSeconds() - t0) * 1e3;
    const double gen_cpu_ms = (ProcessCpuSeconds() - cpu0) * 1e3;
    int64_t files = 0, bytes = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(fixture.dir / "wh", ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".parquet") {
        ++files;
        bytes += static_cast<int64_t>(it->file_size());
      }
    }
    std::fprintf(stderr,
                 "table generation: %.0f ms wall, %.0f ms CPU; %lld Parquet files, %.1f MiB; "
                 "Arrow CPU threads %d; warehouse %s\n",
                 gen_ms, gen_cpu_ms, static_cast<long long>(files), static_cast<double>(bytes) / (1 << 20),
                 arrow::GetCpuThreadPoolCapacity(), (fixture.dir / "wh").c_str());
    benchmark::AddCustomContext("table_rows", std::to_string(rows));
    benchmark::AddCustomContext("table_generation_ms", std::to_string(static_cast<int64_t>(gen_ms)));
    benchmark::AddCustomContext("parquet_files", std::to_string(files));
    benchmark::AddCustomContext("parquet_bytes", std::to_string(bytes));
    benchmark::AddCustomContext("arrow_cpu_threads", std::to_string(arrow::GetCpuThreadPoolCapacity()));
    g_fixture = &fixture;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_fixture = nullptr;
  return 0;
}
