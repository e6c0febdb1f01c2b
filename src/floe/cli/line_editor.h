#pragma once

// The interactive shell's line editing and history, through libedit's readline interface.

#include <memory>
#include <optional>
#include <string>

#include "floe/cli/shell.h"

namespace floe::cli {

class EditLineReader : public LineReader {
 public:
  // Loads `history_path` (empty: no history file) and saves to it after every statement.
  explicit EditLineReader(std::string history_path);
  ~EditLineReader() override;

  std::optional<std::string> ReadLine(const std::string& prompt) override;
  void AddHistory(const std::string& entry) override;

  // ~/.floe_history, or empty when HOME is not set.
  static std::string DefaultHistoryPath();

 private:
  std::string history_path_;
};

}  // namespace floe::cli
