#pragma once

// Reads values of one schema from Avro binary data. The schema is compiled once into a flat
// plan; Read then walks that plan without virtual calls and reuses the storage of `out`.

#include <cstdint>
#include <memory>

#include "floe/avro/decoder.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"

namespace floe::avro {

namespace internal {
struct Plan;
}

class DatumReader {
 public:
  static Result<std::unique_ptr<DatumReader>> Make(std::shared_ptr<const Schema> schema);
  ~DatumReader();

  // Decodes one value. On error `out` holds a partial value and the decoder position is
  // unspecified.
  Status Read(Decoder* decoder, Value* out) const;
  // As above, charging array and map items that take no bytes (null, empty records), which
  // the input size cannot bound, to `*zero_size_budget`; running out is an error. Share one
  // budget across the values of a block so that many small values cannot add up to a hang.
  Status Read(Decoder* decoder, Value* out, int64_t* zero_size_budget) const;

  // The default budget for one value.
  static constexpr int64_t kMaxZeroSizeItems = int64_t{1} << 20;

  // The smallest number of bytes one encoded value can take (0 for e.g. "null").
  uint32_t min_value_size() const;

  const std::shared_ptr<const Schema>& schema() const { return schema_; }

 private:
  DatumReader() = default;
  struct Context;
  Status ReadNode(uint32_t id, Context* ctx, Value* out) const;

  std::shared_ptr<const Schema> schema_;
  std::unique_ptr<internal::Plan> plan_;
};

}  // namespace floe::avro
