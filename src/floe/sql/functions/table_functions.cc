// Table functions: range, and PostgreSQL's generate_series and unnest.

#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/util.h>
#include <arrow/compute/cast.h>
#include <arrow/record_batch.h>
#include <arrow/scalar.h>

#include <algorithm>

#include "floe/sql/functions/function_helpers.h"
#include "floe/sql/postgres/pg_array_text.h"
#include "floe/util/memory_limit.h"
#include "floe/util/str_cat.h"

namespace floe::sql::functions {

namespace {

// Generates range()'s ids batch by batch, so a large range streams into a plan in bounded
// memory instead of being built up front.
class RangeReader : public arrow::RecordBatchReader {
 public:
  static constexpr uint64_t kBatchRows = 64 * 1024;

  RangeReader(int64_t start, int64_t step, uint64_t count, const char* column = "id",
              std::shared_ptr<arrow::DataType> type = arrow::int64())
      : schema_(arrow::schema({arrow::field(column, std::move(type), false)})), start_(start), step_(step), count_(count) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (next_ >= count_) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    const uint64_t n = std::min(kBatchRows, count_ - next_);
    arrow::Int64Builder builder(pool_);
    ARROW_RETURN_NOT_OK(builder.Reserve(static_cast<int64_t>(n)));
    // Stepped in unsigned arithmetic, so extreme bounds do not overflow.
    for (uint64_t i = next_; i < next_ + n; ++i) {
      builder.UnsafeAppend(static_cast<int64_t>(static_cast<uint64_t>(start_) + i * static_cast<uint64_t>(step_)));
    }
    next_ += n;
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> ids, builder.Finish());
    if (!schema_->field(0)->type()->Equals(*ids->type())) {
      // int4 ids (generate_series of int4 bounds), within range as their bounds are.
      ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*ids, schema_->field(0)->type(),
                                                            arrow::compute::CastOptions::Unsafe(), nullptr));
      ids = cast;
    }
    *batch = arrow::RecordBatch::Make(schema_, static_cast<int64_t>(n), {ids});
    return arrow::Status::OK();
  }

 private:
  std::shared_ptr<arrow::Schema> schema_;
  int64_t start_;
  int64_t step_;
  uint64_t count_;
  uint64_t next_ = 0;
  // Made while the statement plans; its batches count against the statement's memory.
  arrow::MemoryPool* pool_ = StatementMemoryPool();
};

// range(end), range(start, end[, step]): one BIGINT column `id`.
Result<std::shared_ptr<arrow::RecordBatchReader>> Range(const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  std::vector<int64_t> args;
  for (const auto& v : values) {
    ARROW_ASSIGN_OR_RAISE(auto i64, v->CastTo(arrow::int64()));
    args.push_back(static_cast<const arrow::Int64Scalar&>(*i64).value);
  }
  int64_t start = 0, end = 0, step = 1;
  if (args.size() == 1) {
    end = args[0];
  } else if (args.size() >= 2 && args.size() <= 3) {
    start = args[0];
    end = args[1];
    if (args.size() == 3) step = args[2];
  } else {
    return Status::Invalid("range takes 1 to 3 arguments");
  }
  if (step == 0) return Status::Invalid("range's step must not be 0");
  // Counted in unsigned arithmetic, so extreme bounds do not overflow.
  uint64_t count = 0;
  if (step > 0 && end > start) {
    count = (static_cast<uint64_t>(end) - static_cast<uint64_t>(start) - 1) / static_cast<uint64_t>(step) + 1;
  } else if (step < 0 && start > end) {
    const uint64_t stride = static_cast<uint64_t>(-(step + 1)) + 1;
    count = (static_cast<uint64_t>(start) - static_cast<uint64_t>(end) - 1) / stride + 1;
  }
  constexpr uint64_t kMaxRangeRows = uint64_t{1} << 30;
  if (count > kMaxRangeRows) {
    return Status::Invalid(StrCat("range(", start, ", ", end, ", ", step, ") would produce more than ", kMaxRangeRows,
                                  " rows, the most floe generates"));
  }
  return std::make_shared<RangeReader>(start, step, count);
}

// generate_series(start, stop[, step]): PostgreSQL's integers from start through stop, in one
// column `generate_series`, INT when every argument is (PostgreSQL's int4 form), else BIGINT
// (the JDBC driver numbers the search path with it).
Result<std::shared_ptr<arrow::RecordBatchReader>> GenerateSeries(
    const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  if (values.size() < 2 || values.size() > 3) return Status::Invalid("generate_series takes 2 or 3 arguments");
  std::shared_ptr<arrow::DataType> type = arrow::int32();
  for (const auto& v : values) {
    if (v->type->id() != arrow::Type::INT32 && v->type->id() != arrow::Type::INT16 && v->type->id() != arrow::Type::INT8) {
      type = arrow::int64();
    }
  }
  std::vector<int64_t> args;
  for (const auto& v : values) {
    if (!v->is_valid) return std::make_shared<RangeReader>(0, 1, 0, "generate_series", type);
    ARROW_ASSIGN_OR_RAISE(auto i64, v->CastTo(arrow::int64()));
    args.push_back(static_cast<const arrow::Int64Scalar&>(*i64).value);
  }
  int64_t start = args[0], stop = args[1], step = args.size() == 3 ? args[2] : 1;
  if (step == 0) return Status::Invalid("step size cannot equal zero");
  // Counted in unsigned arithmetic, so extreme bounds do not overflow.
  uint64_t count = 0;
  if (step > 0 && stop >= start) {
    count = (static_cast<uint64_t>(stop) - static_cast<uint64_t>(start)) / static_cast<uint64_t>(step) + 1;
  } else if (step < 0 && start >= stop) {
    const uint64_t stride = static_cast<uint64_t>(-(step + 1)) + 1;
    count = (static_cast<uint64_t>(start) - static_cast<uint64_t>(stop)) / stride + 1;
  }
  constexpr uint64_t kMaxRows = uint64_t{1} << 30;
  if (count > kMaxRows) {
    return Status::Invalid(StrCat("generate_series would produce more than ", kMaxRows, " rows, the most floe generates"));
  }
  return std::make_shared<RangeReader>(start, step, count, "generate_series", type);
}

// unnest(array): PostgreSQL's rows of an array's elements, in one column `unnest` (psql and
// pgcli read current_schemas(true) so). A string is an array in PostgreSQL's text form, as the
// arrays of the pg_catalog relations are (psql's \d unnests pg_class.reloptions).
Result<std::shared_ptr<arrow::RecordBatchReader>> Unnest(const std::vector<std::shared_ptr<arrow::Scalar>>& values) {
  if (values.size() != 1) return Status::Invalid("unnest takes one array");
  const auto& value = *values[0];
  std::shared_ptr<arrow::Array> items;
  if (value.type->id() == arrow::Type::NA) {
    items = std::make_shared<arrow::NullArray>(0);
  } else if (value.type->id() == arrow::Type::STRING) {
    arrow::StringBuilder builder;
    if (value.is_valid) {
      ARROW_ASSIGN_OR_RAISE(auto elements, ParsePgArrayText(static_cast<const arrow::StringScalar&>(value).view()));
      for (const auto& element : elements) {
        ARROW_RETURN_NOT_OK(element ? builder.Append(*element) : builder.AppendNull());
      }
    }
    ARROW_ASSIGN_OR_RAISE(items, builder.Finish());
  } else if (arrow::is_list_like(value.type->id())) {
    const auto& list = static_cast<const arrow::BaseListScalar&>(value);
    if (value.is_valid) {
      items = list.value;
    } else {
      ARROW_ASSIGN_OR_RAISE(items, arrow::MakeEmptyArray(list.value->type()));
    }
  } else {
    return Status::Invalid("unnest takes an array, not ", value.type->ToString());
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("unnest", items->type())}), items->length(), {items});
  return arrow::RecordBatchReader::Make({batch}, batch->schema());
}

}  // namespace

void AddTableFunctions(std::vector<TableFunction>* out) {
  out->push_back({{"range"}, Range,
                  Doc("org.apache.spark.sql.catalyst.plans.logical.Range",
                      "_FUNC_(start[, end[, step[, numSlices]]]) / _FUNC_(end) - Returns a table of values within a "
                      "specified range.",
                      {{"SELECT * FROM _FUNC_(1);", "0"}, {"SELECT * FROM _FUNC_(0, 2);", "0\n1"}}, "2.0.0")});
  out->push_back({{"generate_series"}, GenerateSeries,
                  Doc("floe.sql.GenerateSeries",
                      "_FUNC_(start, stop[, step]) - Returns a table of the integers from `start` through `stop`, "
                      "`step` apart, in one column `generate_series`.",
                      {{"SELECT * FROM _FUNC_(1, 3);", "1\n2\n3"}})});
  out->push_back({{"unnest"}, Unnest,
                  Doc("floe.sql.Unnest", "_FUNC_(array) - Returns a table of the array's elements, in one column `unnest`.",
                      {{"SELECT * FROM _FUNC_(array(1, 2));", "1\n2"}})});
  // Planned with the session, which loads the table (plan/table_changes_function.h); listed
  // here for SHOW FUNCTIONS and DESCRIBE FUNCTION.
  out->push_back(
      {{"table_changes"},
       [](const std::vector<std::shared_ptr<arrow::Scalar>>&) -> Result<std::shared_ptr<arrow::RecordBatchReader>> {
         return Status::Invalid("table_changes reads a table of the session's catalog");
       },
       Doc("floe.sql.TableChanges",
           "_FUNC_(table, from, to[, mode[, compute_updates[, identifier_columns]]]) - Returns the rows that "
           "changed in `table` after `from` up to `to` (each a snapshot id, a timestamp, a tag or branch "
           "name, or NULL: the table as created, the current snapshot): the table's columns, then "
           "_change_type, _change_ordinal, _commit_snapshot_id, _commit_timestamp, "
           "_commit_sequence_number and _operation. `mode` 'all' gives each snapshot's changes, 'net' "
           "the state at `from` against the state at `to`; with `identifier_columns` a DELETE and an "
           "INSERT of one identifier are UPDATE_BEFORE and UPDATE_AFTER. Arguments bind by position "
           "or by name (mode => 'net').",
           {{"SELECT id, _change_type FROM _FUNC_('db.t', NULL, NULL);", "1\tINSERT"},
            {"SELECT id, data, _change_type FROM _FUNC_('db.t', 'v1', NULL, mode => 'net', "
             "identifier_columns => array('id'));",
             "1\ta\tUPDATE_BEFORE\n1\tb\tUPDATE_AFTER"}})});
}

}  // namespace floe::sql::functions
