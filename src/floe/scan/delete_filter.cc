#include "floe/scan/delete_filter.h"

#include <algorithm>

#include <arrow/array.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <arrow/record_batch.h>
#include <arrow/scalar.h>
#include <arrow/util/bit_util.h>

namespace floe::scan {

namespace {

class FinishingCursor : public ParquetDataFile::Cursor {
 public:
  FinishingCursor(std::unique_ptr<ParquetDataFile::Cursor> rows, std::string path,
                  int64_t first_row, std::shared_ptr<const FileDeletes> deletes, RowLayout layout,
                  RowLineage lineage)
      : rows_(std::move(rows)),
        path_(std::move(path)),
        next_row_(first_row),
        deletes_(std::move(deletes)),
        layout_(layout),
        lineage_(lineage) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      ARROW_ASSIGN_OR_RAISE(auto batch, rows_->Next());
      if (!batch) return batch;
      const int64_t start = next_row_;
      next_row_ += batch->num_rows();
      ARROW_ASSIGN_OR_RAISE(batch, FillMetadata(std::move(batch), start));
      ARROW_ASSIGN_OR_RAISE(batch, Filter(std::move(batch), start));
      if (batch->num_rows() == 0) continue;
      const int out = layout_.output_columns;
      if (out >= 0 && batch->num_columns() > out) {
        std::vector<int> keep(static_cast<size_t>(out));
        for (int i = 0; i < out; ++i) keep[i] = i;
        ARROW_ASSIGN_OR_RAISE(batch, batch->SelectColumns(keep));
      }
      return batch;
    }
  }

 private:
  Result<std::shared_ptr<arrow::RecordBatch>> FillMetadata(
      std::shared_ptr<arrow::RecordBatch> batch, int64_t start) {
    const int64_t n = batch->num_rows();
    if (layout_.file_column >= 0) {
      ARROW_ASSIGN_OR_RAISE(auto paths, arrow::MakeArrayFromScalar(arrow::StringScalar(path_), n));
      ARROW_ASSIGN_OR_RAISE(
          batch, batch->SetColumn(layout_.file_column, batch->schema()->field(layout_.file_column),
                                  std::move(paths)));
    }
    if (layout_.pos_column >= 0) {
      arrow::Int64Builder positions;
      ARROW_RETURN_NOT_OK(positions.Reserve(n));
      for (int64_t i = 0; i < n; ++i) positions.UnsafeAppend(start + i);
      ARROW_ASSIGN_OR_RAISE(auto column, positions.Finish());
      ARROW_ASSIGN_OR_RAISE(
          batch, batch->SetColumn(layout_.pos_column, batch->schema()->field(layout_.pos_column),
                                  std::move(column)));
    }
    if (layout_.row_id_column >= 0 && lineage_.first_row_id) {
      const int64_t first = *lineage_.first_row_id + start;
      ARROW_ASSIGN_OR_RAISE(batch, Inherit(std::move(batch), layout_.row_id_column,
                                           [first](int64_t i) { return first + i; }));
    }
    if (layout_.last_updated_column >= 0 && lineage_.first_row_id) {
      const int64_t seq = lineage_.data_sequence_number;
      ARROW_ASSIGN_OR_RAISE(batch, Inherit(std::move(batch), layout_.last_updated_column,
                                           [seq](int64_t) { return seq; }));
    }
    return batch;
  }

  // Column `index` (a long column) with each null at row i replaced by value(i).
  template <typename Value>
  static Result<std::shared_ptr<arrow::RecordBatch>> Inherit(std::shared_ptr<arrow::RecordBatch> batch,
                                                             int index, Value value) {
    const auto& read = *batch->column(index);
    if (read.null_count() == 0) return batch;
    const int64_t n = batch->num_rows();
    arrow::Int64Builder out;
    ARROW_RETURN_NOT_OK(out.Reserve(n));
    if (read.type_id() == arrow::Type::INT64) {
      const auto& longs = static_cast<const arrow::Int64Array&>(read);
      for (int64_t i = 0; i < n; ++i) out.UnsafeAppend(longs.IsNull(i) ? value(i) : longs.Value(i));
    } else {  // all null (the file has no such column)
      for (int64_t i = 0; i < n; ++i) out.UnsafeAppend(value(i));
    }
    ARROW_ASSIGN_OR_RAISE(auto column, out.Finish());
    return batch->SetColumn(index, batch->schema()->field(index), std::move(column));
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Filter(std::shared_ptr<arrow::RecordBatch> batch,
                                                     int64_t start) {
    if (!deletes_ || deletes_->empty()) return batch;
    const int64_t n = batch->num_rows();
    std::shared_ptr<arrow::Buffer> keep;
    int64_t dropped = 0;
    auto drop = [&](int64_t i) -> Status {
      if (!keep) {
        ARROW_ASSIGN_OR_RAISE(keep, arrow::AllocateBitmap(n));
        arrow::bit_util::SetBitsTo(keep->mutable_data(), 0, n, true);
      }
      if (arrow::bit_util::GetBit(keep->data(), i)) {
        arrow::bit_util::ClearBit(keep->mutable_data(), i);
        ++dropped;
      }
      return Status::OK();
    };
    if (const auto& positions = deletes_->positions) {
      auto lo = std::lower_bound(positions->begin(), positions->end(), start);
      auto hi = std::lower_bound(lo, positions->end(), start + n);
      for (auto it = lo; it != hi; ++it) ARROW_RETURN_NOT_OK(drop(*it - start));
    }
    std::string key;
    for (const auto& eq : deletes_->equality) {
      if (eq.set->keys.empty()) continue;
      for (int64_t i = 0; i < n; ++i) {
        if (keep && !arrow::bit_util::GetBit(keep->data(), i)) continue;
        key.clear();
        for (int c : eq.columns) ARROW_RETURN_NOT_OK(AppendValueKey(*batch->column(c), i, &key));
        if (eq.set->keys.count(key)) ARROW_RETURN_NOT_OK(drop(i));
      }
    }
    if (dropped == 0) return batch;
    if (dropped == n) return batch->Slice(0, 0);
    arrow::BooleanArray mask(n, std::move(keep));
    ARROW_ASSIGN_OR_RAISE(auto kept,
                          arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(mask.data())));
    return kept.record_batch();
  }

  std::unique_ptr<ParquetDataFile::Cursor> rows_;
  std::string path_;
  int64_t next_row_;
  std::shared_ptr<const FileDeletes> deletes_;
  RowLayout layout_;
  RowLineage lineage_;
};

}  // namespace

std::unique_ptr<ParquetDataFile::Cursor> FinishRows(std::unique_ptr<ParquetDataFile::Cursor> rows,
                                                    std::string path, int64_t first_row,
                                                    std::shared_ptr<const FileDeletes> deletes,
                                                    RowLayout layout, RowLineage lineage) {
  if (!rows || ((!deletes || deletes->empty()) && layout.plain())) return rows;
  return std::make_unique<FinishingCursor>(std::move(rows), std::move(path), first_row,
                                           std::move(deletes), layout, lineage);
}

}  // namespace floe::scan
