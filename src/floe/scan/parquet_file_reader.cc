#include "floe/scan/parquet_file_reader.h"

#include <functional>

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/table.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include "floe/table/arrow_conform.h"
#include "floe/table/arrow_schema.h"

namespace floe::scan {

using table::FieldIdOf;

namespace {

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, out);
}

Result<std::shared_ptr<arrow::Table>> ReadImpl(FileIO& io, const std::string& location,
                                               const spec::Schema& projection) {
  ARROW_ASSIGN_OR_RAISE(auto input, io.OpenInputFile(location, FileKind::kData));
  // Page checksums, where the writer stored them (floe and parquet-java do), catch damage
  // that would otherwise decode into wrong values.
  parquet::ReaderProperties properties = parquet::default_reader_properties();
  properties.set_page_checksum_verification(true);
  parquet::arrow::FileReaderBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Open(input, properties));
  ARROW_ASSIGN_OR_RAISE(auto reader, builder.memory_pool(arrow::default_memory_pool())->Build());
  const auto& manifest = reader->manifest();
  const int64_t num_rows = reader->parquet_reader()->metadata()->num_rows();

  bool has_ids = false;
  for (const auto& f : manifest.schema_fields) has_ids |= FieldIdOf(*f.field) >= 0;

  ARROW_ASSIGN_OR_RAISE(auto read_schema, table::ToArrowSchema(projection));
  // For each projected column: the index of the file's top-level field, or -1.
  std::vector<int> file_field(projection.fields().size(), -1);
  std::vector<int> leaves;
  std::vector<int> selected_top;
  for (size_t i = 0; i < projection.fields().size(); ++i) {
    const auto& want = projection.fields()[i];
    for (size_t j = 0; j < manifest.schema_fields.size(); ++j) {
      const auto& f = manifest.schema_fields[j];
      bool match = has_ids ? FieldIdOf(*f.field) == want.id : f.field->name() == want.name;
      if (match) {
        file_field[i] = static_cast<int>(j);
        break;
      }
    }
    if (file_field[i] >= 0) {
      bool seen = false;
      for (int s : selected_top) seen |= s == file_field[i];
      if (!seen) {
        selected_top.push_back(file_field[i]);
        CollectLeaves(manifest.schema_fields[file_field[i]], &leaves);
      }
    }
  }
  std::shared_ptr<arrow::Table> raw;
  if (!leaves.empty()) {
    ARROW_RETURN_NOT_OK(reader->ReadTable(leaves, &raw));
  }
  arrow::ChunkedArrayVector columns;
  for (size_t i = 0; i < projection.fields().size(); ++i) {
    const auto& field = read_schema->field(static_cast<int>(i));
    if (file_field[i] < 0) {
      if (projection.fields()[i].required) {
        return Status::Invalid("Missing required field '", field->name(), "' (id ",
                               projection.fields()[i].id, ")");
      }
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(field->type(), num_rows));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
      continue;
    }
    // ReadTable returns the selected top-level fields in file order.
    const auto& file_name = manifest.schema_fields[file_field[i]].field->name();
    int raw_index = -1;
    for (int c = 0; c < raw->num_columns(); ++c) {
      if (raw->schema()->field(c)->name() == file_name &&
          FieldIdOf(*raw->schema()->field(c)) == FieldIdOf(*manifest.schema_fields[file_field[i]].field)) {
        raw_index = c;
        break;
      }
    }
    if (raw_index < 0) return Status::Invalid("Column '", file_name, "' missing after read");
    ARROW_ASSIGN_OR_RAISE(auto column, table::ConformChunkedArray(raw->column(raw_index), *field));
    columns.push_back(std::move(column));
  }
  return arrow::Table::Make(read_schema, std::move(columns), num_rows);
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ReadParquetFile(FileIO& io, const std::string& location,
                                                      const spec::Schema& projection) {
  Result<std::shared_ptr<arrow::Table>> result;
  try {
    result = ReadImpl(io, location, projection);
  } catch (const parquet::ParquetException& e) {
    result = Status::IOError(e.what());
  }
  if (!result.ok()) {
    const std::string& msg = result.status().message();
    if (msg.find(location) != std::string::npos) return result.status();
    return Status(result.status().code(), "Cannot read data file " + location + ": " + msg,
                  result.status().detail());
  }
  return result;
}

}  // namespace floe::scan
