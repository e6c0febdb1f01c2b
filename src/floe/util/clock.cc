#include "floe/util/clock.h"

#include <chrono>

#include <date/date.h>

namespace floe {

int64_t NowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string FormatMillisUtc(int64_t epoch_ms) {
  date::sys_time<std::chrono::milliseconds> tp{std::chrono::milliseconds(epoch_ms)};
  return date::format("%F %T", tp);
}

}  // namespace floe
