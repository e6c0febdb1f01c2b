// GuardedMain: whatever a command throws becomes an `Error:` line and the failure status.

#include <sstream>
#include <stdexcept>

#include "floe/cli/guarded_main.h"
#include "floe_test.h"

namespace floe::cli {
namespace {

// Captures std::cerr for the test's lifetime.
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(buffer_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  std::string text() const { return buffer_.str(); }

 private:
  std::ostringstream buffer_;
  std::streambuf* old_;
};

TEST(GuardedMainTest, PassesTheStatusThrough) {
  CerrCapture err;
  EXPECT_EQ(GuardedMain([] { return 0; }, 1), 0);
  EXPECT_EQ(GuardedMain([] { return 2; }, 1), 2);
  EXPECT_EQ(err.text(), "");
}

TEST(GuardedMainTest, ExceptionsBecomeAnErrorLine) {
  CerrCapture err;
  EXPECT_EQ(GuardedMain([]() -> int { throw std::runtime_error("catalog file vanished"); }, 1), 1);
  EXPECT_EQ(GuardedMain([]() -> int { throw std::bad_alloc(); }, 1), 1);
  EXPECT_EQ(GuardedMain([]() -> int { throw 42; }, 1), 1);
  EXPECT_EQ(err.text(),
            "Error: catalog file vanished\nError: std::bad_alloc\nError: unknown exception\n");
}

}  // namespace
}  // namespace floe::cli
