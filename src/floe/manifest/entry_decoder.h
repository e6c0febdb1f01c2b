#pragma once

// Decodes manifest entries straight from Avro binary into ManifestEntry, driven by the
// writer's schema and the Iceberg field ids in it. Planning reads millions of entries, and
// going through generic Avro values costs several times more.

#include <memory>
#include <optional>
#include <vector>

#include "floe/avro/container_reader.h"
#include "floe/avro/decoder.h"
#include "floe/avro/schema.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/type.h"

namespace floe::manifest {

class ManifestColumns;

// Which column metrics are decoded. Planning reads only the metrics of the columns its
// filter names; everything else is skipped in the Avro bytes without being copied.
struct EntryProjection {
  // Unset: all metrics. Set: value, null and NaN counts and lower/upper bounds of these
  // field ids only, and no column sizes.
  std::optional<std::vector<int32_t>> metric_ids;
};

class EntryDecoder {
 public:
  // `partition_type` types the partition tuple (its fields carry the partition field ids).
  static Result<std::unique_ptr<EntryDecoder>> Make(std::shared_ptr<const avro::Schema> schema,
                                                    spec::TypePtr partition_type,
                                                    EntryProjection projection = {});

  // Decodes one entry; fields the entry lacks keep their defaults (null snapshot id and
  // sequence numbers, content data).
  Status Decode(avro::Decoder* decoder, ManifestEntry* entry) const;
  // The same into a default-constructed entry (no reset needed).
  Status DecodeNew(avro::Decoder* decoder, ManifestEntry* entry) const;
  // Appends every entry `reader` has left to `out`, one array per field; `expected` is how
  // many there likely are (0 when unknown).
  Status DecodeAll(avro::ContainerReader* reader, size_t expected, ManifestColumns* out) const;
  ~EntryDecoder();

  struct Field;

 private:
  EntryDecoder() = default;
  // Sink: where the values go (a ManifestEntry, or a row of ManifestColumns).
  template <typename Sink>
  Status DecodeRecord(const std::vector<Field>& fields, avro::Decoder* d, Sink& sink) const;

  std::shared_ptr<const avro::Schema> schema_;
  spec::TypePtr partition_type_;
  EntryProjection projection_;
  std::vector<spec::Literal> null_partition_;
  std::vector<Field> entry_fields_;
  std::vector<Field> file_fields_;
  std::vector<Field> partition_fields_;
};

}  // namespace floe::manifest
