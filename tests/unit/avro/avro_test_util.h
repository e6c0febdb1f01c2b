#pragma once

// Shared helpers for the Avro tests.

#include <memory>
#include <string>
#include <utility>

#include <arrow/buffer.h>
#include <arrow/io/memory.h>
#include <arrow/status.h>
#include <arrow/util/config.h>

#include "floe/avro/container_reader.h"
#include "floe/avro/container_writer.h"
#include "floe_test.h"

namespace floe::avro::testing {

inline std::shared_ptr<arrow::Buffer> ToBuffer(std::string bytes) {
  return arrow::Buffer::FromString(std::move(bytes));
}

}  // namespace floe::avro::testing
