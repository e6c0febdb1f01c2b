// DELETE FROM t [WHERE c], as Spark with Iceberg does it:
//   - whole data files when the condition is decided by identity partition values alone (or
//     there is none): a `delete` snapshot that writes no file;
//   - else per `write.delete.mode`: copy-on-write rewrites each data file holding a matching row
//     without those rows (an `overwrite`); merge-on-read writes position delete files naming the
//     matching rows (a `delete`).
// Rows where the condition is NULL stay, as everywhere in SQL.

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <cstdio>

#include <arrow/api.h>
#include <arrow/compute/api_vector.h>
#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe/manifest/partition_key.h"
#include "floe/scan/metadata_columns.h"
#include "floe/scan/position_deletes.h"
#include "floe/scan/scan_filter.h"
#include "floe/scan/table_scan.h"
#include "floe/sql/binder.h"
#include "floe/sql/executors.h"
#include "floe/sql/metadata_answers.h"
#include "floe/sql/parse_error.h"
#include "floe/sql/parser.h"
#include "floe/sql/result_tables.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/rolling_writer.h"
#include "floe/table/snapshot_producer.h"
#include "floe/util/ids.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (auto* b = e.As<Binary>(); b && b->op == BinaryOp::kAnd) {
    SplitConjuncts(*b->left, out);
    SplitConjuncts(*b->right, out);
    return;
  }
  out->push_back(&e);
}

// `text`, a SELECT over a placeholder table, reading the DELETE's target (with its alias) and,
// when `where` is set, filtered by the DELETE's condition. The condition keeps its positions
// in the statement, so its errors point into what the user wrote.
Result<Query> TargetQuery(const std::string& text, const sql::Delete& del, const Expr* extra_item, bool where) {
  ARROW_ASSIGN_OR_RAISE(auto statement, ParseStatement(text));
  auto* query = statement.As<Query>();
  if (!query) return Status::Invalid("internal: not a query: ", text);
  Query out = *query;
  auto* select = std::get_if<Select>(&out.body);
  if (!select) return Status::Invalid("internal: not a SELECT: ", text);
  TableRef ref;
  ref.name = del.table;
  if (del.alias) ref.alias = TableAlias{*del.alias, {}};
  select->from.clear();
  select->from.push_back(Relation{ref, del.table.pos});
  if (where && del.where) select->where = del.where;
  if (extra_item) select->items.push_back(SelectItem{*extra_item, std::nullopt});
  return out;
}

// The rows of `query`, a batch at a time.
Result<std::shared_ptr<arrow::RecordBatchReader>> Stream(ExecContext& ctx, const Query& query) {
  QueryPlanner planner = ctx.binder.Planner();
  ARROW_ASSIGN_OR_RAISE(QueryStream stream, StreamQuery(planner, query));
  return stream.reader;
}

// Whole files the condition decides by their identity partition values: for each live data
// file, whether it is deleted. Nullopt when some file is not decided so.
std::optional<std::set<std::string>> WholeFiles(const spec::TableMetadata& md,
                                                const std::vector<scan::ColumnPredicate>& predicates,
                                                const std::vector<scan::FileScanTask>& tasks) {
  std::set<std::string> out;
  for (const auto& task : tasks) {
    const spec::PartitionSpec* spec = md.SpecById(task.file.spec_id);
    if (!spec || spec->fields().size() != task.file.partition.size()) return std::nullopt;
    bool all = true;
    for (const auto& p : predicates) {
      std::optional<size_t> slot;
      for (size_t i = 0; i < spec->fields().size(); ++i) {
        const auto& f = spec->fields()[i];
        if (f.source_id == p.field_id && f.transform.kind() == spec::TransformKind::kIdentity) slot = i;
      }
      if (!slot) return std::nullopt;
      const spec::Literal& value = task.file.partition[*slot];
      const bool compares = p.op != scan::ColumnPredicate::Op::kIsNull && p.op != scan::ColumnPredicate::Op::kNotNull;
      if (compares && !value.is_null() &&
          (!value.type() || !p.value.type() || value.type()->id() != p.value.type()->id())) {
        return std::nullopt;
      }
      all = all && PartitionValueSatisfies(value, p);
    }
    if (all) out.insert(task.file.file_path);
  }
  return out;
}

// Writes the position delete files of merge-on-read: one per partition of the data files named.
Result<std::vector<manifest::DataFile>> WritePositionDeletes(
    const table::Table& table, const std::map<std::string, std::vector<int64_t>>& positions,
    const std::map<std::string, const manifest::DataFile*>& data_files) {
  auto md = table.metadata();
  std::map<std::string, std::vector<const std::string*>> by_partition;  // paths sorted within
  for (const auto& [path, pos] : positions) {
    auto it = data_files.find(path);
    if (it == data_files.end()) return Status::Invalid("internal: ", path, " is not a live data file of ", table.name());
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
    if (!spec) return Status::Invalid("Unknown partition spec id ", sample.spec_id, " in ", table.name());
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
    f.value_counts = {{scan::kDeletePosId, f.record_count}, {scan::kDeleteFilePathId, f.record_count}};
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

}  // namespace

Result<StatementResult> ExecuteDelete(ExecContext& ctx, const sql::Delete& del) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(ResolvedName target, ctx.binder.BindName(del.table, true));
  if (!target.suffix.empty() || !ctx.state.Setting(kWapBranchKey, "").empty()) {
    return ErrorAt(sql, del.table.pos, StrCat("DELETE FROM ", ToSql(del.table), ": deleting from a branch is not supported yet"));
  }
  ARROW_ASSIGN_OR_RAISE(auto table, ctx.binder.LoadTable(del.table));
  if (del.where) {
    // The condition is bound before anything else, so that its errors come first, even on
    // an empty table or when partition values decide it.
    ARROW_ASSIGN_OR_RAISE(auto check, TargetQuery("SELECT _file FROM t", del, nullptr, true));
    QueryPlanner planner = ctx.binder.Planner();
    ARROW_RETURN_NOT_OK(StreamQuery(planner, check).status());
  }
  auto md = table->metadata();
  const spec::Snapshot* head = md->current_snapshot();
  if (!head) return Message("");  // an empty table
  const auto property = [&](const std::string& key, const std::string& fallback) {
    auto it = md->properties.find(key);
    return it == md->properties.end() ? fallback : it->second;
  };
  const std::string mode = property("write.delete.mode", "copy-on-write");
  if (mode != "copy-on-write" && mode != "merge-on-read") {
    return ErrorAt(sql, del.table.pos, StrCat("Unknown write.delete.mode of ", table->name(), ": ", mode));
  }
  if (mode == "merge-on-read" && md->format_version < 2) {
    return ErrorAt(sql, del.table.pos,
                   StrCat(table->name(), " is format version ", md->format_version,
                          ": merge-on-read deletes need format version 2"));
  }
  table::WriteOptions options;
  options.starting_snapshot_id = head->snapshot_id;
  ARROW_ASSIGN_OR_RAISE(options.isolation, table::IsolationLevelFor(*md, "delete"));
  const std::string condition = del.where ? ToSql(*del.where) : "true";

  // The live data files, and the scan predicates the condition gives (for pruning and for
  // the files a concurrent commit must not add).
  std::vector<const Expr*> conjuncts;
  if (del.where) SplitConjuncts(*del.where, &conjuncts);
  auto schema = md->current_schema();
  std::vector<scan::ColumnPredicate> predicates;
  bool all_pushable = true;
  for (const Expr* c : conjuncts) {
    auto pushed = ctx.binder.PushablePredicates({c}, *schema);
    all_pushable = all_pushable && !pushed.empty();
    predicates.insert(predicates.end(), pushed.begin(), pushed.end());
  }
  scan::TableScan scan(table);
  scan.Filter(predicates);
  ARROW_ASSIGN_OR_RAISE(auto tasks, scan.PlanFiles());
  auto may_match = [predicates, md](const manifest::DataFile& f) {
    const spec::PartitionSpec* s = md->SpecById(f.spec_id);
    return predicates.empty() || !s || scan::FileMayMatch(f, predicates, *s);
  };

  // Whole files: no condition, or one decided by identity partition values.
  if (!del.where || all_pushable) {
    auto whole = WholeFiles(*md, predicates, tasks);
    if (whole) {
      if (whole->empty()) return Message("");
      std::vector<std::string> paths(whole->begin(), whole->end());
      auto committed = table::DeleteFiles(*table, table::OverwriteFilter::Files(paths, may_match, condition), options);
      if (!committed.ok()) return WithContext(committed.status(), "Cannot delete from " + table->name());
      return Message("");
    }
  }

  std::map<std::string, const manifest::DataFile*> live;
  for (const auto& t : tasks) live[t.file.file_path] = &t.file;

  if (mode == "merge-on-read") {
    ARROW_ASSIGN_OR_RAISE(auto query, TargetQuery("SELECT _file, _pos FROM t", del, nullptr, true));
    ARROW_ASSIGN_OR_RAISE(auto reader, Stream(ctx, query));
    std::map<std::string, std::vector<int64_t>> positions;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      const auto& files = static_cast<const arrow::StringArray&>(*batch->column(0));
      const auto& pos = static_cast<const arrow::Int64Array&>(*batch->column(1));
      for (int64_t i = 0; i < batch->num_rows(); ++i) positions[std::string(files.GetView(i))].push_back(pos.Value(i));
    }
    if (positions.empty()) return Message("");
    for (auto& [path, p] : positions) std::sort(p.begin(), p.end());
    auto deletes = WritePositionDeletes(*table, positions, live);
    if (!deletes.ok()) return WithContext(deletes.status(), "Cannot delete from " + table->name());
    table::RowDeltaValidation validation{{may_match, condition}, {}};
    for (const auto& [path, p] : positions) validation.referenced_data_files.push_back(path);
    auto committed =
        table::CommitRowDelta(*table, {}, std::move(deletes).ValueUnsafe(), std::move(validation), options);
    if (!committed.ok()) return WithContext(committed.status(), "Cannot delete from " + table->name());
    return Message("");
  }

  // Copy-on-write: the files holding a matching row, then their other rows written anew.
  ARROW_ASSIGN_OR_RAISE(auto affected_query, TargetQuery("SELECT DISTINCT _file FROM t", del, nullptr, true));
  ARROW_ASSIGN_OR_RAISE(auto affected_reader, Stream(ctx, affected_query));
  std::set<std::string> affected;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(affected_reader->ReadNext(&batch));
    if (!batch) break;
    const auto& files = static_cast<const arrow::StringArray&>(*batch->column(0));
    for (int64_t i = 0; i < batch->num_rows(); ++i) affected.emplace(files.GetView(i));
  }
  if (affected.empty()) return Message("");
  // Every row with the file it came from and the condition's value: NULL or false stays.
  ARROW_ASSIGN_OR_RAISE(auto file_column, ParseExpression("_file"));
  ARROW_ASSIGN_OR_RAISE(auto rows_query, TargetQuery("SELECT * FROM t", del, &file_column, false));
  if (del.where) {
    auto* select = std::get_if<Select>(&rows_query.body);
    select->items.push_back(SelectItem{*del.where, std::nullopt});
  }
  ARROW_ASSIGN_OR_RAISE(auto rows_reader, Stream(ctx, rows_query));
  const int columns = rows_reader->schema()->num_fields() - (del.where ? 2 : 1);
  ARROW_ASSIGN_OR_RAISE(auto table_schema, table::ToArrowSchema(*schema));
  if (table_schema->num_fields() != columns) {
    return Status::Invalid("internal: DELETE read ", columns, " columns of ", table->name(), ", which has ",
                           table_schema->num_fields());
  }
  std::vector<int> kept_columns(static_cast<size_t>(columns));
  for (int i = 0; i < columns; ++i) kept_columns[i] = i;
  auto writer = table::RollingDataWriter::Make(*table);
  if (!writer.ok()) return WithContext(writer.status(), "Cannot delete from " + table->name());
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(rows_reader->ReadNext(&batch));
    if (!batch) break;
    const auto& files = static_cast<const arrow::StringArray&>(*batch->column(columns));
    const arrow::BooleanArray* matches =
        del.where ? &static_cast<const arrow::BooleanArray&>(*batch->column(columns + 1)) : nullptr;
    arrow::BooleanBuilder keep;
    ARROW_RETURN_NOT_OK(keep.Reserve(batch->num_rows()));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      const bool deleted = !matches || (matches->IsValid(i) && matches->Value(i));
      keep.UnsafeAppend(affected.count(std::string(files.GetView(i))) > 0 && !deleted);
    }
    ARROW_ASSIGN_OR_RAISE(auto mask, keep.Finish());
    ARROW_ASSIGN_OR_RAISE(auto data, batch->SelectColumns(kept_columns));
    ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(arrow::Datum(data), arrow::Datum(mask)));
    auto filtered_rows = filtered.record_batch();
    if (filtered_rows->num_rows() == 0) continue;
    // The plan's columns, under the table's names.
    auto rows = arrow::RecordBatch::Make(table_schema, filtered_rows->num_rows(), filtered_rows->columns());
    Status written = (*writer)->Write(*rows);
    if (!written.ok()) return WithContext(written, "Cannot delete from " + table->name());
  }
  auto files = (*writer)->Finish();
  if (!files.ok()) return WithContext(files.status(), "Cannot delete from " + table->name());
  std::vector<std::string> paths(affected.begin(), affected.end());
  auto committed = table::OverwriteFiles(*table, std::move(files).ValueUnsafe(),
                                         table::OverwriteFilter::Files(paths, may_match, condition), options);
  if (!committed.ok()) return WithContext(committed.status(), "Cannot delete from " + table->name());
  return Message("");
}

}  // namespace floe::sql
