#include "floe/server/session_adapter.h"

#include <cctype>

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
  return session_->Describe(sql, params);
}

Result<std::unique_ptr<StatementStream>> SessionAdapter::ExecuteStreaming(
    const std::string& sql, const std::vector<Parameter>& params) {
  return session_->ExecuteStreaming(sql, params);
}

void SessionAdapter::Cancel() { session_->Cancel(); }

}  // namespace floe::server
