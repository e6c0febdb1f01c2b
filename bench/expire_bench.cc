// expire_snapshots over a long history: 10,002 snapshots of a table rewritten by every commit
// (each snapshot one manifest list, one manifest, one data file), of which all but the newest
// two expire. Reports the time, the peak memory the expiry added, and how often each manifest
// list and manifest was opened (each should be read once).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <arrow/api.h>
#include <benchmark/benchmark.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/manifest/manifest_reader.h"
#include "floe/manifest/manifest_writer.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/commit.h"
#include "floe/table/expire_snapshots.h"
#include "floe/table/table_catalog.h"
#include "floe/util/clock.h"
#include "floe/util/ids.h"

namespace {

using namespace floe;

// Peak resident memory of the process in KiB (VmHWM), after resetting it when `reset`.
int64_t PeakRssKiB(bool reset) {
  if (reset) {
    std::ofstream("/proc/self/clear_refs") << "5";
  }
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

struct History {
  std::filesystem::path dir;
  std::shared_ptr<Catalog> catalog;
  std::shared_ptr<FileIO> io;
  std::shared_ptr<table::Table> table;

  ~History() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

// `n` snapshots, each replacing the table with one new data file (a few bytes: expiry never
// opens data files, it only deletes them).
std::unique_ptr<History> MakeHistory(int64_t n) {
  auto h = std::make_unique<History>();
  std::string tmpl = (std::filesystem::temp_directory_path() / "floe-bench-XXXXXX").string();
  h->dir = ::mkdtemp(tmpl.data());
  h->catalog =
      SqlCatalog::Open(h->dir.string() + "/catalog.db", "lakehouse", h->dir.string() + "/wh")
          .ValueOrDie();
  h->io = FileIO::MakeLocal().ValueOrDie();
  table::TableCatalog tables(h->catalog, h->io);
  (void)h->catalog->CreateNamespace(Namespace({"db"}), {});
  auto schema = table::SchemaFromArrow(*arrow::schema({arrow::field("id", arrow::int64(), false)}))
                    .ValueOrDie();
  h->table = tables.CreateTable({Namespace({"db"}), "t"}, *schema).ValueOrDie();
  auto base = h->table->metadata();
  const std::string location = base->location;

  std::vector<spec::Snapshot> snapshots;
  std::optional<int64_t> parent;
  const int64_t start = NowMillis() - n * 1000;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = NewSnapshotId();
    manifest::DataFile f;
    f.file_path = location + "/data/" + std::to_string(i) + ".parquet";
    f.record_count = 1000;
    f.file_size_in_bytes = 4;
    if (!h->io->WriteFile(f.file_path, FileKind::kData, "PAR1").ok()) std::abort();
    auto writer = manifest::ManifestWriter::Make(
                      h->io, location + "/metadata/m" + std::to_string(i) + ".avro",
                      *base->current_schema(), *base->default_spec(), id)
                      .ValueOrDie();
    if (!writer->Add(f).ok()) std::abort();
    manifest::ManifestFile mf = writer->Close().ValueOrDie();
    spec::Snapshot s;
    s.snapshot_id = id;
    s.parent_snapshot_id = parent;
    s.sequence_number = i + 1;
    s.timestamp_ms = start + i * 100;
    s.manifest_list = location + "/metadata/snap-" + std::to_string(id) + ".avro";
    s.operation = "overwrite";
    s.schema_id = base->current_schema_id;
    if (!manifest::WriteManifestList(*h->io, s.manifest_list, id, parent, s.sequence_number, {mf})
             .ok()) {
      std::abort();
    }
    parent = id;
    snapshots.push_back(std::move(s));
  }
  Status st =
      table::Commit(*h->table,
                    [&](const spec::TableMetadataPtr& b,
                        std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                      auto md = std::make_shared<spec::TableMetadata>(*b);
                      for (const auto& s : snapshots)
                        md->snapshot_log.push_back({s.timestamp_ms, s.snapshot_id});
                      md->snapshots = snapshots;
                      md->last_sequence_number = n;
                      md->current_snapshot_id = parent;
                      spec::SnapshotRef main;
                      main.snapshot_id = *parent;
                      md->refs["main"] = main;
                      md->IndexSnapshots();
                      return md;
                    });
  if (!st.ok()) std::abort();
  return h;
}

void BM_ExpireSnapshots(benchmark::State& state) {
  const int64_t n = state.range(0);
  int64_t expired = 0, lists_read = 0, manifests_read = 0, deleted = 0;
  int64_t peak_added_kib = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto h = MakeHistory(n);
    h->io->ResetCounters();
    const int64_t before = PeakRssKiB(true);
    state.ResumeTiming();
    table::ExpireSnapshotsOptions options;
    options.older_than_ms = NowMillis() + 1;
    options.retain_last = 2;
    auto r = table::ExpireSnapshots(*h->table, options);
    state.PauseTiming();
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    peak_added_kib = PeakRssKiB(false) - before;
    expired = static_cast<int64_t>(r->expired_snapshot_ids.size());
    deleted = r->deleted_data_files + r->deleted_manifests + r->deleted_manifest_lists;
    auto c = h->io->counters();
    lists_read = c.reads(FileKind::kManifestList);
    manifests_read = c.reads(FileKind::kManifest);
    h.reset();
    state.ResumeTiming();
  }
  state.counters["expired"] = static_cast<double>(expired);
  state.counters["files_deleted"] = static_cast<double>(deleted);
  state.counters["list_reads"] = static_cast<double>(lists_read);
  state.counters["manifest_reads"] = static_cast<double>(manifests_read);
  state.counters["peak_added_MiB"] = static_cast<double>(peak_added_kib) / 1024.0;
  state.SetLabel(std::to_string(n) + " snapshots, keep 2");
}
BENCHMARK(BM_ExpireSnapshots)->Arg(10002)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
