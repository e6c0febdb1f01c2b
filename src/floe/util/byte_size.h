#pragma once

#include <cstdint>
#include <string>

#include "floe/util/status.h"

namespace floe {

// "256MB", "64M", "1GiB", "4096" (bytes) -> bytes; units K, M, G, T (with or without B or
// iB) are powers of 1024. Error: `Invalid size '<text>': expected a number and a unit, e.g. 256MB`.
Result<int64_t> ParseByteSize(const std::string& text);

}  // namespace floe
