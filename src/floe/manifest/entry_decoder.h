#pragma once

// Decodes manifest entries straight from Avro binary into ManifestEntry, driven by the
// writer's schema and the Iceberg field ids in it. Planning reads millions of entries, and
// going through generic Avro values costs several times more.

#include <memory>
#include <vector>

#include "floe/avro/decoder.h"
#include "floe/avro/schema.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/type.h"

namespace floe::manifest {

class EntryDecoder {
 public:
  // `partition_type` types the partition tuple (its fields carry the partition field ids).
  static Result<std::unique_ptr<EntryDecoder>> Make(std::shared_ptr<const avro::Schema> schema,
                                                    spec::TypePtr partition_type);

  // Decodes one entry; fields the entry lacks keep their defaults (null snapshot id and
  // sequence numbers, content data).
  Status Decode(avro::Decoder* decoder, ManifestEntry* entry) const;
  ~EntryDecoder();

  struct Field;

 private:
  EntryDecoder() = default;
  Status DecodeRecord(const std::vector<Field>& fields, avro::Decoder* d, ManifestEntry* e) const;

  std::shared_ptr<const avro::Schema> schema_;
  spec::TypePtr partition_type_;
  std::vector<Field> entry_fields_;
  std::vector<Field> file_fields_;
  std::vector<Field> partition_fields_;
};

}  // namespace floe::manifest
