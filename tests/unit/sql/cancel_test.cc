// Session::Cancel from another thread: a long statement stops with PostgreSQL's message and
// changes nothing, the session then runs the next statement, and a cancel with nothing running
// is forgotten.

#include <atomic>
#include <chrono>
#include <thread>

#include <arrow/api.h>

#include "session_fixture.h"

namespace floe::sql {
namespace {

class CancelTest : public testing::SessionFixture {
 protected:
  void SetUp() override {
    SessionFixture::SetUp();
    Ok("CREATE NAMESPACE db");
    Ok("CREATE TABLE db.big (id BIGINT, v BIGINT) USING iceberg");
    Ok("INSERT INTO db.big SELECT id, id % 7 FROM range(200000)");
    Ok("CREATE TABLE db.small (id BIGINT) USING iceberg");
    Ok("INSERT INTO db.small SELECT id FROM range(3000)");
  }

  // Cancels once `started` is set, after a moment, until `done`.
  static void CancelWhenStarted(Session& session, const std::atomic<bool>& started,
                                const std::atomic<bool>& done) {
    while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    while (!done.load()) {
      session.Cancel();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
};

// 600 million joined rows, filtered and counted: many seconds of work, stopped at the next
// batch the scan of db.big reads.
constexpr char kLongQuery[] =
    "SELECT count(*) FROM db.big a CROSS JOIN db.small b WHERE a.v + b.id = 100";

TEST_F(CancelTest, CancelStopsLongQuery) {
  std::atomic<bool> started{false}, done{false};
  std::thread canceller([&] { CancelWhenStarted(*session_, started, done); });
  started = true;
  auto begin = std::chrono::steady_clock::now();
  auto result = session_->Execute(kLongQuery);
  done = true;
  canceller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsCancelled()) << result.status().ToString();
  EXPECT_EQ(result.status().message(), "canceling statement due to user request");
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(30));
  // The session runs the next statement.
  EXPECT_EQ(Value("SELECT count(*) FROM db.big"), "200000");
}

TEST_F(CancelTest, CancelStopsStreamBetweenBatches) {
  ASSERT_OK_AND_ASSIGN(auto stream, session_->ExecuteStreaming("SELECT id FROM db.big"));
  ASSERT_OK_AND_ASSIGN(auto first, stream->Next());
  ASSERT_NE(first, nullptr);
  std::thread([&] { session_->Cancel(); }).join();
  auto next = stream->Next();
  ASSERT_FALSE(next.ok());
  EXPECT_TRUE(next.status().IsCancelled());
  EXPECT_EQ(next.status().message(), "canceling statement due to user request");
  stream.reset();
  EXPECT_EQ(Value("SELECT max(id) FROM db.big"), "199999");
}

TEST_F(CancelTest, CancelledInsertChangesNothing) {
  Ok("CREATE TABLE db.copy (id BIGINT, v BIGINT) USING iceberg");
  std::atomic<bool> started{false}, done{false};
  std::thread canceller([&] { CancelWhenStarted(*session_, started, done); });
  started = true;
  auto result = session_->Execute(
      "INSERT INTO db.copy SELECT a.id, b.id FROM db.big a CROSS JOIN (SELECT id FROM db.small "
      "WHERE id < 100) b");
  done = true;
  canceller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsCancelled()) << result.status().ToString();
  EXPECT_EQ(Value("SELECT count(*) FROM db.copy"), "0");
  EXPECT_EQ(Value("SELECT count(*) FROM db.copy.snapshots"), "0");
}

TEST_F(CancelTest, CancelWithNothingRunningIsHarmless) {
  session_->Cancel();
  session_->Cancel();
  EXPECT_EQ(Value("SELECT count(*) FROM db.big WHERE v = 0"), "28572");
  ASSERT_OK_AND_ASSIGN(auto stream, session_->ExecuteStreaming("SELECT id FROM db.big"));
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, stream->Next());
    if (!batch) break;
    rows += batch->num_rows();
  }
  EXPECT_EQ(rows, 200000);
}

}  // namespace
}  // namespace floe::sql
