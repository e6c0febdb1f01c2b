// Window functions in a SELECT: the rows of the query so far (after WHERE, GROUP BY and
// HAVING) are held, every window's keys and arguments evaluated once, and each call adds a
// column that the SELECT list and ORDER BY then read by the call's SQL. Rows beyond a
// sixteenth of the memory limit go to spill files by the PARTITION BY keys every call shares
// (each window partition whole in one file) and are computed a file at a time.

#include <algorithm>
#include <limits>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/sql/bind/expression_binder.h"
#include "floe/sql/bind/expression_binder_internal.h"
#include "floe/sql/functions/function_registry.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/plan/query_planner.h"
#include "floe/sql/plan/relation.h"
#include "floe/sql/plan/spill/spill_operator.h"
#include "floe/sql/windows/window_functions.h"
#include "floe/sql/windows/window_spec.h"
#include "floe/util/memory_limit.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace cp = arrow::compute;

namespace {

// A call as planned: the columns of the evaluated rows it reads.
struct PlannedWindow {
  const Expr* expr = nullptr;
  std::vector<int> partition_by;
  struct Key {
    int column;
    bool ascending;
    bool nulls_first;
  };
  std::vector<Key> order_by;
  int argument = -1;
  WindowFrameSpec frame;
  WindowCall call;  // without its argument arrays
  SourcePos pos;
  std::vector<std::string> partition_sql;  // each PARTITION BY key's SQL
};

// The window calls' values over rows held in memory: the rows' kept columns, then one column
// per call.
struct WindowRows {
  std::string sql;
  size_t kept = 0;
  std::vector<std::shared_ptr<arrow::DataType>> types;
  std::vector<PlannedWindow> planned;
  std::shared_ptr<arrow::Schema> schema;

  Result<std::shared_ptr<arrow::Table>> Compute(std::shared_ptr<arrow::Table> rows) const {
    ARROW_ASSIGN_OR_RAISE(rows, rows->CombineChunks(StatementMemoryPool()));
    const int64_t n = rows->num_rows();
    auto column = [&](int i) -> std::shared_ptr<arrow::Array> {
      const auto& chunks = rows->column(i);
      if (chunks->num_chunks() == 1) return chunks->chunk(0);
      return arrow::MakeArrayOfNull(types[static_cast<size_t>(i)], n).ValueOr(nullptr);
    };
    arrow::ArrayVector out_arrays;
    for (size_t i = 0; i < kept; ++i) out_arrays.push_back(column(static_cast<int>(i)));
    for (const PlannedWindow& planned_window : planned) {
      PlannedWindow w = planned_window;
      std::vector<std::shared_ptr<arrow::Array>> partition_by;
      for (int c : w.partition_by) partition_by.push_back(column(c));
      std::vector<WindowOrderKey> order_by;
      for (const auto& k : w.order_by) order_by.push_back({column(k.column), k.ascending, k.nulls_first});
      if (w.argument >= 0) w.call.args.push_back(column(w.argument));
      auto values = ComputeWindow(n, partition_by, order_by, w.frame, w.call);
      if (!values.ok()) return ErrorAt(sql, w.pos, values.status().message());
      std::shared_ptr<arrow::Array> result = *values;
      if (!result->type()->Equals(*w.call.result_type)) {
        ARROW_ASSIGN_OR_RAISE(result, cp::Cast(*result, w.call.result_type));
      }
      out_arrays.push_back(std::move(result));
    }
    return arrow::Table::Make(schema, out_arrays, n);
  }
};

// Spilled rows split by the windows' shared partition keys: each file's windows computed when
// it is reached.
class WindowPartsReader final : public SpillingReader {
 public:
  WindowPartsReader(std::shared_ptr<const WindowRows> windows, SpillEnv env,
                    std::vector<std::pair<std::string, int64_t>> files)
      : SpillingReader(windows->schema, std::move(env)), windows_(std::move(windows)), files_(std::move(files)) {}

 protected:
  Status Start() override { return Status::OK(); }
  Status Next(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (current_) {
        ARROW_RETURN_NOT_OK(current_->ReadNext(out));
        if (*out) return Status::OK();
        current_.reset();
      }
      if (next_ >= files_.size()) return Status::OK();
      ARROW_RETURN_NOT_OK(env_.CheckCancel());
      const auto& [path, bytes] = files_[next_++];
      ARROW_ASSIGN_OR_RAISE(auto reader, ReadSpillFile(path, env_.pool));
      if (bytes == 0) continue;
      ARROW_ASSIGN_OR_RAISE(auto rows, reader->ToTable());
      ARROW_ASSIGN_OR_RAISE(auto computed, windows_->Compute(std::move(rows)));
      current_ = std::make_shared<arrow::TableBatchReader>(std::move(computed));
    }
  }

 private:
  std::shared_ptr<const WindowRows> windows_;
  std::vector<std::pair<std::string, int64_t>> files_;
  size_t next_ = 0;
  std::shared_ptr<arrow::RecordBatchReader> current_;
};

}  // namespace

Result<Rel> QueryPlanner::PlanWindows(Rel scope, const std::vector<const Expr*>& calls,
                                      bool aggregated, std::map<std::string, int>* computed) {
  const std::map<std::string, int>* comp = aggregated ? computed : nullptr;
  std::vector<cp::Expression> exprs;
  std::vector<std::string> names;
  std::vector<std::shared_ptr<arrow::DataType>> types;
  for (size_t i = 0; i < scope.columns.size(); ++i) {
    exprs.push_back(cp::field_ref(static_cast<int>(i)));
    names.push_back("c" + std::to_string(i));
    types.push_back(scope.columns[i].type);
  }
  auto add = [&](const Expr& e) -> Result<int> {
    ARROW_ASSIGN_OR_RAISE(auto bound, PlanExpr(e, Context(scope.columns, comp)));
    exprs.push_back(bound.expr);
    names.push_back("c" + std::to_string(names.size()));
    types.push_back(bound.type);
    return static_cast<int>(exprs.size()) - 1;
  };
  auto constant = [&](const Expr& e) -> Result<std::shared_ptr<arrow::Scalar>> {
    auto v = EvaluateConstant(e);
    if (!v.ok())
      return ErrorAt(env_.sql, e.pos,
                     StrCat("The window function argument ", ToSql(e), " must be a constant"));
    return *v;
  };
  auto positive_int = [&](const Expr& e, const char* what) -> Result<int64_t> {
    ARROW_ASSIGN_OR_RAISE(auto v, constant(e));
    if (!v->is_valid || !arrow::is_integer(v->type->id())) {
      return ErrorAt(env_.sql, e.pos,
                     StrCat("The ", what, " of a window function must be an integer constant"));
    }
    ARROW_ASSIGN_OR_RAISE(auto i64, v->CastTo(arrow::int64()));
    return static_cast<const arrow::Int64Scalar&>(*i64).value;
  };

  std::vector<PlannedWindow> planned;
  for (const Expr* e : calls) {
    const auto& f = *e->As<FunctionCall>();
    std::string fn = Lower(f.name.parts.back().name);
    if (fn == "first") fn = "first_value";
    if (fn == "last") fn = "last_value";
    const bool aggregate =
        fn == "count" || fn == "sum" || fn == "avg" || fn == "mean" || fn == "min" || fn == "max";
    if (fn == "mean") fn = "avg";
    if (!IsWindowOnlyFunction(fn) && !aggregate) {
      return ErrorAt(env_.sql, e->pos,
                     StrCat("[UNSUPPORTED_EXPR_FOR_WINDOW] Expression \"", GeneratedName(*e),
                            "\" not supported within a window function."));
    }
    if (f.distinct) {
      return ErrorAt(env_.sql, e->pos,
                     StrCat("[DISTINCT_WINDOW_FUNCTION_UNSUPPORTED] Distinct window functions are "
                            "not supported: ",
                            GeneratedName(*e), "."));
    }
    const WindowSpec& spec = *f.over;
    if (IsRankingFunction(fn) && spec.order_by.empty()) {
      return ErrorAt(env_.sql, e->pos,
                     StrCat("Window function ", fn,
                            "() requires window to be ordered, please add ORDER BY clause. ",
                            "For example SELECT ", fn,
                            "()(value_expr) OVER (PARTITION BY window_partition ORDER BY ",
                            "window_ordering) from table."));
    }
    PlannedWindow w;
    w.expr = e;
    w.pos = e->pos;
    w.call.function = fn;
    w.call.ignore_nulls = f.ignore_nulls;
    for (const Expr& p : spec.partition_by) {
      ARROW_ASSIGN_OR_RAISE(int c, add(p));
      w.partition_by.push_back(c);
      w.partition_sql.push_back(ToSql(p));
    }
    for (const OrderItem& o : spec.order_by) {
      ARROW_ASSIGN_OR_RAISE(int c, add(o.expr));
      const bool nulls_first =
          o.nulls == NullsOrder::kFirst || (o.nulls == NullsOrder::kDefault && o.ascending);
      w.order_by.push_back({c, o.ascending, nulls_first});
    }
    auto arity = [&](size_t low, size_t high) -> Status {
      if (f.args.size() >= low && f.args.size() <= high && !(f.star && fn != "count"))
        return Status::OK();
      return ErrorAt(env_.sql, e->pos,
                     StrCat("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `", fn, "` requires ",
                            low == high ? std::to_string(low) : StrCat("[", low, ", ", high, "]"),
                            " parameters but the actual number is ", f.args.size(), "."));
    };
    if (fn == "row_number" || fn == "rank" || fn == "dense_rank" || fn == "percent_rank" ||
        fn == "cume_dist") {
      ARROW_RETURN_NOT_OK(arity(0, 0));
      w.call.result_type =
          fn == "percent_rank" || fn == "cume_dist" ? arrow::float64() : arrow::int32();
    } else if (fn == "ntile") {
      ARROW_RETURN_NOT_OK(arity(1, 1));
      ARROW_ASSIGN_OR_RAISE(w.call.offset, positive_int(f.args[0], "bucket count"));
      if (w.call.offset <= 0) {
        return ErrorAt(env_.sql, f.args[0].pos,
                       "Buckets expression must be positive, but got: " + ToSql(f.args[0]));
      }
      w.call.result_type = arrow::int32();
    } else if (fn == "lag" || fn == "lead") {
      ARROW_RETURN_NOT_OK(arity(1, 3));
      ARROW_ASSIGN_OR_RAISE(w.argument, add(f.args[0]));
      if (f.args.size() > 1) {
        ARROW_ASSIGN_OR_RAISE(w.call.offset, positive_int(f.args[1], "offset"));
      }
      if (f.args.size() > 2) {
        ARROW_ASSIGN_OR_RAISE(w.call.default_value, constant(f.args[2]));
      }
      w.call.result_type = types[static_cast<size_t>(w.argument)];
    } else if (fn == "first_value" || fn == "last_value" || fn == "nth_value") {
      ARROW_RETURN_NOT_OK(arity(fn == "nth_value" ? 2 : 1, 2));
      ARROW_ASSIGN_OR_RAISE(w.argument, add(f.args[0]));
      if (fn == "nth_value") {
        ARROW_ASSIGN_OR_RAISE(w.call.offset, positive_int(f.args[1], "offset"));
        if (w.call.offset <= 0) {
          return ErrorAt(env_.sql, f.args[1].pos,
                         "The offset of nth_value must be a positive integer");
        }
      } else if (f.args.size() == 2) {
        ARROW_ASSIGN_OR_RAISE(auto ignore, constant(f.args[1]));
        if (!ignore->is_valid || ignore->type->id() != arrow::Type::BOOL) {
          return ErrorAt(env_.sql, f.args[1].pos,
                         "The second argument of " + fn + " must be a boolean constant");
        }
        w.call.ignore_nulls = static_cast<const arrow::BooleanScalar&>(*ignore).value;
      }
      w.call.result_type = types[static_cast<size_t>(w.argument)];
    } else {
      if (fn == "count" && (f.star || f.args.empty())) {
        w.call.result_type = arrow::int64();
      } else {
        ARROW_RETURN_NOT_OK(arity(1, 1));
        ARROW_ASSIGN_OR_RAISE(w.argument, add(f.args[0]));
        const auto& arg_type = types[static_cast<size_t>(w.argument)];
        if (fn == "min" || fn == "max") {
          w.call.result_type = arg_type;
        } else if (fn == "count") {
          w.call.result_type = arrow::int64();
        } else {
          w.call.result_type = FindAggregateFunction(fn)->result_type(arg_type);
          if (!w.call.result_type) {
            return ErrorAt(env_.sql, e->pos,
                           StrCat("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"",
                                  GeneratedName(*e), "\": ", fn, " needs a numeric argument, not ",
                                  arg_type->ToString()));
          }
        }
      }
    }
    const WindowFrame frame = EffectiveFrame(f);
    w.frame.rows = frame.unit == FrameUnit::kRows;
    auto bound = [&](const FrameBound& b, WindowBound* out) -> Status {
      switch (b.kind) {
        case FrameBoundKind::kUnboundedPreceding:
          out->kind = WindowBound::Kind::kUnboundedPreceding;
          break;
        case FrameBoundKind::kPreceding:
          out->kind = WindowBound::Kind::kPreceding;
          break;
        case FrameBoundKind::kCurrentRow:
          out->kind = WindowBound::Kind::kCurrentRow;
          break;
        case FrameBoundKind::kFollowing:
          out->kind = WindowBound::Kind::kFollowing;
          break;
        case FrameBoundKind::kUnboundedFollowing:
          out->kind = WindowBound::Kind::kUnboundedFollowing;
          break;
      }
      if (b.offset) {
        ARROW_ASSIGN_OR_RAISE(auto v, constant(*b.offset));
        auto as_double = v->is_valid ? v->CastTo(arrow::float64()) : Status::Invalid("NULL");
        if (!as_double.ok() || (w.frame.rows && !arrow::is_integer(v->type->id()))) {
          return ErrorAt(
              env_.sql, b.offset->pos,
              StrCat(
                  "[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE] The frame boundary ",
                  ToSql(*b.offset), " must be ", w.frame.rows ? "an integer" : "a number",
                  " constant"));
        }
        out->offset = static_cast<const arrow::DoubleScalar&>(**as_double).value;
      }
      return Status::OK();
    };
    ARROW_RETURN_NOT_OK(bound(frame.start, &w.frame.start));
    ARROW_RETURN_NOT_OK(bound(frame.end, &w.frame.end));
    if (frame.start.kind == FrameBoundKind::kUnboundedFollowing ||
        frame.end.kind == FrameBoundKind::kUnboundedPreceding) {
      return ErrorAt(env_.sql, frame.pos,
                     "[DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON] The window "
                     "frame's lower bound "
                     "cannot come after its upper bound");
    }
    planned.push_back(std::move(w));
  }

  // The rows, with every key and argument, once.
  Rel evaluated;
  evaluated.decl = Project(scope.decl, exprs, names);
  for (size_t i = 0; i < exprs.size(); ++i) {
    Column c;
    c.name = names[i];
    c.type = types[i];
    evaluated.columns.push_back(std::move(c));
  }
  auto windows = std::make_shared<WindowRows>();
  windows->sql = env_.sql;
  windows->kept = scope.columns.size();
  windows->types = types;
  windows->planned = planned;
  std::vector<Column> out_columns = scope.columns;
  arrow::FieldVector out_fields;
  for (size_t i = 0; i < scope.columns.size(); ++i) out_fields.push_back(arrow::field("c" + std::to_string(i), types[i]));
  for (PlannedWindow& w : planned) {
    (*computed)[ToSql(*w.expr)] = static_cast<int>(out_columns.size());
    Column c;
    c.name = GeneratedName(*w.expr);
    c.type = w.call.result_type;
    c.hidden = true;  // read by the call's SQL, never by `*`
    out_columns.push_back(c);
    out_fields.push_back(arrow::field("c" + std::to_string(out_fields.size()), w.call.result_type));
  }
  windows->schema = arrow::schema(out_fields);

  // Keys every window partitions by: rows split by them keep each window's partitions whole.
  std::vector<int> split_keys;
  if (!planned.empty()) {
    for (size_t k = 0; k < planned[0].partition_by.size(); ++k) {
      const std::string& text = planned[0].partition_sql[k];
      bool everywhere = true;
      for (const PlannedWindow& w : planned) {
        everywhere = everywhere && std::find(w.partition_sql.begin(), w.partition_sql.end(), text) !=
                                       w.partition_sql.end();
      }
      const int column = planned[0].partition_by[k];
      if (everywhere && CanPartitionBy(*types[static_cast<size_t>(column)])) split_keys.push_back(column);
    }
  }
  SpillEnv spill = Spill();
  ARROW_ASSIGN_OR_RAISE(auto input, RunPlan(evaluated.decl, spill));
  std::vector<std::shared_ptr<arrow::RecordBatch>> held;
  // Without shared keys the rows cannot be split: all of them are held.
  const int64_t hold = split_keys.empty() ? std::numeric_limits<int64_t>::max() : spill.partition_bytes();
  ARROW_ASSIGN_OR_RAISE(bool ended, HoldInput(*input, hold, spill, &held));
  if (ended) {
    ARROW_ASSIGN_OR_RAISE(auto rows, arrow::Table::FromRecordBatches(input->schema(), held));
    held.clear();
    ARROW_ASSIGN_OR_RAISE(auto out_table, windows->Compute(std::move(rows)));
    Rel out = RelFromTable(std::move(out_table));
    out.columns = std::move(out_columns);
    return out;
  }
  // More rows than a partition of memory: split by the shared keys into files, and compute
  // the windows of one file at a time as the rows are read.
  auto evaluated_schema = input->schema();
  auto all = Chain(HeldRows(evaluated_schema, std::move(held)), std::move(input));
  ARROW_ASSIGN_OR_RAISE(auto partitioner, Partitioner::Make(spill, "window", all->schema(), split_keys, 0, kSpillFanout));
  ARROW_RETURN_NOT_OK(partitioner->AddAll(*all));
  ARROW_RETURN_NOT_OK(all->Close());
  ARROW_ASSIGN_OR_RAISE(auto files, partitioner->Finish());
  Rel out = RelFromSchema(*windows->schema, OperatorSource(std::make_shared<WindowPartsReader>(windows, spill, files)));
  out.columns = std::move(out_columns);
  return out;
}

}  // namespace floe::sql
