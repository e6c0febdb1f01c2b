#pragma once

// The server's view of a sql::Session: statements run with parameters, streamed batch by
// batch, described before they run, and cancelled from another thread.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server {

struct Parameter {
  std::shared_ptr<arrow::Scalar> value;
  bool untyped = false;  // a StringScalar holding the text, bound like a string literal
};

struct StatementShape {
  bool returns_rows = false;
  std::shared_ptr<arrow::Schema> schema;
  int parameter_count = 0;
  std::vector<std::shared_ptr<arrow::DataType>> parameter_types;  // null: unknown
};

class StatementStream {
 public:
  virtual ~StatementStream() = default;
  virtual std::shared_ptr<arrow::Schema> schema() const = 0;       // null: no rows
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;  // null at the end
  virtual std::string command() const = 0;    // "SELECT", "INSERT", "CREATE TABLE", ...
  virtual int64_t rows_affected() const = 0;  // -1: no count
  virtual std::string message() const = 0;
};

class SessionAdapter {
 public:
  explicit SessionAdapter(std::unique_ptr<sql::Session> session);

  Result<StatementShape> Describe(const std::string& sql, const std::vector<Parameter>& params);
  Result<std::unique_ptr<StatementStream>> ExecuteStreaming(const std::string& sql,
                                                            const std::vector<Parameter>& params);
  // Thread-safe: the running statement fails with Status::Cancelled.
  void Cancel();

  sql::Session& session() { return *session_; }

 private:
  std::unique_ptr<sql::Session> session_;
};

// The command word of a statement's text ("SELECT", "INSERT", "CREATE TABLE", ...).
std::string CommandOf(const std::string& sql);

}  // namespace floe::server
