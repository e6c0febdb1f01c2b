#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <memory>
#include <string>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/writer.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/scan/position_deletes.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/commit.h"
#include "floe/table/table_catalog.h"
#include "floe_test.h"
#include "test_values.h"

namespace floe::testing {

// A warehouse in a temp dir with a SQLite catalog, a FileIO and a "db" namespace.
struct Warehouse {
  TempDir dir;
  std::shared_ptr<Catalog> catalog;
  std::shared_ptr<FileIO> io;
  std::unique_ptr<table::TableCatalog> tables;

  std::string catalog_path() const { return dir.str() + "/catalog.db"; }

  Status Open() {
    ARROW_ASSIGN_OR_RAISE(catalog, SqlCatalog::Open(catalog_path(), "lakehouse", dir.str() + "/wh"));
    ARROW_ASSIGN_OR_RAISE(io, FileIO::MakeLocal());
    tables = std::make_unique<table::TableCatalog>(catalog, io);
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog->NamespaceExists(Namespace({"db"})));
    if (!exists) ARROW_RETURN_NOT_OK(catalog->CreateNamespace(Namespace({"db"}), {}));
    return Status::OK();
  }
};

// Every file under `root`, recursively, as full paths (empty when it does not exist).
inline std::set<std::string> FilesUnder(FileIO& io, const std::string& root) {
  std::set<std::string> out;
  auto listed = io.ListFiles(root);
  if (!listed.ok()) return out;
  for (const auto& e : *listed) out.insert(e.path);
  return out;
}

// Rows (id int64 required, name string) with ids [first, first + n).
inline std::shared_ptr<arrow::Table> People(int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = first; i < first + n; ++i) {
    (void)ids.Append(i);
    (void)names.Append("person-" + std::to_string(i));
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8())});
  return arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), names.Finish().ValueOrDie()});
}

// A fresh warehouse with one table `db.people` of People rows (no snapshot yet).
class PeopleTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(wh_.Open());
    ASSERT_OK_AND_ASSIGN(auto schema, table::SchemaFromArrow(*People(0, 1)->schema()));
    ASSERT_OK_AND_ASSIGN(table_, wh_.tables->CreateTable(ident_, *schema));
  }

  Warehouse wh_;
  TableIdentifier ident_{Namespace({"db"}), "people"};
  std::shared_ptr<table::Table> table_;
};

// The ids of a table read back, sorted.
inline std::vector<int64_t> SortedIds(const arrow::Table& table) {
  std::vector<int64_t> out;
  auto column = table.GetColumnByName("id");
  for (const auto& chunk : column->chunks()) {
    const auto& a = static_cast<const arrow::Int64Array&>(*chunk);
    for (int64_t i = 0; i < a.length(); ++i) out.push_back(a.Value(i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

// Sets each snapshot's commit time and the time of every snapshot-log entry that made it
// current, through an ordinary metadata-only commit, so tests need no sleeping.
inline Status SetSnapshotTimes(table::Table& table, const std::map<int64_t, int64_t>& times) {
  return table::Commit(table, [&](const spec::TableMetadataPtr& base, std::vector<std::string>*)
                                  -> Result<std::shared_ptr<spec::TableMetadata>> {
    auto md = std::make_shared<spec::TableMetadata>(*base);
    for (auto& s : md->snapshots) {
      if (times.count(s.snapshot_id)) s.timestamp_ms = times.at(s.snapshot_id);
    }
    for (auto& e : md->snapshot_log) {
      if (times.count(e.snapshot_id)) e.timestamp_ms = times.at(e.snapshot_id);
    }
    return md;
  });
}

// Writes `rows` (positions, or the equality columns) as the table's delete file number `n`
// under its data/ folder and describes it, for commits of row deltas.
inline manifest::DataFile WriteDeleteFile(const table::Table& table, int n, const arrow::Table& rows,
                                          manifest::FileContent content,
                                          std::vector<int32_t> equality_ids = {}) {
  manifest::DataFile f;
  f.content = content;
  f.file_path = table.metadata()->location + "/data/deletes-" + std::to_string(n) + ".parquet";
  auto out = arrow::io::FileOutputStream::Open(f.file_path).ValueOrDie();
  EXPECT_OK(parquet::arrow::WriteTable(rows, arrow::default_memory_pool(), out));
  EXPECT_OK(out->Close());
  f.file_size_in_bytes = static_cast<int64_t>(std::filesystem::file_size(f.file_path));
  f.record_count = rows.num_rows();
  f.equality_ids = std::move(equality_ids);
  return f;
}

// The rows of a position delete file naming `positions` of `data_file`.
inline std::shared_ptr<arrow::Table> PositionDeleteRows(const std::string& data_file,
                                                        const std::vector<int64_t>& positions) {
  arrow::StringBuilder paths;
  arrow::Int64Builder pos;
  for (int64_t p : positions) {
    EXPECT_OK(paths.Append(data_file));
    EXPECT_OK(pos.Append(p));
  }
  auto schema = arrow::schema({IdField("file_path", arrow::utf8(), scan::kDeleteFilePathId),
                               IdField("pos", arrow::int64(), scan::kDeletePosId)});
  return arrow::Table::Make(schema, {paths.Finish().ValueOrDie(), pos.Finish().ValueOrDie()});
}

// The rows of an equality delete file on field 1 (`id`) deleting `ids`.
inline std::shared_ptr<arrow::Table> IdDeleteRows(const std::vector<int64_t>& ids) {
  arrow::Int64Builder b;
  for (int64_t id : ids) EXPECT_OK(b.Append(id));
  return arrow::Table::Make(arrow::schema({IdField("id", arrow::int64(), 1)}),
                            {b.Finish().ValueOrDie()});
}

}  // namespace floe::testing
