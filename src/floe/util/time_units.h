#pragma once

// Arrow times and timestamps come in seconds, millis, micros or nanos; Iceberg and the
// PostgreSQL protocol count micros.

#include <cstdint>

#include <arrow/type_fwd.h>

namespace floe {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerHour = 3600 * kMicrosPerSecond;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

// `value` in `unit` as microseconds; nanoseconds are floored, so an instant before 1970
// stays in the microsecond that holds it.
inline int64_t MicrosFromUnit(int64_t value, arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return value * 1000000;
    case arrow::TimeUnit::MILLI:
      return value * 1000;
    case arrow::TimeUnit::MICRO:
      return value;
    case arrow::TimeUnit::NANO:
      return value / 1000 - (value % 1000 < 0 ? 1 : 0);
  }
  return value;
}

}  // namespace floe
