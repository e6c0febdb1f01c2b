#pragma once

// For scan tests over a table of (id, name) rows: rows as given and as text, and the delete
// files merge-on-read writes (position deletes of a data file, equality deletes of ids).

#include <string>
#include <utility>
#include <vector>

#include <arrow/api.h>

#include "floe/scan/position_deletes.h"
#include "floe/scan/table_scan.h"
#include "test_values.h"
#include "unit/table/table_test_util.h"

namespace floe::scan::id_name {

using manifest::DataFile;
using manifest::FileContent;

// Rows (id, name) as given.
inline std::shared_ptr<arrow::Table> Rows(
    const std::vector<std::pair<int64_t, std::string>>& rows) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (const auto& [id, name] : rows) {
    EXPECT_OK(ids.Append(id));
    EXPECT_OK(names.Append(name));
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8())});
  return arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

// "id:name" for each row of a sample, in order.
inline std::vector<std::string> Text(const std::shared_ptr<arrow::Table>& t) {
  std::vector<std::string> out;
  if (!t) return out;
  auto combined = t->CombineChunksToBatch().ValueOrDie();
  if (combined->num_rows() == 0) return out;
  const auto& ids = static_cast<const arrow::Int64Array&>(*combined->GetColumnByName("id"));
  const auto& names = static_cast<const arrow::StringArray&>(*combined->GetColumnByName("name"));
  for (int64_t i = 0; i < combined->num_rows(); ++i) {
    out.push_back(std::to_string(ids.Value(i)) + ":" +
                  (names.IsNull(i) ? "null" : names.GetString(i)));
  }
  return out;
}

class DeletesTableTest : public floe::testing::PeopleTableTest {
 protected:
  std::string DataFileOf(int64_t snapshot_id) {
    auto tasks = TableScan(table_).UseSnapshot(snapshot_id).PlanFiles().ValueOrDie();
    EXPECT_EQ(tasks.size(), 1u);
    return tasks.empty() ? "" : tasks[0].file.file_path;
  }

  DataFile WriteDeletes(const arrow::Table& rows, FileContent content,
                        std::vector<int32_t> equality_ids = {}) {
    return floe::testing::WriteDeleteFile(*table_, ++n_, rows, content, std::move(equality_ids));
  }

  DataFile PositionDeletes(const std::string& data_file, const std::vector<int64_t>& positions) {
    DataFile f = WriteDeletes(*floe::testing::PositionDeleteRows(data_file, positions),
                              FileContent::kPositionDeletes);
    // As writers record them: the file_path bounds say which data file the deletes name.
    f.lower_bounds[kDeleteFilePathId] = data_file;
    f.upper_bounds[kDeleteFilePathId] = data_file;
    return f;
  }

  DataFile EqualityDeletesOfIds(const std::vector<int64_t>& ids) {
    return WriteDeletes(*floe::testing::IdDeleteRows(ids), FileContent::kEqualityDeletes, {1});
  }

  int n_ = 0;
};

}  // namespace floe::scan::id_name
