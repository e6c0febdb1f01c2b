#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/io/type_fwd.h>

#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/manifest/manifest_file.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"

namespace floe::avro {
class ContainerWriter;
}

namespace floe::manifest {

// Writes one manifest (spec: "Manifests") as an Avro file with the key-value metadata Java
// writes (schema, schema-id, partition-spec, partition-spec-id, format-version, content).
// Added entries leave their sequence numbers null so they inherit the snapshot's at commit.
class ManifestWriter {
 public:
  static Result<std::unique_ptr<ManifestWriter>> Make(
      std::shared_ptr<FileIO> io, std::string location, const spec::Schema& schema,
      const spec::PartitionSpec& spec, int64_t snapshot_id,
      ManifestContent content = ManifestContent::kData, int32_t format_version = 2,
      std::string codec = "deflate");
  ~ManifestWriter();

  Status Add(const DataFile& file);
  // An added entry whose data sequence number is given rather than inherited (a rewrite
  // keeps the sequence number of the snapshot it read); the file sequence number inherits.
  Status Add(const DataFile& file, int64_t data_sequence_number);
  // Carries an entry of an older manifest over unchanged (status EXISTING).
  Status Existing(const ManifestEntry& entry);
  // Marks an entry of an older manifest as removed by this snapshot (status DELETED).
  Status Delete(const ManifestEntry& entry);
  // Finishes the file; the ManifestFile has counts, partition summaries and an unassigned
  // sequence number when entries were added.
  Result<ManifestFile> Close();

  const std::string& location() const { return location_; }

 private:
  ManifestWriter() = default;
  Status Write(const ManifestEntry& entry);

  std::shared_ptr<FileIO> io_;
  std::string location_;
  spec::PartitionSpec spec_;
  spec::TypePtr partition_type_;
  int64_t snapshot_id_ = 0;
  ManifestContent content_ = ManifestContent::kData;
  int32_t format_version_ = 2;
  std::shared_ptr<arrow::io::OutputStream> sink_;
  std::unique_ptr<avro::ContainerWriter> writer_;
  ManifestFile result_;
  std::optional<int64_t> min_sequence_number_;
  std::vector<std::vector<spec::Literal>> partition_values_;
  bool closed_ = false;
};

}  // namespace floe::manifest
