#include <filesystem>
#include <random>

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/sql/execute/statement_cancel.h"
#include "floe/sql/plan/flow_gate.h"
#include "floe/sql/plan/spill/external_sort.h"
#include "floe/sql/plan/spill/partitioned_aggregate.h"
#include "floe/sql/plan/spill/partitioned_join.h"
#include "floe_test.h"

namespace floe::sql {
namespace {

namespace ac = arrow::acero;
namespace cp = arrow::compute;

class SpillTest : public ::testing::Test {
 protected:
  // Operators that may hold `memory` bytes, spilling under a directory of the test's.
  SpillEnv Env(int64_t memory) {
    SpillEnv env;
    env.pool = arrow::default_memory_pool();
    env.memory = memory;
    env.cancel = cancel_;
    space_ = std::make_shared<SpillSpace>(dir_.str());
    env.space = space_;
    return env;
  }

  static ac::Declaration Source(const std::shared_ptr<arrow::Table>& table) {
    return ac::Declaration("table_source", ac::TableSourceNodeOptions(table));
  }

  static std::shared_ptr<arrow::Table> Run(const ac::Declaration& decl) {
    ac::QueryOptions options;
    auto table = ac::DeclarationToTable(decl, options).ValueOrDie();
    return table->CombineChunks().ValueOrDie();
  }

  // `table` ordered by all its columns, to compare row sets.
  static std::shared_ptr<arrow::Table> Canonical(const std::shared_ptr<arrow::Table>& table) {
    std::vector<cp::SortKey> keys;
    for (const auto& f : table->schema()->fields()) keys.emplace_back(f->name());
    auto indices = cp::SortIndices(arrow::Datum(table), cp::SortOptions(keys)).ValueOrDie();
    return cp::Take(table, indices).ValueOrDie().table()->CombineChunks().ValueOrDie();
  }

  // `table` aggregated under `memory` without a spill file, as Acero's aggregate alone does it.
  void ExpectAggregatedInMemory(const std::shared_ptr<arrow::Table>& table, int64_t memory);

  // No spill directory is left under the test's root.
  bool NothingLeft() const {
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      (void)entry;
      return false;
    }
    return true;
  }

  floe::testing::TempDir dir_;
  std::shared_ptr<SpillSpace> space_;
  std::shared_ptr<std::atomic<bool>> cancel_ = std::make_shared<std::atomic<bool>>(false);
};

// Same rows in the same order (NaN equal to NaN).
bool Same(const arrow::Table& a, const arrow::Table& b) {
  if (!a.schema()->Equals(*b.schema()) || a.num_rows() != b.num_rows()) return false;
  for (int c = 0; c < a.num_columns(); ++c) {
    if (!a.column(c)->Equals(*b.column(c), arrow::EqualOptions::Defaults().nans_equal(true))) return false;
  }
  return true;
}

// k: int64 with repeats and NULLs, s: strings, d: doubles with NaN and NULL, n: row number.
std::shared_ptr<arrow::Table> Rows(int64_t n, int64_t distinct, uint32_t seed) {
  std::mt19937_64 random(seed);
  arrow::Int64Builder k, row;
  arrow::StringBuilder s;
  arrow::DoubleBuilder d;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = static_cast<int64_t>(random() % static_cast<uint64_t>(distinct));
    (v % 97 == 0) ? (void)k.AppendNull() : (void)k.Append(v - distinct / 2);
    (void)s.Append("s" + std::to_string(v % 1000));
    if (v % 89 == 0) {
      (void)d.AppendNull();
    } else if (v % 83 == 0) {
      (void)d.Append(std::nan(""));
    } else {
      (void)d.Append(static_cast<double>(v % 5000) / 7);
    }
    (void)row.Append(i);
  }
  auto schema = arrow::schema({arrow::field("k", arrow::int64()), arrow::field("s", arrow::utf8()),
                               arrow::field("d", arrow::float64()), arrow::field("n", arrow::int64())});
  return arrow::Table::Make(schema, {k.Finish().ValueOrDie(), s.Finish().ValueOrDie(), d.Finish().ValueOrDie(),
                                     row.Finish().ValueOrDie()});
}

TEST_F(SpillTest, SortWritesRunsAndMergesThemInOrder) {
  auto table = Rows(400000, 100000, 1);
  for (auto placement : {cp::NullPlacement::AtEnd, cp::NullPlacement::AtStart}) {
    cp::Ordering ordering({cp::SortKey("d", cp::SortOrder::Descending), cp::SortKey("k"), cp::SortKey("n")},
                          placement);
    ASSERT_OK_AND_ASSIGN(auto decl, SortWithSpill(Source(table), ordering, Env(6 << 20)));
    auto sorted = Run(decl);
    // Runs of a quarter of 6 MB each were written and merged.
    EXPECT_GE(space_->files_made(), 4);
    auto expected_indices = cp::SortIndices(arrow::Datum(table), cp::SortOptions(ordering.sort_keys(), placement))
                                .ValueOrDie();
    auto expected = cp::Take(table, expected_indices).ValueOrDie().table()->CombineChunks().ValueOrDie();
    ASSERT_TRUE(Same(*sorted, *expected)) << "placement " << static_cast<int>(placement);
    space_.reset();
    EXPECT_TRUE(NothingLeft());
  }
}

TEST_F(SpillTest, SortThatFitsStaysInMemory) {
  auto table = Rows(20000, 1000, 2);
  cp::Ordering ordering({cp::SortKey("s"), cp::SortKey("n", cp::SortOrder::Descending)});
  ASSERT_OK_AND_ASSIGN(auto decl, SortWithSpill(Source(table), ordering, Env(int64_t{1} << 30)));
  auto sorted = Run(decl);
  EXPECT_EQ(space_->files_made(), 0);
  auto indices = cp::SortIndices(arrow::Datum(table), cp::SortOptions(ordering.sort_keys())).ValueOrDie();
  EXPECT_TRUE(Same(*sorted, *cp::Take(table, indices).ValueOrDie().table()->CombineChunks().ValueOrDie()));
}

ac::AggregateNodeOptions CountAndSum() {
  return ac::AggregateNodeOptions({{"hash_count_all", nullptr, std::vector<arrow::FieldRef>{}, "c"},
                                   {"hash_sum", nullptr, arrow::FieldRef("n"), "total"},
                                   {"hash_max", nullptr, arrow::FieldRef("d"), "top"}},
                                  {arrow::FieldRef("k"), arrow::FieldRef("s")});
}

TEST_F(SpillTest, AggregateOfManyGroupsPartitionsItsInput) {
  auto table = Rows(600000, 400000, 3);
  ASSERT_OK_AND_ASSIGN(auto decl, AggregateWithSpill(Source(table), CountAndSum(), Env(16 << 20)));
  auto grouped = Run(decl);
  EXPECT_GE(space_->files_made(), 32);
  auto expected = Run(ac::Declaration::Sequence({Source(table), {"aggregate", CountAndSum()}}));
  ASSERT_EQ(grouped->num_rows(), expected->num_rows());
  EXPECT_TRUE(Same(*Canonical(grouped), *Canonical(expected)));
  space_.reset();
  EXPECT_TRUE(NothingLeft());
}

void SpillTest::ExpectAggregatedInMemory(const std::shared_ptr<arrow::Table>& table, int64_t memory) {
  ASSERT_OK_AND_ASSIGN(auto decl, AggregateWithSpill(Source(table), CountAndSum(), Env(memory)));
  auto grouped = Run(decl);
  EXPECT_EQ(space_->files_made(), 0);
  auto expected = Run(ac::Declaration::Sequence({Source(table), {"aggregate", CountAndSum()}}));
  EXPECT_TRUE(Same(*Canonical(grouped), *Canonical(expected)));
}

TEST_F(SpillTest, AggregateOfFewGroupsStreamsWithoutSpilling) {
  ExpectAggregatedInMemory(Rows(600000, 50, 4), 16 << 20);
}

TEST_F(SpillTest, AggregateOfManyGroupsThatFitsStaysInMemory) {
  // More than the 4 MB first look, with few repeats, but within a sixteenth of 1 GiB: held
  // on and aggregated in memory.
  ExpectAggregatedInMemory(Rows(600000, 400000, 7), int64_t{1} << 30);
}

TEST_F(SpillTest, AggregateOfFewGroupsStreamsAfterItsFirstLook) {
  // Past the first look the groups repeat: the rows held and the rest stream into one aggregate.
  ExpectAggregatedInMemory(Rows(600000, 50, 8), int64_t{1} << 30);
}

TEST_F(SpillTest, JoinsOfEveryKindMatchTheInMemoryJoin) {
  auto left = Rows(300000, 200000, 5);
  auto right = Rows(250000, 200000, 6)->RenameColumns({"k2", "s2", "d2", "n2"}).ValueOrDie();
  for (auto type : {ac::JoinType::INNER, ac::JoinType::LEFT_OUTER, ac::JoinType::RIGHT_OUTER,
                    ac::JoinType::FULL_OUTER, ac::JoinType::LEFT_SEMI, ac::JoinType::LEFT_ANTI}) {
    const bool semi = type == ac::JoinType::LEFT_SEMI || type == ac::JoinType::LEFT_ANTI;
    std::vector<arrow::FieldRef> right_out;
    if (!semi) right_out = {arrow::FieldRef("n2"), arrow::FieldRef("k2")};
    ac::HashJoinNodeOptions options(type, {arrow::FieldRef("k")}, {arrow::FieldRef("k2")},
                                    {arrow::FieldRef("n"), arrow::FieldRef("k")}, right_out,
                                    {ac::JoinKeyCmp::IS});
    ASSERT_OK_AND_ASSIGN(auto decl, HashJoinWithSpill(Source(left), Source(right), options, Env(16 << 20)));
    auto joined = Run(decl);
    EXPECT_GE(space_->files_made(), 64);
    auto expected = Run(ac::Declaration("hashjoin", {Source(left), Source(right)}, options));
    ASSERT_EQ(joined->num_rows(), expected->num_rows()) << static_cast<int>(type);
    EXPECT_TRUE(Same(*Canonical(joined), *Canonical(expected))) << static_cast<int>(type);
    space_.reset();
    EXPECT_TRUE(NothingLeft());
  }
}

TEST_F(SpillTest, ACancelStopsTheOperator) {
  auto table = Rows(400000, 100000, 7);
  ASSERT_OK_AND_ASSIGN(auto decl, SortWithSpill(Source(table), cp::Ordering({cp::SortKey("k")}), Env(8 << 20)));
  cancel_->store(true);
  ac::QueryOptions options;
  auto result = ac::DeclarationToTable(decl, options);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsCancelled()) << result.status().ToString();
  EXPECT_EQ(result.status().message(), kCancelledMessage);
  space_.reset();
  EXPECT_TRUE(NothingLeft());
}

// Hands out `table` in batches of 10,000 rows and sets `cancel` after `before` of them.
class CancellingReader : public arrow::RecordBatchReader {
 public:
  CancellingReader(std::shared_ptr<arrow::Table> table, int before, std::shared_ptr<std::atomic<bool>> cancel)
      : table_(std::move(table)), slicer_(*table_), before_(before), cancel_(std::move(cancel)) {
    slicer_.set_chunksize(10000);
  }
  std::shared_ptr<arrow::Schema> schema() const override { return table_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (++read_ > before_) cancel_->store(true);
    return slicer_.ReadNext(batch);
  }

 private:
  std::shared_ptr<arrow::Table> table_;
  arrow::TableBatchReader slicer_;
  int before_;
  int read_ = 0;
  std::shared_ptr<std::atomic<bool>> cancel_;
};

TEST_F(SpillTest, ACancelStopsAnAggregateWhileItSpills) {
  // Many groups under 16 MB: the input goes to spill files after 1 MB, then the cancel comes.
  auto table = Rows(600000, 400000, 9);
  auto reader = std::make_shared<CancellingReader>(table, 40, cancel_);
  ASSERT_OK_AND_ASSIGN(auto decl, AggregateWithSpill(GatedSource(reader), CountAndSum(), Env(16 << 20)));
  ac::QueryOptions options;
  auto result = ac::DeclarationToTable(decl, options);
  decl = ac::Declaration();  // the statement is over: its operators go, and their files with them
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsCancelled()) << result.status().ToString();
  EXPECT_EQ(result.status().message(), kCancelledMessage);
  EXPECT_GE(space_->files_made(), 32);
  space_.reset();
  EXPECT_TRUE(NothingLeft());
}

TEST_F(SpillTest, AnUnwritableTempDirectoryIsNamed) {
  SpillSpace space("/proc/floe-cannot-be-here");
  auto path = space.NewFile("sort");
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().message().rfind("Cannot spill to floe.temp_directory '/proc/floe-cannot-be-here': ", 0), 0u)
      << path.status().message();
}

}  // namespace
}  // namespace floe::sql
