#include "floe/cli/snapshot_point.h"

#include <cctype>
#include <charconv>

#include "floe/table/time_travel.h"

namespace floe::cli {

Result<TimeZone> SessionTimeZone(const sql::Session& session) {
  return TimeZone::Make(session.Setting("spark.sql.session.timeZone", "UTC"));
}

namespace {

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// "2025-..." reads as a timestamp that is meant, so its parse error is the one to show.
bool LooksLikeDate(std::string_view text) {
  if (text.size() < 5 || text[4] != '-') return false;
  for (int i = 0; i < 4; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

}  // namespace

Result<ResolvedPoint> ResolveSnapshotIdPoint(const table::Table& table, int64_t snapshot_id) {
  if (!table.metadata()->SnapshotById(snapshot_id)) {
    return NotFound("Cannot find snapshot with ID ", snapshot_id, " in table ", table.name());
  }
  return ResolvedPoint{snapshot_id, "snapshot id"};
}

Result<ResolvedPoint> ResolveTimestampPoint(const table::Table& table, std::string_view text,
                                            const TimeZone& zone) {
  ARROW_ASSIGN_OR_RAISE(int64_t ms, ParseTimestampMillis(text, zone));
  ARROW_ASSIGN_OR_RAISE(int64_t id, table::SnapshotIdAsOfTime(*table.metadata(), ms));
  return ResolvedPoint{id, StrCat("as of ", FormatMillis(ms, zone), " ", zone.name())};
}

Result<ResolvedPoint> ResolveRefPoint(const table::Table& table, const std::string& ref) {
  auto md = table.metadata();
  auto it = md->refs.find(ref);
  if (it == md->refs.end()) return NotFound("Cannot find ref ", ref, " in table ", table.name());
  if (!md->SnapshotById(it->second.snapshot_id)) {
    return Status::Invalid("Ref ", ref, " of ", table.name(), " points to missing snapshot ",
                           it->second.snapshot_id);
  }
  return ResolvedPoint{it->second.snapshot_id,
                       StrCat(it->second.is_branch() ? "branch " : "tag ", ref)};
}

Result<ResolvedPoint> ResolvePoint(const table::Table& table, std::string_view text,
                                   const TimeZone& zone) {
  auto md = table.metadata();
  if (md->refs.count(std::string(text))) return ResolveRefPoint(table, std::string(text));
  if (auto id = ParseInteger(text)) return ResolveSnapshotIdPoint(table, *id);
  if (LooksLikeDate(text)) return ResolveTimestampPoint(table, text, zone);
  return ValidationError("Cannot resolve '", text, "' in table ", table.name(),
                         ": it is not a branch or tag, a snapshot id or a timestamp");
}

}  // namespace floe::cli
