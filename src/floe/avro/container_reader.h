#pragma once

// Reads Avro object container files from a whole-file buffer, one block at a time: only the
// current block is decompressed, and values are decoded from it on demand.
//
// Every error about the file's content reads "Invalid Avro file <path>: ...". Blocks are
// numbered from 1 in messages.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/avro/codec.h"
#include "floe/avro/container_writer.h"
#include "floe/avro/datum_reader.h"
#include "floe/avro/decoder.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"

namespace arrow {
class Buffer;
}

namespace floe::avro {

struct ContainerReaderOptions {
  // Largest decompressed block accepted; guards against compression bombs. Decoded Values
  // take more memory than their encoding (up to ~100 bytes per encoded byte for a long
  // array of one-byte ints), so lower this for untrusted input.
  int64_t max_block_size = int64_t{256} << 20;
  // Objects, array items and map entries that take no bytes (null, empty records) are not
  // bounded by the block size; at most this many are accepted per block.
  int64_t max_zero_size_items_per_block = int64_t{1} << 20;
};

class ContainerReader {
 public:
  // Reads and checks the header. `path` is only used in messages.
  static Result<std::unique_ptr<ContainerReader>> Open(
      std::shared_ptr<arrow::Buffer> data, std::string path,
      ContainerReaderOptions options = ContainerReaderOptions());
  ~ContainerReader();

  const std::string& path() const { return path_; }
  // All header metadata in file order, avro.schema and avro.codec included.
  const Metadata& metadata() const { return metadata_; }
  // The value of a metadata key, or nullptr.
  const std::string* FindMetadata(std::string_view key) const;
  // The writer's schema.
  const std::shared_ptr<const Schema>& schema() const { return datum_reader_->schema(); }
  Codec codec() const { return codec_->codec(); }

  // Decodes the next value into `out` (reusing its storage); false at the end of the file.
  // After an error every later call returns that error.
  Result<bool> Next(Value* out);
  // Reads all remaining values.
  Result<std::vector<Value>> ReadAll();
  // Decodes the next object with `decode`, which must consume exactly one object of the
  // writer schema from the decoder it is given: for callers that decode a known schema
  // straight into their own types instead of through Value. Returns false at the end.
  Result<bool> NextWith(const std::function<Status(Decoder*)>& decode);

  // Block-level reading: moves to the next block (skipping any values left in the current
  // one); false at the end of the file. Next() calls this as needed.
  Result<bool> NextBlock();
  // The current block's number (from 1; 0 before the first) and values not yet read in it.
  int64_t block_number() const { return block_number_; }
  int64_t values_left_in_block() const { return values_left_; }

 private:
  ContainerReader() = default;
  Status ReadHeader();
  Status LoadBlock();
  template <typename... Args>
  Status Error(Args&&... args) const;
  Status Fail(Status st);

  std::shared_ptr<arrow::Buffer> data_;
  std::string path_;
  ContainerReaderOptions options_;
  Metadata metadata_;
  std::unique_ptr<DatumReader> datum_reader_;
  std::unique_ptr<BlockCodec> codec_;
  std::array<uint8_t, 16> sync_{};
  // Position of the next block in data_.
  size_t next_block_ = 0;
  int64_t block_number_ = 0;
  int64_t values_left_ = 0;
  int64_t values_read_in_block_ = 0;
  int64_t zero_size_budget_ = 0;
  std::string block_buffer_;
  Decoder block_;
  Status error_;
};

}  // namespace floe::avro
