#include <chrono>
#include <cstdio>
#include <sstream>

// date::parse instantiates chrono code in which g++ 12 sees a maybe-uninitialized value
// that is always written first; keep the false positive out of -Werror builds.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <date/date.h>
#include <date/tz.h>

#include "floe/sql/bind/expression_binder.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

Result<int32_t> ParseDateDays(const std::string& text) {
  std::istringstream in(text);
  date::year_month_day ymd;
  in >> date::parse("%Y-%m-%d", ymd);
  if (in.fail() || !ymd.ok()) return ValidationError("Cannot parse the date: '", text, "'");
  return static_cast<int32_t>(date::sys_days(ymd).time_since_epoch().count());
}

Result<int64_t> ParseTimestampMicros(const std::string& text, const std::string& zone) {
  ARROW_ASSIGN_OR_RAISE(auto tz, TimeZone::Make(zone));
  return floe::ParseTimestampMicros(text, tz);
}

}  // namespace floe::sql
