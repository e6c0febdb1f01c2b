// libFuzzer target: any bytes, read as a Parquet data file by Iceberg field id, whole, and
// row group by row group under filters, where pages the page index rules out are skipped.
#include <memory>
#include <vector>

#include "floe/scan/parquet_file_reader.h"
#include "fuzz_support.h"

namespace {

using floe::scan::ColumnPredicate;
using Op = ColumnPredicate::Op;

ColumnPredicate Pred(int32_t field_id, Op op, floe::spec::Literal value = {}) {
  ColumnPredicate p;
  p.field_id = field_id;
  p.op = op;
  p.value = std::move(value);
  return p;
}

// The flat fixed-width columns of the projection, read page by page when a filter allows.
floe::spec::SchemaPtr FixedWidthProjection() {
  static auto schema = [] {
    std::vector<floe::spec::NestedField> fields;
    for (const auto& f : floe::fuzz::ParquetProjection().fields()) {
      if (f.id == 1 || f.id == 3) fields.push_back(f);
    }
    return std::make_shared<const floe::spec::Schema>(0, fields);
  }();
  return schema;
}

void ReadFiltered(const std::string& path) {
  const std::vector<std::vector<ColumnPredicate>> filters = {
      {Pred(1, Op::kGe, floe::spec::Literal::Long(2)), Pred(1, Op::kLt, floe::spec::Literal::Long(5000))},
      {Pred(1, Op::kEq, floe::spec::Literal::Long(7))},
      {Pred(3, Op::kIsNull)},
  };
  for (const auto& filter : filters) {
    auto file = floe::scan::ParquetDataFile::Open(floe::fuzz::LocalIO(), path, FixedWidthProjection(), filter,
                                                  &floe::fuzz::ParquetProjection());
    if (!file.ok()) return;
    for (int rg = 0; rg < (*file)->num_row_groups(); ++rg) {
      auto opened = (*file)->OpenRowGroup(rg, 1024, nullptr, /*matching_pages_only=*/true);
      if (!opened.ok() || !opened->cursor) continue;
      while (true) {
        auto batch = opened->cursor->Next();
        if (!batch.ok() || !*batch) break;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = floe::fuzz::WriteInput(data, size, "data.parquet");
  (void)floe::scan::ReadParquetFile(floe::fuzz::LocalIO(), path, floe::fuzz::ParquetProjection());
  ReadFiltered(path);
  return 0;
}
