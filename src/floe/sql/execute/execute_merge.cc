// MERGE INTO t USING s ON cond WHEN ..., as Spark with Iceberg runs it, per write.merge.mode.
//
// The target's rows (with their data file and position) are joined with the source's rows
// (with a marker that is NULL where no source row joined): a row with both is matched, one
// without a target row is not matched, one without a source row is not matched by source.
// Each joined row takes the first clause of its kind whose condition holds, or none.
//   - copy-on-write (the default) rewrites each data file holding a row that a clause
//     updates or deletes, and writes the inserted rows: an `overwrite`;
//   - merge-on-read writes position delete files naming the updated and deleted rows, and
//     data files with the updated and inserted rows.
// A MERGE with only NOT MATCHED clauses appends. A target row matched by two source rows
// fails the statement (MERGE_CARDINALITY_VIOLATION) unless the only matched clause is an
// unconditional DELETE; nothing is committed then.
// On a v3 table the files written store the row lineage of the target's rows: a kept row keeps
// its `_row_id` and `_last_updated_sequence_number`, an updated one its `_row_id` (its sequence
// number is NULL: the new snapshot's); inserted rows store NULL for both and go to files of
// their own, written after the others, so their new ids follow every other row's.

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/sql/bind/binder.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/parse/expr_children.h"
#include "floe/sql/execute/insert_conform.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/plan/relation.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/row_assignments.h"
#include "floe/sql/execute/row_level.h"
#include "floe/table/row_level_writes.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

// Internal columns (see kInternalColumnPrefix).
constexpr const char* kSourceMarker = "__floe_source_row";

// A WHEN clause as the joined rows carry it.
struct ClausePlan {
  MergeMatch match = MergeMatch::kMatched;
  enum class Action { kUpdate, kDelete, kInsert } action = Action::kDelete;
  int condition = -1;              // batch column of its condition; -1: none
  std::vector<Assigned> assigned;  // kUpdate
  std::vector<int> inserted;       // kInsert: per table column, its batch column or -1 (NULL)
};

std::string Cardinality() {
  return "[MERGE_CARDINALITY_VIOLATION] The ON search condition of the MERGE statement matched "
         "a single row from the target table with multiple rows of the source table.\n"
         "This could result in the target row being operated on more than once with an update "
         "or delete operation and is not allowed.";
}

Expr Column(std::vector<std::string> parts, SourcePos pos) {
  ColumnRef ref;
  for (auto& p : parts) ref.parts.push_back(Identifier{std::move(p), true, pos});
  return Expr{std::move(ref), pos};
}

// Whether every column `e` names is qualified by `qualifier` (and it names one at least): a
// conjunct of ON that only the target's rows decide. Functions, subqueries and the rest are
// left to the join.
bool OnlyQualifiedBy(const Expr& e, const std::string& qualifier) {
  bool any = false, other = false;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (auto* c = x.As<ColumnRef>()) {
      const bool target = c->parts.size() == 2 && Lower(c->parts[0].name) == qualifier;
      any |= target;
      other |= !target;
      return;
    }
    const bool plain = x.Is<Literal>() || x.Is<Unary>() || x.Is<Binary>() || x.Is<IsNull>() || x.Is<IsBool>() ||
                       x.Is<Between>() || x.Is<InList>() || x.Is<Cast>();
    if (!plain) {
      other = true;
      return;
    }
    ForEachChild(x, walk);
  };
  walk(e);
  return any && !other;
}

// The name the source's columns are qualified by, or "" when it has none.
std::string SourceName(const Relation& source) {
  if (auto* t = source.As<TableRef>())
    return t->alias ? t->alias->name.name : t->name.parts.back().name;
  if (auto* q = source.As<SubqueryRef>()) return q->alias ? q->alias->name.name : "";
  if (auto* f = source.As<TableFunctionRef>()) return f->alias ? f->alias->name.name : "";
  return "";
}

// TRUE where `array` (a condition column) is TRUE.
bool IsTrue(const arrow::Array& array, int64_t i) {
  if (array.type_id() != arrow::Type::BOOL || !array.IsValid(i)) return false;
  return static_cast<const arrow::BooleanArray&>(array).Value(i);
}

// Data file path and position, for finding a target row twice.
struct RowId {
  const std::string* file;
  int64_t pos;
  bool operator==(const RowId&) const = default;
};
struct RowIdHash {
  size_t operator()(const RowId& r) const {
    return std::hash<const void*>()(r.file) * 31 + std::hash<int64_t>()(r.pos);
  }
};

class MergeRun {
 public:
  MergeRun(ExecContext& ctx, const Merge& merge) : ctx_(ctx), merge_(merge) {}

  Result<StatementResult> Run();

 private:
  Status PlanClauses();
  Result<Query> JoinedQuery(JoinKind kind, bool prune_target);
  // The clause each row of `batch` takes (-1: none).
  Result<std::vector<int>> Pick(const arrow::RecordBatch& batch) const;
  // Rows a clause updated, deleted or inserted (StatementResult::rows_affected).
  int64_t touched_ = 0;
  Result<std::shared_ptr<arrow::RecordBatch>> Rows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                   const std::vector<int64_t>& rows) const;
  Result<std::shared_ptr<arrow::RecordBatch>> InsertedRows(const arrow::RecordBatch& rows,
                                                           const ClausePlan& clause) const;
  // Adds the target rows of `batch` a source row matched; fails on a second match.
  Status CheckCardinality(const arrow::RecordBatch& batch);
  const std::string* Intern(std::string_view path);
  // The rows of `batch` the clauses write: updated and inserted ones (and, with `keep`, the
  // target rows of the affected files no clause changes). Positions of the target rows that
  // clauses update or delete go to `positions` when given.
  Status WriteBatch(const std::shared_ptr<arrow::RecordBatch>& batch, const FileSet* keep,
                    FilePositions* positions);
  Result<StatementResult> RunAppend();
  // The files of writer_ and then inserts_; a failure deletes them all.
  Result<std::vector<manifest::DataFile>> FinishWriters();
  Result<StatementResult> RunMergeOnRead(const RowLevelPlan& plan);
  Result<StatementResult> RunCopyOnWrite(const RowLevelPlan& plan);
  Status Fail(const Status& st) const {
    return WithContext(st, "Cannot merge into " + table_->name());
  }

  ExecContext& ctx_;
  const Merge& merge_;
  ExprBox target_where_;  // ON conjuncts only the target decides; unset with NMBS clauses
  std::optional<RowLevelTarget> target_;
  std::shared_ptr<table::Table> table_;
  std::shared_ptr<arrow::Schema> table_schema_;
  std::string table_sql_;
  std::string target_name_, source_name_;
  int columns_ = 0;       // the table's; then _file, _pos, on v3 _row_id and
                          // _last_updated_sequence_number, and the source marker
  bool lineage_ = false;  // the table carries row lineage (v3)
  int marker_ = 0;        // the source marker's column
  std::vector<ClausePlan> clauses_;
  std::vector<Expr> items_;  // conditions and values, after the target columns
  bool has_matched_ = false, has_not_matched_ = false, has_by_source_ = false;
  bool check_cardinality_ = false;
  std::unique_ptr<table::RollingDataWriter> writer_;
  // On v3, the inserted rows: their files follow the others', so that their row ids (the
  // files' first row ids plus positions) come after every row written beside them, as when
  // Spark writes them after the target's rows.
  std::unique_ptr<table::RollingDataWriter> inserts_;
  std::unordered_set<std::string> paths_;
  std::unordered_set<RowId, RowIdHash> matched_;
  std::unordered_set<RowId, RowIdHash> kept_;  // kept target rows, when one may join twice
};

Status MergeRun::PlanClauses() {
  const std::string& sql = ctx_.sql;
  auto schema = table_->metadata()->current_schema();
  const int base = marker_ + 1;
  auto add_item = [&](Expr e) {
    items_.push_back(std::move(e));
    return base + static_cast<int>(items_.size()) - 1;
  };
  int matched_clauses = 0;
  bool unconditional_delete = false;
  for (const MergeClause& c : merge_.clauses) {
    ClausePlan plan;
    plan.match = c.match;
    if (c.condition) plan.condition = add_item(*c.condition);
    has_matched_ |= c.match == MergeMatch::kMatched;
    has_not_matched_ |= c.match == MergeMatch::kNotMatched;
    has_by_source_ |= c.match == MergeMatch::kNotMatchedBySource;
    if (c.match == MergeMatch::kMatched) {
      ++matched_clauses;
      unconditional_delete = c.action == MergeActionKind::kDelete && !c.condition;
    }
    switch (c.action) {
      case MergeActionKind::kDelete:
        plan.action = ClausePlan::Action::kDelete;
        break;
      case MergeActionKind::kUpdate:
      case MergeActionKind::kUpdateStar: {
        plan.action = ClausePlan::Action::kUpdate;
        std::vector<Assignment> assignments = c.assignments;
        if (c.action == MergeActionKind::kUpdateStar) {
          // Every target column from the source column of its name.
          for (const auto& f : schema->fields()) {
            Assignment a;
            a.target.push_back(Identifier{f.name, true, merge_.source.pos});
            a.value = source_name_.empty() ? Column({f.name}, merge_.source.pos)
                                           : Column({source_name_, f.name}, merge_.source.pos);
            assignments.push_back(std::move(a));
          }
        }
        ARROW_ASSIGN_OR_RAISE(plan.assigned,
                              ResolveAssignments(sql, *schema, *table_schema_, assignments,
                                                 merge_.target, merge_.target_alias));
        for (size_t i = 0; i < assignments.size(); ++i)
          plan.assigned[i].value = add_item(assignments[i].value);
        break;
      }
      case MergeActionKind::kInsert:
      case MergeActionKind::kInsertStar: {
        plan.action = ClausePlan::Action::kInsert;
        plan.inserted.assign(static_cast<size_t>(columns_), -1);
        if (c.action == MergeActionKind::kInsertStar) {
          for (int i = 0; i < columns_; ++i) {
            const std::string& name = schema->fields()[i].name;
            plan.inserted[i] =
                add_item(source_name_.empty() ? Column({name}, merge_.source.pos)
                                              : Column({source_name_, name}, merge_.source.pos));
          }
          break;
        }
        std::vector<Identifier> names = c.insert_columns;
        if (names.empty()) {
          for (const auto& f : schema->fields())
            names.push_back(Identifier{f.name, true, merge_.source.pos});
        }
        if (names.size() != c.insert_values.size()) {
          const SourcePos pos =
              c.insert_values.empty() ? merge_.source.pos : c.insert_values.front().pos;
          return ErrorAt(sql, pos,
                         StrCat("[INSERT_COLUMN_ARITY_MISMATCH] Cannot write to ", table_sql_,
                                ": the INSERT clause names ", names.size(), " columns but has ",
                                c.insert_values.size(), " values"));
        }
        for (size_t k = 0; k < names.size(); ++k) {
          int index = -1;
          for (int i = 0; i < columns_; ++i) {
            if (Lower(schema->fields()[i].name) == Lower(names[k].name)) index = i;
          }
          if (index < 0) {
            return ErrorAt(sql, names[k].pos,
                           StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function "
                                  "parameter with name `",
                                  names[k].name, "` cannot be resolved."));
          }
          if (plan.inserted[index] >= 0) {
            return ErrorAt(sql, names[k].pos,
                           StrCat("Multiple assignments for '", schema->fields()[index].name, "'"));
          }
          plan.inserted[index] = add_item(c.insert_values[k]);
        }
        break;
      }
    }
    clauses_.push_back(std::move(plan));
  }
  check_cardinality_ = matched_clauses > 1 || (matched_clauses == 1 && !unconditional_delete);
  return Status::OK();
}

Result<Query> MergeRun::JoinedQuery(JoinKind kind, bool prune_target) {
  // The target's rows with their data file and position, under the name the statement
  // qualifies them by.
  ARROW_ASSIGN_OR_RAISE(
      Query target_rows,
      TargetQuery(
          lineage_
              ? "SELECT *, _file AS __floe_file, _pos AS __floe_pos, _row_id AS __floe_row_id, "
                "_last_updated_sequence_number AS __floe_sequence FROM t"
              : "SELECT *, _file AS __floe_file, _pos AS __floe_pos FROM t",
          *target_, prune_target));
  SubqueryRef target_ref;
  target_ref.query = std::move(target_rows);
  target_ref.alias = TableAlias{Identifier{target_name_, true, merge_.target.pos}, {}};

  ARROW_ASSIGN_OR_RAISE(auto parsed,
                        ParseStatement(StrCat("SELECT *, TRUE AS ", kSourceMarker, " FROM s")));
  Query source_rows = *parsed.As<Query>();
  auto* source_select = std::get_if<Select>(&source_rows.body);
  source_select->from.clear();
  source_select->from.push_back(merge_.source);
  SubqueryRef source_ref;
  source_ref.query = std::move(source_rows);
  if (!source_name_.empty())
    source_ref.alias = TableAlias{Identifier{source_name_, true, merge_.source.pos}, {}};

  Join join;
  join.kind = kind;
  join.left = Relation{std::move(target_ref), merge_.target.pos};
  join.right = Relation{std::move(source_ref), merge_.source.pos};
  join.on = merge_.on;

  ARROW_ASSIGN_OR_RAISE(auto skeleton, ParseStatement("SELECT 1"));
  Query out = *skeleton.As<Query>();
  auto* select = std::get_if<Select>(&out.body);
  select->items.clear();
  select->items.push_back(
      SelectItem{Expr{Star{{Identifier{target_name_, true, merge_.target.pos}}}, merge_.target.pos},
                 std::nullopt});
  std::vector<std::string> marker{kSourceMarker};
  if (!source_name_.empty()) marker.insert(marker.begin(), source_name_);
  select->items.push_back(SelectItem{Column(marker, merge_.source.pos), std::nullopt});
  for (const Expr& e : items_) select->items.push_back(SelectItem{e, std::nullopt});
  select->from.clear();
  select->from.push_back(Relation{std::move(join), merge_.target.pos});
  return out;
}

Result<std::vector<int>> MergeRun::Pick(const arrow::RecordBatch& batch) const {
  const arrow::Array& file = *batch.column(columns_);
  const arrow::Array& marker = *batch.column(marker_);
  for (const auto& c : clauses_) {
    if (c.condition >= 0 && batch.column(c.condition)->type_id() != arrow::Type::BOOL &&
        batch.column(c.condition)->type_id() != arrow::Type::NA) {
      return ErrorAt(ctx_.sql, merge_.target.pos,
                     StrCat("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] The condition of a WHEN "
                            "clause must be a BOOLEAN, not ",
                            batch.column(c.condition)->type()->ToString()));
    }
  }
  std::vector<int> pick(static_cast<size_t>(batch.num_rows()), -1);
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    const bool target = file.IsValid(i), source = marker.IsValid(i);
    const MergeMatch kind = target && source ? MergeMatch::kMatched
                            : target         ? MergeMatch::kNotMatchedBySource
                                             : MergeMatch::kNotMatched;
    for (size_t c = 0; c < clauses_.size(); ++c) {
      const ClausePlan& clause = clauses_[c];
      if (clause.match != kind) continue;
      if (clause.condition < 0 || IsTrue(*batch.column(clause.condition), i)) {
        pick[static_cast<size_t>(i)] = static_cast<int>(c);
        break;
      }
    }
  }
  return pick;
}

Result<std::shared_ptr<arrow::RecordBatch>> MergeRun::Rows(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<int64_t>& rows) const {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.AppendValues(rows));
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken,
                        arrow::compute::Take(arrow::Datum(batch), arrow::Datum(index_array)));
  return taken.record_batch();
}

Result<std::shared_ptr<arrow::RecordBatch>> MergeRun::InsertedRows(const arrow::RecordBatch& rows,
                                                                   const ClausePlan& clause) const {
  arrow::ArrayVector columns;
  for (int i = 0; i < columns_; ++i) {
    const auto& field = table_schema_->field(i);
    std::shared_ptr<arrow::ChunkedArray> value;
    if (clause.inserted[i] >= 0) {
      value = std::make_shared<arrow::ChunkedArray>(rows.column(clause.inserted[i]));
    } else {
      value = std::make_shared<arrow::ChunkedArray>(
          std::make_shared<arrow::NullArray>(rows.num_rows()));
    }
    auto conformed = ConformForInsert(value, *field, table_sql_);
    if (!conformed.ok()) return ErrorAt(ctx_.sql, merge_.target.pos, conformed.status().message());
    ARROW_ASSIGN_OR_RAISE(auto flat, arrow::Concatenate((*conformed)->chunks()));
    columns.push_back(std::move(flat));
  }
  return arrow::RecordBatch::Make(table_schema_, rows.num_rows(), std::move(columns));
}

const std::string* MergeRun::Intern(std::string_view path) { return &*paths_.emplace(path).first; }

Status MergeRun::CheckCardinality(const arrow::RecordBatch& batch) {
  const auto& file = static_cast<const arrow::StringArray&>(*batch.column(columns_));
  const auto& pos = static_cast<const arrow::Int64Array&>(*batch.column(columns_ + 1));
  const arrow::Array& marker = *batch.column(marker_);
  const std::string* current = nullptr;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    if (!file.IsValid(i) || !marker.IsValid(i)) continue;
    const std::string_view path = file.GetView(i);
    if (!current || *current != path) current = Intern(path);
    if (!matched_.insert(RowId{current, pos.Value(i)}).second) {
      return ErrorAt(ctx_.sql, merge_.target.pos, Cardinality());
    }
  }
  return Status::OK();
}

Status MergeRun::WriteBatch(const std::shared_ptr<arrow::RecordBatch>& batch, const FileSet* keep,
                            FilePositions* positions) {
  ARROW_ASSIGN_OR_RAISE(auto pick, Pick(*batch));
  const auto& file = static_cast<const arrow::StringArray&>(*batch->column(columns_));
  const auto& pos = static_cast<const arrow::Int64Array&>(*batch->column(columns_ + 1));
  std::vector<std::vector<int64_t>> by_clause(clauses_.size());
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < batch->num_rows(); ++i) {
    const int c = pick[static_cast<size_t>(i)];
    // A copy-on-write pass changes only rows of the files it rewrites.
    if (keep && file.IsValid(i) && keep->find(file.GetView(i)) == keep->end()) continue;
    if (c >= 0) {
      by_clause[static_cast<size_t>(c)].push_back(i);
      ++touched_;
      continue;
    }
    if (!keep || !file.IsValid(i)) continue;
    // A target row that joined several source rows with no clause applying is kept once.
    if (!check_cardinality_ && !kept_.insert(RowId{Intern(file.GetView(i)), pos.Value(i)}).second)
      continue;
    kept.push_back(i);
  }
  std::shared_ptr<arrow::Array> all_true;
  for (size_t c = 0; c < clauses_.size(); ++c) {
    if (by_clause[c].empty()) continue;
    const ClausePlan& clause = clauses_[c];
    ARROW_ASSIGN_OR_RAISE(auto rows, Rows(batch, by_clause[c]));
    if (clause.action != ClausePlan::Action::kInsert && positions) {
      CollectPositions(static_cast<const arrow::StringArray&>(*rows->column(columns_)),
                       static_cast<const arrow::Int64Array&>(*rows->column(columns_ + 1)),
                       positions);
    }
    std::shared_ptr<arrow::RecordBatch> written;
    if (clause.action == ClausePlan::Action::kUpdate) {
      ARROW_ASSIGN_OR_RAISE(
          auto matched, arrow::MakeArrayFromScalar(arrow::BooleanScalar(true), rows->num_rows()));
      ARROW_ASSIGN_OR_RAISE(
          written, ApplyAssignments(*rows, table_schema_, clause.assigned, matched, table_sql_,
                                    ctx_.sql, merge_.target.pos));
      // An updated row keeps its id and takes the new snapshot's sequence number.
      if (lineage_) {
        ARROW_ASSIGN_OR_RAISE(written, WithRowLineage(*written, rows->column(columns_ + 2),
                                                      rows->column(columns_ + 3), matched));
      }
    } else if (clause.action == ClausePlan::Action::kInsert) {
      // An inserted row has no lineage: it takes a new id and the new sequence number.
      ARROW_ASSIGN_OR_RAISE(written, InsertedRows(*rows, clause));
      if (inserts_) {
        ARROW_RETURN_NOT_OK(Fail(inserts_->Write(*written)));
        continue;
      }
    }
    if (written) ARROW_RETURN_NOT_OK(Fail(writer_->Write(*written)));
  }
  if (!kept.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto rows, Rows(batch, kept));
    arrow::ArrayVector cols(rows->columns().begin(), rows->columns().begin() + columns_);
    auto original = arrow::RecordBatch::Make(table_schema_, rows->num_rows(), std::move(cols));
    if (lineage_) {
      ARROW_ASSIGN_OR_RAISE(original, WithRowLineage(*original, rows->column(columns_ + 2),
                                                     rows->column(columns_ + 3), nullptr));
    }
    ARROW_RETURN_NOT_OK(Fail(writer_->Write(*original)));
  }
  return Status::OK();
}

Result<StatementResult> MergeRun::Run() {
  target_name_ = merge_.target_alias ? merge_.target_alias->name : merge_.target.parts.back().name;
  source_name_ = SourceName(merge_.source);
  target_.emplace(RowLevelTarget{merge_.target, merge_.target_alias, target_where_});
  ARROW_ASSIGN_OR_RAISE(table_, LoadTargetTable(ctx_, *target_, "MERGE INTO", "merging into"));
  auto md = table_->metadata();
  ARROW_ASSIGN_OR_RAISE(table_schema_, table::ToArrowSchema(*md->current_schema()));
  columns_ = table_schema_->num_fields();
  lineage_ = table::CarriesRowLineage(*md);
  marker_ = columns_ + (lineage_ ? 4 : 2);
  table_sql_ = StrCat("`", ctx_.state.catalog->name(), "`.`", table_->ident().ns.ToString(), "`.`",
                      table_->ident().name, "`");
  ARROW_RETURN_NOT_OK(PlanClauses());

  // Without NOT MATCHED BY SOURCE clauses, only target rows that the ON conjuncts naming
  // the target alone accept can change: they prune the target's files and are what
  // concurrent commits are checked against.
  if (!has_by_source_) {
    std::vector<const Expr*> conjuncts;
    SplitConjuncts(merge_.on, &conjuncts);
    for (const Expr* c : conjuncts) {
      if (!OnlyQualifiedBy(*c, Lower(target_name_))) continue;
      if (!target_where_) {
        target_where_ = *c;
      } else {
        Binary both;
        both.op = BinaryOp::kAnd;
        both.left = *target_where_;
        both.right = *c;
        target_where_ = Expr{std::move(both), c->pos};
      }
    }
  }

  const bool append = (!has_matched_ && !has_by_source_) || !md->current_snapshot();
  // An append writes no lineage (as Spark's), a rewrite of a v3 table does.
  auto writer =
      append ? table::RollingDataWriter::Make(*table_) : table::MakeRowLevelWriter(*table_);
  if (!writer.ok()) return Fail(writer.status());
  writer_ = std::move(writer).ValueUnsafe();
  if (append) return RunAppend();
  ARROW_ASSIGN_OR_RAISE(auto plan, PlanRowLevel(ctx_, table_, *target_, "merge"));
  if (lineage_ && has_not_matched_) {
    auto inserts = table::MakeRowLevelWriter(*table_);
    if (!inserts.ok()) return Fail(inserts.status());
    inserts_ = std::move(inserts).ValueUnsafe();
  }
  return plan.merge_on_read ? RunMergeOnRead(plan) : RunCopyOnWrite(plan);
}

Result<std::vector<manifest::DataFile>> MergeRun::FinishWriters() {
  auto files = writer_->Finish();
  if (!files.ok()) return Fail(files.status());
  if (!inserts_) return files;
  auto inserted = inserts_->Finish();
  if (!inserted.ok()) {
    for (const auto& f : *files) (void)table_->io()->DeleteFile(f.file_path, FileKind::kData);
    return Fail(inserted.status());
  }
  for (auto& f : *inserted) files->push_back(std::move(f));
  return files;
}

Result<StatementResult> MergeRun::RunAppend() {
  // Only source rows no target row matched write anything: an append, as Spark rewrites it.
  ARROW_ASSIGN_OR_RAISE(auto query, JoinedQuery(JoinKind::kRight, true));
  ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx_, query));
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(WriteBatch(batch, nullptr, nullptr));
  }
  auto files = writer_->Finish();
  if (!files.ok()) return Fail(files.status());
  if (files->empty()) return Written(touched_);
  ARROW_RETURN_NOT_OK(ctx_.state.cancel->Check());
  auto committed = table::AppendFiles(*table_, std::move(files).ValueUnsafe());
  if (!committed.ok()) return Fail(committed.status());
  return Written(touched_);
}

Result<StatementResult> MergeRun::RunMergeOnRead(const RowLevelPlan& plan) {
  const JoinKind kind = has_by_source_ ? (has_not_matched_ ? JoinKind::kFull : JoinKind::kLeft)
                                       : (has_not_matched_ ? JoinKind::kRight : JoinKind::kInner);
  ARROW_ASSIGN_OR_RAISE(auto query, JoinedQuery(kind, true));
  ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx_, query));
  FilePositions positions;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    if (check_cardinality_) ARROW_RETURN_NOT_OK(CheckCardinality(*batch));
    ARROW_RETURN_NOT_OK(WriteBatch(batch, nullptr, &positions));
  }
  auto files = FinishWriters();
  if (!files.ok()) return files.status();
  // A row that several source rows delete is deleted once.
  for (auto& [path, p] : positions) {
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
  }
  ARROW_RETURN_NOT_OK(ctx_.state.cancel->Check());
  Status committed =
      CommitPositionDeletes(*table_, plan, std::move(positions), std::move(files).ValueUnsafe());
  if (!committed.ok()) return Fail(committed);
  return Written(touched_);
}

Result<StatementResult> MergeRun::RunCopyOnWrite(const RowLevelPlan& plan) {
  // First the data files holding a target row that a clause updates or deletes.
  FileSet affected;
  {
    ARROW_ASSIGN_OR_RAISE(auto query,
                          JoinedQuery(has_by_source_ ? JoinKind::kLeft : JoinKind::kInner, true));
    ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx_, query));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      if (check_cardinality_) ARROW_RETURN_NOT_OK(CheckCardinality(*batch));
      ARROW_ASSIGN_OR_RAISE(auto pick, Pick(*batch));
      const auto& file = static_cast<const arrow::StringArray&>(*batch->column(columns_));
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        if (pick[static_cast<size_t>(i)] >= 0 && file.IsValid(i)) affected.emplace(file.GetView(i));
      }
    }
    matched_.clear();
  }
  if (affected.empty() && !has_not_matched_) return Written(touched_);

  // Then those files rewritten whole, with the clauses applied, and the inserted rows.
  const JoinKind kind = affected.empty()   ? JoinKind::kRight
                        : has_not_matched_ ? JoinKind::kFull
                                           : JoinKind::kLeft;
  ARROW_ASSIGN_OR_RAISE(auto query, JoinedQuery(kind, affected.empty()));
  ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx_, query));
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(WriteBatch(batch, &affected, nullptr));
  }
  auto files = FinishWriters();
  if (!files.ok()) return files.status();
  if (affected.empty() && files->empty()) return Written(touched_);
  std::vector<std::string> paths(affected.begin(), affected.end());
  ARROW_RETURN_NOT_OK(ctx_.state.cancel->Check());
  auto committed = table::OverwriteFiles(
      *table_, std::move(files).ValueUnsafe(),
      table::OverwriteFilter::Files(paths, plan.may_match, plan.condition), plan.options);
  if (!committed.ok()) return Fail(committed.status());
  return Written(touched_);
}

}  // namespace

Result<StatementResult> ExecuteMerge(ExecContext& ctx, const sql::Merge& merge) {
  MergeRun run(ctx, merge);
  return run.Run();
}

}  // namespace floe::sql
