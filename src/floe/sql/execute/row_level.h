#pragma once

// What DELETE and UPDATE share: reading the target table's rows with their data file and
// position, deciding whole files by partition values, and writing position delete files.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/manifest/data_file.h"
#include "floe/scan/scan_filter.h"
#include "floe/scan/table_scan.h"
#include "floe/sql/parse/ast.h"
#include "floe/sql/execute/executors.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table.h"

namespace floe::sql {

// The table a row-level statement changes, as written, and its condition.
struct RowLevelTarget {
  const ObjectName& table;
  const std::optional<Identifier>& alias;
  const ExprBox& where;
};

// The target table of a row-level `statement` ("DELETE FROM", "UPDATE"). Only the main
// branch is written: a branch suffix or spark.wap.branch is refused (`doing`: "deleting from").
Result<std::shared_ptr<table::Table>> LoadTargetTable(ExecContext& ctx,
                                                      const RowLevelTarget& target,
                                                      const std::string& statement,
                                                      const std::string& doing);

// What a row-level write (`op`: "delete" or "update") of a table's current snapshot works
// from: its mode and isolation level from the table's properties, and the live data files
// its condition may touch.
struct RowLevelPlan {
  bool merge_on_read = false;
  table::WriteOptions options;  // starting snapshot and isolation level set
  std::string condition;        // as conflict messages print it
  std::vector<scan::ColumnPredicate> predicates;
  bool all_pushable = true;  // every conjunct of the condition became a predicate
  std::vector<scan::FileScanTask> tasks;
  std::map<std::string, const manifest::DataFile*> live;  // into `tasks`, by path
  // Whether a data file can hold rows the condition matches (for conflict checks).
  std::function<bool(const manifest::DataFile&)> may_match;
};
Result<RowLevelPlan> PlanRowLevel(ExecContext& ctx, const std::shared_ptr<table::Table>& table,
                                  const RowLevelTarget& target, const std::string& op);

// Data file paths, looked up by the string views of a batch's `_file` column.
using FileSet = std::set<std::string, std::less<>>;
// Position lists by data file path.
using FilePositions = std::map<std::string, std::vector<int64_t>>;

// The data files holding a row the target's condition matches.
Result<FileSet> AffectedFiles(ExecContext& ctx, const RowLevelTarget& target);

// TRUE for the rows of `paths` (a batch's `_file` column) read from one of `files`.
Result<std::shared_ptr<arrow::Array>> RowsOfFiles(const arrow::StringArray& paths,
                                                  const FileSet& files);

// TRUE where column `condition` of `batch` is TRUE, FALSE where it is FALSE or NULL; all TRUE
// when `condition` is negative (no condition).
Result<std::shared_ptr<arrow::Array>> Matched(const arrow::RecordBatch& batch, int condition);

// The true values of a boolean array.
int64_t CountTrue(const arrow::Array& mask);

// The result of a write that changed `rows` rows (StatementResult::rows_affected).
StatementResult Written(int64_t rows);

// Adds each row's position (`pos`) to the list of its data file (`paths`).
void CollectPositions(const arrow::StringArray& paths, const arrow::Int64Array& pos,
                      FilePositions* out);

// Commits merge-on-read changes: position delete files naming `positions` (deletion vectors on
// a format-version 3 table, merged with each data file's earlier deletes), and `data_files`
// (rows an UPDATE wrote anew), validated against what was committed since `plan` read.
// Nothing is committed when there is nothing to commit; with no position named, the data
// files are an `append`. A failure removes every file written.
Status CommitPositionDeletes(table::Table& table, const RowLevelPlan& plan, FilePositions positions,
                             std::vector<manifest::DataFile> data_files);

// The conjuncts of `e` (its AND operands, recursively).
void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out);

// `text`, a SELECT over a placeholder table `t`, reading the target (with its alias) instead
// and, when `where`, filtered by the target's condition. The condition keeps its positions in
// the statement, so its errors point into what the user wrote.
Result<Query> TargetQuery(const std::string& text, const RowLevelTarget& target, bool where);

// The rows of `query`, a batch at a time.
Result<std::shared_ptr<arrow::RecordBatchReader>> StreamRows(ExecContext& ctx, const Query& query);

// The live data files (of `tasks`) whose identity partition values satisfy every predicate,
// or nullopt when some file's values do not decide them.
std::optional<std::set<std::string>> WholeFiles(
    const spec::TableMetadata& md, const std::vector<scan::ColumnPredicate>& predicates,
    const std::vector<scan::FileScanTask>& tasks);

// Writes merge-on-read position delete files naming `positions` (sorted, per data file path),
// one per partition of the data files, beside them. `data_files` are the live data files.
Result<std::vector<manifest::DataFile>> WritePositionDeletes(
    const table::Table& table, const FilePositions& positions,
    const std::map<std::string, const manifest::DataFile*>& data_files);

}  // namespace floe::sql
