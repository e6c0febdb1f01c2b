// Manifest decoding: entries per second per core, for entries with full column metrics
// (10 columns: sizes, counts, null counts and bounds each). Target: over 1M entries/s.

#include <filesystem>

#include <benchmark/benchmark.h>

#include "floe/avro/container_reader.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/manifest/manifest_cache.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/scan/table_scan.h"
#include "floe/spec/table_metadata.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"

namespace {

using namespace floe;

struct Fixture {
  std::string dir;
  std::shared_ptr<FileIO> io;
  spec::TableMetadata metadata;
  manifest::ManifestFile manifest;
};

Fixture& Get(int64_t entries) {
  static std::map<int64_t, Fixture> fixtures;
  auto it = fixtures.find(entries);
  if (it != fixtures.end()) return it->second;
  Fixture& f = fixtures[entries];
  f.dir = (std::filesystem::temp_directory_path() / ("floe-bench-manifest-" + std::to_string(entries))).string();
  std::filesystem::remove_all(f.dir);
  f.io = FileIO::MakeLocal().ValueOrDie();
  std::vector<spec::NestedField> fields;
  for (int c = 1; c <= 10; ++c) fields.push_back(spec::Optional(c, "c" + std::to_string(c), spec::Type::Long()));
  auto schema = std::make_shared<const spec::Schema>(0, fields);
  spec::PartitionSpec spec(0, {{1, 1000, "c1_bucket", spec::Transform::Bucket(16)}});
  f.metadata.schemas = {schema};
  f.metadata.partition_specs = {spec};
  auto writer = manifest::ManifestWriter::Make(f.io, f.dir + "/m.avro", *schema, spec, 1).ValueOrDie();
  for (int64_t i = 0; i < entries; ++i) {
    manifest::DataFile d;
    d.file_path = f.dir + "/data/c1_bucket=" + std::to_string(i % 16) + "/00000-" + std::to_string(i) +
                  "-0f8e1a52-5c1b-4f7e-9a61-3b1f2c0d9e77-00001.parquet";
    d.partition = {spec::Literal::Int(static_cast<int32_t>(i % 16))};
    d.record_count = 100000 + i;
    d.file_size_in_bytes = 4 << 20;
    for (int c = 1; c <= 10; ++c) {
      d.column_sizes[c] = 40000 + c;
      d.value_counts[c] = d.record_count;
      d.null_value_counts[c] = c;
      d.lower_bounds[c] = spec::ToSingleValueBinary(spec::Literal::Long(i * c));
      d.upper_bounds[c] = spec::ToSingleValueBinary(spec::Literal::Long(i * c + 1000));
    }
    d.split_offsets = {4};
    (void)writer->Add(d);
  }
  f.manifest = writer->Close().ValueOrDie();
  f.manifest.sequence_number = 1;
  return f;
}

// Decodes the fixture's manifest with `read` (`options`): decoding is what is measured,
// freeing what it made is not (BM_FreeEntries reports that for entries).
template <typename Read>
void MeasureRead(benchmark::State& state, const manifest::ReadManifestOptions& options, Read read) {
  Fixture& f = Get(state.range(0));
  for (auto _ : state) {
    auto decoded = read(*f.io, f.manifest, f.metadata, options).ValueOrDie();
    benchmark::DoNotOptimize(decoded);
    state.PauseTiming();
    { auto freed = std::move(decoded); }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["entries_per_s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

// What planning with a filter on c1 reads: the metrics of c1 only, no column sizes.
manifest::ReadManifestOptions PlanningProjection() {
  manifest::ReadManifestOptions options;
  options.projection.metric_ids = std::vector<int32_t>{1};
  return options;
}

// One ManifestEntry per file, what commits and maintenance read (and planning read before
// manifests were read by columns).
void BM_ReadManifest(benchmark::State& state) { MeasureRead(state, {}, manifest::ReadManifest); }
void BM_ReadManifestProjected(benchmark::State& state) {
  MeasureRead(state, PlanningProjection(), manifest::ReadManifest);
}

// What planning decodes: manifests read by columns (ManifestColumns), with the projection
// planning uses and with every metric.
void BM_ReadManifestColumns(benchmark::State& state) { MeasureRead(state, {}, manifest::ReadManifestColumns); }
void BM_ReadManifestColumnsProjected(benchmark::State& state) {
  MeasureRead(state, PlanningProjection(), manifest::ReadManifestColumns);
}

// The Avro decoding alone, without building DataFiles: the floor for BM_ReadManifest.
void BM_DecodeManifestAvro(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  auto bytes = f.io->ReadFile(f.manifest.manifest_path, FileKind::kManifest).ValueOrDie();
  for (auto _ : state) {
    auto reader = avro::ContainerReader::Open(bytes, f.manifest.manifest_path).ValueOrDie();
    avro::Value value;
    int64_t n = 0;
    while (reader->Next(&value).ValueOrDie()) ++n;
    benchmark::DoNotOptimize(n);
  }
  state.counters["entries_per_s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

// Planning over 10,000 data files in 100 manifests (one partition each, full column metrics
// on 10 columns), with no filter or with a filter on the partition column; cold clears the
// manifest cache before each plan, warm keeps it.
struct PlanFixture {
  std::shared_ptr<table::Table> table;
};

PlanFixture& GetPlanFixture() {
  static PlanFixture* fixture = [] {
    auto* f = new PlanFixture();
    const std::string dir = (std::filesystem::temp_directory_path() / "floe-bench-plan").string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::shared_ptr<Catalog> catalog = SqlCatalog::Open(dir + "/catalog.db", "bench", dir + "/wh").ValueOrDie();
    (void)catalog->CreateNamespace(Namespace({"db"}), {});
    table::TableCatalog tables(catalog, FileIO::MakeLocal().ValueOrDie());
    std::vector<spec::NestedField> fields;
    for (int c = 1; c <= 10; ++c) fields.push_back(spec::Optional(c, "c" + std::to_string(c), spec::Type::Long()));
    spec::Schema schema(0, fields);
    table::CreateTableOptions options;
    options.partition_by = {{"c1", spec::Transform::Identity(), ""}};
    options.properties["commit.manifest-merge.enabled"] = "false";
    f->table = tables.CreateTable(TableIdentifier{Namespace({"db"}), "plan"}, schema, options).ValueOrDie();
    for (int m = 0; m < 100; ++m) {
      std::vector<manifest::DataFile> files;
      for (int i = 0; i < 100; ++i) {
        manifest::DataFile d;
        d.file_path = f->table->metadata()->location + "/data/c1=" + std::to_string(m) + "/00000-" +
                      std::to_string(i) + "-0f8e1a52-5c1b-4f7e-9a61-3b1f2c0d9e77-00001.parquet";
        d.partition = {spec::Literal::Long(m)};
        d.record_count = 100000;
        d.file_size_in_bytes = 4 << 20;
        for (int c = 1; c <= 10; ++c) {
          d.column_sizes[c] = 40000 + c;
          d.value_counts[c] = d.record_count;
          d.null_value_counts[c] = 0;
          const int64_t lo = c == 1 ? m : i * c;
          d.lower_bounds[c] = spec::ToSingleValueBinary(spec::Literal::Long(lo));
          d.upper_bounds[c] = spec::ToSingleValueBinary(spec::Literal::Long(c == 1 ? m : lo + 1000));
        }
        files.push_back(std::move(d));
      }
      table::AppendFiles(*f->table, std::move(files)).ValueOrDie();
    }
    return f;
  }();
  return *fixture;
}

void BM_PlanFiles(benchmark::State& state) {
  PlanFixture& f = GetPlanFixture();
  const bool filter = state.range(0) != 0, warm = state.range(1) != 0;
  auto& cache = manifest::ManifestCache::Global();
  cache.Clear();
  int64_t tasks = 0;
  for (auto _ : state) {
    if (!warm) cache.Clear();
    scan::TableScan scan(f.table);
    if (filter) scan.Filter({scan::ColumnPredicate{1, scan::ColumnPredicate::Op::kEq, spec::Literal::Long(42)}});
    tasks = static_cast<int64_t>(scan.PlanFiles().ValueOrDie().size());
  }
  state.counters["tasks"] = static_cast<double>(tasks);
}

BENCHMARK(BM_PlanFiles)
    ->ArgNames({"filter", "warm"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_DecodeManifestAvro)->Arg(100000)->Unit(benchmark::kMillisecond);
void BM_FreeEntries(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    auto entries = manifest::ReadManifest(*f.io, f.manifest, f.metadata).ValueOrDie();
    state.ResumeTiming();
    entries.clear();
    entries.shrink_to_fit();
  }
}

BENCHMARK(BM_FreeEntries)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadManifest)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadManifestProjected)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadManifestColumns)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadManifestColumnsProjected)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
