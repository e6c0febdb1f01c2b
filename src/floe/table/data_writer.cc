#include "floe/table/data_writer.h"

#include <algorithm>
#include <cmath>

#include <arrow/compute/api.h>
#include <arrow/io/interfaces.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/compression.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>
#include <parquet/statistics.h>

#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"
#include "floe/util/ascii.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {

Result<arrow::Compression::type> ParseCodec(const std::string& name) {
  const std::string lower = AsciiLower(name);
  if (lower == "zstd") return arrow::Compression::ZSTD;
  if (lower == "snappy") return arrow::Compression::SNAPPY;
  if (lower == "gzip") return arrow::Compression::GZIP;
  if (lower == "lz4") return arrow::Compression::LZ4;
  if (lower == "brotli") return arrow::Compression::BROTLI;
  if (lower == "uncompressed" || lower == "none") return arrow::Compression::UNCOMPRESSED;
  return ValidationError("Unsupported Parquet compression codec: ", name);
}

// UTF-8 code point boundaries of `s`.
std::vector<size_t> CodePointStarts(const std::string& s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  return starts;
}

uint32_t DecodeCodePoint(const std::string& s, size_t pos, size_t end) {
  auto c = static_cast<unsigned char>(s[pos]);
  size_t len = end - pos;
  if (len == 1) return c;
  uint32_t cp = c & (0xFF >> (len + 1));
  for (size_t i = pos + 1; i < end; ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  return cp;
}

std::string EncodeCodePoint(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return out;
}

}  // namespace

Result<MetricsMode> MetricsMode::Parse(const std::string& text) {
  MetricsMode mode;
  if (text == "none") {
    mode.kind = kNone;
  } else if (text == "counts") {
    mode.kind = kCounts;
  } else if (text == "full") {
    mode.kind = kFull;
  } else if (text.rfind("truncate(", 0) == 0 && text.size() > 10 && text.back() == ')') {
    mode.kind = kTruncate;
    auto length = ParseInt32(std::string_view(text).substr(9, text.size() - 10));
    if (!length) return ValidationError("Invalid metrics mode: ", text);
    mode.length = *length;
    if (mode.length <= 0) return ValidationError("Truncate length should be positive: ", text);
  } else {
    return ValidationError("Invalid metrics mode: ", text);
  }
  return mode;
}

Result<DataWriterOptions> DataWriterOptions::FromProperties(
    const std::map<std::string, std::string>& props) {
  DataWriterOptions options;
  auto get = [&](const char* key) -> const std::string* {
    auto it = props.find(key);
    return it == props.end() ? nullptr : &it->second;
  };
  if (auto* v = get("write.parquet.compression-codec")) options.compression = *v;
  ARROW_RETURN_NOT_OK(ParseCodec(options.compression).status());
  if (auto* v = get("write.parquet.compression-level")) {
    auto level = ParseInt32(*v);
    if (!level) return ValidationError("Invalid value for write.parquet.compression-level: '", *v, "'");
    options.compression_level = *level;
  }
  if (auto* v = get("write.parquet.page-size-bytes")) {
    auto bytes = ParseInt64(*v);
    if (!bytes || *bytes <= 0) return ValidationError("Invalid value for write.parquet.page-size-bytes: '", *v, "'");
    options.page_size_bytes = *bytes;
  }
  if (auto* v = get("write.parquet.row-group-size-bytes")) {
    auto bytes = ParseInt64(*v);
    if (!bytes || *bytes <= 0) return ValidationError("Invalid value for write.parquet.row-group-size-bytes: '", *v, "'");
    options.row_group_bytes = *bytes;
  }
  if (auto* v = get("write.metadata.metrics.default")) {
    ARROW_ASSIGN_OR_RAISE(options.metrics, MetricsMode::Parse(*v));
  }
  return options;
}

std::string TruncateStringLower(const std::string& value, int32_t length) {
  auto starts = CodePointStarts(value);
  if (starts.size() <= static_cast<size_t>(length)) return value;
  return value.substr(0, starts[length]);
}

std::optional<std::string> TruncateStringUpper(const std::string& value, int32_t length) {
  auto starts = CodePointStarts(value);
  if (starts.size() <= static_cast<size_t>(length)) return value;
  // Increment the last code point that can be incremented; drop the ones after it.
  for (int32_t i = length - 1; i >= 0; --i) {
    size_t end = static_cast<size_t>(i + 1) < starts.size() ? starts[i + 1] : value.size();
    uint32_t cp = DecodeCodePoint(value, starts[i], end);
    uint32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next <= 0x10FFFF) return value.substr(0, starts[i]) + EncodeCodePoint(next);
  }
  return std::nullopt;
}

std::string TruncateBinaryLower(const std::string& value, int32_t length) {
  return value.size() <= static_cast<size_t>(length) ? value : value.substr(0, length);
}

std::optional<std::string> TruncateBinaryUpper(const std::string& value, int32_t length) {
  if (value.size() <= static_cast<size_t>(length)) return value;
  std::string out = value.substr(0, length);
  while (!out.empty()) {
    auto last = static_cast<unsigned char>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

namespace {

struct LeafMetrics {
  int64_t size = 0;
  int64_t values = 0;
  int64_t nulls = 0;
  bool nulls_known = true;
  bool bounds_ok = true;
  std::shared_ptr<arrow::Scalar> min;
  std::shared_ptr<arrow::Scalar> max;
};

bool ScalarLess(const arrow::Scalar& a, const arrow::Scalar& b, const spec::TypePtr& type) {
  auto la = LiteralFromScalar(a, type);
  auto lb = LiteralFromScalar(b, type);
  if (!la.ok() || !lb.ok()) return false;
  return la->Compare(*lb) < 0;
}

// Adds the NaN count of each top-level float and double column of `columns` to `counts`.
Status AddNaNCounts(const arrow::Schema& arrow_schema, const std::vector<arrow::Datum>& columns,
                    std::map<int32_t, int64_t>* counts) {
  for (int i = 0; i < arrow_schema.num_fields(); ++i) {
    const auto& field = arrow_schema.field(i);
    auto tid = field->type()->id();
    if (tid != arrow::Type::FLOAT && tid != arrow::Type::DOUBLE) continue;
    int32_t id = FieldIdOf(*field);
    if (id < 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto is_nan, arrow::compute::CallFunction("is_nan", {columns[i]}));
    ARROW_ASSIGN_OR_RAISE(auto count, arrow::compute::Sum(is_nan));
    const auto& sum = static_cast<const arrow::UInt64Scalar&>(*count.scalar());
    (*counts)[id] += sum.is_valid ? static_cast<int64_t>(sum.value) : 0;
  }
  return Status::OK();
}

Status CollectMetrics(const parquet::FileMetaData& md, const std::map<int32_t, int64_t>& nan_counts,
                      const spec::Schema& schema, const MetricsMode& mode,
                      manifest::DataFile* file) {
  const parquet::SchemaDescriptor* descr = md.schema();
  std::map<int32_t, LeafMetrics> leaves;
  std::map<int32_t, const parquet::ColumnDescriptor*> columns;
  for (int rg = 0; rg < md.num_row_groups(); ++rg) {
    auto row_group = md.RowGroup(rg);
    if (row_group->num_columns() > 0) {
      auto first = row_group->ColumnChunk(0);
      int64_t start = first->has_dictionary_page() && first->dictionary_page_offset() > 0
                          ? std::min(first->dictionary_page_offset(), first->data_page_offset())
                          : first->data_page_offset();
      file->split_offsets.push_back(start);
    }
    for (int c = 0; c < row_group->num_columns(); ++c) {
      const parquet::ColumnDescriptor* column = descr->Column(c);
      int32_t field_id = column->schema_node()->field_id();
      if (field_id < 0) continue;
      columns[field_id] = column;
      auto chunk = row_group->ColumnChunk(c);
      LeafMetrics& m = leaves[field_id];
      m.size += chunk->total_compressed_size();
      m.values += chunk->num_values();
      auto stats = chunk->statistics();
      if (!stats || !stats->HasNullCount()) {
        m.nulls_known = false;
      } else {
        m.nulls += stats->null_count();
      }
      const spec::NestedField* field = schema.FindFieldById(field_id);
      if (!field || !field->type->is_primitive() || column->max_repetition_level() > 0) {
        m.bounds_ok = false;
        continue;
      }
      if (!stats || !stats->HasMinMax()) {
        // A chunk of only nulls has no bounds and does not widen them.
        if (!stats || stats->null_count() != chunk->num_values()) m.bounds_ok = false;
        continue;
      }
      std::shared_ptr<arrow::Scalar> lo, hi;
      if (!parquet::arrow::StatisticsAsScalars(*stats, &lo, &hi).ok()) {
        m.bounds_ok = false;
        continue;
      }
      if (!m.min || ScalarLess(*lo, *m.min, field->type)) m.min = lo;
      if (!m.max || ScalarLess(*m.max, *hi, field->type)) m.max = hi;
    }
  }
  if (mode.kind == MetricsMode::kNone) return Status::OK();
  for (auto& [id, m] : leaves) {
    file->column_sizes[id] = m.size;
    file->value_counts[id] = m.values;
    if (m.nulls_known) file->null_value_counts[id] = m.nulls;
    if (mode.kind == MetricsMode::kCounts || !m.bounds_ok || !m.min || !m.max) continue;
    const spec::NestedField* field = schema.FindFieldById(id);
    auto lo = LiteralFromScalar(*m.min, field->type);
    auto hi = LiteralFromScalar(*m.max, field->type);
    if (!lo.ok() || !hi.ok()) continue;
    std::string lower = spec::ToSingleValueBinary(*lo);
    std::optional<std::string> upper = spec::ToSingleValueBinary(*hi);
    if (mode.kind == MetricsMode::kTruncate) {
      if (field->type->id() == spec::TypeId::kString) {
        lower = TruncateStringLower(lower, mode.length);
        upper = TruncateStringUpper(*upper, mode.length);
      } else if (field->type->id() == spec::TypeId::kBinary) {
        lower = TruncateBinaryLower(lower, mode.length);
        upper = TruncateBinaryUpper(*upper, mode.length);
      }
    }
    file->lower_bounds[id] = std::move(lower);
    if (upper) file->upper_bounds[id] = std::move(*upper);
  }
  // NaN counts for top-level float and double columns; Parquet statistics do not have them.
  for (const auto& [id, count] : nan_counts) file->nan_value_counts[id] = count;
  return Status::OK();
}

Result<std::shared_ptr<parquet::WriterProperties>> MakeWriterProperties(const DataWriterOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto codec, ParseCodec(options.compression));
  parquet::WriterProperties::Builder builder;
  builder.compression(codec)->data_pagesize(options.page_size_bytes)
      ->max_row_group_length(options.row_group_rows)->enable_statistics()
      ->enable_page_checksum();
  if (options.compression_level) builder.compression_level(*options.compression_level);
  return builder.build();
}

}  // namespace

Result<manifest::DataFile> WriteParquetDataFile(FileIO& io, const std::string& location,
                                                const arrow::Table& data,
                                                const spec::Schema& schema,
                                                const DataWriterOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto properties, MakeWriterProperties(options));
  ARROW_ASSIGN_OR_RAISE(auto sink, io.OpenOutputStream(location, FileKind::kData));
  std::shared_ptr<parquet::FileMetaData> metadata;
  try {
    ARROW_ASSIGN_OR_RAISE(auto writer,
                          parquet::arrow::FileWriter::Open(*data.schema(), arrow::default_memory_pool(),
                                                           sink, properties));
    ARROW_RETURN_NOT_OK(writer->WriteTable(data, options.row_group_rows));
    ARROW_RETURN_NOT_OK(writer->Close());
    metadata = writer->metadata();
  } catch (const parquet::ParquetException& e) {
    return Status::IOError("Cannot write Parquet file ", location, ": ", e.what());
  }
  ARROW_ASSIGN_OR_RAISE(int64_t size, sink->Tell());
  ARROW_RETURN_NOT_OK(sink->Close());

  manifest::DataFile file;
  file.content = manifest::FileContent::kData;
  file.file_path = location;
  file.file_format = "PARQUET";
  file.record_count = data.num_rows();
  file.file_size_in_bytes = size;
  try {
    std::map<int32_t, int64_t> nan_counts;
    std::vector<arrow::Datum> columns(data.columns().begin(), data.columns().end());
    Status metrics = AddNaNCounts(*data.schema(), columns, &nan_counts);
    if (metrics.ok()) metrics = CollectMetrics(*metadata, nan_counts, schema, options.metrics, &file);
    if (!metrics.ok()) {
      (void)io.DeleteFile(location, FileKind::kData);
      return metrics;
    }
  } catch (const parquet::ParquetException& e) {
    (void)io.DeleteFile(location, FileKind::kData);
    return Status::IOError("Cannot collect metrics of Parquet file ", location, ": ", e.what());
  }
  return file;
}

Result<std::unique_ptr<ParquetDataFileWriter>> ParquetDataFileWriter::Open(
    FileIO& io, std::string location, std::shared_ptr<arrow::Schema> arrow_schema,
    const spec::Schema& schema, const DataWriterOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto properties, MakeWriterProperties(options));
  std::unique_ptr<ParquetDataFileWriter> w(new ParquetDataFileWriter());
  w->io_ = &io;
  w->location_ = std::move(location);
  w->schema_ = &schema;
  w->options_ = options;
  w->row_group_bytes_ = options.row_group_bytes;
  ARROW_ASSIGN_OR_RAISE(w->sink_, io.OpenOutputStream(w->location_, FileKind::kData));
  try {
    ARROW_ASSIGN_OR_RAISE(w->writer_, parquet::arrow::FileWriter::Open(*arrow_schema, arrow::default_memory_pool(),
                                                                       w->sink_, properties));
  } catch (const parquet::ParquetException& e) {
    return Status::IOError("Cannot write Parquet file ", w->location_, ": ", e.what());
  }
  // Every float and double column gets a NaN count, zero when it has none.
  for (const auto& field : arrow_schema->fields()) {
    auto tid = field->type()->id();
    int32_t id = FieldIdOf(*field);
    if ((tid == arrow::Type::FLOAT || tid == arrow::Type::DOUBLE) && id >= 0) w->nan_counts_[id] = 0;
  }
  return w;
}

ParquetDataFileWriter::~ParquetDataFileWriter() {
  if (!done_) Abort();
}

Status ParquetDataFileWriter::FlushRowGroup() {
  try {
    ARROW_RETURN_NOT_OK(writer_->NewBufferedRowGroup());
  } catch (const parquet::ParquetException& e) {
    return Status::IOError("Cannot write Parquet file ", location_, ": ", e.what());
  }
  flushed_bytes_ += group_bytes_;
  group_rows_ = 0;
  group_bytes_ = 0;
  flush_pending_ = false;
  return Status::OK();
}

Status ParquetDataFileWriter::CountNaNs(const arrow::RecordBatch& batch) {
  std::vector<arrow::Datum> columns;
  for (const auto& column : batch.columns()) columns.emplace_back(column);
  return AddNaNCounts(*batch.schema(), columns, &nan_counts_);
}

Status ParquetDataFileWriter::Write(const arrow::RecordBatch& batch) {
  if (done_) return Status::Invalid("Parquet file ", location_, " is already closed");
  const int64_t n = batch.num_rows();
  if (n == 0) return Status::OK();
  auto referenced = arrow::util::ReferencedBufferSize(batch);
  const double bytes_per_row =
      static_cast<double>(referenced.ok() ? *referenced : arrow::util::TotalBufferSize(batch)) /
      static_cast<double>(n);
  int64_t offset = 0;
  while (offset < n) {
    if (flush_pending_) ARROW_RETURN_NOT_OK(FlushRowGroup());
    // Slices never cross a row group boundary, so the buffered row group is known exactly.
    int64_t take = std::min(n - offset, options_.row_group_rows - group_rows_);
    if (bytes_per_row > 0) {
      const double room = static_cast<double>(row_group_bytes_ - group_bytes_) / bytes_per_row;
      take = std::max<int64_t>(1, std::min(take, static_cast<int64_t>(std::ceil(room))));
    }
    auto slice = batch.Slice(offset, take);
    try {
      ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(*slice));
    } catch (const parquet::ParquetException& e) {
      return Status::IOError("Cannot write Parquet file ", location_, ": ", e.what());
    }
    offset += take;
    group_rows_ += take;
    group_bytes_ += static_cast<int64_t>(bytes_per_row * static_cast<double>(take));
    // The flush waits for the next rows so a file never ends with an empty row group.
    if (group_rows_ >= options_.row_group_rows || group_bytes_ >= row_group_bytes_) flush_pending_ = true;
  }
  rows_ += n;
  return CountNaNs(batch);
}

Status ParquetDataFileWriter::Write(const arrow::Table& rows) {
  arrow::TableBatchReader reader(rows);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) return Status::OK();
    ARROW_RETURN_NOT_OK(Write(*batch));
  }
}

int64_t ParquetDataFileWriter::EstimatedSize() const {
  auto told = sink_ ? sink_->Tell() : Result<int64_t>(int64_t{0});
  const int64_t written = told.ok() ? *told : 0;
  double ratio = 1.0;
  if (flushed_bytes_ > 0 && written > 0) ratio = static_cast<double>(written) / static_cast<double>(flushed_bytes_);
  return written + static_cast<int64_t>(ratio * static_cast<double>(group_bytes_));
}

Result<manifest::DataFile> ParquetDataFileWriter::Close() {
  if (done_) return Status::Invalid("Parquet file ", location_, " is already closed");
  std::shared_ptr<parquet::FileMetaData> metadata;
  Status st;
  try {
    st = writer_->Close();
    if (st.ok()) metadata = writer_->metadata();
  } catch (const parquet::ParquetException& e) {
    st = Status::IOError("Cannot write Parquet file ", location_, ": ", e.what());
  }
  if (!st.ok()) {
    Abort();
    return st;
  }
  auto size = sink_->Tell();
  if (!size.ok()) {
    Abort();
    return size.status();
  }
  // A failed Close() of the stream deletes the file itself.
  done_ = true;
  writer_.reset();
  Status closed = sink_->Close();
  sink_.reset();
  if (!closed.ok()) return closed;

  manifest::DataFile file;
  file.content = manifest::FileContent::kData;
  file.file_path = location_;
  file.file_format = "PARQUET";
  file.record_count = rows_;
  file.file_size_in_bytes = *size;
  Status metrics;
  try {
    metrics = CollectMetrics(*metadata, nan_counts_, *schema_, options_.metrics, &file);
  } catch (const parquet::ParquetException& e) {
    metrics = Status::IOError("Cannot collect metrics of Parquet file ", location_, ": ", e.what());
  }
  if (!metrics.ok()) {
    (void)io_->DeleteFile(location_, FileKind::kData);
    return metrics;
  }
  return file;
}

void ParquetDataFileWriter::Abort() {
  if (done_) return;
  done_ = true;
  // Abort the stream first: the Parquet writer's destructor then cannot finish the file.
  if (sink_) (void)sink_->Abort();
  try {
    writer_.reset();
  } catch (...) {
  }
  sink_.reset();
  (void)io_->DeleteFile(location_, FileKind::kData);
}

}  // namespace floe::table
