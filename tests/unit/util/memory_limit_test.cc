#include "floe/util/memory_limit.h"

#include <arrow/buffer.h>
#include <gtest/gtest.h>

namespace floe {
namespace {

// Restores the process's limits a test changes.
class ProcessLimits {
 public:
  ProcessLimits()
      : limit_(MemoryBudget::Process().limit()), session_default_(MemoryBudget::Process().session_default()) {}
  ~ProcessLimits() {
    MemoryBudget::Process().set_limit(limit_);
    MemoryBudget::Process().set_session_default(session_default_);
  }

 private:
  int64_t limit_;
  int64_t session_default_;
};

TEST(MemoryLimit, FormatsSizesInBinaryUnits) {
  EXPECT_EQ(FormatMemorySize(512), "512 bytes");
  EXPECT_EQ(FormatMemorySize(int64_t{4} << 30), "4.0 GiB");
  EXPECT_EQ(FormatMemorySize(int64_t{256} << 20), "256.0 MiB");
  EXPECT_EQ(FormatMemorySize(int64_t{1536}), "1.5 KiB");
}

TEST(MemoryLimit, DefaultIsMostOfTheMachine) {
  EXPECT_GT(DefaultMemoryLimit(), int64_t{64} << 20);
  EXPECT_GT(MemoryBudget::Process().limit(), 0);
}

TEST(MemoryLimit, SessionLimitFailsTheAllocationThatCrossesIt) {
  ProcessLimits restore;
  auto pool = SessionMemoryPool::Make(int64_t{1} << 20);
  auto small = arrow::AllocateBuffer(int64_t{512} << 10, pool.get());
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(pool->bytes_allocated(), int64_t{512} << 10);
  auto big = arrow::AllocateBuffer(int64_t{600} << 10, pool.get());
  ASSERT_TRUE(big.status().IsOutOfMemory());
  EXPECT_EQ(big.status().message(),
            "Out of memory: the query needs more than the 1.0 MiB memory limit (floe.memory_limit); raise it "
            "with SET floe.memory_limit or make the query hold less at once");
  // The failed allocation took nothing.
  EXPECT_EQ(pool->bytes_allocated(), int64_t{512} << 10);
  small->reset();
  EXPECT_EQ(pool->bytes_allocated(), 0);
  EXPECT_TRUE(arrow::AllocateBuffer(int64_t{600} << 10, pool.get()).ok());
}

TEST(MemoryLimit, ProcessLimitIsSharedByEverySession) {
  ProcessLimits restore;
  const int64_t before = MemoryBudget::Process().used();
  MemoryBudget::Process().set_limit(before + (int64_t{4} << 20));
  auto a = SessionMemoryPool::Make();
  auto b = SessionMemoryPool::Make();
  auto held = arrow::AllocateBuffer(int64_t{3} << 20, a.get());
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(MemoryBudget::Process().used(), before + (int64_t{3} << 20));
  auto other = arrow::AllocateBuffer(int64_t{2} << 20, b.get());
  ASSERT_TRUE(other.status().IsOutOfMemory());
  EXPECT_EQ(other.status().message(),
            "Out of memory: the query needs more than it may have of the 4.0 MiB memory limit (--memory-limit of "
            "this floe process): other statements hold 3.0 MiB of it; this statement stopped, the others go on");
  held->reset();
  EXPECT_EQ(MemoryBudget::Process().used(), before);
  EXPECT_TRUE(arrow::AllocateBuffer(int64_t{2} << 20, b.get()).ok());
}

TEST(MemoryLimit, SessionDefaultLeavesRoomForOthers) {
  ProcessLimits restore;
  MemoryBudget::Process().set_limit(MemoryBudget::Process().used() + (int64_t{10} << 20));
  MemoryBudget::Process().set_session_default(int64_t{8} << 20);
  auto pool = SessionMemoryPool::Make();
  auto big = arrow::AllocateBuffer(int64_t{9} << 20, pool.get());
  ASSERT_TRUE(big.status().IsOutOfMemory());
  EXPECT_EQ(big.status().message(),
            "Out of memory: the query needs more than 8.0 MiB, the most one session may hold of this server's "
            "10.0 MiB memory limit (--memory-limit); a session may set its own with SET floe.memory_limit");
  pool->set_limit(int64_t{9} << 20);
  EXPECT_TRUE(arrow::AllocateBuffer(int64_t{9} << 20, pool.get()).ok());
}

TEST(MemoryLimit, GrowingABufferCountsOnlyTheGrowth) {
  ProcessLimits restore;
  auto pool = SessionMemoryPool::Make(int64_t{1} << 20);
  auto buffer = arrow::AllocateResizableBuffer(int64_t{256} << 10, pool.get());
  ASSERT_TRUE(buffer.ok());
  ASSERT_TRUE((*buffer)->Resize(int64_t{768} << 10).ok());
  EXPECT_EQ(pool->bytes_allocated(), int64_t{768} << 10);
  EXPECT_TRUE((*buffer)->Resize(int64_t{2} << 20).IsOutOfMemory());
  EXPECT_EQ(pool->bytes_allocated(), int64_t{768} << 10);
  ASSERT_TRUE((*buffer)->Resize(int64_t{128} << 10, /*shrink_to_fit=*/true).ok());
  EXPECT_EQ(pool->bytes_allocated(), int64_t{128} << 10);
}

TEST(MemoryLimit, APoolOutlivesItsSessionWhileItsBuffersLive) {
  ProcessLimits restore;
  std::shared_ptr<arrow::Buffer> kept;
  {
    auto pool = SessionMemoryPool::Make();
    auto buffer = arrow::AllocateBuffer(4096, pool.get());
    ASSERT_TRUE(buffer.ok());
    kept = std::move(*buffer);
  }
  // The session is gone; freeing its result still reaches a live pool (ASan would tell).
  kept.reset();
}

TEST(MemoryLimit, StatementPoolIsScopedToTheThread) {
  auto pool = SessionMemoryPool::Make();
  EXPECT_EQ(StatementMemoryPool(), arrow::default_memory_pool());
  {
    ScopedStatementMemoryPool scope(pool.get());
    EXPECT_EQ(StatementMemoryPool(), pool.get());
  }
  EXPECT_EQ(StatementMemoryPool(), arrow::default_memory_pool());
}

}  // namespace
}  // namespace floe
