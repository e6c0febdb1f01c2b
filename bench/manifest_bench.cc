// Manifest decoding: entries per second per core, for entries with full column metrics
// (10 columns: sizes, counts, null counts and bounds each). Target: over 1M entries/s.

#include <filesystem>

#include <benchmark/benchmark.h>

#include "floe/avro/container_reader.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/spec/table_metadata.h"

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

void BM_ReadManifest(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  for (auto _ : state) {
    auto entries = manifest::ReadManifest(*f.io, f.manifest, f.metadata).ValueOrDie();
    benchmark::DoNotOptimize(entries);
    // Decoding is what is measured; freeing the entries is reported by BM_FreeEntries.
    state.PauseTiming();
    entries.clear();
    entries.shrink_to_fit();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["entries_per_s"] =
      benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

// What planning with a filter on c1 reads: the metrics of c1 only, no column sizes.
void BM_ReadManifestProjected(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  manifest::ReadManifestOptions options;
  options.projection.metric_ids = std::vector<int32_t>{1};
  for (auto _ : state) {
    auto entries = manifest::ReadManifest(*f.io, f.manifest, f.metadata, options).ValueOrDie();
    benchmark::DoNotOptimize(entries);
    state.PauseTiming();
    entries.clear();
    entries.shrink_to_fit();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
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

}  // namespace

BENCHMARK_MAIN();
