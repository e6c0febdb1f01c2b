#include "floe/util/byte_size.h"

#include <cctype>

namespace floe {

Result<int64_t> ParseByteSize(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit = text.substr(i);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (i == 0 || i > 15)
    return Status::Invalid("Invalid size '", text, "': expected a number and a unit, e.g. 256MB");
  int64_t scale = 0;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else {
    const std::string units = "KMGT";
    const size_t power = units.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (power == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      return Status::Invalid("Invalid size '", text,
                             "': the unit must be one of B, K, M, G, T (or KB, MiB, ...)");
    }
    scale = int64_t{1} << (10 * (power + 1));
  }
  const int64_t n = std::stoll(text.substr(0, i));
  if (n > (int64_t{1} << 62) / scale)
    return Status::Invalid("Invalid size '", text, "': too large");
  return n * scale;
}

}  // namespace floe
