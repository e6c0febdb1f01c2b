// The snapshot diff: exact counts and samples for appends, copy-on-write rewrites, position
// and equality deletes, duplicates with and without keys, schema changes, and the same
// answers when a tiny memory budget makes it spill and split partitions.
#include "floe/scan/snapshot_diff.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/writer.h>

#include "floe/table/snapshot_producer.h"
#include "floe/table/update_schema.h"
#include "unit/scan/id_name_table.h"

namespace floe::scan {
namespace {

using floe::testing::People;
using id_name::Rows;
using id_name::Text;

class SnapshotDiffTest : public id_name::DeletesTableTest {
 protected:
  Result<SnapshotDiff> Diff(int64_t from, int64_t to, std::vector<std::string> keys = {},
                            int64_t budget = 256 << 20) {
    DiffOptions options;
    options.key_columns = std::move(keys);
    options.memory_budget_bytes = budget;
    options.spill_directory = spill_.str();
    return DiffSnapshots(table_, from, to, options);
  }

  floe::testing::TempDir spill_;
};

TEST_F(SnapshotDiffTest, AnAppendReadsOnlyTheNewFile) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *People(0, 100)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *People(100, 3)));
  ASSERT_OK_AND_ASSIGN(auto d, Diff(s1, s2));
  EXPECT_EQ(d.added, 3);
  EXPECT_EQ(d.removed, 0);
  EXPECT_EQ(d.changed, 0);
  EXPECT_EQ(d.unchanged_files, 1);
  EXPECT_EQ(d.files_read_from, 0);
  EXPECT_EQ(d.files_read_to, 1);
  EXPECT_EQ(d.rows_read_to, 3);
  EXPECT_EQ(d.spilled_bytes, 0);
  EXPECT_EQ(Text(d.added_sample),
            (std::vector<std::string>{"100:person-100", "101:person-101", "102:person-102"}));
  EXPECT_EQ(d.columns, (std::vector<std::string>{"id", "name"}));

  // Backwards the same rows are removed; a snapshot against itself differs in nothing.
  ASSERT_OK_AND_ASSIGN(auto back, Diff(s2, s1, {"id"}));
  EXPECT_EQ(back.added, 0);
  EXPECT_EQ(back.removed, 3);
  EXPECT_EQ(Text(back.removed_sample), Text(d.added_sample));
  ASSERT_OK_AND_ASSIGN(auto same, Diff(s2, s2));
  EXPECT_EQ(same.added + same.removed + same.changed, 0);
  EXPECT_EQ(same.unchanged_files, 2);
  EXPECT_EQ(same.files_read_from + same.files_read_to, 0);
}

TEST_F(SnapshotDiffTest, CopyOnWriteRewriteWithAndWithoutKeys) {
  ASSERT_OK_AND_ASSIGN(int64_t s1,
                       table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}})));
  // Row 2 updated, row 3 deleted, row 9 inserted: one file replaced by a new one.
  ASSERT_OK_AND_ASSIGN(
      int64_t s2, table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "B"}, {4, "d"}, {9, "i"}}),
                                       table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(auto keyed, Diff(s1, s2, {"ID"}));
  EXPECT_EQ(keyed.added, 1);
  EXPECT_EQ(keyed.removed, 1);
  EXPECT_EQ(keyed.changed, 1);
  EXPECT_EQ(keyed.unchanged_files, 0);
  EXPECT_EQ(keyed.key_columns, std::vector<std::string>{"id"});
  EXPECT_EQ(Text(keyed.added_sample), std::vector<std::string>{"9:i"});
  EXPECT_EQ(Text(keyed.removed_sample), std::vector<std::string>{"3:c"});
  EXPECT_EQ(Text(keyed.changed_before), std::vector<std::string>{"2:b"});
  EXPECT_EQ(Text(keyed.changed_after), std::vector<std::string>{"2:B"});

  // Without keys a changed row is one removed and one added.
  ASSERT_OK_AND_ASSIGN(auto rows, Diff(s1, s2));
  EXPECT_EQ(rows.added, 2);
  EXPECT_EQ(rows.removed, 2);
  EXPECT_EQ(rows.changed, 0);
  EXPECT_EQ(Text(rows.added_sample), (std::vector<std::string>{"2:B", "9:i"}));
  EXPECT_EQ(Text(rows.removed_sample), (std::vector<std::string>{"2:b", "3:c"}));
}

TEST_F(SnapshotDiffTest, PositionAndEqualityDeletes) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *People(0, 10)));
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *People(10, 10)));
  const std::string first_file = DataFileOf(s1);
  // Merge-on-read: positions 3 and 4 of the first file, then id 15 by equality.
  ASSERT_OK_AND_ASSIGN(int64_t s3,
                       table::CommitRowDelta(*table_, {}, {PositionDeletes(first_file, {3, 4})}));
  ASSERT_OK_AND_ASSIGN(int64_t s4,
                       table::CommitRowDelta(*table_, {}, {EqualityDeletesOfIds({15})}));

  ASSERT_OK_AND_ASSIGN(auto d, Diff(s2, s3, {"id"}));
  EXPECT_EQ(d.removed, 2);
  EXPECT_EQ(d.added + d.changed, 0);
  // The second file has no delete in either snapshot: skipped.
  EXPECT_EQ(d.unchanged_files, 1);
  EXPECT_EQ(d.files_read_from, 1);
  EXPECT_EQ(d.files_read_to, 1);
  EXPECT_EQ(d.rows_read_from, 10);
  EXPECT_EQ(d.rows_read_to, 8);
  EXPECT_EQ(Text(d.removed_sample), (std::vector<std::string>{"3:person-3", "4:person-4"}));

  ASSERT_OK_AND_ASSIGN(auto all, Diff(s1, s4));
  EXPECT_EQ(all.added, 9);  // ids 10..19 but 15
  EXPECT_EQ(all.removed, 2);
  ASSERT_OK_AND_ASSIGN(auto eq, Diff(s3, s4));
  EXPECT_EQ(eq.removed, 1);
  EXPECT_EQ(Text(eq.removed_sample), std::vector<std::string>{"15:person-15"});
}

TEST_F(SnapshotDiffTest, DuplicatesCountAsAMultiset) {
  ASSERT_OK_AND_ASSIGN(int64_t s1,
                       table::AppendData(*table_, *Rows({{1, "a"}, {1, "a"}, {2, "b"}})));
  ASSERT_OK_AND_ASSIGN(
      int64_t s2, table::OverwriteData(*table_, *Rows({{1, "a"}, {2, "b"}, {2, "b"}, {2, "b"}}),
                                       table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(auto d, Diff(s1, s2));
  EXPECT_EQ(d.added, 2);
  EXPECT_EQ(d.removed, 1);
  EXPECT_EQ(Text(d.added_sample), (std::vector<std::string>{"2:b", "2:b"}));
  EXPECT_EQ(Text(d.removed_sample), std::vector<std::string>{"1:a"});
}

TEST_F(SnapshotDiffTest, DuplicateKeysPairUpAfterIdenticalRowsCancel) {
  ASSERT_OK_AND_ASSIGN(int64_t s1,
                       table::AppendData(*table_, *Rows({{1, "x"}, {1, "y"}, {2, "p"}, {3, "q"}})));
  // Key 1: x stays, y becomes z (changed). Key 2: p stays and a second p arrives (added).
  // Key 3: q becomes two rows r and s (one changed, one added).
  ASSERT_OK_AND_ASSIGN(
      int64_t s2, table::OverwriteData(
                      *table_, *Rows({{1, "x"}, {1, "z"}, {2, "p"}, {2, "p"}, {3, "r"}, {3, "s"}}),
                      table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(auto d, Diff(s1, s2, {"id"}));
  EXPECT_EQ(d.changed, 2);
  EXPECT_EQ(d.added, 2);
  EXPECT_EQ(d.removed, 0);
  EXPECT_EQ(Text(d.changed_before)[0], "1:y");
  EXPECT_EQ(Text(d.changed_after)[0], "1:z");
}

TEST_F(SnapshotDiffTest, ColumnsMatchByFieldIdAcrossSchemaChanges) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *Rows({{1, "a"}, {2, "b"}})));
  ASSERT_OK(table::UpdateSchema(*table_)
                .AddColumn("score", spec::Type::Long())
                .RenameColumn("name", "label")
                .Commit());
  arrow::Int64Builder ids, scores;
  arrow::StringBuilder labels;
  ASSERT_OK(ids.Append(3));
  ASSERT_OK(labels.Append("c"));
  ASSERT_OK(scores.Append(7));
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false),
                     arrow::field("label", arrow::utf8()), arrow::field("score", arrow::int64())});
  auto rows = arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), labels.Finish().ValueOrDie(),
                                          scores.Finish().ValueOrDie()});
  ASSERT_OK_AND_ASSIGN(int64_t s2, table::AppendData(*table_, *rows));
  ASSERT_OK_AND_ASSIGN(auto d, Diff(s1, s2, {"id"}));
  EXPECT_EQ(d.columns, (std::vector<std::string>{"id", "label"}));
  EXPECT_EQ(d.columns_only_in_to, std::vector<std::string>{"score"});
  EXPECT_TRUE(d.columns_only_in_from.empty());
  EXPECT_EQ(d.added, 1);
  EXPECT_EQ(d.unchanged_files, 1);
  ASSERT_RAISES_WITH_MESSAGE(
      "Cannot diff lakehouse.db.people by key column 'score': it is not a column of both "
      "snapshot " +
          std::to_string(s1) + " and snapshot " + std::to_string(s2),
      Diff(s1, s2, {"score"}));
  ASSERT_RAISES_WITH_MESSAGE("Cannot find snapshot with ID 42 in table lakehouse.db.people",
                             Diff(s1, 42));
}

// Many rows, a budget far below them: the diff spills, splits partitions again, and finds
// exactly what the in-memory one finds.
TEST_F(SnapshotDiffTest, SpillsAndSplitsWithinASmallBudget) {
  ASSERT_OK_AND_ASSIGN(int64_t s1, table::AppendData(*table_, *People(0, 60000)));
  std::vector<std::pair<int64_t, std::string>> next;
  for (int64_t i = 0; i < 60000; ++i) {
    if (i % 100 == 7) continue;                                                      // 600 removed
    next.emplace_back(i, i % 100 == 3 ? "changed" : "person-" + std::to_string(i));  // 600 changed
  }
  for (int64_t i = 60000; i < 60050; ++i) next.emplace_back(i, "new");  // 50 added
  ASSERT_OK_AND_ASSIGN(int64_t s2,
                       table::OverwriteData(*table_, *Rows(next), table::OverwriteFilter::All()));

  ASSERT_OK_AND_ASSIGN(auto big, Diff(s1, s2, {"id"}));
  EXPECT_EQ(big.spilled_bytes, 0);
  EXPECT_EQ(big.partitions, 1);
  ASSERT_OK_AND_ASSIGN(auto small, Diff(s1, s2, {"id"}, 1 << 20));
  EXPECT_GT(small.spilled_bytes, 0);
  EXPECT_GT(small.partitions, 2);
  for (const auto* d : {&big, &small}) {
    EXPECT_EQ(d->added, 50);
    EXPECT_EQ(d->removed, 600);
    EXPECT_EQ(d->changed, 600);
  }
  EXPECT_EQ(Text(small.added_sample), Text(big.added_sample));
  EXPECT_EQ(Text(small.changed_before), Text(big.changed_before));
  EXPECT_EQ(Text(small.changed_after), Text(big.changed_after));
  EXPECT_EQ(small.added_sample->num_rows(), 10);

  ASSERT_OK_AND_ASSIGN(auto rows, Diff(s1, s2, {}, 1 << 20));
  EXPECT_EQ(rows.added, 650);
  EXPECT_EQ(rows.removed, 1200);

  // Rows far wider than the first ones read: the partitions chosen from those outgrow the
  // budget and are split again.
  std::vector<std::pair<int64_t, std::string>> wide;
  for (int64_t i = 0; i < 20000; ++i)
    wide.emplace_back(i, std::string(200, static_cast<char>('a' + i % 26)));
  ASSERT_OK_AND_ASSIGN(int64_t s3,
                       table::OverwriteData(*table_, *Rows(wide), table::OverwriteFilter::All()));
  ASSERT_OK_AND_ASSIGN(auto split, Diff(s2, s3, {"id"}, 1 << 20));
  EXPECT_GT(split.partitions_split, 0);
  // Ids 0..19999 but those s2 removed (200) are changed; those come back; the other s2 rows go.
  EXPECT_EQ(split.changed, 19800);
  EXPECT_EQ(split.added, 200);
  EXPECT_EQ(split.removed, 59450 - 19800);
  // Spill files are gone afterwards.
  EXPECT_TRUE(std::filesystem::is_empty(spill_.path()));
}

}  // namespace
}  // namespace floe::scan
