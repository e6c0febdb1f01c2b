#include "floe/sql/plan/spill/external_sort.h"

#include <cmath>
#include <queue>

#include <arrow/acero/options.h>
#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/table.h>
#include <arrow/visit_type_inline.h>

namespace floe::sql {

namespace ac = arrow::acero;
namespace cp = arrow::compute;

namespace {

// Runs are written, and merged rows produced, in batches of these sizes: small run batches
// keep the merge's memory and the cost of gathering each output batch low.
constexpr int64_t kRunBatchRows = 8192;
constexpr int64_t kOutputBatchRows = 65536;

// Compares a[i] with b[j] for one key: <0, 0, >0, nulls and NaN where the ordering places them.
using KeyCompare = int (*)(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j, bool descending,
                           bool nulls_last);

template <typename T>
int Order(const T& x, const T& y, bool descending) {
  int c = x < y ? -1 : (y < x ? 1 : 0);
  return descending ? -c : c;
}

template <typename ArrayType>
int CompareViews(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j, bool descending,
                 bool nulls_last) {
  const bool an = a.IsNull(i), bn = b.IsNull(j);
  if (an || bn) return an == bn ? 0 : ((an == nulls_last) ? 1 : -1);
  auto x = static_cast<const ArrayType&>(a).GetView(i);
  auto y = static_cast<const ArrayType&>(b).GetView(j);
  if constexpr (std::is_floating_point_v<decltype(x)>) {
    const bool xn = std::isnan(x), yn = std::isnan(y);
    if (xn || yn) return xn == yn ? 0 : ((xn == nulls_last) ? 1 : -1);
  }
  return Order(x, y, descending);
}

template <typename ArrayType, typename Decimal>
int CompareDecimals(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j, bool descending,
                    bool nulls_last) {
  const bool an = a.IsNull(i), bn = b.IsNull(j);
  if (an || bn) return an == bn ? 0 : ((an == nulls_last) ? 1 : -1);
  Decimal x(static_cast<const ArrayType&>(a).GetValue(i));
  Decimal y(static_cast<const ArrayType&>(b).GetValue(j));
  return Order(x, y, descending);
}

struct ComparePicker {
  KeyCompare out = nullptr;

  template <typename T>
  arrow::Status Visit(const T&) {
    if constexpr (std::is_same_v<T, arrow::Decimal128Type>) {
      out = &CompareDecimals<arrow::Decimal128Array, arrow::Decimal128>;
    } else if constexpr (std::is_same_v<T, arrow::Decimal256Type>) {
      out = &CompareDecimals<arrow::Decimal256Array, arrow::Decimal256>;
    } else if constexpr (std::is_same_v<T, arrow::HalfFloatType>) {
      out = nullptr;
    } else if constexpr (arrow::is_number_type<T>::value || arrow::is_boolean_type<T>::value ||
                         arrow::is_date_type<T>::value || arrow::is_time_type<T>::value ||
                         arrow::is_timestamp_type<T>::value || arrow::is_duration_type<T>::value ||
                         arrow::is_base_binary_type<T>::value || arrow::is_binary_view_like_type<T>::value ||
                         arrow::is_fixed_size_binary_type<T>::value) {
      out = &CompareViews<typename arrow::TypeTraits<T>::ArrayType>;
    }
    return arrow::Status::OK();
  }
};

KeyCompare CompareFor(const arrow::DataType& type) {
  ComparePicker picker;
  (void)arrow::VisitTypeInline(type, &picker);
  return picker.out;
}

struct MergeKey {
  int column;
  KeyCompare compare;
  bool descending;
};

// One sorted run being merged: its current batch and the next row in it.
struct Run {
  std::shared_ptr<arrow::RecordBatchReader> reader;
  std::shared_ptr<arrow::RecordBatch> batch;
  int64_t row = 0;
  int source = -1;  // its batch's place among the output batch's sources
};

class SortReader final : public SpillingReader {
 public:
  SortReader(std::shared_ptr<arrow::Schema> schema, SpillEnv env, ac::Declaration input, cp::Ordering ordering,
             std::vector<MergeKey> keys)
      : SpillingReader(std::move(schema), std::move(env)),
        input_(std::move(input)),
        ordering_(std::move(ordering)),
        keys_(std::move(keys)),
        nulls_last_(ordering_.null_placement() == cp::NullPlacement::AtEnd) {}

 protected:
  Status Start() override {
    ARROW_ASSIGN_OR_RAISE(auto input, RunPlan(input_, env_));
    input_ = ac::Declaration();
    const int64_t run_bytes = env_.sort_run_bytes();
    std::vector<std::shared_ptr<arrow::RecordBatch>> held;
    int64_t held_bytes = 0;
    std::vector<std::string> runs;
    while (true) {
      ARROW_RETURN_NOT_OK(env_.CheckCancel());
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(input->ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() == 0) continue;
      held_bytes += BatchBytes(*batch);
      held.push_back(std::move(batch));
      if (held_bytes > run_bytes) {
        ARROW_ASSIGN_OR_RAISE(auto sorted, SortHeld(&held));
        held_bytes = 0;
        ARROW_ASSIGN_OR_RAISE(auto path, env_.space->NewFile("sort"));
        ARROW_ASSIGN_OR_RAISE(auto writer, SpillWriter::Open(path, schema_, env_.pool));
        arrow::TableBatchReader chunks(*sorted);
        chunks.set_chunksize(kRunBatchRows);
        while (true) {
          ARROW_RETURN_NOT_OK(env_.CheckCancel());
          std::shared_ptr<arrow::RecordBatch> chunk;
          ARROW_RETURN_NOT_OK(chunks.ReadNext(&chunk));
          if (!chunk) break;
          ARROW_RETURN_NOT_OK(writer->Write(*chunk));
        }
        ARROW_RETURN_NOT_OK(writer->Close());
        runs.push_back(path);
      }
    }
    ARROW_RETURN_NOT_OK(input->Close());
    ARROW_ASSIGN_OR_RAISE(auto last, SortHeld(&held));
    if (runs.empty()) {
      last_ = std::move(last);
      last_reader_ = std::make_unique<arrow::TableBatchReader>(*last_);
      last_reader_->set_chunksize(kOutputBatchRows);
      return Status::OK();
    }
    // The rows after the last full run stay in memory as one more run.
    auto chunks = std::make_shared<arrow::TableBatchReader>(last);
    chunks->set_chunksize(kRunBatchRows);
    runs_.push_back(Run{std::move(chunks), nullptr, 0, -1});
    for (const auto& path : runs) {
      ARROW_ASSIGN_OR_RAISE(auto reader, ReadSpillFile(path, env_.pool));
      runs_.push_back(Run{std::move(reader), nullptr, 0, -1});
    }
    for (size_t r = 0; r < runs_.size(); ++r) {
      ARROW_RETURN_NOT_OK(Advance(&runs_[r]));
      if (runs_[r].batch) heap_.push(static_cast<int>(r));
    }
    return Status::OK();
  }

  Status Next(std::shared_ptr<arrow::RecordBatch>* out) override {
    if (last_reader_) {
      ARROW_RETURN_NOT_OK(last_reader_->ReadNext(out));
      return Status::OK();
    }
    if (heap_.empty()) return Status::OK();
    // Each output row is (source batch, row); the sources are the runs' batches as they were
    // when their rows were taken.
    std::vector<std::shared_ptr<arrow::RecordBatch>> sources;
    for (auto& run : runs_) run.source = -1;
    std::vector<std::pair<int, int64_t>> picks;
    picks.reserve(kOutputBatchRows);
    while (!heap_.empty() && static_cast<int64_t>(picks.size()) < kOutputBatchRows) {
      const int r = heap_.top();
      heap_.pop();
      Run& run = runs_[r];
      // Rows of this run are taken while they come before every other run's next row: one
      // comparison a row, and whole stretches when runs hardly overlap (input nearly in order).
      bool exhausted = false;
      do {
        if (run.source < 0) {
          run.source = static_cast<int>(sources.size());
          sources.push_back(run.batch);
        }
        picks.emplace_back(run.source, run.row);
        if (++run.row == run.batch->num_rows()) {
          ARROW_RETURN_NOT_OK(Advance(&run));
          run.source = -1;
          if (!run.batch) {
            exhausted = true;
            break;
          }
        }
      } while (static_cast<int64_t>(picks.size()) < kOutputBatchRows && (heap_.empty() || !After(r, heap_.top())));
      if (!exhausted) heap_.push(r);
    }
    std::vector<int64_t> offsets(sources.size() + 1, 0);
    for (size_t s = 0; s < sources.size(); ++s) offsets[s + 1] = offsets[s] + sources[s]->num_rows();
    arrow::Int64Builder indices(env_.pool);
    ARROW_RETURN_NOT_OK(indices.Reserve(static_cast<int64_t>(picks.size())));
    for (const auto& [source, row] : picks) indices.UnsafeAppend(offsets[source] + row);
    ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema_, sources));
    cp::ExecContext ctx(env_.pool);
    ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(table, index_array, cp::TakeOptions::NoBoundsCheck(), &ctx));
    ARROW_ASSIGN_OR_RAISE(*out, taken.table()->CombineChunksToBatch(env_.pool));
    return Status::OK();
  }

 private:
  // Sorts the held batches (and lets them go).
  Result<std::shared_ptr<arrow::Table>> SortHeld(std::vector<std::shared_ptr<arrow::RecordBatch>>* held) {
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema_, *held));
    held->clear();
    cp::ExecContext ctx(env_.pool);
    ARROW_ASSIGN_OR_RAISE(auto indices,
                          cp::SortIndices(arrow::Datum(table),
                                          cp::SortOptions(ordering_.sort_keys(), ordering_.null_placement()), &ctx));
    ARROW_ASSIGN_OR_RAISE(auto sorted, cp::Take(table, indices, cp::TakeOptions::NoBoundsCheck(), &ctx));
    return sorted.table();
  }

  Status Advance(Run* run) {
    run->row = 0;
    while (true) {
      ARROW_RETURN_NOT_OK(run->reader->ReadNext(&run->batch));
      if (!run->batch || run->batch->num_rows() > 0) return Status::OK();
    }
  }

  // Whether run a's next row goes after run b's: the heap keeps the first on top.
  bool After(int a, int b) const {
    const Run& x = runs_[a];
    const Run& y = runs_[b];
    for (const MergeKey& key : keys_) {
      int c = key.compare(*x.batch->column(key.column), x.row, *y.batch->column(key.column), y.row, key.descending,
                          nulls_last_);
      if (c != 0) return c > 0;
    }
    return a > b;  // earlier runs first: ties keep their input order
  }

  struct HeapOrder {
    const SortReader* self;
    bool operator()(int a, int b) const { return self->After(a, b); }
  };

  ac::Declaration input_;
  cp::Ordering ordering_;
  std::vector<MergeKey> keys_;
  bool nulls_last_;
  std::shared_ptr<arrow::Table> last_;
  std::unique_ptr<arrow::TableBatchReader> last_reader_;
  std::vector<Run> runs_;
  std::priority_queue<int, std::vector<int>, HeapOrder> heap_{HeapOrder{this}};
};

}  // namespace

bool CanMergeKey(const arrow::DataType& type) { return CompareFor(type) != nullptr; }

Result<ac::Declaration> SortWithSpill(ac::Declaration input, cp::Ordering ordering, SpillEnv env) {
  ARROW_ASSIGN_OR_RAISE(auto schema, ac::DeclarationToSchema(input));
  std::vector<MergeKey> keys;
  for (const auto& key : ordering.sort_keys()) {
    auto path = key.target.FindOne(*schema);
    KeyCompare compare = nullptr;
    if (path.ok() && path->indices().size() == 1) compare = CompareFor(*schema->field(path->indices()[0])->type());
    if (compare == nullptr) {
      // A key the merge cannot compare: Acero sorts in memory.
      return ac::Declaration::Sequence({std::move(input), {"order_by", ac::OrderByNodeOptions(std::move(ordering))}});
    }
    keys.push_back(MergeKey{path->indices()[0], compare, key.order == cp::SortOrder::Descending});
  }
  auto reader = std::make_shared<SortReader>(schema, std::move(env), std::move(input), std::move(ordering),
                                             std::move(keys));
  return OperatorSource(std::move(reader), /*ordered=*/true);
}

}  // namespace floe::sql
