#pragma once

// Division that rounds toward negative infinity, as calendar arithmetic on instants before
// 1970 needs (C++'s `/` rounds toward zero).

#include <cstdint>

namespace floe {

constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

constexpr int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

}  // namespace floe
