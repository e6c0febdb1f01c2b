#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/api.h>

#include "floe/sql/session.h"
#include "floe_test.h"

namespace floe::sql::testing {

// A session over a fresh catalog and warehouse, with helpers that render rows as
// "a|b|c" lines for exact comparisons.
class SessionFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    SessionOptions options;
    options.catalog_uri = dir_.str() + "/catalog.db";
    options.warehouse = dir_.str() + "/warehouse";
    ASSERT_OK_AND_ASSIGN(session_, Session::Make(options));
  }

  static std::vector<std::string> Lines(const arrow::Table& rows) {
    auto table = rows.CombineChunks().ValueOrDie();
    std::vector<std::string> out;
    for (int64_t r = 0; r < table->num_rows(); ++r) {
      std::string line;
      for (int c = 0; c < table->num_columns(); ++c) {
        auto scalar = table->column(c)->GetScalar(r).ValueOrDie();
        line += (c ? "|" : "") + (scalar->is_valid ? scalar->ToString() : std::string("NULL"));
      }
      out.push_back(line);
    }
    return out;
  }

  std::vector<std::string> Rows(const std::string& sql) {
    auto result = session_->Execute(sql);
    EXPECT_TRUE(result.ok()) << sql << "\n" << result.status().ToString();
    if (!result.ok() || !result->rows) return {};
    return Lines(*result->rows);
  }

  // The single value a query returns.
  std::string Value(const std::string& sql) {
    auto rows = Rows(sql);
    EXPECT_EQ(rows.size(), 1u) << sql;
    return rows.empty() ? "" : rows[0];
  }

  void Ok(const std::string& sql) {
    auto result = session_->Execute(sql);
    ASSERT_TRUE(result.ok()) << sql << "\n" << result.status().ToString();
  }

  std::string Error(const std::string& sql) {
    auto result = session_->Execute(sql);
    EXPECT_FALSE(result.ok()) << sql << " succeeded";
    return result.ok() ? "" : result.status().message();
  }

  floe::testing::TempDir dir_;
  std::unique_ptr<Session> session_;
};

}  // namespace floe::sql::testing
