#include "floe/scan/parquet_file_reader.h"

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/compute/api.h>
#include <arrow/table.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>

#include "floe/table/arrow_conform.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"

namespace floe::scan {

using table::FieldIdOf;

namespace {

using Op = ColumnPredicate::Op;

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, out);
}

parquet::ReaderProperties ReaderProperties() {
  // Page checksums, where the writer stored them (floe and parquet-java do), catch damage
  // that would otherwise decode into wrong values.
  parquet::ReaderProperties properties = parquet::default_reader_properties();
  properties.set_page_checksum_verification(true);
  return properties;
}

parquet::ArrowReaderProperties ArrowProperties() {
  parquet::ArrowReaderProperties properties = parquet::default_arrow_reader_properties();
  // Parallelism comes from decoding row groups side by side, never inside one.
  properties.set_use_threads(false);
  // One coalesced read per row group for the columns asked for.
  properties.set_pre_buffer(true);
  return properties;
}

const spec::NestedField* TopLevelField(const spec::Schema& schema, int32_t id) {
  for (const auto& f : schema.fields()) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// Runs `fn`, turning a Parquet exception into a Status.
template <typename Fn>
auto Guard(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const parquet::ParquetException& e) {
    return Status::IOError(e.what());
  }
}

}  // namespace

Status ParquetDataFile::WithLocation(const Status& status) const {
  if (status.ok() || status.message().find(location_) != std::string::npos) return status;
  return Status(status.code(), "Cannot read data file " + location_ + ": " + status.message(), status.detail());
}

Result<std::shared_ptr<ParquetDataFile>> ParquetDataFile::Open(FileIO& io, const std::string& location,
                                                               spec::SchemaPtr projection,
                                                               const std::vector<ColumnPredicate>& predicates,
                                                               const spec::Schema* schema) {
  std::shared_ptr<ParquetDataFile> file(new ParquetDataFile());
  file->location_ = location;
  file->projection_ = std::move(projection);
  Status st = Guard([&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(file->input_, io.OpenInputFile(location, FileKind::kData));
    auto parquet_reader = parquet::ParquetFileReader::Open(file->input_, ReaderProperties());
    file->metadata_ = parquet_reader->metadata();
    std::unique_ptr<parquet::arrow::FileReader> reader;
    ARROW_RETURN_NOT_OK(parquet::arrow::FileReader::Make(arrow::default_memory_pool(), std::move(parquet_reader),
                                                         ArrowProperties(), &reader));
    const auto& manifest = reader->manifest();
    const auto& fields = file->projection_->fields();

    bool has_ids = false;
    for (const auto& f : manifest.schema_fields) has_ids |= FieldIdOf(*f.field) >= 0;
    auto find = [&](const spec::NestedField& want) {
      for (size_t j = 0; j < manifest.schema_fields.size(); ++j) {
        const auto& f = manifest.schema_fields[j];
        if (has_ids ? FieldIdOf(*f.field) == want.id : f.field->name() == want.name) return static_cast<int>(j);
      }
      return -1;
    };

    ARROW_ASSIGN_OR_RAISE(file->read_schema_, table::ToArrowSchema(*file->projection_));
    file->file_field_.assign(fields.size(), -1);
    file->leaves_.assign(fields.size(), {});
    for (size_t i = 0; i < fields.size(); ++i) {
      file->file_field_[i] = find(fields[i]);
      if (file->file_field_[i] >= 0) {
        CollectLeaves(manifest.schema_fields[file->file_field_[i]], &file->leaves_[i]);
      } else if (fields[i].required) {
        return Status::Invalid("Missing required field '", fields[i].name, "' (id ", fields[i].id, ")");
      }
    }

    for (const auto& p : predicates) {
      const spec::NestedField* field = TopLevelField(*file->projection_, p.field_id);
      if (!field && schema) field = TopLevelField(*schema, p.field_id);
      if (!field || !field->type->is_primitive()) continue;
      int top = find(*field);
      if (top < 0 || !manifest.schema_fields[top].is_leaf()) continue;
      int column = manifest.schema_fields[top].column_index;
      const parquet::ColumnDescriptor* descr = file->metadata_->schema()->Column(column);
      if (descr->max_repetition_level() > 0) continue;
      file->bound_.push_back({p, column, descr});
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].id == p.field_id && PredicateCanPrune(p)) {
          file->filter_.emplace_back(static_cast<int>(i), p);
        }
      }
    }
    return Status::OK();
  });
  ARROW_RETURN_NOT_OK(file->WithLocation(st));
  return file;
}

int ParquetDataFile::num_row_groups() const { return metadata_->num_row_groups(); }

const std::shared_ptr<arrow::Schema>& ParquetDataFile::read_schema() const { return read_schema_; }

bool ParquetDataFile::StatsMayMatch(int row_group) const {
  if (bound_.empty()) return true;
  try {
    return RowGroupStatsMayMatch(*metadata_, row_group, bound_);
  } catch (const parquet::ParquetException&) {
    return true;  // damaged statistics: read the row group and let decoding report it
  }
}

Result<ParquetDataFile::RowGroup> ParquetDataFile::ReadRowGroup(int row_group,
                                                                const std::atomic<bool>* cancel) const {
  auto result = Guard([&]() { return ReadRowGroupImpl(row_group, cancel); });
  if (!result.ok()) return WithLocation(result.status());
  return result;
}

Status ParquetDataFile::ReadFieldsInto(parquet::arrow::FileReader& reader, int row_group,
                                       const std::vector<int>& projected,
                                       arrow::ChunkedArrayVector* columns) const {
  std::vector<int> leaves;
  for (int i : projected) leaves.insert(leaves.end(), leaves_[i].begin(), leaves_[i].end());
  if (leaves.empty()) return Status::OK();
  std::shared_ptr<arrow::Table> raw;
  ARROW_RETURN_NOT_OK(reader.ReadRowGroup(row_group, leaves, &raw));
  const auto& manifest = reader.manifest();
  for (int i : projected) {
    // ReadRowGroup returns the selected top-level fields in file order.
    const auto& file_field = *manifest.schema_fields[file_field_[i]].field;
    int raw_index = -1;
    for (int c = 0; c < raw->num_columns(); ++c) {
      const auto& f = *raw->schema()->field(c);
      if (f.name() == file_field.name() && FieldIdOf(f) == FieldIdOf(file_field)) {
        raw_index = c;
        break;
      }
    }
    if (raw_index < 0) return Status::Invalid("Column '", file_field.name(), "' missing after read");
    ARROW_ASSIGN_OR_RAISE((*columns)[i], table::ConformChunkedArray(raw->column(raw_index), *read_schema_->field(i)));
  }
  return Status::OK();
}

Result<bool> ParquetDataFile::FilterColumnsMayMatch(const arrow::ChunkedArrayVector& columns) const {
  namespace cp = arrow::compute;
  // The comparison kernels live in Arrow's compute library, registered once per process.
  static const bool kComputeRegistered = cp::Initialize().ok();
  if (!kComputeRegistered) return true;
  arrow::Datum mask;
  for (const auto& [i, p] : filter_) {
    arrow::Datum column(columns[i]);
    arrow::Result<arrow::Datum> r;
    if (p.op == Op::kIsNull) {
      r = cp::CallFunction("is_null", {column});
    } else if (p.op == Op::kNotNull) {
      r = cp::CallFunction("is_valid", {column});
    } else {
      auto scalar = table::LiteralToScalar(p.value);
      if (!scalar.ok() || !(*scalar)->type->Equals(*columns[i]->type())) continue;
      static const char* kNames[] = {"equal", "less", "less_equal", "greater", "greater_equal"};
      r = cp::CallFunction(kNames[static_cast<int>(p.op)], {column, arrow::Datum(*scalar)});
    }
    if (!r.ok()) continue;  // cannot evaluate: no pruning from this predicate
    if (mask.is_value()) {
      auto both = cp::CallFunction("and_kleene", {mask, *r});
      if (!both.ok()) return true;
      mask = *both;
    } else {
      mask = *r;
    }
  }
  if (!mask.is_value()) return true;
  // A null comparison is not a match; an empty or all-null mask has none.
  auto any = cp::Any(mask, cp::ScalarAggregateOptions(/*skip_nulls=*/true, /*min_count=*/0));
  if (!any.ok()) return true;
  const auto& scalar = static_cast<const arrow::BooleanScalar&>(*any->scalar());
  return !scalar.is_valid || scalar.value;
}

Result<ParquetDataFile::RowGroup> ParquetDataFile::ReadRowGroupImpl(int row_group,
                                                                    const std::atomic<bool>* cancel) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::IndexError("Row group ", row_group, " out of range");
  }
  // A reader per call over the shared footer: readers are not safe to share across threads.
  auto parquet_reader = parquet::ParquetFileReader::Open(input_, ReaderProperties(), metadata_);
  std::unique_ptr<parquet::arrow::FileReader> reader;
  ARROW_RETURN_NOT_OK(parquet::arrow::FileReader::Make(arrow::default_memory_pool(), std::move(parquet_reader),
                                                       ArrowProperties(), &reader));
  RowGroup out;
  if (!bound_.empty()) {
    if (!BloomFiltersMayMatch(*reader->parquet_reader(), row_group, bound_)) {
      out.outcome = Outcome::kSkippedByBloomFilter;
      return out;
    }
    if (!PageIndexMayMatch(*reader->parquet_reader(), row_group, bound_)) {
      out.outcome = Outcome::kSkippedByPageIndex;
      return out;
    }
  }
  const size_t n = projection_->fields().size();
  const int64_t rows = metadata_->RowGroup(row_group)->num_rows();
  arrow::ChunkedArrayVector columns(n);
  std::vector<bool> decoded(n, false);
  if (!filter_.empty()) {
    std::vector<int> first;
    for (const auto& [i, p] : filter_) {
      if (!decoded[i]) first.push_back(i);
      decoded[i] = true;
    }
    ARROW_RETURN_NOT_OK(ReadFieldsInto(*reader, row_group, first, &columns));
    ARROW_ASSIGN_OR_RAISE(bool may_match, FilterColumnsMayMatch(columns));
    if (!may_match) {
      out.outcome = Outcome::kSkippedByFilterColumns;
      return out;
    }
    if (cancel && cancel->load()) return out;
  }
  std::vector<int> rest;
  for (size_t i = 0; i < n; ++i) {
    if (!decoded[i] && file_field_[i] >= 0) rest.push_back(static_cast<int>(i));
  }
  ARROW_RETURN_NOT_OK(ReadFieldsInto(*reader, row_group, rest, &columns));
  for (size_t i = 0; i < n; ++i) {
    if (columns[i]) continue;
    ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(read_schema_->field(static_cast<int>(i))->type(), rows));
    columns[i] = std::make_shared<arrow::ChunkedArray>(nulls);
  }
  out.rows = arrow::Table::Make(read_schema_, std::move(columns), rows);
  return out;
}

Result<std::shared_ptr<arrow::Table>> ReadParquetFile(FileIO& io, const std::string& location,
                                                      const spec::Schema& projection) {
  ARROW_ASSIGN_OR_RAISE(auto file,
                        ParquetDataFile::Open(io, location, std::make_shared<const spec::Schema>(projection)));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (int rg = 0; rg < file->num_row_groups(); ++rg) {
    ARROW_ASSIGN_OR_RAISE(auto part, file->ReadRowGroup(rg));
    parts.push_back(std::move(part.rows));
  }
  if (parts.empty()) return arrow::Table::MakeEmpty(file->read_schema());
  return arrow::ConcatenateTables(parts);
}

}  // namespace floe::scan
