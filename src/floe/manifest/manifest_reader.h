#pragma once

#include <memory>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/manifest/entry_decoder.h"
#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_columns.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/table_metadata.h"

namespace floe::manifest {

struct ReadManifestOptions {
  // Which column metrics to decode (all by default). Entries read with a projection must
  // not be written back: the metrics left out would be lost.
  EntryProjection projection;
};

// Reads every entry of a manifest. Null snapshot ids and sequence numbers of ADDED entries
// are inherited from the manifest list entry (spec: "Sequence Number Inheritance").
// Partition values are typed with the table's spec `manifest.partition_spec_id`.
Result<std::vector<ManifestEntry>> ReadManifest(FileIO& io, const ManifestFile& manifest,
                                                const spec::TableMetadata& metadata,
                                                const ReadManifestOptions& options = {});

// The same entries one array per field (ManifestColumns): what planning reads, decoding
// allocates per column instead of per entry.
Result<std::shared_ptr<const ManifestColumns>> ReadManifestColumns(FileIO& io, const ManifestFile& manifest,
                                                                  const spec::TableMetadata& metadata,
                                                                  const ReadManifestOptions& options = {});

// Row lineage of a v3 manifest list: data manifests without a first row id take the next
// ids from `first_row_id` (the snapshot's), each reserving as many as it lists added and
// existing rows (spec: "First Row ID Assignment"); `assigned` is how many were taken.
struct ManifestListRowIds {
  int64_t first_row_id = 0;
  int64_t assigned = 0;
};

// Writes a manifest list; manifests whose sequence numbers are unassigned get
// `sequence_number` (the new snapshot's). Format version 3 needs `row_ids`.
Status WriteManifestList(FileIO& io, const std::string& location, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests, int32_t format_version = 2,
                         const std::string& codec = "deflate", ManifestListRowIds* row_ids = nullptr);

Result<std::vector<ManifestFile>> ReadManifestList(FileIO& io, const std::string& location);

}  // namespace floe::manifest
