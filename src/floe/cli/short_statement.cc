#include "floe/cli/short_statement.h"

namespace floe::cli {

std::string ShortStatement(const std::string& statement) {
  std::string line;
  for (char c : statement) {
    const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  size_t chars = 0, cut = std::string::npos;
  for (size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (chars == kStatementWidth - 3) cut = i;
    if (++chars > kStatementWidth) return line.substr(0, cut) + "...";
  }
  return line;
}

}  // namespace floe::cli
