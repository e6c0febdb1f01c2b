// Catalog tags over many tables: CREATE CATALOG TAG (a tag ref on every table, one metadata
// file each, every pointer and the record in one catalog transaction) and
// rollback_to_catalog_tag (main of every table moved back, the same way), over 1,000 tables
// with two synthetic snapshots each (metadata only), on SQLite and, when $FLOE_BENCH_POSTGRES
// names a server (scripts/bench.sh micro starts one), on PostgreSQL.

#include <cstdlib>
#include <filesystem>
#include <memory>

#include <arrow/api.h>
#include <benchmark/benchmark.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/catalog_tags.h"
#include "floe/table/commit.h"
#include "floe/table/table_catalog.h"
#include "postgres_database.h"
#include "synthetic_snapshots.h"

namespace {

using namespace floe;

struct TagBench {
  std::filesystem::path dir;
  std::shared_ptr<Catalog> catalog;
  std::shared_ptr<FileIO> io;
  std::unique_ptr<table::TableCatalog> tables;

  ~TagBench() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

// Sets main of every table to its first snapshot (off the clock), so that a catalog tag made
// before and after differ.
void MoveMainToFirst(table::TableCatalog& tables, int n) {
  for (int i = 0; i < n; ++i) {
    auto t = tables.LoadTable({Namespace({"db"}), "t" + std::to_string(i)}).ValueOrDie();
    Status st = table::Commit(*t, [](const spec::TableMetadataPtr& base, std::vector<std::string>*)
                                      -> Result<std::shared_ptr<spec::TableMetadata>> {
      auto md = std::make_shared<spec::TableMetadata>(*base);
      md->current_snapshot_id = md->snapshots.front().snapshot_id;
      md->refs["main"].snapshot_id = *md->current_snapshot_id;
      md->snapshot_log.push_back({md->last_updated_ms + 1, *md->current_snapshot_id});
      return md;
    });
    if (!st.ok()) std::abort();
  }
}

std::unique_ptr<TagBench> MakeTables(int n, bool postgres) {
  auto b = std::make_unique<TagBench>();
  std::string tmpl = (std::filesystem::temp_directory_path() / "floe-bench-XXXXXX").string();
  b->dir = ::mkdtemp(tmpl.data());
  std::string uri = b->dir.string() + "/catalog.db";
  if (postgres) {
    uri = floe::testing::CreatePostgresDatabase(std::getenv("FLOE_BENCH_POSTGRES"),
                                                "floe_catalog_tag_bench")
              .ValueOrDie();
  }
  b->catalog = SqlCatalog::Open(uri, "lakehouse", b->dir.string() + "/wh").ValueOrDie();
  b->io = FileIO::MakeLocal().ValueOrDie();
  b->tables = std::make_unique<table::TableCatalog>(b->catalog, b->io);
  (void)b->catalog->CreateNamespace(Namespace({"db"}), {});
  auto schema = table::SchemaFromArrow(*arrow::schema({arrow::field("id", arrow::int64())}))
                    .ValueOrDie();
  for (int i = 0; i < n; ++i) {
    auto t = b->tables->CreateTable({Namespace({"db"}), "t" + std::to_string(i)}, *schema)
                 .ValueOrDie();
    bench::AddSyntheticSnapshots(*t, 2);  // main at the second
  }
  return b;
}

bool SkipWithoutPostgres(benchmark::State& state, bool postgres) {
  if (postgres && !std::getenv("FLOE_BENCH_POSTGRES")) {
    state.SkipWithError("FLOE_BENCH_POSTGRES is not set (scripts/bench.sh micro sets it)");
    return true;
  }
  return false;
}

// CREATE CATALOG TAG over every table; the tag is dropped again off the clock.
void BM_CreateCatalogTag(benchmark::State& state, bool postgres) {
  if (SkipWithoutPostgres(state, postgres)) return;
  const int n = static_cast<int>(state.range(0));
  auto b = MakeTables(n, postgres);
  for (auto _ : state) {
    auto made = table::CreateCatalogTag(*b->tables, "run", {});
    if (!made.ok()) state.SkipWithError(made.status().ToString().c_str());
    state.PauseTiming();
    auto dropped = table::DropCatalogTag(*b->tables, "run");
    if (!dropped.ok()) state.SkipWithError(dropped.status().ToString().c_str());
    state.ResumeTiming();
  }
  state.counters["tables"] = n;
}

// rollback_to_catalog_tag of every table: alternately to a tag at each table's second
// snapshot and to one at its first, so every iteration moves all of them.
void BM_RollbackToCatalogTag(benchmark::State& state, bool postgres) {
  if (SkipWithoutPostgres(state, postgres)) return;
  const int n = static_cast<int>(state.range(0));
  auto b = MakeTables(n, postgres);
  if (!table::CreateCatalogTag(*b->tables, "second", {}).ok()) std::abort();
  MoveMainToFirst(*b->tables, n);
  if (!table::CreateCatalogTag(*b->tables, "first", {}).ok()) std::abort();
  bool to_second = true;
  for (auto _ : state) {
    auto moved = table::RollbackToCatalogTag(*b->tables, to_second ? "second" : "first", {});
    if (!moved.ok()) state.SkipWithError(moved.status().ToString().c_str());
    to_second = !to_second;
  }
  state.counters["tables"] = n;
}

BENCHMARK_CAPTURE(BM_CreateCatalogTag, sqlite, false)
    ->Arg(1000)->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RollbackToCatalogTag, sqlite, false)
    ->Arg(1000)->Iterations(6)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CreateCatalogTag, postgresql, true)
    ->Arg(1000)->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RollbackToCatalogTag, postgresql, true)
    ->Arg(1000)->Iterations(6)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
