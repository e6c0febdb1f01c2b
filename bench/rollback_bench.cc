// Rollback and time-travel resolution cost (issue 4). Targets: rollback flat in rows and
// under 50 ms at 10k snapshots; TIMESTAMP AS OF resolution over 100k snapshot-log entries.
// Synthetic histories are committed through Commit (metadata only, no data written); the
// rows variants write real Parquet data to show the cost does not depend on it.

#include <filesystem>
#include <memory>

#include <arrow/api.h>
#include <benchmark/benchmark.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"
#include "floe/table/time_travel.h"
#include "synthetic_snapshots.h"

namespace {

using namespace floe;

struct Bench {
  std::filesystem::path dir;
  std::shared_ptr<Catalog> catalog;
  std::shared_ptr<FileIO> io;
  std::unique_ptr<table::TableCatalog> tables;
  std::shared_ptr<table::Table> table;

  ~Bench() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

std::shared_ptr<arrow::Table> Rows(int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = first; i < first + n; ++i) {
    (void)ids.Append(i);
    (void)names.Append("person-" + std::to_string(i));
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8())});
  return arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

std::unique_ptr<Bench> NewTable() {
  auto b = std::make_unique<Bench>();
  std::string tmpl = (std::filesystem::temp_directory_path() / "floe-bench-XXXXXX").string();
  b->dir = ::mkdtemp(tmpl.data());
  b->catalog =
      SqlCatalog::Open(b->dir.string() + "/catalog.db", "lakehouse", b->dir.string() + "/wh")
          .ValueOrDie();
  b->io = FileIO::MakeLocal().ValueOrDie();
  b->tables = std::make_unique<table::TableCatalog>(b->catalog, b->io);
  (void)b->catalog->CreateNamespace(Namespace({"db"}), {});
  auto schema = table::SchemaFromArrow(*Rows(0, 1)->schema()).ValueOrDie();
  b->table = b->tables->CreateTable({Namespace({"db"}), "t"}, *schema).ValueOrDie();
  return b;
}

// rollback_to_snapshot(parent of the tip), then set_current_snapshot(tip) off the clock.
void RollbackLoop(benchmark::State& state, table::Table& t) {
  auto md = t.metadata();
  const int64_t tip = *md->current_snapshot_id;
  const int64_t target = *md->current_snapshot()->parent_snapshot_id;
  for (auto _ : state) {
    auto r = table::RollbackToSnapshot(t, target);
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    state.PauseTiming();
    (void)table::SetCurrentSnapshot(t, tip);
    state.ResumeTiming();
  }
  auto c = t.io()->counters();
  state.counters["manifest_reads"] = static_cast<double>(c.reads(FileKind::kManifest));
  state.counters["data_reads"] = static_cast<double>(c.reads(FileKind::kData));
}

void BM_RollbackSnapshots(benchmark::State& state) {
  auto b = NewTable();
  bench::AddSyntheticSnapshots(*b->table, state.range(0));
  b->io->ResetCounters();
  RollbackLoop(state, *b->table);
  state.SetLabel(std::to_string(state.range(0)) + " snapshots");
}
BENCHMARK(BM_RollbackSnapshots)->Arg(10)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_RollbackRows(benchmark::State& state) {
  auto b = NewTable();
  if (!table::AppendData(*b->table, *Rows(0, state.range(0))).ok()) std::abort();
  if (!table::AppendData(*b->table, *Rows(-10, 10)).ok()) std::abort();
  b->io->ResetCounters();
  RollbackLoop(state, *b->table);
  state.SetLabel(std::to_string(state.range(0)) + " rows");
}
BENCHMARK(BM_RollbackRows)->Arg(1000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// TIMESTAMP AS OF over an in-memory metadata with N snapshot-log entries.
void BM_TimestampAsOf(benchmark::State& state) {
  auto b = NewTable();
  bench::AddSyntheticSnapshots(*b->table, state.range(0));
  auto md = b->table->metadata();
  const int64_t mid = md->snapshot_log[md->snapshot_log.size() / 2].timestamp_ms + 30000;
  for (auto _ : state) {
    auto r = table::ResolveTimeTravel(md, table::TimeTravelSpec::AsOf(mid));
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::to_string(state.range(0)) + " log entries");
}
BENCHMARK(BM_TimestampAsOf)->Arg(1000)->Arg(100000)->Unit(benchmark::kMicrosecond);

// The same including loading the table (reading and parsing its metadata file).
void BM_LoadAndTimestampAsOf(benchmark::State& state) {
  auto b = NewTable();
  bench::AddSyntheticSnapshots(*b->table, state.range(0));
  auto md = b->table->metadata();
  const int64_t mid = md->snapshot_log[md->snapshot_log.size() / 2].timestamp_ms + 30000;
  for (auto _ : state) {
    auto t = b->tables->LoadTable({Namespace({"db"}), "t"}).ValueOrDie();
    auto r = table::ResolveTimeTravel(*t, table::TimeTravelSpec::AsOf(mid));
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::to_string(state.range(0)) + " log entries");
}
BENCHMARK(BM_LoadAndTimestampAsOf)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
