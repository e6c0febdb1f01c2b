#include "floe/cli/statement_error.h"

#include <cctype>
#include <string>

namespace floe::cli {

Status WithoutSqlPosition(const Status& status) {
  if (status.ok()) return status;
  std::string message = status.message();
  message = message.substr(0, message.find('\n'));
  // " (line 1, column 29)" at the end.
  size_t open = message.rfind(" (line ");
  if (open != std::string::npos && !message.empty() && message.back() == ')') {
    const std::string tail = message.substr(open + 7, message.size() - open - 8);
    size_t comma = tail.find(", column ");
    auto digits = [](const std::string& s) {
      if (s.empty()) return false;
      for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      }
      return true;
    };
    if (comma != std::string::npos && digits(tail.substr(0, comma)) &&
        digits(tail.substr(comma + 9))) {
      message.erase(open);
    }
  }
  return Status(status.code(), message, status.detail());
}

}  // namespace floe::cli
