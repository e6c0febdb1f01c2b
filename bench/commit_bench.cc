// Commit throughput and latency with 1, 4 and 16 writer processes appending one row per
// commit to one table (every file fsynced, as always). Each process measures its commits;
// the parent reports throughput, p50/p99 latency and retries per commit. The runs go on a
// SQLite catalog and, when a PostgreSQL server is given, again on a fresh database of it.
//
//   commit_bench [--commits-per-run N] [--postgres postgresql://user@host:port/db]
//                [--benchmark_out=FILE ...]
// (the --benchmark_* flags scripts/bench.sh passes are honoured: results go to FILE as JSON;
// --postgres defaults to $FLOE_BENCH_POSTGRES, which scripts/bench.sh micro sets)
//
//   commit_bench appends N DIR [merge=true|false]
//   commit_bench inspect DIR     (the same report for a warehouse made by `appends`)
// One process, N single-row appends into a new warehouse under DIR (kept, so it can be read
// afterwards): reports the manifests of the current snapshot, the bytes under metadata/ and
// the time of planning a full scan.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <arrow/api.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/scan/table_scan.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/commit.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"
#include "postgres_database.h"

namespace {

using Clock = std::chrono::steady_clock;
const floe::TableIdentifier kTable{floe::Namespace({"bench"}), "commits"};

std::shared_ptr<arrow::Table> OneRow(int64_t id) {
  arrow::Int64Builder b;
  (void)b.Append(id);
  return arrow::Table::Make(arrow::schema({arrow::field("id", arrow::int64(), false)}), {b.Finish().ValueOrDie()});
}

[[noreturn]] void Die(const std::string& what, const arrow::Status& st) {
  std::fprintf(stderr, "commit_bench: %s: %s\n", what.c_str(), st.ToString().c_str());
  std::exit(1);
}

// A child: `commits` appends, then one line per commit (latency in microseconds) and a
// last line with the attempts the commit loop made.
int Worker(const std::string& catalog_path, const std::string& warehouse, int index, int commits,
           const std::string& out_path) {
  auto catalog = floe::SqlCatalog::Open(catalog_path, "lakehouse", warehouse);
  if (!catalog.ok()) Die("open catalog", catalog.status());
  auto io = floe::FileIO::MakeLocal().ValueOrDie();
  floe::table::TableCatalog tables(std::shared_ptr<floe::Catalog>(std::move(*catalog)), io);
  std::vector<int64_t> micros;
  int failed = 0;
  for (int i = 0; i < commits; ++i) {
    auto table = tables.LoadTable(kTable);
    if (!table.ok()) Die("load", table.status());
    auto start = Clock::now();
    auto r = floe::table::AppendData(**table, *OneRow(index * 1000000 + i));
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
    if (r.ok()) {
      micros.push_back(took);
    } else {
      ++failed;
    }
  }
  std::ofstream out(out_path);
  for (int64_t m : micros) out << m << "\n";
  auto counters = floe::table::GlobalCommitCounters();
  out << "attempts " << counters.attempts << " failed " << failed << "\n";
  return 0;
}

struct RunResult {
  std::string catalog;
  int writers = 0;
  int64_t commits = 0, attempts = 0, failed = 0;
  double seconds = 0, p50_ms = 0, p99_ms = 0;
};

// One run on a new catalog: a SQLite file, or a new database on the PostgreSQL server
// `postgres` when it is not empty.
RunResult Run(const std::string& self, int writers, int total_commits, const std::string& postgres) {
  char dir_template[] = "/tmp/floe-commit-bench-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  std::string catalog_path = dir + "/catalog.db";
  if (!postgres.empty()) {
    auto created = floe::testing::CreatePostgresDatabase(postgres, "floe_commit_bench");
    if (!created.ok()) Die("create a database", created.status());
    catalog_path = *created;
  }
  const std::string warehouse = dir + "/wh";
  {
    auto catalog = floe::SqlCatalog::Open(catalog_path, "lakehouse", warehouse);
    if (!catalog.ok()) Die("create catalog", catalog.status());
    std::shared_ptr<floe::Catalog> shared = std::move(*catalog);
    if (auto st = shared->CreateNamespace(kTable.ns, {}); !st.ok()) Die("namespace", st);
    floe::table::TableCatalog tables(shared, floe::FileIO::MakeLocal().ValueOrDie());
    auto schema = floe::table::SchemaFromArrow(*OneRow(0)->schema()).ValueOrDie();
    floe::table::CreateTableOptions options;
    options.properties["commit.retry.num-retries"] = "1000";
    options.properties["commit.retry.min-wait-ms"] = "1";
    options.properties["commit.retry.max-wait-ms"] = "100";
    if (auto t = tables.CreateTable(kTable, *schema, options); !t.ok()) Die("create table", t.status());
  }
  const int per_writer = std::max(1, total_commits / writers);
  auto start = Clock::now();
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      const std::string i = std::to_string(w), n = std::to_string(per_writer), out = dir + "/w" + i;
      execl(self.c_str(), self.c_str(), "worker", catalog_path.c_str(), warehouse.c_str(), i.c_str(), n.c_str(),
            out.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "commit_bench: a worker failed\n");
      std::exit(1);
    }
  }
  RunResult r;
  r.catalog = postgres.empty() ? "sqlite" : "postgresql";
  r.writers = writers;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<int64_t> micros;
  for (int w = 0; w < writers; ++w) {
    std::ifstream in(dir + "/w" + std::to_string(w));
    std::string word;
    while (in >> word) {
      if (word == "attempts") {
        int64_t a, f;
        std::string label;
        in >> a >> label >> f;
        r.attempts += a;
        r.failed += f;
      } else {
        micros.push_back(std::stoll(word));
      }
    }
  }
  std::sort(micros.begin(), micros.end());
  r.commits = static_cast<int64_t>(micros.size());
  auto pct = [&](double p) {
    if (micros.empty()) return 0.0;
    size_t i = std::min(micros.size() - 1, static_cast<size_t>(p * static_cast<double>(micros.size())));
    return static_cast<double>(micros[i]) / 1000.0;
  };
  r.p50_ms = pct(0.50);
  r.p99_ms = pct(0.99);
  std::string cleanup = "rm -rf '" + dir + "'";
  (void)std::system(cleanup.c_str());
  return r;
}

// The current snapshot's manifests, the bytes under metadata/ and the time of planning a
// full scan (first and median of 5 in this process).
void Report(floe::FileIO& io, const std::shared_ptr<floe::table::Table>& table) {
  auto md = table->metadata();
  auto manifests = floe::manifest::ReadManifestList(io, md->current_snapshot()->manifest_list).ValueOrDie();
  int64_t bytes = 0, files = 0;
  for (const auto& f : io.ListFiles(md->location + "/metadata").ValueOrDie()) {
    bytes += f.size;
    ++files;
  }
  std::vector<double> plan_ms;
  int64_t rows = 0;
  for (int run = 0; run < 5; ++run) {
    auto t0 = Clock::now();
    auto tasks = floe::scan::TableScan(table).PlanFiles().ValueOrDie();
    plan_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    rows = 0;
    for (const auto& t : tasks) rows += t.file.record_count;
  }
  const double first_ms = plan_ms.front();
  std::sort(plan_ms.begin(), plan_ms.end());
  std::printf("%zu snapshots; current snapshot: %zu manifests, %lld rows\n", md->snapshots.size(),
              manifests.size(), static_cast<long long>(rows));
  std::printf("metadata/: %lld files, %.1f MB\n", static_cast<long long>(files), static_cast<double>(bytes) / 1e6);
  std::printf("planning a full scan: first %.1f ms, median of 5 %.1f ms\n", first_ms, plan_ms[2]);
}

int Inspect(const std::string& dir) {
  auto catalog = floe::SqlCatalog::Open(dir + "/catalog.db", "lakehouse", dir + "/wh");
  if (!catalog.ok()) Die("open catalog", catalog.status());
  auto io = floe::FileIO::MakeLocal().ValueOrDie();
  floe::table::TableCatalog tables(std::shared_ptr<floe::Catalog>(std::move(*catalog)), io);
  auto table = tables.LoadTable(kTable);
  if (!table.ok()) Die("load", table.status());
  Report(*io, *table);
  return 0;
}

int Appends(int n, const std::string& dir, bool merge) {
  auto catalog = floe::SqlCatalog::Open(dir + "/catalog.db", "lakehouse", dir + "/wh");
  if (!catalog.ok()) Die("create catalog", catalog.status());
  std::shared_ptr<floe::Catalog> shared = std::move(*catalog);
  if (auto st = shared->CreateNamespace(kTable.ns, {}); !st.ok()) Die("namespace", st);
  auto io = floe::FileIO::MakeLocal().ValueOrDie();
  floe::table::TableCatalog tables(shared, io);
  auto schema = floe::table::SchemaFromArrow(*OneRow(0)->schema()).ValueOrDie();
  floe::table::CreateTableOptions options;
  options.properties["commit.manifest-merge.enabled"] = merge ? "true" : "false";
  options.properties["write.metadata.delete-after-commit.enabled"] = "true";
  auto table = tables.CreateTable(kTable, *schema, options);
  if (!table.ok()) Die("create table", table.status());
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto r = floe::table::AppendData(**table, *OneRow(i));
    if (!r.ok()) Die("append", r.status());
    if ((i + 1) % 1000 == 0) {
      std::printf("  %d appends after %.1f s\n", i + 1,
                  std::chrono::duration<double>(Clock::now() - start).count());
      std::fflush(stdout);
    }
  }
  const double append_s = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("appends %d (merge %s): %.1f s, %.1f ms/append\n", n, merge ? "on" : "off", append_s,
              1000.0 * append_s / n);
  Report(*io, *table);
  std::printf("warehouse kept in %s\n", dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string self = argv[0];
  if (argc == 3 && std::string(argv[1]) == "inspect") return Inspect(argv[2]);
  if ((argc == 4 || argc == 5) && std::string(argv[1]) == "appends") {
    return Appends(std::atoi(argv[2]), argv[3], argc == 4 || std::string(argv[4]) != "merge=false");
  }
  if (argc == 7 && std::string(argv[1]) == "worker") {
    return Worker(argv[2], argv[3], std::atoi(argv[4]), std::atoi(argv[5]), argv[6]);
  }
  int total = 192;
  std::string json_out;
  const char* env_postgres = std::getenv("FLOE_BENCH_POSTGRES");
  std::string postgres = env_postgres ? env_postgres : "";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--commits-per-run" && i + 1 < argc) total = std::atoi(argv[++i]);
    else if (a == "--postgres" && i + 1 < argc) postgres = argv[++i];
    else if (a.rfind("--benchmark_out=", 0) == 0) json_out = a.substr(16);
  }
  std::vector<RunResult> results;
  std::printf("%-11s %-8s %8s %10s %12s %9s %9s %16s\n", "catalog", "writers", "commits", "seconds", "commits/s",
              "p50 ms", "p99 ms", "retries/commit");
  std::vector<std::string> catalogs = {""};
  if (!postgres.empty()) catalogs.push_back(postgres);
  for (const std::string& catalog : catalogs) {
    for (int writers : {1, 4, 16}) {
      RunResult r = Run(self, writers, total, catalog);
      double retries = r.commits ? static_cast<double>(r.attempts - r.commits) / static_cast<double>(r.commits) : 0;
      std::printf("%-11s %-8d %8lld %10.2f %12.1f %9.1f %9.1f %16.2f%s\n", r.catalog.c_str(), r.writers,
                  static_cast<long long>(r.commits),
                  r.seconds, static_cast<double>(r.commits) / r.seconds, r.p50_ms, r.p99_ms, retries,
                  r.failed ? (" (" + std::to_string(r.failed) + " gave up)").c_str() : "");
      results.push_back(r);
    }
  }
  if (!json_out.empty()) {
    std::ofstream out(json_out);
    out << "{\"benchmarks\": [";
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      out << (i ? ", " : "") << "{\"name\": \"commit/" << r.catalog << "/writers:" << r.writers
          << "\", \"commits\": " << r.commits
          << ", \"seconds\": " << r.seconds << ", \"p50_ms\": " << r.p50_ms << ", \"p99_ms\": " << r.p99_ms
          << ", \"attempts\": " << r.attempts << ", \"gave_up\": " << r.failed << "}";
    }
    out << "]}\n";
  }
  return 0;
}
