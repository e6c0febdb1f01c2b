#include "floe/sql/execute/executors.h"

#include <arrow/acero/exec_plan.h>
#include <arrow/api.h>
#include "floe/sql/execute/insert_conform.h"
#include "floe/sql/plan/relation.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

// Stops the plan when a write gives up early; Acero's own reader would log that cancellation.
class ClosingReader : public arrow::RecordBatchReader {
 public:
  explicit ClosingReader(std::shared_ptr<arrow::RecordBatchReader> inner) : inner_(std::move(inner)) {}
  ~ClosingReader() override { (void)inner_->Close(); }
  std::shared_ptr<arrow::Schema> schema() const override { return inner_->schema(); }
  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override { return inner_->ReadNext(batch); }
  Status Close() override { return inner_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> inner_;
};

}  // namespace

Result<QueryStream> StreamQuery(QueryPlanner& planner, const Query& query) {
  auto run_whole = [&]() -> Result<QueryStream> {
    // Run replans the query for its complete error message.
    ARROW_ASSIGN_OR_RAISE(auto rows, planner.Run(query));
    QueryStream stream;
    for (const auto& f : rows->schema()->fields()) stream.names.push_back(f->name());
    stream.reader = std::make_shared<arrow::TableBatchReader>(rows);
    return stream;
  };
  auto rel = planner.PlanQuery(query);
  if (!rel.ok()) return run_whole();
  QueryStream stream;
  for (const auto& c : rel->columns) stream.names.push_back(c.name);
  // The plan runs on this thread as batches are read: a source that slices rows held in
  // memory would otherwise hand every batch to the thread pool at once, and the whole
  // result would wait in the queue for the writer.
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::acero::DeclarationToReader(rel->decl, StatementPlanOptions(false)));
  // A plan Acero cannot start (a cast it has no kernel for: '{a,b}'::text[]) gives a reader
  // without a schema; running it whole reports why.
  if (reader->schema() == nullptr) return run_whole();
  stream.reader = std::make_shared<ClosingReader>(std::move(reader));
  if (stream.reader->schema()->num_fields() != static_cast<int>(stream.names.size())) {
    return Status::Invalid("internal: plan produced ", stream.reader->schema()->num_fields(), " columns, expected ",
                           stream.names.size());
  }
  return stream;
}

Result<StatementResult> ExecuteInsert(ExecContext& ctx, const sql::Insert& insert) {
  const std::string& sql = ctx.sql;
  // INSERT INTO t.branch_b writes to branch b; so does any write while spark.wap.branch is set.
  ARROW_ASSIGN_OR_RAISE(ResolvedName target, ctx.binder.BindName(insert.table, true));
  table::WriteOptions write_options;
  if (!target.suffix.empty()) {
    if (target.suffix.rfind("branch_", 0) != 0) {
      return ErrorAt(sql, insert.table.pos, StrCat("Cannot write to ", ToSql(insert.table), ": only branches (branch_<name>) can be written"));
    }
    write_options.branch = target.suffix.substr(7);
  } else if (!ctx.state.Setting(kWapBranchKey, "").empty()) {
    write_options.branch = ctx.state.Setting(kWapBranchKey, "");
  }
  ObjectName base_name = insert.table;
  if (!target.suffix.empty()) base_name.parts.pop_back();
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(base_name));
  if (write_options.branch != spec::kMainBranch) {
    auto md0 = table->metadata();
    auto ref = md0->refs.find(write_options.branch);
    if (ref == md0->refs.end() && !target.suffix.empty()) {
      return ErrorAt(sql, insert.table.pos, StrCat("Cannot use branch (does not exist): ", write_options.branch));
    }
    if (ref != md0->refs.end() && !ref->second.is_branch()) {
      return ErrorAt(sql, insert.table.pos, StrCat("Ref ", write_options.branch, " is a tag not a branch"));
    }
  }
  auto md = table->metadata();
  auto schema = md->current_schema();
  QueryPlanner planner = ctx.binder.Planner();
  // The rows stream: each batch is conformed and written as it comes, so memory does not
  // grow with the number of rows.
  ARROW_ASSIGN_OR_RAISE(QueryStream data, StreamQuery(planner, insert.query));
  const size_t data_columns = data.names.size();
  // Static partition values become constant columns.
  std::map<std::string, std::shared_ptr<arrow::Scalar>> static_values;
  for (const auto& p : insert.partition) {
    if (p.value) {
      ARROW_ASSIGN_OR_RAISE(auto v, planner.EvaluateConstant(*p.value));
      static_values[Lower(p.column.name)] = v;
    }
  }
  // Target columns: the list given, else the table's columns minus static partition ones;
  // data columns are matched by position, as Spark does.
  std::vector<const spec::NestedField*> targets;
  if (!insert.columns.empty()) {
    for (const auto& c : insert.columns) {
      const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(c.name);
      if (!f) {
        return ErrorAt(sql, c.pos, StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `",
                                          c.name, "` cannot be resolved."));
      }
      targets.push_back(f);
    }
    // Iceberg columns have no defaults: every column not listed (nor a static partition value)
    // fails the insert, as in Spark 3.5.
    for (const auto& f : schema->fields()) {
      bool listed = static_values.count(Lower(f.name)) > 0;
      for (const auto* column : targets) listed = listed || column->id == f.id;
      if (!listed) {
        return ErrorAt(sql, insert.table.pos,
                       StrCat("[INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA] Cannot write incompatible data for the table `",
                              ctx.state.catalog->name(), "`.`", table->ident().ns.ToString(), "`.`", table->ident().name,
                              "`: Cannot find data for the output column `", f.name, "`."));
      }
    }
  } else {
    for (const auto& f : schema->fields()) {
      if (!static_values.count(Lower(f.name))) targets.push_back(&f);
    }
  }
  if (data_columns != targets.size()) {
    std::string table_cols, data_cols;
    for (size_t i = 0; i < targets.size(); ++i) table_cols += (i ? ", `" : "`") + targets[i]->name + "`";
    for (size_t i = 0; i < data_columns; ++i) data_cols += (i ? ", `" : "`") + data.names[i] + "`";
    const char* reason = data_columns > targets.size() ? "TOO_MANY_DATA_COLUMNS" : "NOT_ENOUGH_DATA_COLUMNS";
    return ErrorAt(sql, insert.query.pos,
                   StrCat("[INSERT_COLUMN_ARITY_MISMATCH.", reason, "] Cannot write to `", ctx.state.catalog->name(), "`.`",
                          table->ident().ns.ToString(), "`.`", table->ident().name, "`, the reason is ",
                          data_columns > targets.size() ? "too many" : "not enough",
                          " data columns:\nTable columns: ", table_cols, ".\nData columns: ", data_cols, "."));
  }
  // Each data column takes its target's type here, by position at every depth, as Spark's
  // INSERT does; matching nested fields by name later would lose values whose names differ.
  const std::string table_sql = StrCat("`", ctx.state.catalog->name(), "`.`", table->ident().ns.ToString(), "`.`",
                                       table->ident().name, "`");
  arrow::FieldVector fields;
  for (const auto* column : targets) {
    ARROW_ASSIGN_OR_RAISE(auto want, table::ToArrowField(*column));
    fields.push_back(want);
  }
  for (const auto& [col, value] : static_values) {
    const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(col);
    if (!f) return ErrorAt(sql, insert.table.pos, StrCat("Unknown partition column: ", col));
    fields.push_back(arrow::field(f->name, value->type));
  }
  auto rows_schema = arrow::schema(fields);
  // One batch of the query in the table's columns, with the static partition values.
  auto conform = [&](const arrow::RecordBatch& batch) -> Result<std::shared_ptr<arrow::RecordBatch>> {
    arrow::ArrayVector columns;
    for (size_t i = 0; i < targets.size(); ++i) {
      auto column = std::make_shared<arrow::ChunkedArray>(batch.column(static_cast<int>(i)));
      auto conformed = ConformForInsert(column, *fields[i], table_sql);
      if (!conformed.ok()) return ErrorAt(sql, insert.query.pos, conformed.status().message());
      const auto& chunks = (*conformed)->chunks();
      if (chunks.size() == 1) {
        columns.push_back(chunks[0]);
      } else if (chunks.empty()) {
        ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(fields[i]->type()));
        columns.push_back(std::move(empty));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto array, arrow::Concatenate(chunks));
        columns.push_back(std::move(array));
      }
    }
    for (const auto& [col, value] : static_values) {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*value, batch.num_rows()));
      columns.push_back(std::move(array));
    }
    return arrow::RecordBatch::Make(rows_schema, batch.num_rows(), std::move(columns));
  };
  table::OverwriteFilter filter = table::OverwriteFilter::All();
  if (insert.overwrite) {
    const spec::PartitionSpec* spec = md->default_spec();
    if (!static_values.empty()) {
      // Files whose identity partition values equal the static ones.
      std::vector<std::pair<size_t, spec::Literal>> wanted;
      for (const auto& [col, value] : static_values) {
        const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(col);
        bool found = false;
        for (size_t i = 0; i < spec->fields().size(); ++i) {
          const auto& pf = spec->fields()[i];
          if (pf.source_id == f->id && pf.transform.kind() == spec::TransformKind::kIdentity) {
            ARROW_ASSIGN_OR_RAISE(auto cast, value->CastTo(*table::ToArrowType(*f->type)));
            ARROW_ASSIGN_OR_RAISE(auto lit, table::LiteralFromScalar(*cast, f->type));
            wanted.push_back({i, lit});
            found = true;
          }
        }
        if (!found) {
          return ErrorAt(sql, insert.table.pos, StrCat("PARTITION (", col, " = ...) names a column that is not an identity partition of ",
                                                       table->name()));
        }
      }
      int32_t spec_id = spec->spec_id();
      // How conflict messages name the overwritten rows: "region = 'EU' AND day = 3".
      std::string description;
      for (const auto& [col, value] : static_values) {
        const bool quoted = value->type->id() == arrow::Type::STRING || value->type->id() == arrow::Type::LARGE_STRING;
        description += StrCat(description.empty() ? "" : " AND ", col, " = ", quoted ? "'" : "", value->ToString(),
                              quoted ? "'" : "");
      }
      filter = table::OverwriteFilter::Where(
          [wanted, spec_id](const manifest::DataFile& f) {
            if (f.spec_id != spec_id) return false;
            for (const auto& [i, lit] : wanted) {
              if (i >= f.partition.size() || f.partition[i].is_null() || !(f.partition[i] == lit)) return false;
            }
            return true;
          },
          description);
    } else if (Lower(ctx.state.Setting(kOverwriteModeKey, "static")) == "dynamic") {
      filter = table::OverwriteFilter::DynamicPartitions();
    }
  }
  // Rows stream through a rolling writer; the commit takes the files it wrote (and deletes
  // them if it fails).
  auto writer = table::RollingDataWriter::Make(*table);
  if (!writer.ok()) return WithContext(writer.status(), "Cannot write to " + table->name());
  int64_t inserted = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
    ARROW_RETURN_NOT_OK(data.reader->ReadNext(&batch));
    if (!batch) break;
    inserted += batch->num_rows();
    ARROW_ASSIGN_OR_RAISE(auto rows, conform(*batch));
    Status written = (*writer)->Write(*rows);
    if (!written.ok()) return WithContext(written, "Cannot write to " + table->name());
  }
  auto files = (*writer)->Finish();
  if (!files.ok()) return WithContext(files.status(), "Cannot write to " + table->name());
  // The last point a cancel stops the insert: once the commit starts it runs to the end.
  ARROW_RETURN_NOT_OK(ctx.state.cancel->Check());
  auto committed = insert.overwrite
                       ? table::OverwriteFiles(*table, std::move(files).ValueUnsafe(), filter, write_options)
                       : table::AppendFiles(*table, std::move(files).ValueUnsafe(), write_options);
  if (!committed.ok()) return WithContext(committed.status(), "Cannot write to " + table->name());
  StatementResult result = Message("");
  result.rows_affected = inserted;
  return result;
}

}  // namespace floe::sql
