#pragma once

// Writes Avro object container files (spec, "Object Container Files"): the header (magic,
// metadata with avro.schema and avro.codec, sync marker), then blocks of values, each
// compressed with the file's codec and followed by the sync marker.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "floe/avro/codec.h"
#include "floe/avro/datum_writer.h"
#include "floe/avro/encoder.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"

namespace arrow::io {
class OutputStream;
}

namespace floe::avro {

// Header metadata in file order: key -> bytes (e.g. Iceberg's "schema", "partition-spec",
// "partition-spec-id", "format-version", "content").
using Metadata = std::vector<std::pair<std::string, std::string>>;

struct ContainerWriterOptions {
  // A block is written once this many encoded (uncompressed) bytes are pending.
  size_t block_size = 64 * 1024;
  // Codec compression level; nullopt means the codec's default.
  std::optional<int> compression_level;
  // Fixed sync marker for reproducible output in tests; random when unset.
  std::optional<std::array<uint8_t, 16>> sync_marker;
};

class ContainerWriter {
 public:
  // Writes the header at once. `metadata` may not set avro.schema or avro.codec.
  static Result<std::unique_ptr<ContainerWriter>> Make(
      std::shared_ptr<arrow::io::OutputStream> out, std::shared_ptr<const Schema> schema,
      Codec codec = Codec::kNull, Metadata metadata = {},
      ContainerWriterOptions options = ContainerWriterOptions());
  ~ContainerWriter();

  // Encodes one value; a value that does not match the schema is an error and is not
  // written.
  Status Write(const Value& value);
  // Ends the current block, if it holds any values.
  Status Flush();
  // Writes the last block. Does not close the output stream; further writes fail.
  Status Close();

  // Bytes written to the stream so far (the file length after Close).
  int64_t bytes_written() const { return bytes_written_; }
  int64_t values_written() const { return values_written_; }
  const std::array<uint8_t, 16>& sync_marker() const { return sync_; }
  const std::shared_ptr<const Schema>& schema() const { return datum_writer_->schema(); }

 private:
  ContainerWriter() = default;
  Status WriteBytes(const std::string& bytes);

  std::shared_ptr<arrow::io::OutputStream> out_;
  std::unique_ptr<DatumWriter> datum_writer_;
  std::unique_ptr<BlockCodec> codec_;
  ContainerWriterOptions options_;
  std::array<uint8_t, 16> sync_{};
  Encoder block_;
  int64_t block_count_ = 0;
  std::string compressed_;
  Encoder frame_;
  int64_t bytes_written_ = 0;
  int64_t values_written_ = 0;
  bool closed_ = false;
};

}  // namespace floe::avro
