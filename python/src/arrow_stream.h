#pragma once

// Hands Arrow tables to Python without copying: the Arrow PyCapsule interface
// (`__arrow_c_stream__`) over the C stream interface of arrow/c/bridge.h. pyarrow (or any
// consumer of the interface) imports the batches and keeps the C++ buffers alive through
// the stream's release callbacks.

#include <cstdint>
#include <memory>
#include <vector>

#include <arrow/type_fwd.h>
#include <nanobind/nanobind.h>

namespace floe::python {

// A capsule named "arrow_array_stream" holding an ArrowArrayStream over `table`'s chunks.
// Raises FloeError when the export fails.
nanobind::capsule ExportTableStream(std::shared_ptr<arrow::Table> table);

// The address of every buffer of every chunk of `table` (children and dictionaries
// included), for tests that check the consumer sees these very buffers.
std::vector<uintptr_t> BufferAddresses(const arrow::Table& table);

}  // namespace floe::python
