#include "floe/util/time_zone.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>

#include <date/date.h>
#include <date/tz.h>

#include "floe/util/floor_div.h"
#include "floe/util/time_units.h"

namespace floe {

namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int ToInt(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", "+hhmmss" (java.time.ZoneOffset.of).
bool ParseOffset(std::string_view s, int64_t* seconds) {
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return false;
  int sign = s[0] == '-' ? -1 : 1;
  std::string_view rest = s.substr(1);
  int h = 0, m = 0, sec = 0;
  if (AllDigits(rest) && rest.size() <= 2) {
    h = ToInt(rest);
  } else if (AllDigits(rest) && (rest.size() == 4 || rest.size() == 6)) {
    h = ToInt(rest.substr(0, 2));
    m = ToInt(rest.substr(2, 2));
    if (rest.size() == 6) sec = ToInt(rest.substr(4, 2));
  } else if ((rest.size() == 5 || rest.size() == 8) && rest[2] == ':' &&
             AllDigits(rest.substr(0, 2)) && AllDigits(rest.substr(3, 2))) {
    h = ToInt(rest.substr(0, 2));
    m = ToInt(rest.substr(3, 2));
    if (rest.size() == 8) {
      if (rest[5] != ':' || !AllDigits(rest.substr(6, 2))) return false;
      sec = ToInt(rest.substr(6, 2));
    }
  } else {
    return false;
  }
  if (h > 18 || m > 59 || sec > 59) return false;
  int64_t total = h * 3600 + m * 60 + sec;
  if (total > 18 * 3600) return false;
  *seconds = sign * total;
  return true;
}

std::string OffsetName(int64_t seconds) {
  if (seconds == 0) return "UTC";
  char buf[16];
  int64_t a = seconds < 0 ? -seconds : seconds;
  if (a % 60 != 0) {
    std::snprintf(buf, sizeof(buf), "%c%02d:%02d:%02d", seconds < 0 ? '-' : '+',
                  static_cast<int>(a / 3600), static_cast<int>(a / 60 % 60),
                  static_cast<int>(a % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%c%02d:%02d", seconds < 0 ? '-' : '+',
                  static_cast<int>(a / 3600), static_cast<int>(a / 60 % 60));
  }
  return buf;
}

}  // namespace

TimeZone TimeZone::Utc() { return TimeZone("UTC", nullptr, 0); }

Result<TimeZone> TimeZone::Make(std::string_view name) {
  auto unknown = [&]() { return Status::Invalid("Unknown time zone: '", std::string(name), "'"); };
  if (name.empty()) return unknown();
  if (IEquals(name, "Z") || IEquals(name, "UTC") || IEquals(name, "GMT") || IEquals(name, "UT")) {
    return Utc();
  }
  int64_t offset = 0;
  if (name[0] == '+' || name[0] == '-') {
    if (!ParseOffset(name, &offset)) return unknown();
    return TimeZone(OffsetName(offset), nullptr, offset);
  }
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (name.size() > prefix.size() && IEquals(name.substr(0, prefix.size()), prefix) &&
        (name[prefix.size()] == '+' || name[prefix.size()] == '-')) {
      if (!ParseOffset(name.substr(prefix.size()), &offset)) return unknown();
      return TimeZone(OffsetName(offset), nullptr, offset);
    }
  }
  try {
    const date::time_zone* zone = date::locate_zone(std::string(name));
    return TimeZone(std::string(name), zone, 0);
  } catch (const std::exception&) {
    return unknown();
  }
}

int64_t TimeZone::OffsetSecondsAt(int64_t utc_micros) const {
  if (!zone_) return fixed_offset_seconds_;
  date::sys_seconds t{std::chrono::seconds(FloorDiv(utc_micros, kMicrosPerSecond))};
  return zone_->get_info(t).offset.count();
}

int64_t TimeZone::LocalToUtcMicros(int64_t local_micros) const {
  if (!zone_) return local_micros - fixed_offset_seconds_ * kMicrosPerSecond;
  date::local_seconds t{std::chrono::seconds(FloorDiv(local_micros, kMicrosPerSecond))};
  date::local_info info = zone_->get_info(t);
  // Unique: first is the offset. Ambiguous: first is the earlier (pre-transition) offset.
  // Nonexistent: first is the offset before the gap, which moves the time forward by the gap.
  return local_micros - info.first.offset.count() * kMicrosPerSecond;
}

Result<int64_t> ParseTimestampMicros(std::string_view text, const TimeZone& session_zone) {
  auto fail = [&](const std::string& why) {
    return Status::Invalid("Cannot parse timestamp '", std::string(text), "': ", why);
  };
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  size_t pos = 0;
  auto digits = [&](size_t min, size_t max, int* out) {
    size_t start = pos;
    while (pos < s.size() && pos - start < max &&
           std::isdigit(static_cast<unsigned char>(s[pos]))) {
      ++pos;
    }
    if (pos - start < min) return false;
    *out = ToInt(s.substr(start, pos - start));
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t fraction_micros = 0;
  if (!digits(4, 4, &year)) return fail("expected a year (yyyy-mm-dd)");
  if (pos >= s.size() || s[pos] != '-') return fail("expected '-' after the year");
  ++pos;
  if (!digits(1, 2, &month)) return fail("expected a month");
  if (pos >= s.size() || s[pos] != '-') return fail("expected '-' after the month");
  ++pos;
  if (!digits(1, 2, &day)) return fail("expected a day");
  date::year_month_day ymd{date::year{year}, date::month{static_cast<unsigned>(month)},
                           date::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) return fail("no such date");
  // Time of day, after 'T' or a space followed by a digit.
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ') && pos + 1 < s.size() &&
      std::isdigit(static_cast<unsigned char>(s[pos + 1]))) {
    ++pos;
    if (!digits(1, 2, &hour)) return fail("expected an hour");
    if (pos >= s.size() || s[pos] != ':') return fail("expected ':' after the hour");
    ++pos;
    if (!digits(1, 2, &minute)) return fail("expected minutes");
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!digits(1, 2, &second)) return fail("expected seconds");
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        size_t start = pos;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
        size_t n = pos - start;
        if (n == 0 || n > 9) return fail("expected 1 to 9 fraction digits");
        std::string_view frac = s.substr(start, std::min<size_t>(n, 6));
        fraction_micros = ToInt(frac);
        for (size_t i = frac.size(); i < 6; ++i) fraction_micros *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return fail("time of day out of range");
  }
  std::string_view zone_text = s.substr(pos);
  while (!zone_text.empty() && zone_text.front() == ' ') zone_text.remove_prefix(1);
  int64_t local = (static_cast<int64_t>(date::sys_days(ymd).time_since_epoch().count()) * 86400 +
                   hour * 3600 + minute * 60 + second) *
                      kMicrosPerSecond +
                  fraction_micros;
  if (zone_text.empty()) return session_zone.LocalToUtcMicros(local);
  auto zone = TimeZone::Make(zone_text);
  if (!zone.ok())
    return fail("unknown time zone or trailing text '" + std::string(zone_text) + "'");
  return zone->LocalToUtcMicros(local);
}

Result<int64_t> ParseTimestampMillis(std::string_view text, const TimeZone& session_zone) {
  ARROW_ASSIGN_OR_RAISE(int64_t micros, ParseTimestampMicros(text, session_zone));
  return FloorDiv(micros, 1000);
}

std::string FormatMicros(int64_t epoch_micros, const TimeZone& zone) {
  int64_t local = epoch_micros + zone.OffsetSecondsAt(epoch_micros) * kMicrosPerSecond;
  int64_t secs = FloorDiv(local, kMicrosPerSecond);
  int64_t frac = local - secs * kMicrosPerSecond;
  date::sys_seconds tp{std::chrono::seconds(secs)};
  std::string out = date::format("%F %T", tp);
  if (frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%06d", static_cast<int>(frac));
    std::string f = buf;
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}

std::string FormatMillis(int64_t epoch_ms, const TimeZone& zone) {
  return FormatMicros(epoch_ms * 1000, zone);
}

std::string FormatMillisIso(int64_t epoch_ms) {
  int64_t secs = FloorDiv(epoch_ms, 1000);
  int64_t ms = epoch_ms - secs * 1000;
  date::sys_seconds tp{std::chrono::seconds(secs)};
  std::string out = date::format("%FT%T", tp);
  if (ms != 0) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), ".%03d", static_cast<int>(ms));
    out += buf;
  }
  return out + "+00:00";
}

}  // namespace floe
