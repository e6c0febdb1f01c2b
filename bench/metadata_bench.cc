// Metadata JSON: parse and write times for tables with many snapshots.
// Target (issue: core): 100k snapshots parse in under 300 ms.

#include <benchmark/benchmark.h>

#include "floe/spec/table_metadata.h"
#include "floe/util/ids.h"

namespace {

using namespace floe::spec;

std::shared_ptr<TableMetadata> MakeMetadata(int64_t snapshots) {
  auto md = std::make_shared<TableMetadata>();
  md->table_uuid = floe::NewUuid();
  md->location = "/warehouse/db/events";
  md->schemas = {std::make_shared<const Schema>(
      0, std::vector<NestedField>{Required(1, "id", Type::Long()), Optional(2, "ts", Type::Timestamp()),
                                  Optional(3, "amount", Type::Decimal(12, 2)),
                                  Optional(4, "region", Type::String())})};
  md->partition_specs = {PartitionSpec(0, {{2, 1000, "ts_day", Transform::Day()}})};
  md->last_partition_id = 1000;
  md->last_column_id = 4;
  md->sort_orders = {SortOrder::Unsorted()};
  md->properties = {{"write.parquet.compression-codec", "zstd"}, {"owner", "analytics"}};
  int64_t ts = 1700000000000;
  std::optional<int64_t> parent;
  for (int64_t i = 0; i < snapshots; ++i) {
    Snapshot s;
    s.snapshot_id = floe::NewSnapshotId();
    s.parent_snapshot_id = parent;
    s.sequence_number = i + 1;
    s.timestamp_ms = ts + i * 60000;
    s.manifest_list = md->location + "/metadata/snap-" + std::to_string(s.snapshot_id) + "-1-" +
                      floe::NewUuid() + ".avro";
    s.operation = "append";
    s.summary = {{"added-data-files", "4"},        {"added-records", "100000"},
                 {"added-files-size", "2345678"},  {"changed-partition-count", "1"},
                 {"total-records", std::to_string(100000 * (i + 1))},
                 {"total-files-size", std::to_string(2345678 * (i + 1))},
                 {"total-data-files", std::to_string(4 * (i + 1))},
                 {"total-delete-files", "0"},      {"total-position-deletes", "0"},
                 {"total-equality-deletes", "0"}};
    s.schema_id = 0;
    md->snapshot_log.push_back({s.timestamp_ms, s.snapshot_id});
    parent = s.snapshot_id;
    md->snapshots.push_back(std::move(s));
  }
  md->current_snapshot_id = parent;
  md->last_sequence_number = snapshots;
  md->last_updated_ms = ts + snapshots * 60000;
  if (parent) md->refs["main"] = SnapshotRef{*parent, SnapshotRefType::kBranch, {}, {}, {}};
  for (int i = 0; i < 100; ++i) {
    md->metadata_log.push_back({ts + i, md->location + "/metadata/" + std::to_string(i) + "-" +
                                            floe::NewUuid() + ".metadata.json"});
  }
  return md;
}

void BM_ParseMetadata(benchmark::State& state) {
  auto md = MakeMetadata(state.range(0));
  std::string json = WriteTableMetadata(*md);
  for (auto _ : state) {
    std::shared_ptr<TableMetadata> parsed = ParseTableMetadata(json, "bench.metadata.json").ValueOrDie();
    benchmark::DoNotOptimize(parsed);
    // Freeing the model is not parsing; BM_FreeMetadata measures it.
    state.PauseTiming();
    parsed.reset();
    state.ResumeTiming();
  }
  state.counters["MB"] = static_cast<double>(json.size()) / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(json.size()));
}

void BM_FreeMetadata(benchmark::State& state) {
  auto md = MakeMetadata(state.range(0));
  std::string json = WriteTableMetadata(*md);
  for (auto _ : state) {
    state.PauseTiming();
    std::shared_ptr<TableMetadata> parsed = ParseTableMetadata(json, "bench.metadata.json").ValueOrDie();
    state.ResumeTiming();
    parsed.reset();
  }
}

void BM_WriteMetadata(benchmark::State& state) {
  auto md = MakeMetadata(state.range(0));
  size_t size = 0;
  for (auto _ : state) {
    std::string json = WriteTableMetadata(*md);
    size = json.size();
    benchmark::DoNotOptimize(json);
  }
  state.counters["MB"] = static_cast<double>(size) / 1e6;
}

BENCHMARK(BM_ParseMetadata)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FreeMetadata)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteMetadata)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
