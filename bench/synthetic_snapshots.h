#pragma once

// Synthetic snapshot histories for the benchmarks: metadata only, no data written.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/table/commit.h"
#include "floe/table/table.h"
#include "floe/util/ids.h"

namespace floe::bench {

// Commits `n` synthetic append snapshots (one per minute) in one metadata-only commit.
inline void AddSyntheticSnapshots(table::Table& t, int64_t n) {
  Status st =
      table::Commit(t,
                    [n](const spec::TableMetadataPtr& base,
                        std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
                      auto md = std::make_shared<spec::TableMetadata>(*base);
                      std::optional<int64_t> parent = md->current_snapshot_id;
                      int64_t ts = 1700000000000;
                      for (int64_t i = 0; i < n; ++i) {
                        spec::Snapshot s;
                        s.snapshot_id = NewSnapshotId();
                        s.parent_snapshot_id = parent;
                        s.sequence_number = ++md->last_sequence_number;
                        s.timestamp_ms = ts + i * 60000;
                        s.manifest_list = md->location + "/metadata/snap-" +
                                          std::to_string(s.snapshot_id) + ".avro";
                        s.operation = "append";
                        s.summary = {{"added-data-files", "1"},
                                     {"added-records", "1000"},
                                     {"total-records", std::to_string(1000 * (i + 1))}};
                        s.schema_id = 0;
                        md->snapshot_log.push_back({s.timestamp_ms, s.snapshot_id});
                        parent = s.snapshot_id;
                        md->snapshots.push_back(std::move(s));
                      }
                      md->current_snapshot_id = parent;
                      spec::SnapshotRef main;
                      main.snapshot_id = *parent;
                      md->refs["main"] = main;
                      md->IndexSnapshots();
                      return md;
                    });
  if (!st.ok()) std::abort();
}

}  // namespace floe::bench
