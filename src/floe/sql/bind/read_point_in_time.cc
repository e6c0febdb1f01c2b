#include "floe/sql/bind/read_point_in_time.h"

#include "floe/table/catalog_tags.h"
#include "floe/table/run_manifest.h"
#include "floe/util/str_cat.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

namespace {

Result<int64_t> AsOfMillis(const SessionState& state, const std::string& value) {
  ARROW_ASSIGN_OR_RAISE(TimeZone zone, TimeZone::Make(state.TimeZone()));
  auto ms = ParseTimestampMillis(value, zone);
  if (!ms.ok()) return ValidationError("Invalid ", kReadAsOfKey, ": ", ms.status().message());
  return *ms;
}

Result<table::RunManifest> LoadRunManifest(const SessionState& state, const std::string& path) {
  auto manifest = table::ReadRunManifest(*state.io, path);
  if (!manifest.ok()) {
    return ValidationError("Invalid ", kReadRunManifestKey, ": ", manifest.status().message());
  }
  return manifest;
}

std::string SnapshotText(const table::ResolvedSnapshot& resolved) {
  return resolved.snapshot_id() ? std::to_string(*resolved.snapshot_id()) : "none";
}

}  // namespace

Status CheckReadPointSetting(const SessionState& state, const std::string& key,
                             const std::string& value) {
  if (value.empty()) return Status::OK();  // an empty value turns it off
  if (key == kReadAsOfKey) return AsOfMillis(state, value).status();
  if (key == kReadRunManifestKey) return LoadRunManifest(state, value).status();
  if (key == kReadAsOfTagKey && state.catalog->KeepsCatalogTags()) {
    ARROW_ASSIGN_OR_RAISE(auto tag, state.catalog->LoadCatalogTag(value));
    if (!tag) {
      return ValidationError("Invalid ", kReadAsOfTagKey, ": ",
                             table::CatalogTagNotFound(*state.catalog, value).message());
    }
  }
  return Status::OK();
}

Result<std::optional<SessionReadPoint>> ResolveSessionReadPoint(const SessionState& state,
                                                                const table::Table& table) {
  const std::string manifest_path = state.Setting(kReadRunManifestKey, "");
  if (!manifest_path.empty()) {
    ARROW_ASSIGN_OR_RAISE(table::RunManifest manifest, LoadRunManifest(state, manifest_path));
    if (const auto* source = table::FindRunManifestSource(manifest, table.name())) {
      ARROW_ASSIGN_OR_RAISE(table::ResolvedSnapshot resolved,
                            table::ResolveRunManifestSource(table, *source));
      std::string note = StrCat(table.name(), " -> snapshot ", SnapshotText(resolved), " (",
                                kReadRunManifestKey, " ", manifest_path, ")");
      return SessionReadPoint{std::move(resolved), std::move(note)};
    }
  }
  const std::string as_of = state.Setting(kReadAsOfKey, "");
  const std::string as_of_tag = state.Setting(kReadAsOfTagKey, "");
  if (!as_of_tag.empty()) {
    if (!as_of.empty()) {
      return ValidationError("Cannot read ", table.name(), ": both ", kReadAsOfKey, " and ",
                             kReadAsOfTagKey, " are set; RESET one of them");
    }
    auto md = table.metadata();
    auto ref = md->refs.find(as_of_tag);
    if (ref == md->refs.end() || ref->second.is_branch()) {
      return ValidationError("Cannot read ", table.name(), " as of ", kReadAsOfTagKey, " '",
                             as_of_tag, "': the table has no tag ", as_of_tag);
    }
    auto resolved = table::ResolveTimeTravel(md, table::TimeTravelSpec::Tag(as_of_tag));
    if (!resolved.ok()) {
      return WithContext(resolved.status(), StrCat("Cannot read ", table.name(), " as of ",
                                                   kReadAsOfTagKey, " '", as_of_tag, "'"));
    }
    std::string note = StrCat(table.name(), " VERSION AS OF '", as_of_tag, "' (",
                              kReadAsOfTagKey, ") -> snapshot ", SnapshotText(*resolved));
    return SessionReadPoint{std::move(resolved).ValueUnsafe(), std::move(note)};
  }
  if (as_of.empty()) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(int64_t ms, AsOfMillis(state, as_of));
  auto resolved = table::ResolveTimeTravel(table.metadata(), table::TimeTravelSpec::AsOf(ms));
  if (!resolved.ok()) {
    return WithContext(resolved.status(), StrCat("Cannot read ", table.name(), " as of ",
                                                 kReadAsOfKey, " '", as_of, "'"));
  }
  std::string note = StrCat(table.name(), " TIMESTAMP AS OF ", FormatMillisIso(ms), " (",
                            kReadAsOfKey, ") -> snapshot ", SnapshotText(*resolved));
  return SessionReadPoint{std::move(resolved).ValueUnsafe(), std::move(note)};
}

}  // namespace floe::sql
