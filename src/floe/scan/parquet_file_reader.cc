#include "floe/scan/parquet_file_reader.h"

#include "floe/util/memory_limit.h"

#include <algorithm>
#include <functional>

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/compute/api.h>
#include <arrow/io/memory.h>
#include <arrow/table.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/column_reader.h>
#include <parquet/level_conversion.h>
#include <parquet/page_index.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>

#include "floe/io/object_store.h"
#include "floe/io/prefetched_file.h"
#include "floe/scan/footer_cache.h"
#include "floe/spec/literal_json.h"
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

parquet::ArrowReaderProperties ArrowProperties(int64_t batch_rows = 0) {
  parquet::ArrowReaderProperties properties = parquet::default_arrow_reader_properties();
  if (batch_rows > 0) properties.set_batch_size(batch_rows);
  // Parallelism comes from decoding row groups side by side, never inside one.
  properties.set_use_threads(false);
  // One coalesced read per row group for the columns asked for.
  properties.set_pre_buffer(true);
  return properties;
}

// Whether a leaf of this physical type reads into this Arrow type value for value, with no
// conversion: then its pages can be decoded straight into the Arrow array.
bool ReadsAsIs(parquet::Type::type physical, const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      return physical == parquet::Type::INT32;
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::TIME64:
      return physical == parquet::Type::INT64;
    case arrow::Type::FLOAT:
      return physical == parquet::Type::FLOAT;
    case arrow::Type::DOUBLE:
      return physical == parquet::Type::DOUBLE;
    default:
      return false;
  }
}

// The values of rows `ranges` of a flat fixed-width leaf column of a row group of `rows`
// rows, decoding only the pages that hold them: the others are passed over undecompressed.
Result<std::shared_ptr<arrow::Array>> ReadRowRanges(parquet::RowGroupReader& group, int leaf,
                                                    const std::shared_ptr<arrow::DataType>& type,
                                                    const std::vector<parquet::PageLocation>& pages, int64_t rows,
                                                    const RowRanges& ranges, arrow::MemoryPool* pool) {
  const parquet::ColumnDescriptor* descr = group.metadata()->schema()->Column(leaf);
  const size_t n = pages.size();
  auto first_row = [&](size_t k) { return k < n ? pages[k].first_row_index : rows; };
  // Pages that hold a row of `ranges`, and how many rows the pages kept before each hold.
  std::vector<bool> keep(n, false);
  std::vector<int64_t> kept_before(n + 1, 0);
  size_t r = 0;
  for (size_t k = 0; k < n; ++k) {
    while (r < ranges.size() && ranges[r].second <= first_row(k)) ++r;
    keep[k] = r < ranges.size() && ranges[r].first < first_row(k + 1);
    kept_before[k + 1] = kept_before[k] + (keep[k] ? first_row(k + 1) - first_row(k) : 0);
  }
  // Where row `row`, of a page kept, is among the rows the kept pages decode to.
  auto at = [&](int64_t row) {
    size_t k = static_cast<size_t>(std::upper_bound(pages.begin(), pages.end(), row,
                                                    [](int64_t v, const parquet::PageLocation& p) {
                                                      return v < p.first_row_index;
                                                    }) -
                                   pages.begin());
    k = k == 0 ? 0 : k - 1;
    return kept_before[k] + (row - first_row(k));
  };
  auto page_reader = group.GetColumnPageReader(leaf);
  page_reader->set_data_page_filter([keep, k = size_t{0}](const parquet::DataPageStats&) mutable {
    const bool skip = k < keep.size() && !keep[k];
    ++k;
    return skip;
  });
  auto reader = parquet::internal::RecordReader::Make(descr, parquet::internal::LevelInfo::ComputeLevelInfo(descr),
                                                      pool, /*read_dictionary=*/false, /*read_dense_for_nullable=*/false);
  reader->SetPageReader(std::move(page_reader));
  int64_t wanted = 0;
  for (const auto& [begin, end] : ranges) wanted += end - begin;
  reader->Reserve(wanted);
  int64_t position = 0;  // among the rows of the pages kept
  for (const auto& [begin, end] : ranges) {
    const int64_t skip = at(begin) - position;
    if (skip > 0 && reader->SkipRecords(skip) != skip) {
      return Status::IOError("Column '", descr->path()->ToDotString(), "' holds fewer rows than its offset index says");
    }
    for (int64_t got = 0; got < end - begin;) {
      const int64_t read = reader->ReadRecords(end - begin - got);
      if (read == 0) {
        return Status::IOError("Column '", descr->path()->ToDotString(), "' holds fewer rows than its offset index says");
      }
      got += read;
    }
    position = at(begin) + (end - begin);
  }
  if (reader->values_written() != wanted) {
    return Status::IOError("Column '", descr->path()->ToDotString(), "' decoded ", reader->values_written(),
                           " values for ", wanted, " rows");
  }
  std::shared_ptr<arrow::Buffer> validity;
  int64_t nulls = 0;
  if (reader->nullable_values()) {
    nulls = reader->null_count();
    validity = reader->ReleaseIsValid();
    if (nulls == 0) validity.reset();
  }
  return arrow::MakeArray(arrow::ArrayData::Make(type, wanted, {std::move(validity), reader->ReleaseValues()}, nulls));
}

const spec::NestedField* TopLevelField(const spec::Schema& schema, int32_t id) {
  for (const auto& f : schema.fields()) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// A column of `rows` nulls for a field the file does not have. The row count comes from the
// footer alone, so it is not trusted to size one allocation: the column repeats one null
// array of at most kNullChunkRows rows, and memory stays the same for any row count.
constexpr int64_t kNullChunkRows = 64 * 1024;

// `rows` rows of `chunk`'s one value, as `chunk` (at most kNullChunkRows long) repeated.
Result<std::shared_ptr<arrow::ChunkedArray>> Repeated(const std::shared_ptr<arrow::Array>& chunk, int64_t rows) {
  arrow::ArrayVector chunks;
  for (int64_t left = rows; left > 0; left -= chunk->length()) {
    chunks.push_back(left >= chunk->length() ? chunk : chunk->Slice(0, left));
  }
  return std::make_shared<arrow::ChunkedArray>(std::move(chunks), chunk->type());
}

Result<std::shared_ptr<arrow::ChunkedArray>> NullColumn(const std::shared_ptr<arrow::DataType>& type, int64_t rows) {
  if (rows < 0) return Status::Invalid("negative row count ", rows);
  ARROW_ASSIGN_OR_RAISE(auto chunk, arrow::MakeArrayOfNull(type, std::min(rows, kNullChunkRows)));
  return Repeated(chunk, rows);
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

namespace {

Status NameFile(const std::string& location, const Status& status) {
  if (status.ok() || status.message().find(location) != std::string::npos) return status;
  return Status(status.code(), "Cannot read data file " + location + ": " + status.message(), status.detail());
}

}  // namespace

Status ParquetDataFile::WithLocation(const Status& status) const { return NameFile(location_, status); }

Result<std::shared_ptr<ParquetDataFile>> ParquetDataFile::Open(FileIO& io, const std::string& location,
                                                               spec::SchemaPtr projection,
                                                               const std::vector<ColumnPredicate>& predicates,
                                                               const spec::Schema* schema,
                                                               std::optional<int64_t> size) {
  std::shared_ptr<ParquetDataFile> file(new ParquetDataFile());
  file->location_ = location;
  file->projection_ = std::move(projection);
  Status st = Guard([&]() -> Status {
    std::shared_ptr<const CachedFooter> footer;
    if (size && *size <= kWholeFileBytes) {
      // Footer and columns in one request, where reading them apart takes two or more in a row.
      ARROW_ASSIGN_OR_RAISE(auto bytes, io.ReadFile(location, FileKind::kData, size));
      file->input_ = std::make_shared<arrow::io::BufferReader>(std::move(bytes));
    } else {
      ARROW_ASSIGN_OR_RAISE(file->input_, io.OpenInputFile(location, FileKind::kData, size));
      file->prefetchable_ = IsObjectStoreLocation(location);
      if (file->prefetchable_ && size) {
        footer = FindFooter(location, *size);
        if (footer && footer->index_bytes) {
          file->input_ = std::make_shared<PrefetchedFile>(file->input_, footer->index_range, footer->index_bytes);
          file->tail_ = footer->index_range;
        } else if (!footer) {
          // The footer's bytes, and with a filter the page indexes writers put just before
          // it, in one request that later reads of them find in memory. Read here, on the
          // thread opening the file (a read pool thread, which must not wait for its own pool).
          const int64_t tail = std::min(*size, predicates.empty() ? kFooterTailBytes : kIndexedTailBytes);
          if (file->HoldRange({*size - tail, tail})) file->tail_ = {*size - tail, tail};
        }
      }
    }
    auto parquet_reader = footer ? parquet::ParquetFileReader::Open(file->input_, ReaderProperties(), footer->metadata)
                                 : parquet::ParquetFileReader::Open(file->input_, ReaderProperties());
    file->metadata_ = parquet_reader->metadata();
    if (file->prefetchable_ && size && !footer) KeepFooter(location, *size, file->metadata_, *file->input_, file->tail_);
    if (file->prefetchable_) file->prefetch_started_.assign(static_cast<size_t>(file->metadata_->num_row_groups()), false);
    file->first_rows_.reserve(static_cast<size_t>(file->metadata_->num_row_groups()));
    int64_t first = 0;
    for (int rg = 0; rg < file->metadata_->num_row_groups(); ++rg) {
      file->first_rows_.push_back(first);
      first += file->metadata_->RowGroup(rg)->num_rows();
    }
    std::unique_ptr<parquet::arrow::FileReader> reader;
    ARROW_RETURN_NOT_OK(parquet::arrow::FileReader::Make(StatementMemoryPool(), std::move(parquet_reader),
                                                         ArrowProperties(), &reader));
    const auto& manifest = reader->manifest();
    const auto& fields = file->projection_->fields();
    for (const auto& f : manifest.schema_fields) file->file_fields_.push_back(f.field);

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
      } else if (!fields[i].initial_default_json.empty()) {
        // Spec, v3: a column added with a default reads as that value in older files.
        auto value = spec::LiteralFromJson(fields[i].initial_default_json, fields[i].type);
        if (!value.ok()) {
          return Status::Invalid("Column '", fields[i].name, "' (id ", fields[i].id, "): ", value.status().message());
        }
        if (!value->is_null()) {
          file->defaults_.resize(fields.size());
          ARROW_ASSIGN_OR_RAISE(file->defaults_[i], table::LiteralToScalar(*value));
          ARROW_ASSIGN_OR_RAISE(file->defaults_[i], file->defaults_[i]->CastTo(file->read_schema_->field(static_cast<int>(i))->type()));
        }
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
    file->PrefetchPageIndexes();
    file->pages_selectable_ = !file->bound_.empty();
    for (size_t i = 0; i < fields.size() && file->pages_selectable_; ++i) {
      if (file->file_field_[i] < 0) continue;
      const auto& leaves = file->leaves_[i];
      file->pages_selectable_ =
          leaves.size() == 1 && ReadsAsIs(file->metadata_->schema()->Column(leaves[0])->physical_type(),
                                          *manifest.schema_fields[file->file_field_[i]].field->type());
    }
    return Status::OK();
  });
  ARROW_RETURN_NOT_OK(file->WithLocation(st));
  return file;
}

Result<std::shared_ptr<arrow::ChunkedArray>> ParquetDataFile::MissingColumn(int i, int64_t rows) const {
  const auto& type = read_schema_->field(i)->type();
  if (static_cast<size_t>(i) >= defaults_.size() || !defaults_[i]) return NullColumn(type, rows);
  if (rows < 0) return Status::Invalid("negative row count ", rows);
  ARROW_ASSIGN_OR_RAISE(auto chunk, arrow::MakeArrayFromScalar(*defaults_[i], std::min(rows, kNullChunkRows)));
  return Repeated(chunk, rows);
}

int ParquetDataFile::num_row_groups() const { return metadata_->num_row_groups(); }

int64_t ParquetDataFile::RowGroupFirstRow(int row_group) const { return first_rows_.at(row_group); }

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
  for (int i : projected) {
    const int raw_index = RawIndexOf(*raw->schema(), i);
    if (raw_index < 0) return Status::Invalid("Column '", projection_->fields()[i].name, "' missing after read");
    const int64_t declared = metadata_->RowGroup(row_group)->num_rows();
    if (raw->column(raw_index)->length() != declared) {
      return Status::IOError("Row group ", row_group, " declares ", declared, " rows but column '",
                             projection_->fields()[i].name, "' holds ", raw->column(raw_index)->length());
    }
    ARROW_ASSIGN_OR_RAISE((*columns)[i], table::ConformChunkedArray(raw->column(raw_index), *read_schema_->field(i)));
  }
  return Status::OK();
}

ParquetDataFile::Outcome ParquetDataFile::IndexesMayMatch(parquet::arrow::FileReader& reader, int row_group,
                                                           RowRanges* pages) const {
  if (bound_.empty()) return Outcome::kRead;
  if (!BloomFiltersMayMatch(*reader.parquet_reader(), row_group, bound_)) return Outcome::kSkippedByBloomFilter;
  RowRanges ranges = PageIndexRowRanges(*reader.parquet_reader(), row_group, bound_);
  if (ranges.empty()) return Outcome::kSkippedByPageIndex;
  if (pages) *pages = std::move(ranges);
  return Outcome::kRead;
}

int ParquetDataFile::RawIndexOf(const arrow::Schema& raw, int i) const {
  if (file_field_[i] < 0) return -1;
  // Reads return the selected top-level fields in file order, under the file's names.
  const auto& file_field = *file_fields_[file_field_[i]];
  for (int c = 0; c < raw.num_fields(); ++c) {
    const auto& f = *raw.field(c);
    if (f.name() == file_field.name() && FieldIdOf(f) == FieldIdOf(file_field)) return c;
  }
  return -1;
}

int64_t ParquetDataFile::RowGroupCompressedBytes(int row_group) const {
  return metadata_->RowGroup(row_group)->total_compressed_size();
}

void ParquetDataFile::PrefetchPageIndexes() {
  if (!prefetchable_ || bound_.empty()) return;
  // The column and offset indexes of the filter's columns and the projected ones, in every
  // row group: one span, fetched at once unless the footer's request already holds it.
  std::vector<int> columns;
  for (const auto& b : bound_) columns.push_back(b.column);
  for (const auto& leaves : leaves_) columns.insert(columns.end(), leaves.begin(), leaves.end());
  const ByteRange span = PageIndexSpan(*metadata_, &columns);
  if (span.length == 0 || tail_.Contains(span)) return;
  if (span.length > kIndexSpanBytes) return;  // far apart: read as they are needed
  HoldRange(span);
}

bool ParquetDataFile::HoldRange(ByteRange range) {
  // A failed read is left for the reader that needs the bytes to report.
  auto bytes = input_->ReadAt(range.offset, range.length);
  if (!bytes.ok() || (*bytes)->size() != range.length) return false;
  input_ = std::make_shared<PrefetchedFile>(input_, range, std::move(bytes).ValueUnsafe());
  return true;
}

bool ParquetDataFile::Prefetch(int row_group) const {
  if (!prefetchable_ || row_group < 0 || row_group >= num_row_groups()) return false;
  std::lock_guard<std::mutex> lock(prefetch_mutex_);
  if (prefetch_started_[row_group]) return false;
  prefetch_started_[row_group] = true;
  std::vector<ByteRange> ranges;
  auto group = metadata_->RowGroup(row_group);
  for (const auto& leaves : leaves_) {
    for (int leaf : leaves) {
      auto chunk = group->ColumnChunk(leaf);
      int64_t start = chunk->data_page_offset();
      if (chunk->has_dictionary_page() && chunk->dictionary_page_offset() > 0) {
        start = std::min(start, chunk->dictionary_page_offset());
      }
      ranges.push_back({start, chunk->total_compressed_size()});
    }
  }
  if (ranges.empty()) return false;
  // Chunks less than a round trip's worth of bytes apart (at ~100 MB/s) go in one request;
  // pieces of 4 MB download side by side.
  prefetched_[row_group] = std::make_shared<PrefetchedFile>(input_, CoalesceRanges(std::move(ranges), 1 << 20, 4 << 20));
  return true;
}

Result<std::unique_ptr<parquet::arrow::FileReader>> ParquetDataFile::MakeReader(int64_t batch_rows,
                                                                                int row_group) const {
  std::shared_ptr<arrow::io::RandomAccessFile> input = input_;
  if (row_group >= 0 && prefetchable_) {
    std::lock_guard<std::mutex> lock(prefetch_mutex_);
    auto it = prefetched_.find(row_group);
    if (it != prefetched_.end()) {
      input = std::move(it->second);
      prefetched_.erase(it);
    }
  }
  // A reader per call over the shared footer: readers are not safe to share across threads.
  auto parquet_reader = parquet::ParquetFileReader::Open(std::move(input), ReaderProperties(), metadata_);
  std::unique_ptr<parquet::arrow::FileReader> reader;
  ARROW_RETURN_NOT_OK(parquet::arrow::FileReader::Make(StatementMemoryPool(), std::move(parquet_reader),
                                                       ArrowProperties(batch_rows), &reader));
  return reader;
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

Result<std::optional<ParquetDataFile::RowGroup>> ParquetDataFile::ReadMatchingPages(parquet::arrow::FileReader& reader,
                                                                                    int row_group,
                                                                                    const RowRanges& ranges) const {
  if (!pages_selectable_) return std::nullopt;
  auto& file = *reader.parquet_reader();
  const int64_t rows = metadata_->RowGroup(row_group)->num_rows();
  int64_t selected = 0;
  for (const auto& [begin, end] : ranges) selected += end - begin;
  if (selected >= rows) return std::nullopt;
  auto index = file.GetPageIndexReader();
  auto rg_index = index ? index->RowGroup(row_group) : nullptr;
  if (!rg_index) return std::nullopt;
  const size_t n = projection_->fields().size();
  std::vector<std::shared_ptr<parquet::OffsetIndex>> offsets(n);
  for (size_t i = 0; i < n; ++i) {
    if (file_field_[i] < 0) continue;
    offsets[i] = rg_index->GetOffsetIndex(leaves_[i][0]);
    if (!offsets[i]) return std::nullopt;
    // Pages must start at row 0 and go forward within the row group, or the rows of pages
    // passed over could not be counted: then the row group is decoded whole.
    const auto& pages = offsets[i]->page_locations();
    if (pages.empty() || pages[0].first_row_index != 0) return std::nullopt;
    for (size_t k = 1; k < pages.size(); ++k) {
      if (pages[k].first_row_index <= pages[k - 1].first_row_index || pages[k].first_row_index >= rows) {
        return std::nullopt;
      }
    }
  }
  auto group = file.RowGroup(row_group);
  arrow::ChunkedArrayVector columns(n);
  for (size_t i = 0; i < n; ++i) {
    if (file_field_[i] < 0) {
      ARROW_ASSIGN_OR_RAISE(columns[i], MissingColumn(static_cast<int>(i), selected));
      continue;
    }
    const auto& type = file_fields_[file_field_[i]]->type();
    ARROW_ASSIGN_OR_RAISE(auto values, ReadRowRanges(*group, leaves_[i][0], type, offsets[i]->page_locations(), rows,
                                                     ranges, StatementMemoryPool()));
    ARROW_ASSIGN_OR_RAISE(columns[i], table::ConformChunkedArray(std::make_shared<arrow::ChunkedArray>(values),
                                                                 *read_schema_->field(static_cast<int>(i))));
  }
  RowGroup out;
  ARROW_ASSIGN_OR_RAISE(bool may_match, FilterColumnsMayMatch(columns));
  if (!may_match) {
    out.outcome = Outcome::kSkippedByFilterColumns;
    return out;
  }
  out.rows = arrow::Table::Make(read_schema_, std::move(columns), selected);
  return out;
}

Result<ParquetDataFile::RowGroup> ParquetDataFile::ReadRowGroupImpl(int row_group,
                                                                    const std::atomic<bool>* cancel) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::IndexError("Row group ", row_group, " out of range");
  }
  ARROW_ASSIGN_OR_RAISE(auto reader, MakeReader(0, row_group));
  const Outcome outcome = IndexesMayMatch(*reader, row_group);
  if (outcome != Outcome::kRead) return RowGroup{outcome, nullptr};
  return DecodeRowGroup(*reader, row_group, cancel);
}

Result<ParquetDataFile::RowGroup> ParquetDataFile::DecodeRowGroup(parquet::arrow::FileReader& reader, int row_group,
                                                                  const std::atomic<bool>* cancel) const {
  RowGroup out;
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
    ARROW_RETURN_NOT_OK(ReadFieldsInto(reader, row_group, first, &columns));
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
  ARROW_RETURN_NOT_OK(ReadFieldsInto(reader, row_group, rest, &columns));
  for (size_t i = 0; i < n; ++i) {
    if (columns[i]) continue;
    ARROW_ASSIGN_OR_RAISE(columns[i], MissingColumn(static_cast<int>(i), rows));
  }
  out.rows = arrow::Table::Make(read_schema_, std::move(columns), rows);
  return out;
}

namespace {

// Hands out a decoded row group in slices.
class SlicingCursor : public ParquetDataFile::Cursor {
 public:
  SlicingCursor(std::shared_ptr<arrow::Table> rows, int64_t batch_rows) : rows_(std::move(rows)), slicer_(*rows_) {
    slicer_.set_chunksize(batch_rows);
  }
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(slicer_.ReadNext(&batch));
    return batch;
  }

 private:
  std::shared_ptr<arrow::Table> rows_;
  arrow::TableBatchReader slicer_;
};

// Decodes a row group's pages as batches are asked for, and conforms each batch to the
// projection (missing columns read as nulls). At the end, the rows handed out must be the
// rows the footer declares: pages that stop short mean a damaged file, not fewer rows.
class DecodingCursor : public ParquetDataFile::Cursor {
 public:
  using Fill = std::function<Result<std::shared_ptr<arrow::RecordBatch>>(const arrow::RecordBatch&)>;
  DecodingCursor(std::string location, int row_group, int64_t declared_rows,
                 std::unique_ptr<parquet::arrow::FileReader> reader, std::unique_ptr<arrow::RecordBatchReader> batches,
                 Fill fill)
      : location_(std::move(location)), row_group_(row_group), declared_rows_(declared_rows),
        reader_(std::move(reader)), batches_(std::move(batches)), fill_(std::move(fill)) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    std::shared_ptr<arrow::RecordBatch> raw;
    ARROW_RETURN_NOT_OK(NameFile(location_, Guard([&]() -> Status { return batches_->ReadNext(&raw); })));
    if (!raw) {
      if (rows_ != declared_rows_) {
        return NameFile(location_, Status::IOError("Row group ", row_group_, " declares ", declared_rows_,
                                                   " rows but its columns hold ", rows_));
      }
      return raw;
    }
    rows_ += raw->num_rows();
    auto filled = fill_(*raw);
    if (!filled.ok()) return NameFile(location_, filled.status());
    return filled;
  }

 private:
  std::string location_;
  int row_group_;
  int64_t declared_rows_;
  int64_t rows_ = 0;
  std::unique_ptr<parquet::arrow::FileReader> reader_;  // outlives the batch reader it made
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  Fill fill_;
};

}  // namespace

Result<ParquetDataFile::OpenedRowGroup> ParquetDataFile::OpenRowGroup(int row_group, int64_t batch_rows,
                                                                      const std::atomic<bool>* cancel,
                                                                      bool matching_pages_only) const {
  auto result = Guard([&]() { return OpenRowGroupImpl(row_group, batch_rows, cancel, matching_pages_only); });
  if (!result.ok()) return WithLocation(result.status());
  return result;
}

Result<ParquetDataFile::OpenedRowGroup> ParquetDataFile::OpenRowGroupImpl(int row_group, int64_t batch_rows,
                                                                          const std::atomic<bool>* cancel,
                                                                          bool matching_pages_only) const {
  OpenedRowGroup out;
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::IndexError("Row group ", row_group, " out of range");
  }
  const bool select_pages = matching_pages_only && pages_selectable_;
  if (!filter_.empty() || select_pages) {
    ARROW_ASSIGN_OR_RAISE(auto reader, MakeReader(0, row_group));
    RowRanges pages;
    out.outcome = IndexesMayMatch(*reader, row_group, &pages);
    if (out.outcome != Outcome::kRead) return out;
    // Once the indexes keep the row group, its column chunks are fetched side by side
    // rather than one after another as decoding asks for them.
    if (Prefetch(row_group)) {
      ARROW_ASSIGN_OR_RAISE(reader, MakeReader(0, row_group));
    }
    std::optional<RowGroup> read;
    if (select_pages) {
      ARROW_ASSIGN_OR_RAISE(read, ReadMatchingPages(*reader, row_group, pages));
    }
    if (!read && !filter_.empty()) {
      // Late materialisation needs the filter columns of the whole row group first.
      ARROW_ASSIGN_OR_RAISE(read, DecodeRowGroup(*reader, row_group, cancel));
    }
    if (read) {
      out.outcome = read->outcome;
      if (read->rows) out.cursor = std::make_unique<SlicingCursor>(std::move(read->rows), batch_rows);
      return out;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto reader, MakeReader(batch_rows, row_group));
  // Checked above when pages could have been selected.
  if (!select_pages) out.outcome = IndexesMayMatch(*reader, row_group);
  if (out.outcome != Outcome::kRead) return out;
  const int n = static_cast<int>(projection_->fields().size());
  std::vector<int> leaves;
  for (int i = 0; i < n; ++i) leaves.insert(leaves.end(), leaves_[i].begin(), leaves_[i].end());
  if (leaves.empty()) {
    // No projected column is in the file: every value is null, by the row count alone.
    const int64_t rows = metadata_->RowGroup(row_group)->num_rows();
    arrow::ChunkedArrayVector columns;
    for (int i = 0; i < n; ++i) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, MissingColumn(i, rows));
      columns.push_back(std::move(nulls));
    }
    out.cursor = std::make_unique<SlicingCursor>(arrow::Table::Make(read_schema_, std::move(columns), rows), batch_rows);
    return out;
  }
  std::unique_ptr<arrow::RecordBatchReader> batches;
  ARROW_ASSIGN_OR_RAISE(batches, reader->GetRecordBatchReader({row_group}, leaves));
  std::vector<int> raw_index(n, -1);
  for (int i = 0; i < n; ++i) {
    if (file_field_[i] < 0) continue;
    raw_index[i] = RawIndexOf(*batches->schema(), i);
    if (raw_index[i] < 0) return Status::Invalid("Column '", projection_->fields()[i].name, "' missing after read");
  }
  // The cursor may outlive this file object: it keeps what it needs.
  auto fill = [schema = read_schema_, raw_index, defaults = defaults_](const arrow::RecordBatch& raw) -> Result<std::shared_ptr<arrow::RecordBatch>> {
    arrow::ArrayVector columns(raw_index.size());
    for (size_t i = 0; i < raw_index.size(); ++i) {
      const auto& field = *schema->field(static_cast<int>(i));
      if (raw_index[i] < 0 && i < defaults.size() && defaults[i]) {
        ARROW_ASSIGN_OR_RAISE(columns[i], arrow::MakeArrayFromScalar(*defaults[i], raw.num_rows()));
      } else if (raw_index[i] < 0) {
        ARROW_ASSIGN_OR_RAISE(columns[i], arrow::MakeArrayOfNull(field.type(), raw.num_rows()));
      } else {
        ARROW_ASSIGN_OR_RAISE(columns[i], table::ConformArray(raw.column(raw_index[i]), field));
      }
    }
    return arrow::RecordBatch::Make(schema, raw.num_rows(), std::move(columns));
  };
  out.cursor = std::make_unique<DecodingCursor>(location_, row_group, metadata_->RowGroup(row_group)->num_rows(),
                                                std::move(reader), std::move(batches), std::move(fill));
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
