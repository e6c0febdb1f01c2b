// libFuzzer target: any bytes, opened as an Avro container file and read to the end.
#include <arrow/buffer.h>

#include "floe/avro/container_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer = std::make_shared<arrow::Buffer>(data, static_cast<int64_t>(size));
  floe::avro::ContainerReaderOptions options;
  options.max_block_size = 1 << 20;  // decoded Values stay well inside libFuzzer's limits
  auto reader = floe::avro::ContainerReader::Open(buffer, "fuzz.avro", options);
  if (reader.ok()) (void)(*reader)->ReadAll();
  return 0;
}
