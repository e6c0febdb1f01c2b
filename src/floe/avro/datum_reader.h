#pragma once

// Reads values of one schema from Avro binary data. The schema is compiled once into a flat
// plan; Read then walks that plan without virtual calls and reuses the storage of `out`.

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
