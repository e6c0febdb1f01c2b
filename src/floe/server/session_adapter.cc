#include "floe/server/session_adapter.h"

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include <cctype>
#include <regex>

namespace floe::server {

namespace {

std::vector<std::string> Words(const std::string& sql, size_t n) {
  std::vector<std::string> words;
  size_t i = 0;
  while (words.size() < n && i < sql.size()) {
    while (i < sql.size() && !std::isalpha(static_cast<unsigned char>(sql[i]))) {
      if (sql[i] == '(' && words.empty()) {
        ++i;
        continue;
      }
      if (!std::isspace(static_cast<unsigned char>(sql[i])) && sql[i] != '(') return words;
      ++i;
    }
    std::string word;
    while (i < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[i])) || sql[i] == '_')) {
      word.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i]))));
      ++i;
    }
    if (word.empty()) break;
    words.push_back(word);
  }
  return words;
}

// The count in a DML message ("Inserted 3 rows into ..."), or -1.
int64_t CountIn(const std::string& message) {
  static const std::regex kCount(R"((\d+) rows?)");
  std::smatch match;
  if (std::regex_search(message, match, kCount)) return std::stoll(match[1].str());
  return -1;
}

// Today's sql::Session runs a statement to completion: the stream walks its table.
class TableStream : public StatementStream {
 public:
  TableStream(sql::StatementResult result, std::string command)
      : result_(std::move(result)), command_(std::move(command)) {
    if (result_.rows) reader_ = std::make_unique<arrow::TableBatchReader>(*result_.rows);
  }
  std::shared_ptr<arrow::Schema> schema() const override {
    return result_.rows ? result_.rows->schema() : nullptr;
  }
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (!reader_) return nullptr;
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader_->ReadNext(&batch));
    return batch;
  }
  std::string command() const override { return command_; }
  int64_t rows_affected() const override {
    if (result_.rows) return result_.rows->num_rows();
    return CountIn(result_.message);
  }
  std::string message() const override { return result_.message; }

 private:
  sql::StatementResult result_;
  std::string command_;
  std::unique_ptr<arrow::TableBatchReader> reader_;
};

}  // namespace

std::string CommandOf(const std::string& sql) {
  std::vector<std::string> w = Words(sql, 3);
  if (w.empty()) return "";
  const std::string& first = w[0];
  if (first == "WITH" || first == "VALUES" || first == "TABLE" || first == "FROM") return "SELECT";
  if ((first == "CREATE" || first == "DROP" || first == "ALTER") && w.size() >= 2) {
    std::string object = w[1];
    if (object == "OR" && w.size() >= 3) object = "TABLE";  // CREATE OR REPLACE TABLE
    if (object == "SCHEMA" || object == "DATABASE") object = "NAMESPACE";
    return first + " " + object;
  }
  if (first == "REPLACE" && w.size() >= 2) return "CREATE TABLE";
  return first;
}

SessionAdapter::SessionAdapter(std::unique_ptr<sql::Session> session)
    : session_(std::move(session)) {}

Result<StatementShape> SessionAdapter::Describe(const std::string& sql,
                                                const std::vector<Parameter>& params) {
  if (!params.empty()) return Status::NotImplemented("statement parameters are not supported yet");
  StatementShape shape;
  // Without a planner entry point that only describes, a read is run to learn its columns.
  std::string command = CommandOf(sql);
  if (command == "SELECT" || command == "SHOW" || command == "DESCRIBE" || command == "EXPLAIN") {
    ARROW_ASSIGN_OR_RAISE(sql::StatementResult result, session_->Execute(sql));
    shape.returns_rows = result.rows != nullptr;
    if (result.rows) shape.schema = result.rows->schema();
  }
  return shape;
}

Result<std::unique_ptr<StatementStream>> SessionAdapter::ExecuteStreaming(
    const std::string& sql, const std::vector<Parameter>& params) {
  if (!params.empty()) return Status::NotImplemented("statement parameters are not supported yet");
  ARROW_ASSIGN_OR_RAISE(sql::StatementResult result, session_->Execute(sql));
  std::string command = CommandOf(sql);
  return std::make_unique<TableStream>(std::move(result), std::move(command));
}

void SessionAdapter::Cancel() {}

}  // namespace floe::server
