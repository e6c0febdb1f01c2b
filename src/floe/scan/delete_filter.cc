#include "floe/scan/delete_filter.h"

#include <algorithm>

#include <arrow/array.h>
#include <arrow/compute/api_vector.h>
#include <arrow/datum.h>
#include <arrow/record_batch.h>
#include <arrow/util/bit_util.h>

namespace floe::scan {

namespace {

class DeleteFilterCursor : public ParquetDataFile::Cursor {
 public:
  DeleteFilterCursor(std::unique_ptr<ParquetDataFile::Cursor> rows, int64_t first_row,
                     std::shared_ptr<const FileDeletes> deletes, int output_columns)
      : rows_(std::move(rows)), next_row_(first_row), deletes_(std::move(deletes)), output_columns_(output_columns) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      ARROW_ASSIGN_OR_RAISE(auto batch, rows_->Next());
      if (!batch) return batch;
      const int64_t start = next_row_;
      next_row_ += batch->num_rows();
      ARROW_ASSIGN_OR_RAISE(batch, Filter(std::move(batch), start));
      if (batch->num_rows() == 0) continue;
      if (output_columns_ >= 0 && batch->num_columns() > output_columns_) {
        std::vector<int> keep(static_cast<size_t>(output_columns_));
        for (int i = 0; i < output_columns_; ++i) keep[i] = i;
        ARROW_ASSIGN_OR_RAISE(batch, batch->SelectColumns(keep));
      }
      return batch;
    }
  }

 private:
  Result<std::shared_ptr<arrow::RecordBatch>> Filter(std::shared_ptr<arrow::RecordBatch> batch, int64_t start) {
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
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(arrow::Datum(batch), arrow::Datum(mask.data())));
    return kept.record_batch();
  }

  std::unique_ptr<ParquetDataFile::Cursor> rows_;
  int64_t next_row_;
  std::shared_ptr<const FileDeletes> deletes_;
  int output_columns_;
};

}  // namespace

std::unique_ptr<ParquetDataFile::Cursor> WithoutDeletedRows(std::unique_ptr<ParquetDataFile::Cursor> rows,
                                                            int64_t first_row,
                                                            std::shared_ptr<const FileDeletes> deletes,
                                                            int output_columns) {
  if (!rows || ((!deletes || deletes->empty()) && output_columns < 0)) return rows;
  return std::make_unique<DeleteFilterCursor>(std::move(rows), first_row, std::move(deletes), output_columns);
}

}  // namespace floe::scan
