#include "floe/cli/line_editor.h"

#include <cstdio>
#include <cstdlib>

#include <editline/readline.h>

namespace floe::cli {

namespace {
constexpr int kHistoryLength = 1000;
}

EditLineReader::EditLineReader(std::string history_path) : history_path_(std::move(history_path)) {
  using_history();
  stifle_history(kHistoryLength);
  if (!history_path_.empty()) read_history(history_path_.c_str());  // missing file: no history yet
}

EditLineReader::~EditLineReader() = default;

std::optional<std::string> EditLineReader::ReadLine(const std::string& prompt) {
  char* line = readline(prompt.c_str());
  if (line == nullptr) return std::nullopt;
  std::string text(line);
  std::free(line);
  return text;
}

void EditLineReader::AddHistory(const std::string& entry) {
  add_history(entry.c_str());
  if (!history_path_.empty()) write_history(history_path_.c_str());
}

std::string EditLineReader::DefaultHistoryPath() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return {};
  return std::string(home) + "/.floe_history";
}

}  // namespace floe::cli
