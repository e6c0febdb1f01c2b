#include "floe/sql/session/session_state.h"

#include "floe/sql/bind/read_point_in_time.h"
#include "floe/sql/plan/spill/spill_space.h"
#include "floe/sql/plan/table_changes_function.h"
#include "floe/util/byte_size.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

SessionState::SessionState(std::shared_ptr<Catalog> catalog_in, std::shared_ptr<FileIO> io_in)
    : catalog(catalog_in),
      io(io_in),
      tables(catalog_in, io_in),
      provenance(std::make_shared<table::CommitProvenance>()),
      current_namespace({"default"}) {
  tables.set_provenance(provenance);
  settings[kTimeZoneKey] = "UTC";
}

std::string SessionState::Setting(const std::string& key, const std::string& fallback) const {
  auto it = settings.find(key);
  return it == settings.end() ? fallback : it->second;
}

Status SessionState::SetSetting(const std::string& key, const std::string& value) {
  if (key == kTimeZoneKey) {
    auto tz = floe::TimeZone::Make(value);
    if (!tz.ok()) return tz.status();
  }
  ARROW_RETURN_NOT_OK(CheckReadPointSetting(*this, key, value));
  if (key == kMemoryLimitKey) {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return Status::Invalid("Cannot set ", key, ": ", bytes.status().message());
    if (*bytes <= 0) return Status::Invalid("Cannot set ", key, ": the limit must be larger than 0");
    memory->set_limit(*bytes);
  }
  if ((key == kTempDirectoryKey || key == kChangesSpillDirKey) && !SessionsMayMoveTempDirectory()) {
    return Status::Invalid("Cannot set ", key, ": this server's sessions spill to the directory it was started with ",
                           "(--temp-directory of floe serve)");
  }
  if (key == kTempDirectoryKey && (value.empty() || value.find("://") != std::string::npos)) {
    return Status::Invalid("Cannot set ", key, " to '", value,
                           "': spill files go to a directory of this machine's file system");
  }
  settings[key] = value;
  return Status::OK();
}

void SessionState::ResetSetting(const std::optional<std::string>& key) {
  if (key) {
    settings.erase(*key);
  } else {
    settings.clear();
  }
  if (!settings.count(kMemoryLimitKey)) memory->set_limit(0);
  if (!settings.count(kTimeZoneKey)) settings[kTimeZoneKey] = "UTC";
}

std::string SessionState::TimeZone() const { return Setting(kTimeZoneKey, "UTC"); }

}  // namespace floe::sql
