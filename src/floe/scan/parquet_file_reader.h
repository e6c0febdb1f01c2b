#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>
#include <parquet/type_fwd.h>

#include "floe/io/file_io.h"
#include "floe/io/prefetched_file.h"
#include "floe/scan/row_group_filter.h"
#include "floe/scan/scan_filter.h"
#include "floe/spec/schema.h"

namespace floe::scan {

// Reads one Parquet data file projected onto `projection`: columns are matched by Iceberg
// field id, never by name or position, so renamed columns still read; a column the file
// lacks reads as nulls; only the projected columns are decoded. Files written without
// field ids (imported files) fall back to matching by name.
Result<std::shared_ptr<arrow::Table>> ReadParquetFile(FileIO& io, const std::string& location,
                                                      const spec::Schema& projection);

// A Parquet data file opened for reading row group by row group: the footer is read once
// and columns are resolved against the projection as ReadParquetFile does. ReadRowGroup may
// run on several threads at once (each call decodes through its own reader).
class ParquetDataFile {
 public:
  enum class Outcome { kRead, kSkippedByBloomFilter, kSkippedByPageIndex, kSkippedByFilterColumns };
  struct RowGroup {
    Outcome outcome = Outcome::kRead;
    std::shared_ptr<arrow::Table> rows;  // in the projection's Arrow schema; null when skipped
  };

  // A file of known size up to this is read whole when opened.
  static constexpr int64_t kWholeFileBytes = int64_t{1} << 20;
  // On object storage, the bytes at the end fetched with the footer: what Parquet readers
  // ask for first, and with a filter enough to hold the page indexes of most files too.
  static constexpr int64_t kFooterTailBytes = int64_t{64} << 10;
  static constexpr int64_t kIndexedTailBytes = int64_t{256} << 10;
  // Page indexes outside that tail are fetched in one request when they span at most this.
  static constexpr int64_t kIndexSpanBytes = int64_t{8} << 20;

  // `predicates` (ANDed) only prune: row groups they rule out are skipped, the rows of the
  // others are returned unfiltered. `schema` resolves predicate columns outside the projection.
  // `size`, the file's size from its manifest, saves asking storage for it, and a small file
  // is then fetched in one request.
  static Result<std::shared_ptr<ParquetDataFile>> Open(FileIO& io, const std::string& location,
                                                       spec::SchemaPtr projection,
                                                       const std::vector<ColumnPredicate>& predicates = {},
                                                       const spec::Schema* schema = nullptr,
                                                       std::optional<int64_t> size = std::nullopt);

  const std::string& location() const { return location_; }
  int num_row_groups() const;
  // The position in the file of the first row of `row_group`: what position deletes count.
  int64_t RowGroupFirstRow(int row_group) const;
  const std::shared_ptr<arrow::Schema>& read_schema() const;
  // False when the footer's column statistics rule the row group out.
  bool StatsMayMatch(int row_group) const;
  // Decodes row group `row_group`, after checking Bloom filters and the page index and, when
  // predicates apply to projected columns, decoding those columns first to see whether any
  // row can match. `cancel`, when set, stops before the second decoding step.
  Result<RowGroup> ReadRowGroup(int row_group, const std::atomic<bool>* cancel = nullptr) const;

  // Reads a row group a batch at a time, so that no more than a batch of its rows is ever
  // decoded at once. Next() returns null at the end of the row group.
  class Cursor {
   public:
    virtual ~Cursor() = default;
    virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
  };
  struct OpenedRowGroup {
    Outcome outcome = Outcome::kRead;
    std::unique_ptr<Cursor> cursor;  // null when skipped
  };
  // Checks Bloom filters and the page index as ReadRowGroup does. With predicates on
  // projected columns the row group is decoded whole (its filter columns first, to drop it
  // early) and then handed out in slices; without, its pages are decoded as batches are asked for.
  // `matching_pages_only`, for a caller that needs no row positions: when the page index
  // rules out some pages and every projected column is flat and of fixed width, only the
  // rows of the other pages are decoded and handed out (the pages ruled out are not even
  // decompressed), so rows that cannot match may be missing.
  Result<OpenedRowGroup> OpenRowGroup(int row_group, int64_t batch_rows, const std::atomic<bool>* cancel = nullptr,
                                      bool matching_pages_only = false) const;

  // On object storage, starts fetching the column chunks row group `row_group` reads (all
  // of them, in requests side by side) for OpenRowGroup to find in memory. Nothing for a file
  // read whole, a local file, or a row group already begun; true when it started now.
  bool Prefetch(int row_group) const;
  // The bytes of a row group's column chunks, all of them, compressed.
  int64_t RowGroupCompressedBytes(int row_group) const;

 private:
  ParquetDataFile() = default;
  Result<RowGroup> ReadRowGroupImpl(int row_group, const std::atomic<bool>* cancel) const;
  // The row group through `reader`, whose Bloom filters and page index were checked: filter
  // columns first, then the rest unless the filter columns rule every row out.
  Result<RowGroup> DecodeRowGroup(parquet::arrow::FileReader& reader, int row_group,
                                  const std::atomic<bool>* cancel) const;
  Result<OpenedRowGroup> OpenRowGroupImpl(int row_group, int64_t batch_rows, const std::atomic<bool>* cancel,
                                          bool matching_pages_only) const;
  // The rows of `row_group` in pages the page index leaves, when it rules some out and every
  // projected column can be read page by page; nullopt otherwise.
  // `pages`: the rows the page index leaves, as IndexesMayMatch found them.
  Result<std::optional<RowGroup>> ReadMatchingPages(parquet::arrow::FileReader& reader, int row_group,
                                                    const RowRanges& pages) const;
  // On object storage with a filter: fetches the page indexes it and the projection read,
  // for every row group, unless the footer's request already brought them.
  void PrefetchPageIndexes();
  // Reads `range` of the file now; later reads inside it are served from memory. False when
  // the read failed (left for the reader that needs the bytes to report).
  bool HoldRange(ByteRange range);
  // A reader of the file; of its fetched-ahead bytes when `row_group` was prefetched.
  Result<std::unique_ptr<parquet::arrow::FileReader>> MakeReader(int64_t batch_rows = 0, int row_group = -1) const;
  // kRead, or why the Bloom filters or the page index rule the row group out; with kRead,
  // `pages` (when given) gets the rows the page index leaves.
  Outcome IndexesMayMatch(parquet::arrow::FileReader& reader, int row_group, RowRanges* pages = nullptr) const;
  // The column of `raw` (top-level fields read from the file) holding projected field `i`, or -1.
  int RawIndexOf(const arrow::Schema& raw, int i) const;
  // Decodes the projected fields `projected` of a row group into `columns` (by field index).
  Status ReadFieldsInto(parquet::arrow::FileReader& reader, int row_group, const std::vector<int>& projected,
                        arrow::ChunkedArrayVector* columns) const;
  Result<bool> FilterColumnsMayMatch(const arrow::ChunkedArrayVector& columns) const;
  Status WithLocation(const Status& status) const;
  // Projected field `i`, which the file lacks, for `rows` rows: its initial default or nulls.
  Result<std::shared_ptr<arrow::ChunkedArray>> MissingColumn(int i, int64_t rows) const;

  std::string location_;
  std::shared_ptr<arrow::io::RandomAccessFile> input_;
  bool prefetchable_ = false;  // on object storage and not read whole
  ByteRange tail_;              // held in memory since opening, when prefetchable_
  mutable std::mutex prefetch_mutex_;
  // Per row group prefetched and not yet opened: the file with its bytes on the way.
  mutable std::map<int, std::shared_ptr<arrow::io::RandomAccessFile>> prefetched_;
  mutable std::vector<bool> prefetch_started_;  // per row group, when prefetchable_
  std::shared_ptr<parquet::FileMetaData> metadata_;
  std::vector<int64_t> first_rows_;  // per row group: the position of its first row in the file
  spec::SchemaPtr projection_;
  std::shared_ptr<arrow::Schema> read_schema_;
  std::vector<std::shared_ptr<arrow::Field>> file_fields_;  // the file's top-level fields
  std::vector<int> file_field_;            // per projected field: the file's top-level field, or -1
  // Per projected field the file lacks: its initial default (v3), or null (read as nulls).
  std::vector<std::shared_ptr<arrow::Scalar>> defaults_;
  std::vector<std::vector<int>> leaves_;   // per projected field: its leaf columns in the file
  std::vector<BoundPredicate> bound_;      // predicates on flat leaf columns of this file
  std::vector<std::pair<int, ColumnPredicate>> filter_;  // (projected field, predicate) decoded first
  // Predicates apply and every projected column the file has is flat and of fixed width:
  // rows can be read by pages (ReadMatchingPages).
  bool pages_selectable_ = false;
};

}  // namespace floe::scan
