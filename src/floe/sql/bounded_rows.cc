#include "floe/sql/bounded_rows.h"

#include <algorithm>

#include <arrow/compute/api.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

namespace floe::sql {

namespace ac = arrow::acero;
namespace cp = arrow::compute;

namespace {

// Stops the plan behind `reader` when the rows needed are in (or on an error).
struct CloseOnExit {
  std::shared_ptr<arrow::RecordBatchReader>& reader;
  ~CloseOnExit() {
    if (reader) ARROW_UNUSED(reader->Close());
  }
};

}  // namespace

Result<std::shared_ptr<arrow::Table>> TopRows(const ac::Declaration& input, const std::vector<cp::SortKey>& keys,
                                              int64_t offset, int64_t limit) {
  std::shared_ptr<arrow::RecordBatchReader> reader;
  CloseOnExit close{reader};
  ARROW_ASSIGN_OR_RAISE(reader, ac::DeclarationToReader(input, /*use_threads=*/true));
  auto schema = reader->schema();
  const int64_t k = offset + limit;
  std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
  int64_t waiting = 0;  // rows that arrived since the last selection
  bool selectable = true;
  // Keeps the k first rows of everything held; a type select_k cannot order keeps all.
  auto select = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema, kept));
    cp::SelectKOptions options(std::min(k, table->num_rows()), keys);
    auto top = cp::CallFunction("select_k_unstable", {table}, &options);
    if (!top.ok()) {
      selectable = false;
      return Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(table, *top));
    ARROW_ASSIGN_OR_RAISE(auto batch, taken.table()->CombineChunksToBatch());
    kept = {std::move(batch)};
    waiting = 0;
    return Status::OK();
  };
  const int64_t batch_limit = std::max<int64_t>(k, int64_t{1} << 16);
  if (k > 0) {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() == 0) continue;
      waiting += batch->num_rows();
      kept.push_back(std::move(batch));
      if (selectable && waiting >= batch_limit) ARROW_RETURN_NOT_OK(select());
    }
    if (selectable && waiting > 0) ARROW_RETURN_NOT_OK(select());
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, arrow::Table::FromRecordBatches(schema, kept));
  ARROW_ASSIGN_OR_RAISE(auto order, cp::SortIndices(arrow::Datum(rows), cp::SortOptions(keys)));
  ARROW_ASSIGN_OR_RAISE(auto sorted, cp::Take(rows, order));
  auto table = sorted.table();
  return table->Slice(std::min(offset, table->num_rows()), limit);
}

Result<std::shared_ptr<arrow::Table>> FirstRows(const ac::Declaration& input, int64_t offset, int64_t limit) {
  std::shared_ptr<arrow::RecordBatchReader> reader;
  CloseOnExit close{reader};
  ARROW_ASSIGN_OR_RAISE(reader, ac::DeclarationToReader(input, /*use_threads=*/true));
  auto schema = reader->schema();
  const int64_t needed = limit < 0 ? INT64_MAX : offset + limit;
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  int64_t rows = 0;
  while (rows < needed) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    rows += batch->num_rows();
    batches.push_back(std::move(batch));
  }
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema, batches));
  int64_t start = std::min(offset, table->num_rows());
  int64_t length = limit < 0 ? table->num_rows() - start : std::min(limit, table->num_rows() - start);
  return table->Slice(start, length);
}

}  // namespace floe::sql
