#include "floe/sql/plan/bounded_rows.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/expression.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "floe/sql/plan/relation.h"
#include "floe/sql/types/order_key.h"

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

// The rows of a batch that sort strictly before `last` under `keys` (ties cannot improve a
// full selection). A NULL or NaN in `last` only ties: the leading is-null and is-NaN keys
// the planner adds have already ordered those rows.
Result<cp::Expression> SortsBefore(const arrow::RecordBatch& last, const std::vector<cp::SortKey>& keys) {
  cp::Expression admit = cp::literal(false);
  for (auto key = keys.rbegin(); key != keys.rend(); ++key) {
    const std::string* name = key->target.name();
    auto column = name ? last.GetColumnByName(*name) : nullptr;
    if (!column) return Status::Invalid("sort key not found");
    ARROW_ASSIGN_OR_RAISE(auto value, column->GetScalar(0));
    bool only_ties = !value->is_valid;
    if (value->is_valid && value->type->id() == arrow::Type::DOUBLE) {
      only_ties = std::isnan(static_cast<const arrow::DoubleScalar&>(*value).value);
    } else if (value->is_valid && value->type->id() == arrow::Type::FLOAT) {
      only_ties = std::isnan(static_cast<const arrow::FloatScalar&>(*value).value);
    }
    if (only_ties) continue;  // admit stays what the later keys decide
    cp::Expression field = cp::field_ref(key->target);
    cp::Expression bound = cp::literal(arrow::Datum(value));
    cp::Expression before = cp::call(key->order == cp::SortOrder::Ascending ? "less" : "greater", {field, bound});
    cp::Expression tied = cp::call("and_kleene", {cp::call("equal", {field, bound}), admit});
    admit = cp::call("or_kleene", {before, tied});
  }
  return admit;
}

// Indices of the k first values of a null-free, NaN-free numeric column: one comparison
// per row against the worst value kept, where select_k pays a heap push and pop.
template <typename T>
std::vector<int64_t> SmallestK(const T* values, int64_t n, int64_t k, bool ascending) {
  std::vector<std::pair<T, int64_t>> best;  // sorted, the worst kept last
  best.reserve(static_cast<size_t>(k) + 1);
  auto before = [ascending](const T& a, const T& b) { return ascending ? a < b : b < a; };
  for (int64_t i = 0; i < n; ++i) {
    const T v = values[i];
    if (static_cast<int64_t>(best.size()) == k) {
      if (!before(v, best.back().first)) continue;
      best.pop_back();
    }
    auto at = std::upper_bound(best.begin(), best.end(), v,
                               [&](const T& value, const std::pair<T, int64_t>& kept) { return before(value, kept.first); });
    best.insert(at, {v, i});
  }
  std::vector<int64_t> indices;
  for (const auto& b : best) indices.push_back(b.second);
  return indices;
}

// SmallestK for the column types it serves; nullopt for the rest.
std::optional<std::vector<int64_t>> FastSelect(const arrow::Array& column, int64_t k, bool ascending) {
  constexpr int64_t kMaxFastK = 4096;
  if (column.null_count() != 0 || k > kMaxFastK) return std::nullopt;
  const auto& data = *column.data();
  const int64_t n = column.length();
  switch (column.type_id()) {
    case arrow::Type::INT8: return SmallestK(data.GetValues<int8_t>(1), n, k, ascending);
    case arrow::Type::INT16: return SmallestK(data.GetValues<int16_t>(1), n, k, ascending);
    case arrow::Type::INT32:
    case arrow::Type::DATE32: return SmallestK(data.GetValues<int32_t>(1), n, k, ascending);
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP: return SmallestK(data.GetValues<int64_t>(1), n, k, ascending);
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      // Only when the batch holds no NaN, which does not compare.
      auto nan = cp::CallFunction("is_nan", {data});
      if (!nan.ok()) return std::nullopt;
      auto any = cp::CallFunction("any", {*nan});
      if (!any.ok() || any->scalar_as<arrow::BooleanScalar>().value) return std::nullopt;
      if (column.type_id() == arrow::Type::FLOAT) return SmallestK(data.GetValues<float>(1), n, k, ascending);
      return SmallestK(data.GetValues<double>(1), n, k, ascending);
    }
    default: return std::nullopt;
  }
}

// The k first rows of one batch. Keys constant over the batch (the planner's is-null and
// is-NaN keys, nearly always) cannot order its rows, and leaving them out lets select_k use
// its fast single-key path.
Result<std::shared_ptr<arrow::RecordBatch>> PreSelect(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                      const std::vector<cp::SortKey>& keys, int64_t k) {
  std::vector<cp::SortKey> varying;
  for (const auto& key : keys) {
    const std::string* name = key.target.name();
    auto column = name ? batch->GetColumnByName(*name) : nullptr;
    if (!column) return batch;
    bool constant = column->null_count() == column->length();
    if (!constant && column->null_count() == 0 && arrow::is_integer(column->type_id())) {
      auto range = cp::MinMax(column);
      if (range.ok()) {
        const auto& pair = range->scalar_as<arrow::StructScalar>().value;
        constant = pair[0]->Equals(*pair[1]);
      }
    }
    if (!constant) varying.push_back(key);
  }
  if (varying.empty()) return batch->Slice(0, k);
  if (varying.size() == 1) {
    auto column = batch->GetColumnByName(*varying[0].target.name());
    if (auto indices = FastSelect(*column, k, varying[0].order == cp::SortOrder::Ascending)) {
      arrow::Int64Builder builder;
      ARROW_RETURN_NOT_OK(builder.AppendValues(*indices));
      ARROW_ASSIGN_OR_RAISE(auto index_array, builder.Finish());
      ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(batch, index_array));
      return taken.record_batch();
    }
  }
  cp::SelectKOptions options(k, varying);
  auto top = cp::CallFunction("select_k_unstable", {batch}, &options);
  if (!top.ok()) return batch;
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(batch, *top));
  return taken.record_batch();
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> TopRows(const ac::Declaration& input, const std::vector<cp::SortKey>& keys,
                                              int64_t offset, int64_t limit) {
  std::shared_ptr<arrow::RecordBatchReader> reader;
  CloseOnExit close{reader};
  ARROW_ASSIGN_OR_RAISE(reader, ac::DeclarationToReader(input, StatementPlanOptions(true)));
  auto schema = reader->schema();
  const int64_t k = offset + limit;
  std::vector<std::shared_ptr<arrow::RecordBatch>> kept;
  int64_t waiting = 0;  // rows that arrived since the last selection
  // select_k crashes on nested keys (Arrow 22) where it should refuse them.
  bool selectable = std::none_of(keys.begin(), keys.end(), [&](const cp::SortKey& key) {
    auto field = key.target.GetOne(*schema);
    return !field.ok() || NeedsOrderKey(*(*field)->type());
  });
  // Once k rows are kept, a batch is first cut to the rows that sort before the last of them.
  std::optional<cp::Expression> admit;
  std::vector<cp::SortKey> reversed = keys;
  for (auto& key : reversed) {
    key.order = key.order == cp::SortOrder::Ascending ? cp::SortOrder::Descending : cp::SortOrder::Ascending;
  }
  // Keeps the k first rows of everything held; a type select_k cannot order keeps all.
  auto select = [&]() -> Status {
    // One contiguous batch: select_k compares chunked columns far more slowly.
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema, kept));
    ARROW_ASSIGN_OR_RAISE(auto rows, table->CombineChunksToBatch());
    cp::SelectKOptions options(std::min(k, rows->num_rows()), keys);
    auto top = cp::CallFunction("select_k_unstable", {rows}, &options);
    if (!top.ok()) {
      selectable = false;
      return Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(rows, *top));
    kept = {taken.record_batch()};
    waiting = 0;
    admit.reset();
    if (kept[0]->num_rows() == k) {
      cp::SelectKOptions last_options(1, reversed);
      ARROW_ASSIGN_OR_RAISE(auto last_index, cp::CallFunction("select_k_unstable", {kept[0]}, &last_options));
      ARROW_ASSIGN_OR_RAISE(auto last, cp::Take(kept[0], last_index));
      auto expr = SortsBefore(*last.record_batch(), keys);
      if (expr.ok()) {
        auto bound = expr->Bind(*schema);
        if (bound.ok()) admit = *bound;
      }
    }
    return Status::OK();
  };
  const int64_t batch_limit = std::max<int64_t>(k, int64_t{1} << 16);
  if (k > 0) {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      if (admit) {
        ARROW_ASSIGN_OR_RAISE(auto mask, cp::ExecuteScalarExpression(*admit, cp::ExecBatch(*batch)));
        ARROW_ASSIGN_OR_RAISE(auto admitted, cp::Filter(batch, mask));
        batch = admitted.record_batch();
      }
      if (batch->num_rows() == 0) continue;
      if (selectable && batch->num_rows() > k) {
        ARROW_ASSIGN_OR_RAISE(batch, PreSelect(batch, keys, k));
      }
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
  ARROW_ASSIGN_OR_RAISE(reader, ac::DeclarationToReader(input, StatementPlanOptions(true)));
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
