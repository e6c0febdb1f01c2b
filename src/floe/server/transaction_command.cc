#include "floe/server/transaction_command.h"

#include <cctype>
#include <vector>

#include "floe/server/session_adapter.h"

namespace floe::server {

namespace {

constexpr char kNotInBlock[] = " can only be used in transaction blocks";
constexpr char kNoSuchSavepoint[] = "\" does not exist";

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// The words and the final name of a statement's text: unquoted words in upper case (the name
// in lower case, as PostgreSQL folds it), a quoted one as written.
struct Words {
  std::vector<std::string> upper;
  std::vector<std::string> as_name;
};

Words Split(const std::string& sql) {
  Words out;
  size_t i = 0;
  while (i < sql.size()) {
    char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ';') {
      ++i;
    } else if (c == '"') {
      std::string name;
      for (++i; i < sql.size(); ++i) {
        if (sql[i] == '"' && i + 1 < sql.size() && sql[i + 1] == '"') {
          name.push_back('"');
          ++i;
        } else if (sql[i] == '"') {
          ++i;
          break;
        } else {
          name.push_back(sql[i]);
        }
      }
      out.upper.push_back("\"");
      out.as_name.push_back(name);
    } else if (IsWordChar(c)) {
      std::string upper;
      std::string lower;
      for (; i < sql.size() && IsWordChar(sql[i]); ++i) {
        upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i]))));
        lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i]))));
      }
      out.upper.push_back(upper);
      out.as_name.push_back(lower);
    } else {
      out.upper.push_back(std::string(1, c));
      out.as_name.push_back(std::string(1, c));
      ++i;
    }
  }
  return out;
}

// `words` from `at` are one name and nothing else.
bool NameAt(const Words& w, size_t at, std::string* name) {
  if (at + 1 != w.upper.size()) return false;
  const std::string& u = w.upper[at];
  if (u != "\"" && !(std::isalpha(static_cast<unsigned char>(u[0])) || u[0] == '_')) return false;
  *name = w.as_name[at];
  return true;
}

}  // namespace

TransactionStatement ParseTransactionStatement(const std::string& sql) {
  TransactionStatement out;
  std::string command = CommandOf(sql);
  if (command == "BEGIN" || command == "START") {
    out.command = TransactionCommand::kBegin;
  } else if (command == "COMMIT" || command == "END") {
    out.command = TransactionCommand::kCommit;
  } else if (command == "ROLLBACK" || command == "ABORT") {
    out.command = TransactionCommand::kRollback;
    Words w = Split(sql);
    size_t at = 1;
    if (command == "ROLLBACK" && at < w.upper.size() && (w.upper[at] == "WORK" || w.upper[at] == "TRANSACTION")) ++at;
    if (command == "ROLLBACK" && at < w.upper.size() && w.upper[at] == "TO") {
      ++at;
      if (at < w.upper.size() && w.upper[at] == "SAVEPOINT" && at + 1 < w.upper.size()) ++at;
      out.command = TransactionCommand::kRollbackTo;
      if (!NameAt(w, at, &out.savepoint)) out.command = TransactionCommand::kNone;
    }
  } else if (command == "SAVEPOINT") {
    Words w = Split(sql);
    out.command = NameAt(w, 1, &out.savepoint) ? TransactionCommand::kSavepoint : TransactionCommand::kNone;
  } else if (command == "RELEASE") {
    Words w = Split(sql);
    size_t at = (w.upper.size() > 2 && w.upper[1] == "SAVEPOINT") ? 2 : 1;
    out.command = NameAt(w, at, &out.savepoint) ? TransactionCommand::kRelease : TransactionCommand::kNone;
  }
  return out;
}

const char* SavepointErrorCode(const std::string& message) {
  auto ends_with = [&](const char* tail) {
    std::string t(tail);
    return message.size() >= t.size() && message.compare(message.size() - t.size(), t.size(), t) == 0;
  };
  if (ends_with(kNotInBlock)) return "25P01";
  if (message.rfind("savepoint \"", 0) == 0 && ends_with(kNoSuchSavepoint)) return "3B001";
  return nullptr;
}

std::string NotInBlockMessage(const std::string& command) { return command + kNotInBlock; }

std::string NoSuchSavepointMessage(const std::string& name) {
  return "savepoint \"" + name + kNoSuchSavepoint;
}

}  // namespace floe::server
