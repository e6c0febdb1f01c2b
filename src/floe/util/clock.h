#pragma once

#include <cstdint>
#include <string>

namespace floe {

// Milliseconds since the Unix epoch, UTC.
int64_t NowMillis();

// "2024-01-15 10:30:00.123" in UTC (Spark's display form for a timestamp in UTC).
std::string FormatMillisUtc(int64_t epoch_ms);

}  // namespace floe
