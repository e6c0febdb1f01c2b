// The changelog: appends, copy-on-write rewrites with their carry-over removed, update
// images by identifier columns, merge-on-read position and equality deletes matched by file
// and position, net changes over a range, and the errors of a bad range.
#include "floe/scan/changelog_scan.h"

#include <arrow/api.h>

#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "unit/scan/id_name_table.h"

namespace floe::scan {
namespace {

using floe::testing::People;
using id_name::Rows;

class ChangelogScanTest : public id_name::DeletesTableTest {
 protected:
  // "TYPE ordinal id:name" per row, in the changelog's order; the snapshot column checked
  // against `snapshots` (ordinal -> snapshot id).
  std::vector<std::string> Changes(const ChangelogOptions& options,
                                   const std::vector<int64_t>& snapshots) {
    auto result = ReadChangelog(table_, options);
    EXPECT_OK(result.status());
    if (!result.ok()) return {};
    auto batch = (*result)->CombineChunksToBatch().ValueOrDie();
    // The stream holds the same rows, in the same order.
    auto stream = StreamChangelog(table_, options);
    EXPECT_OK(stream.status());
    if (!stream.ok()) return {};
    auto streamed = (*stream)->ToTable();
    EXPECT_OK(streamed.status());
    if (!streamed.ok()) return {};
    EXPECT_TRUE((*streamed)->Equals(**result)) << (*streamed)->ToString() << (*result)->ToString();
    EXPECT_EQ(batch->schema()->ToString(),
              "id: int64 not null\nname: string\n_change_type: string not null\n"
              "_change_ordinal: int32 not null\n_commit_snapshot_id: int64 not null");
    std::vector<std::string> out;
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    const auto& names = static_cast<const arrow::StringArray&>(*batch->column(1));
    const auto& types = static_cast<const arrow::StringArray&>(*batch->column(2));
    const auto& ordinals = static_cast<const arrow::Int32Array&>(*batch->column(3));
    const auto& commits = static_cast<const arrow::Int64Array&>(*batch->column(4));
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      EXPECT_EQ(commits.Value(i), snapshots.at(static_cast<size_t>(ordinals.Value(i))));
      out.push_back(types.GetString(i) + " " + std::to_string(ordinals.Value(i)) + " " +
                    std::to_string(ids.Value(i)) + ":" +
                    (names.IsNull(i) ? "null" : names.GetString(i)));
    }
    return out;
  }

  static ChangelogOptions Range(std::optional<int64_t> from, std::optional<int64_t> to) {
    ChangelogOptions o;
    o.from_exclusive = from;
    o.to_inclusive = to;
    return o;
  }
};

using Lines = std::vector<std::string>;

TEST_F(ChangelogScanTest, AppendsAreInserts) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}})));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *Rows({{3, "c"}})));
  EXPECT_EQ(Changes(Range(std::nullopt, std::nullopt), {s1, s2}),
            (Lines{"INSERT 0 1:a", "INSERT 0 2:b", "INSERT 1 3:c"}));
  EXPECT_EQ(Changes(Range(s1, std::nullopt), {s2}), (Lines{"INSERT 0 3:c"}));
  EXPECT_EQ(Changes(Range(std::nullopt, s1), {s1}), (Lines{"INSERT 0 1:a", "INSERT 0 2:b"}));
  // A start equal to the end is no parent of an ancestor of it (Spark's rule).
  auto same = ReadChangelog(table_, Range(s2, s2));
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.status().message(), "Starting snapshot (exclusive) " + std::to_string(s2) +
                                         " is not a parent ancestor of end snapshot " +
                                         std::to_string(s2));
}

TEST_F(ChangelogScanTest, CopyOnWriteCarryOverIsRemovedAndUpdatesPaired) {
  ASSERT_OK_AND_ASSIGN(int64_t s1,
                       table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}})));
  // Row 2 updated, row 3 deleted, row 9 inserted; rows 1 and 4 written again unchanged.
  ASSERT_OK_AND_ASSIGN(
      int64_t s2, table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "B"}, {4, "d"}, {9, "i"}}),
                                       table::OverwriteFilter::All()));
  EXPECT_EQ(Changes(Range(s1, s2), {s2}),
            (Lines{"DELETE 0 2:b", "DELETE 0 3:c", "INSERT 0 2:B", "INSERT 0 9:i"}));
  ChangelogOptions updates = Range(s1, s2);
  updates.compute_updates = true;
  updates.identifier_columns = {"id"};
  EXPECT_EQ(Changes(updates, {s2}),
            (Lines{"DELETE 0 3:c", "UPDATE_BEFORE 0 2:b", "UPDATE_AFTER 0 2:B", "INSERT 0 9:i"}));
}

TEST_F(ChangelogScanTest, DuplicateRowsCancelPairByPair) {
  ASSERT_OK_AND_ASSIGN(int64_t s1,
                       table::AppendData(*table_, *Rows({{1, "a"}, {1, "a"}, {2, "b"}})));
  ASSERT_OK_AND_ASSIGN(int64_t s2,
                       table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "b"}, {2, "b"}}),
                                            table::OverwriteFilter::All()));
  EXPECT_EQ(Changes(Range(s1, s2), {s2}), (Lines{"DELETE 0 1:a", "INSERT 0 2:b"}));
  // Two rows of one identifier on one side cannot be paired.
  ASSERT_OK_AND_ASSIGN(int64_t s3, table::OverwriteData(*table_, *Rows({{1, "x"}, {1, "y"}}),
                                                        table::OverwriteFilter::All()));
  ChangelogOptions updates = Range(s2, s3);
  updates.compute_updates = true;
  updates.identifier_columns = {"id"};
  auto r = ReadChangelog(table_, updates);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Cannot compute updates because there are multiple rows with the same identifier "
            "fields([id,_change_ordinal]). Please make sure the rows are unique.");
  // Streamed, the snapshot before it comes first, then its error.
  updates.from_exclusive = s1;
  ASSERT_OK_AND_ASSIGN(auto stream, StreamChangelog(table_, updates));
  std::shared_ptr<arrow::RecordBatch> batch;
  ASSERT_OK(stream->ReadNext(&batch));
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->num_rows(), 2);
  Status failed = stream->ReadNext(&batch);
  EXPECT_EQ(failed.message(), r.status().message());
}

TEST_F(ChangelogScanTest, StreamedChangesComeOneSnapshotAtATime) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}})));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *Rows({{3, "c"}})));
  // A rewrite that changes nothing: all carry-over, no rows, no batch.
  ASSERT_OK_AND_ASSIGN(int64_t s3,
                       table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "b"}, {3, "c"}}),
                                            table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(int64_t s4, table::OverwriteData(*table_, *Rows({{1, "a"}, {3, "c"}}),
                                                        table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(auto stream, StreamChangelog(table_, Range(std::nullopt, std::nullopt)));
  std::vector<std::pair<int64_t, int64_t>> batches;  // (rows, snapshot)
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ASSERT_OK(stream->ReadNext(&batch));
    if (!batch) break;
    const auto& commits = static_cast<const arrow::Int64Array&>(*batch->column(4));
    for (int64_t i = 1; i < batch->num_rows(); ++i) EXPECT_EQ(commits.Value(i), commits.Value(0));
    batches.emplace_back(batch->num_rows(), commits.Value(0));
  }
  EXPECT_EQ(batches, (std::vector<std::pair<int64_t, int64_t>>{{2, s1}, {1, s2}, {1, s4}}));
  (void)s3;
}

TEST_F(ChangelogScanTest, MergeOnReadDeletesAreMatchedByPosition) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *People(0, 10)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *People(10, 10)));
  const std::string first_file = DataFileOf(s1);
  ASSERT_OK_AND_ASSIGN(int64_t s3,
                       table::CommitRowDelta(*table_, {}, {PositionDeletes(first_file, {3, 4})}));
  // Position 4 again, and 5: only 5 is a new delete.
  ASSERT_OK_AND_ASSIGN(int64_t s4,
                       table::CommitRowDelta(*table_, {}, {PositionDeletes(first_file, {4, 5})}));
  ASSERT_OK_AND_ASSIGN(int64_t s5,
                       table::CommitRowDelta(*table_, {}, {EqualityDeletesOfIds({15, 4})}));
  EXPECT_EQ(Changes(Range(s2, std::nullopt), {s3, s4, s5}),
            (Lines{"DELETE 0 3:person-3", "DELETE 0 4:person-4", "DELETE 1 5:person-5",
                   "DELETE 2 15:person-15"}));
  // A row inserted after an equality delete is not deleted by it.
  ASSERT_OK_AND_ASSIGN(int64_t s6, table::AppendData(*table_, *Rows({{15, "again"}})));
  EXPECT_EQ(Changes(Range(s5, s6), {s6}), (Lines{"INSERT 0 15:again"}));
}

TEST_F(ChangelogScanTest, NetChangesCancelAcrossSnapshots) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}})));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::OverwriteData(*table_, *Rows({{1, "z"}, {2, "b"}}),
                                                        table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(int64_t s3,
                       table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "b"}, {3, "c"}}),
                                            table::OverwriteFilter::All()));
  EXPECT_EQ(Changes(Range(s1, s3), {s2, s3}), (Lines{"DELETE 0 1:a", "INSERT 0 1:z", "DELETE 1 1:z",
                                                     "INSERT 1 1:a", "INSERT 1 3:c"}));
  ChangelogOptions net = Range(s1, s3);
  net.net_changes = true;
  EXPECT_EQ(Changes(net, {s2, s3}), (Lines{"INSERT 1 3:c"}));
  // A row written again unchanged by a later rewrite is left with the rewrite's snapshot,
  // as Spark leaves it: the insert and the rewrite's delete balance first.
  ASSERT_OK_AND_ASSIGN(int64_t s4,
                       table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "b"}, {3, "c"}}),
                                            table::OverwriteFilter::All()));
  net.to_inclusive = s4;
  EXPECT_EQ(Changes(net, {s2, s3, s4}), (Lines{"INSERT 2 3:c"}));
  net.compute_updates = true;
  net.identifier_columns = {"id"};
  auto r = ReadChangelog(table_, net);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Not support net changes with update images");
}

TEST_F(ChangelogScanTest, ARangeOffTheLineOfHistoryIsRefused) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *Rows({{1, "a"}})));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *Rows({{2, "b"}})));
  ASSERT_OK(table::RollbackToSnapshot(*table_, s1).status());
  ASSERT_OK_AND_ASSIGN(int64_t s3, table::AppendData(*table_, *Rows({{3, "c"}})));
  auto r = ReadChangelog(table_, Range(s2, s3));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Starting snapshot (exclusive) " + std::to_string(s2) +
                                      " is not a parent ancestor of end snapshot " +
                                      std::to_string(s3));
  auto unknown = ReadChangelog(table_, Range(std::nullopt, 42));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "Cannot find the end snapshot: 42");
  auto unknown_start = ReadChangelog(table_, Range(42, s3));
  ASSERT_FALSE(unknown_start.ok());
  EXPECT_EQ(unknown_start.status().message(),
            "Starting snapshot (exclusive) 42 is not a parent ancestor of end snapshot " +
                std::to_string(s3));
  ChangelogOptions no_keys = Range(s1, s3);
  no_keys.compute_updates = true;
  auto without = ReadChangelog(table_, no_keys);
  ASSERT_FALSE(without.ok());
  EXPECT_EQ(without.status().message(),
            "Cannot compute the update images because identifier columns are not set");
  ChangelogOptions bad_key = Range(s1, s3);
  bad_key.compute_updates = true;
  bad_key.identifier_columns = {"nope"};
  auto no_column = ReadChangelog(table_, bad_key);
  ASSERT_FALSE(no_column.ok());
  EXPECT_EQ(no_column.status().message(),
            "Cannot find identifier column 'nope' in table " + table_->name());
}

}  // namespace
}  // namespace floe::scan
