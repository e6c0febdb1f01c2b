#pragma once

// Session time zones and timestamp strings, read as Spark reads them. A string timestamp
// without an offset is a local time in the session zone (default UTC, never the machine's
// zone); an explicit offset or zone in the string wins. Zones come from the IANA database
// in /usr/share/zoneinfo through Howard Hinnant's date/tz.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace date {
class time_zone;
}

namespace floe {

// An IANA region ("Europe/Moscow") or a fixed offset ("+03:00", "UTC", "GMT-5").
class TimeZone {
 public:
  // Accepts IANA names, "UTC"/"GMT"/"UT"/"Z", and offsets "+hh", "+hh:mm", "+hhmm",
  // optionally prefixed with UTC/GMT/UT ("UTC+03:00"), as Java's ZoneId.of does. Unknown
  // names fail with `Unknown time zone: '<name>'`.
  static Result<TimeZone> Make(std::string_view name);
  static TimeZone Utc();

  // The name as given, normalised for fixed offsets ("+03:00", "UTC").
  const std::string& name() const { return name_; }
  bool is_fixed() const { return zone_ == nullptr; }

  // Local wall-clock micros (as if the local time were UTC) -> UTC micros. A local time in
  // a DST gap moves forward by the gap and an ambiguous one takes the earlier offset, as
  // java.time does.
  int64_t LocalToUtcMicros(int64_t local_micros) const;
  // UTC micros -> the zone's offset at that instant, in seconds.
  int64_t OffsetSecondsAt(int64_t utc_micros) const;

 private:
  TimeZone(std::string name, const date::time_zone* zone, int64_t fixed_offset_seconds)
      : name_(std::move(name)), zone_(zone), fixed_offset_seconds_(fixed_offset_seconds) {}

  std::string name_;
  const date::time_zone* zone_ = nullptr;  // owned by date's tzdb; null for fixed offsets
  int64_t fixed_offset_seconds_ = 0;
};

// Parses 'yyyy-mm-dd', 'yyyy-mm-dd hh:mm[:ss[.fffffffff]]' (or 'T' between date and
// time) with an optional zone suffix: 'Z', '+hh:mm', '-hh', '+hhmm', or a space then a zone
// name ('2024-01-15 10:30:00 UTC', '... Europe/Moscow'). Without a suffix the text is read
// in `session_zone`. Digits beyond microseconds are truncated. Errors quote the input:
// `Cannot parse timestamp '<text>': <why>`.
Result<int64_t> ParseTimestampMicros(std::string_view text, const TimeZone& session_zone);
Result<int64_t> ParseTimestampMillis(std::string_view text, const TimeZone& session_zone);

// Spark's display form in `zone`: "2024-01-15 13:30:00" or "2024-01-15 13:30:00.123"
// (fraction only when non-zero, trailing zeros dropped, as Spark prints timestamps).
std::string FormatMillis(int64_t epoch_ms, const TimeZone& zone);
std::string FormatMicros(int64_t epoch_micros, const TimeZone& zone);

// Iceberg's DateTimeUtil.formatTimestampMillis: Java's Instant.toString with "Z" replaced
// by "+00:00", e.g. "2024-01-15T10:30:00+00:00", "2024-01-15T10:30:00.123+00:00". Used in
// `Cannot find a snapshot older than <instant>`.
std::string FormatMillisIso(int64_t epoch_ms);

}  // namespace floe
