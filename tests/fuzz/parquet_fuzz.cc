// libFuzzer target: any bytes, read as a Parquet data file by Iceberg field id.
#include "floe/scan/parquet_file_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = floe::fuzz::WriteInput(data, size, "data.parquet");
  (void)floe::scan::ReadParquetFile(floe::fuzz::LocalIO(), path, floe::fuzz::ParquetProjection());
  return 0;
}
