#include "arrow_stream.h"

#include <arrow/array.h>
#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>
#include <arrow/table.h>

#include "python_errors.h"

namespace nb = nanobind;

namespace floe::python {

namespace {

// The capsule owns the stream struct; a consumer that took the stream set `release` to null.
void FreeStream(void* pointer) noexcept {
  auto* stream = static_cast<ArrowArrayStream*>(pointer);
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

void CollectBuffers(const arrow::ArrayData& data, std::vector<uintptr_t>* out) {
  for (const auto& buffer : data.buffers) {
    if (buffer) out->push_back(buffer->address());
  }
  for (const auto& child : data.child_data) CollectBuffers(*child, out);
  if (data.dictionary) CollectBuffers(*data.dictionary, out);
}

}  // namespace

nb::capsule ExportTableStream(std::shared_ptr<arrow::Table> table) {
  auto reader = std::make_shared<arrow::TableBatchReader>(table);
  auto stream = std::make_unique<ArrowArrayStream>();
  RaiseIfError(arrow::ExportRecordBatchReader(reader, stream.get()));
  return nb::capsule(stream.release(), "arrow_array_stream", &FreeStream);
}

std::vector<uintptr_t> BufferAddresses(const arrow::Table& table) {
  std::vector<uintptr_t> out;
  for (const auto& column : table.columns()) {
    for (const auto& chunk : column->chunks()) CollectBuffers(*chunk->data(), &out);
  }
  return out;
}

}  // namespace floe::python
