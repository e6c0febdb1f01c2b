#include "floe/sql/execute/row_level.h"

#include <algorithm>
#include <cstdio>

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe/manifest/partition_key.h"
#include "floe/sql/execute/deletion_vector_writes.h"
#include "floe/scan/position_deletes.h"
#include "floe/sql/plan/metadata_answers.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/session/session_state.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/util/ids.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (auto* b = e.As<Binary>(); b && b->op == BinaryOp::kAnd) {
    SplitConjuncts(*b->left, out);
    SplitConjuncts(*b->right, out);
    return;
  }
  out->push_back(&e);
}

Result<Query> TargetQuery(const std::string& text, const RowLevelTarget& target, bool where) {
  ARROW_ASSIGN_OR_RAISE(auto statement, ParseStatement(text));
  auto* query = statement.As<Query>();
  if (!query) return Status::Invalid("internal: not a query: ", text);
  Query out = *query;
  auto* select = std::get_if<Select>(&out.body);
  if (!select) return Status::Invalid("internal: not a SELECT: ", text);
  TableRef ref;
  ref.name = target.table;
  if (target.alias) ref.alias = TableAlias{*target.alias, {}};
  select->from.clear();
  select->from.push_back(Relation{ref, target.table.pos});
  if (where && target.where) select->where = target.where;
  return out;
}

Result<std::shared_ptr<arrow::RecordBatchReader>> StreamRows(ExecContext& ctx, const Query& query) {
  QueryPlanner planner = ctx.binder.Planner();
  ARROW_ASSIGN_OR_RAISE(QueryStream stream, StreamQuery(planner, query));
  return stream.reader;
}

std::optional<std::set<std::string>> WholeFiles(
    const spec::TableMetadata& md, const std::vector<scan::ColumnPredicate>& predicates,
    const std::vector<scan::FileScanTask>& tasks) {
  std::set<std::string> out;
  for (const auto& task : tasks) {
    const std::optional<bool> all = PartitionValuesSatisfy(md, task.file, predicates);
    if (!all) return std::nullopt;
    if (*all) out.insert(task.file.file_path);
  }
  return out;
}

Result<std::vector<manifest::DataFile>> WritePositionDeletes(
    const table::Table& table, const FilePositions& positions,
    const std::map<std::string, const manifest::DataFile*>& data_files) {
  auto md = table.metadata();
  ARROW_RETURN_NOT_OK(table::CheckTableLocations(table, *md));
  std::map<std::string, std::vector<const std::string*>> by_partition;  // paths sorted within
  for (const auto& [path, pos] : positions) {
    auto it = data_files.find(path);
    if (it == data_files.end())
      return Status::Invalid("internal: ", path, " is not a live data file of ", table.name());
    by_partition[manifest::PartitionKey(*it->second)].push_back(&path);
  }
  auto field = [](const char* name, std::shared_ptr<arrow::DataType> type, int32_t id) {
    return arrow::field(name, std::move(type), false,
                        arrow::key_value_metadata({"PARQUET:field_id"}, {std::to_string(id)}));
  };
  auto schema = arrow::schema({field("file_path", arrow::utf8(), scan::kDeleteFilePathId),
                               field("pos", arrow::int64(), scan::kDeletePosId)});
  const std::string write_id = NewUuid();
  std::vector<manifest::DataFile> out;
  int n = 0;
  for (const auto& [key, paths] : by_partition) {
    const manifest::DataFile& sample = *data_files.at(*paths.front());
    const spec::PartitionSpec* spec = md->SpecById(sample.spec_id);
    if (!spec)
      return Status::Invalid("Unknown partition spec id ", sample.spec_id, " in ", table.name());
    arrow::StringBuilder path_column;
    arrow::Int64Builder pos_column;
    int64_t min_pos = INT64_MAX, max_pos = INT64_MIN;
    for (const std::string* path : paths) {
      for (int64_t p : positions.at(*path)) {
        ARROW_RETURN_NOT_OK(path_column.Append(*path));
        ARROW_RETURN_NOT_OK(pos_column.Append(p));
        min_pos = std::min(min_pos, p);
        max_pos = std::max(max_pos, p);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto path_array, path_column.Finish());
    ARROW_ASSIGN_OR_RAISE(auto pos_array, pos_column.Finish());
    auto rows = arrow::Table::Make(schema, {path_array, pos_array});
    std::string dir = table::DataDirectory(*md);
    if (!spec->fields().empty()) dir += "/" + spec->PartitionPath(sample.partition);
    manifest::DataFile f;
    f.content = manifest::FileContent::kPositionDeletes;
    char name[96];
    std::snprintf(name, sizeof(name), "/%05d-deletes-%s.parquet", n++, write_id.c_str());
    f.file_path = dir + name;
    ARROW_ASSIGN_OR_RAISE(auto sink, table.io()->OpenOutputStream(f.file_path, FileKind::kData));
    auto written = parquet::arrow::WriteTable(*rows, arrow::default_memory_pool(), sink);
    Status closed = sink->Close();
    if (!written.ok() || !closed.ok()) {
      (void)table.io()->DeleteFile(f.file_path, FileKind::kData);
      for (const auto& done : out) (void)table.io()->DeleteFile(done.file_path, FileKind::kData);
      return written.ok() ? closed : written;
    }
    ARROW_ASSIGN_OR_RAISE(f.file_size_in_bytes, table.io()->FileSize(f.file_path));
    f.record_count = rows->num_rows();
    f.partition = sample.partition;
    f.spec_id = sample.spec_id;
    f.value_counts = {{scan::kDeletePosId, f.record_count},
                      {scan::kDeleteFilePathId, f.record_count}};
    f.null_value_counts = {{scan::kDeletePosId, 0}, {scan::kDeleteFilePathId, 0}};
    // Readers use the path bounds to find the data files a delete file may name.
    f.lower_bounds = {{scan::kDeletePosId, spec::ToSingleValueBinary(spec::Literal::Long(min_pos))},
                      {scan::kDeleteFilePathId, *paths.front()}};
    f.upper_bounds = {{scan::kDeletePosId, spec::ToSingleValueBinary(spec::Literal::Long(max_pos))},
                      {scan::kDeleteFilePathId, *paths.back()}};
    out.push_back(std::move(f));
  }
  return out;
}

Result<RowLevelPlan> PlanRowLevel(ExecContext& ctx, const std::shared_ptr<table::Table>& table,
                                  const RowLevelTarget& target, const std::string& op) {
  auto md = table->metadata();
  const spec::Snapshot* head = md->current_snapshot();
  if (!head)
    return Status::Invalid("internal: ", table->name(), " has no snapshot to ", op, " from");
  RowLevelPlan plan;
  const std::string key = "write." + op + ".mode";
  const std::string mode = md->Property(key, "copy-on-write");
  if (mode != "copy-on-write" && mode != "merge-on-read") {
    return ErrorAt(ctx.sql, target.table.pos,
                   StrCat("Unknown ", key, " of ", table->name(), ": ", mode));
  }
  plan.merge_on_read = mode == "merge-on-read";
  if (plan.merge_on_read && md->format_version < 2) {
    return ErrorAt(ctx.sql, target.table.pos,
                   StrCat(table->name(), " is format version ", md->format_version,
                          ": merge-on-read ", op, "s need format version 2"));
  }
  plan.options.starting_snapshot_id = head->snapshot_id;
  ARROW_ASSIGN_OR_RAISE(plan.options.isolation, table::IsolationLevelFor(*md, op));
  plan.condition = target.where ? ToSql(*target.where) : "true";
  std::vector<const Expr*> conjuncts;
  if (target.where) SplitConjuncts(*target.where, &conjuncts);
  auto schema = md->current_schema();
  for (const Expr* c : conjuncts) {
    auto pushed = ctx.binder.PushablePredicates({c}, *schema);
    plan.all_pushable = plan.all_pushable && !pushed.empty();
    plan.predicates.insert(plan.predicates.end(), pushed.begin(), pushed.end());
  }
  scan::TableScan scan(table);
  scan.Filter(plan.predicates);
  ARROW_ASSIGN_OR_RAISE(plan.tasks, scan.PlanFiles());
  for (const auto& t : plan.tasks) plan.live[t.file.file_path] = &t.file;
  plan.may_match = [predicates = plan.predicates, md](const manifest::DataFile& f) {
    const spec::PartitionSpec* s = md->SpecById(f.spec_id);
    return predicates.empty() || !s || scan::FileMayMatch(f, predicates, *s);
  };
  return plan;
}

Result<std::shared_ptr<table::Table>> LoadTargetTable(ExecContext& ctx,
                                                      const RowLevelTarget& target,
                                                      const std::string& statement,
                                                      const std::string& doing) {
  ARROW_ASSIGN_OR_RAISE(ResolvedName resolved, ctx.binder.BindName(target.table, true));
  if (!resolved.suffix.empty() || !ctx.state.Setting(kWapBranchKey, "").empty()) {
    return ErrorAt(
        ctx.sql, target.table.pos,
        StrCat(statement, " ", ToSql(target.table), ": ", doing, " a branch is not supported yet"));
  }
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(target.table));
  // Every read of the statement (the rows, the affected files, a source naming the target)
  // sees the snapshot its changes are computed and validated from.
  ctx.binder.PinTable(table);
  return table;
}

Result<FileSet> AffectedFiles(ExecContext& ctx, const RowLevelTarget& target) {
  ARROW_ASSIGN_OR_RAISE(auto query, TargetQuery("SELECT DISTINCT _file FROM t", target, true));
  ARROW_ASSIGN_OR_RAISE(auto reader, StreamRows(ctx, query));
  FileSet affected;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    const auto& files = static_cast<const arrow::StringArray&>(*batch->column(0));
    for (int64_t i = 0; i < batch->num_rows(); ++i) affected.emplace(files.GetView(i));
  }
  return affected;
}

Result<std::shared_ptr<arrow::Array>> RowsOfFiles(const arrow::StringArray& paths,
                                                  const FileSet& files) {
  arrow::BooleanBuilder out;
  ARROW_RETURN_NOT_OK(out.Reserve(paths.length()));
  for (int64_t i = 0; i < paths.length(); ++i)
    out.UnsafeAppend(files.find(paths.GetView(i)) != files.end());
  return out.Finish();
}

Result<std::shared_ptr<arrow::Array>> Matched(const arrow::RecordBatch& batch, int condition) {
  if (condition < 0)
    return arrow::MakeArrayFromScalar(arrow::BooleanScalar(true), batch.num_rows());
  ARROW_ASSIGN_OR_RAISE(
      auto filled, arrow::compute::CallFunction(
                       "coalesce", {batch.column(condition),
                                    arrow::Datum(std::make_shared<arrow::BooleanScalar>(false))}));
  return filled.make_array();
}

void CollectPositions(const arrow::StringArray& paths, const arrow::Int64Array& pos,
                      FilePositions* out) {
  // Rows of one data file come together: look the path up only when it changes.
  std::vector<int64_t>* current = nullptr;
  std::string_view current_path;
  for (int64_t i = 0; i < paths.length(); ++i) {
    const std::string_view path = paths.GetView(i);
    if (!current || path != current_path) {
      current = &(*out)[std::string(path)];
      current_path = path;
    }
    current->push_back(pos.Value(i));
  }
}

Status CommitPositionDeletes(table::Table& table, const RowLevelPlan& plan, FilePositions positions,
                             std::vector<manifest::DataFile> data_files) {
  auto remove_data = [&] {
    for (const auto& f : data_files) (void)table.io()->DeleteFile(f.file_path, FileKind::kData);
  };
  if (positions.empty() && data_files.empty()) return Status::OK();
  for (auto& [path, p] : positions) std::sort(p.begin(), p.end());
  std::vector<manifest::DataFile> deletes, replaced;
  if (table.metadata()->format_version >= 3) {
    auto dvs = WriteDeletionVectors(table, positions, plan.tasks);
    if (!dvs.ok()) {
      remove_data();
      return dvs.status();
    }
    deletes = std::move(dvs->deletion_vectors);
    replaced = std::move(dvs->replaced);
  } else {
    auto written = WritePositionDeletes(table, positions, plan.live);
    if (!written.ok()) {
      remove_data();
      return written.status();
    }
    deletes = std::move(written).ValueUnsafe();
  }
  table::RowDeltaValidation validation{{plan.may_match, plan.condition}, {}};
  for (const auto& [path, p] : positions) validation.referenced_data_files.push_back(path);
  return table::CommitRowDelta(table, std::move(data_files), std::move(deletes), std::move(validation),
                               plan.options, std::move(replaced))
      .status();
}

int64_t CountTrue(const arrow::Array& mask) { return static_cast<const arrow::BooleanArray&>(mask).true_count(); }

StatementResult Written(int64_t rows) {
  StatementResult result;
  result.rows_affected = rows;
  return result;
}

}  // namespace floe::sql
