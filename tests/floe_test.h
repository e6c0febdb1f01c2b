#pragma once

// Test helpers in the style of Arrow's testing macros.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "floe/util/status.h"

#define FLOE_CONCAT_INNER(a, b) a##b
#define FLOE_CONCAT(a, b) FLOE_CONCAT_INNER(a, b)

#define ASSERT_OK(expr)                                              \
  do {                                                               \
    ::arrow::Status _st = ::arrow::ToStatus(expr);  \
    ASSERT_TRUE(_st.ok()) << "'" #expr "' failed: " << _st.ToString(); \
  } while (false)

#define EXPECT_OK(expr)                                              \
  do {                                                               \
    ::arrow::Status _st = ::arrow::ToStatus(expr);  \
    EXPECT_TRUE(_st.ok()) << "'" #expr "' failed: " << _st.ToString(); \
  } while (false)

#define ASSERT_OK_AND_ASSIGN_IMPL(result_name, lhs, rexpr)                         \
  auto result_name = (rexpr);                                                      \
  ASSERT_TRUE(result_name.ok()) << "'" #rexpr "' failed: " << result_name.status().ToString(); \
  lhs = std::move(result_name).ValueUnsafe();

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ASSERT_OK_AND_ASSIGN_IMPL(FLOE_CONCAT(_result_, __COUNTER__), lhs, rexpr)

// Asserts that expr fails and that its message contains `substring`.
#define ASSERT_RAISES_WITH_MESSAGE(substring, expr)                          \
  do {                                                                       \
    ::arrow::Status _st = ::arrow::ToStatus(expr);          \
    ASSERT_FALSE(_st.ok()) << "'" #expr "' succeeded, expected an error";    \
    ASSERT_THAT(_st.message(), ::testing::HasSubstr(substring));             \
  } while (false)

namespace floe::testing {

// A whole file's bytes, and a file replaced by bytes: for tests that damage table files.
inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// A fresh directory under the system temp dir, removed when the test ends.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "floe-test-XXXXXX").string();
  char* made = ::mkdtemp(tmpl.data());
  path_ = made ? std::filesystem::path(made) : std::filesystem::path(tmpl);
}

inline TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace floe::testing
