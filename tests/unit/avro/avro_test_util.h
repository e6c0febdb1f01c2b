#pragma once

// Shared helpers for the Avro tests.

#include <memory>
#include <string>
#include <utility>

#include <arrow/buffer.h>
#include <arrow/io/memory.h>
#include <arrow/status.h>
#include <arrow/util/config.h>

// tests/floe_test.h calls arrow::internal::GenericToStatus, which Arrow 21 replaced with
// arrow::ToStatus; bridge it here until the shared header is updated.
#if ARROW_VERSION_MAJOR >= 21
namespace arrow::internal {
template <typename T>
decltype(auto) GenericToStatus(T&& t) {
  return ::arrow::ToStatus(std::forward<T>(t));
}
}  // namespace arrow::internal
#endif

#include "floe/avro/container_reader.h"
#include "floe/avro/container_writer.h"
#include "floe_test.h"

namespace floe::avro::testing {

inline std::shared_ptr<arrow::Buffer> ToBuffer(std::string bytes) {
  return arrow::Buffer::FromString(std::move(bytes));
}

}  // namespace floe::avro::testing
