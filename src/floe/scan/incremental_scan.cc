#include "floe/scan/incremental_scan.h"

#include <arrow/table.h>

#include "floe/scan/parquet_file_reader.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/incremental.h"

namespace floe::scan {

Result<std::shared_ptr<arrow::Table>> ReadAppendedRows(const table::Table& table,
                                                       std::optional<int64_t> from_exclusive,
                                                       std::optional<int64_t> to_inclusive) {
  ARROW_ASSIGN_OR_RAISE(auto files,
                        table::AppendedFilesBetween(table, from_exclusive, to_inclusive));
  spec::SchemaPtr schema = table.metadata()->current_schema();
  if (!schema) return Status::Invalid("Table ", table.name(), " has no schema");
  ARROW_ASSIGN_OR_RAISE(auto arrow_schema, table::ToArrowSchema(*schema));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const auto& f : files) {
    ARROW_ASSIGN_OR_RAISE(auto part, ReadParquetFile(*table.io(), f.file.file_path, *schema));
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return arrow::Table::MakeEmpty(arrow_schema);
  return arrow::ConcatenateTables(parts);
}

}  // namespace floe::scan
