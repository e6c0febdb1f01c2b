#pragma once

// Writes values of one schema as Avro binary data, checking each value against the schema.
//
// A union accepts either a Value::Union naming its branch, or a plain value, which goes to
// the first branch of a matching type (so an optional long takes Value::Long(5) or
// Value::Null()). A long also accepts an int value, and a double a float value.

#include <memory>

#include "floe/avro/encoder.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"

namespace floe::avro {

namespace internal {
struct Plan;
}

class DatumWriter {
 public:
  static Result<std::unique_ptr<DatumWriter>> Make(std::shared_ptr<const Schema> schema);
  ~DatumWriter();

  // On error nothing is left in `encoder` beyond what it held before.
  Status Write(const Value& value, Encoder* encoder) const;

  const std::shared_ptr<const Schema>& schema() const { return schema_; }

 private:
  DatumWriter() = default;
  Status WriteNode(uint32_t id, const Value& value, Encoder* encoder, int depth) const;

  std::shared_ptr<const Schema> schema_;
  std::unique_ptr<internal::Plan> plan_;
};

}  // namespace floe::avro
