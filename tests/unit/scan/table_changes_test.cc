// table_changes: each change with its commit along one line of history; net mode and ranges
// off that line (expired snapshots between the ends) as the difference of the two states,
// the same within a tiny memory budget (spilled) as within a large one, and equal to what the
// snapshot diff counts.
#include "floe/scan/table_changes.h"

#include <map>

#include <arrow/api.h>

#include "floe/scan/snapshot_diff.h"
#include "floe/table/expire_snapshots.h"
#include "floe/table/snapshot_producer.h"
#include "unit/scan/id_name_table.h"

namespace floe::scan {
namespace {

using floe::testing::People;
using id_name::Rows;
using Lines = std::vector<std::string>;

class TableChangesTest : public id_name::DeletesTableTest {
 protected:
  // "TYPE ordinal id:name @snapshot" per row, sorted; ordinal "-" when NULL.
  Lines Changes(const TableChangesOptions& options) {
    auto result = ReadTableChanges(table_, options);
    EXPECT_OK(result.status());
    if (!result.ok()) return {};
    auto batch = (*result)->ToTable().ValueOrDie()->CombineChunksToBatch().ValueOrDie();
    EXPECT_EQ(batch->num_columns(), 8);
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    const auto& names = static_cast<const arrow::StringArray&>(*batch->column(1));
    const auto& types = static_cast<const arrow::StringArray&>(*batch->column(2));
    const auto& ordinals = static_cast<const arrow::Int32Array&>(*batch->column(3));
    const auto& commits = static_cast<const arrow::Int64Array&>(*batch->column(4));
    const auto& timestamps = static_cast<const arrow::TimestampArray&>(*batch->column(5));
    const auto& sequence_numbers = static_cast<const arrow::Int64Array&>(*batch->column(6));
    const auto& operations = static_cast<const arrow::StringArray&>(*batch->column(7));
    Lines out;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      const spec::Snapshot* s = table_->metadata()->SnapshotById(commits.Value(i));
      EXPECT_NE(s, nullptr);
      if (s) {
        EXPECT_EQ(timestamps.Value(i), s->timestamp_ms * 1000);
        EXPECT_EQ(sequence_numbers.Value(i), s->sequence_number);
        EXPECT_EQ(operations.GetString(i), s->operation);
      }
      out.push_back(types.GetString(i) + " " +
                    (ordinals.IsNull(i) ? "-" : std::to_string(ordinals.Value(i))) + " " +
                    std::to_string(ids.Value(i)) + ":" + names.GetString(i) + " @" +
                    std::to_string(snapshot_index_[commits.Value(i)]));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  int64_t Track(int64_t snapshot_id) {
    snapshot_index_[snapshot_id] = static_cast<int>(snapshot_index_.size()) + 1;
    return snapshot_id;
  }

  static TableChangesOptions Range(std::optional<int64_t> from, std::optional<int64_t> to) {
    TableChangesOptions o;
    o.from_exclusive = from;
    o.to_inclusive = to;
    return o;
  }

  std::map<int64_t, int> snapshot_index_;  // snapshot id -> 1, 2, ... in commit order
};

TEST_F(TableChangesTest, EachChangeCarriesItsCommit) {
  int64_t s1 = Track(table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}})).ValueOrDie());
  int64_t s2 = Track(
      table::CommitRowDelta(*table_, {}, {PositionDeletes(DataFileOf(s1), {1})}).ValueOrDie());
  Track(table::AppendData(*table_, *Rows({{2, "bb"}})).ValueOrDie());
  EXPECT_EQ(Changes(Range(std::nullopt, std::nullopt)),
            (Lines{"DELETE 1 2:b @2", "INSERT 0 1:a @1", "INSERT 0 2:b @1", "INSERT 2 2:bb @3"}));
  EXPECT_EQ(Changes(Range(s1, s2)), (Lines{"DELETE 0 2:b @2"}));
  // Net: the state at s1 against the current one, update images by id.
  TableChangesOptions net = Range(s1, std::nullopt);
  net.net = true;
  net.identifier_columns = {"id"};
  net.compute_updates = true;
  EXPECT_EQ(Changes(net), (Lines{"UPDATE_AFTER - 2:bb @3", "UPDATE_BEFORE - 2:b @3"}));
}

TEST_F(TableChangesTest, ExpiredSnapshotsBetweenTheEndsGiveTheStateDifference) {
  int64_t s1 = Track(table::AppendData(*table_, *Rows({{1, "a"}})).ValueOrDie());
  int64_t s2 = Track(table::AppendData(*table_, *Rows({{2, "b"}})).ValueOrDie());
  int64_t s3 = Track(
      table::OverwriteData(*table_, *Rows({{1, "z"}, {2, "b"}}), table::OverwriteFilter::All())
          .ValueOrDie());
  table::ExpireSnapshotsOptions expire;
  expire.snapshot_ids = {s2};
  ASSERT_OK(table::ExpireSnapshots(*table_, expire).status());
  ASSERT_OK(table_->Refresh());
  EXPECT_EQ(Changes(Range(s1, s3)),
            (Lines{"DELETE - 1:a @3", "INSERT - 1:z @3", "INSERT - 2:b @3"}));
  // From the start: the table as created was empty, whatever expired since.
  EXPECT_EQ(Changes(Range(std::nullopt, s3)), (Lines{"INSERT - 1:z @3", "INSERT - 2:b @3"}));
  auto expired = ReadTableChanges(table_, Range(s2, s3));
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.status().message(),
            "Cannot find snapshot with ID " + std::to_string(s2) + " in table " + table_->name());
}

TEST_F(TableChangesTest, NetModeSpillsAndMatchesTheDiff) {
  int64_t s1 = Track(table::AppendData(*table_, *People(0, 60000)).ValueOrDie());
  Track(table::CommitRowDelta(*table_, {}, {PositionDeletes(DataFileOf(s1), {5, 6, 7})})
            .ValueOrDie());
  Track(table::AppendData(*table_, *People(100000, 20000)).ValueOrDie());
  TableChangesOptions roomy = Range(std::nullopt, std::nullopt);
  roomy.net = true;
  roomy.identifier_columns = {"id"};
  TableChangesOptions tight = roomy;
  tight.memory_budget_bytes = 1 << 20;
  Lines want = Changes(roomy);
  EXPECT_EQ(want.size(), 60000u - 3 + 20000u);
  EXPECT_EQ(Changes(tight), want);
  // Rows stream out a partition at a time; a reader closed after the first stops the diff.
  ASSERT_OK_AND_ASSIGN(auto reader, ReadTableChanges(table_, tight));
  std::shared_ptr<arrow::RecordBatch> first;
  ASSERT_OK(reader->ReadNext(&first));
  ASSERT_NE(first, nullptr);
  EXPECT_LT(first->num_rows(), 60000);
  ASSERT_OK(reader->Close());
  reader.reset();
  // The rows are those the diff counts.
  roomy.from_exclusive = s1;
  Lines since_s1 = Changes(roomy);
  DiffOptions diff_options;
  diff_options.key_columns = {"id"};
  ASSERT_OK_AND_ASSIGN(
      SnapshotDiff diff,
      DiffSnapshots(table_, s1, *table_->metadata()->current_snapshot_id, diff_options));
  EXPECT_EQ(diff.added, 20000);
  EXPECT_EQ(diff.removed, 3);
  EXPECT_EQ(since_s1.size(), 20003u);
  EXPECT_EQ(since_s1.front(), "DELETE - 5:person-5 @3");
}

TEST_F(TableChangesTest, BackwardsBetweenFixedPointsIsAnError) {
  int64_t s1 = Track(table::AppendData(*table_, *Rows({{1, "a"}})).ValueOrDie());
  int64_t s2 = Track(table::AppendData(*table_, *Rows({{2, "b"}})).ValueOrDie());
  auto r = ReadTableChanges(table_, Range(s2, s1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Starting snapshot (exclusive) " + std::to_string(s2) +
                                      " is after end snapshot " + std::to_string(s1) +
                                      " in table " + table_->name());
  // The head of a branch may be older, after a rollback: the two states are compared.
  TableChangesOptions head = Range(s2, s1);
  head.to_is_head = true;
  EXPECT_EQ(Changes(head), (Lines{"DELETE - 2:b @1"}));
  TableChangesOptions updates = Range(std::nullopt, std::nullopt);
  updates.compute_updates = true;
  auto no_keys = ReadTableChanges(table_, updates);
  ASSERT_FALSE(no_keys.ok());
  EXPECT_EQ(no_keys.status().message(),
            "Cannot compute the update images because identifier columns are not set");
}

}  // namespace
}  // namespace floe::scan
