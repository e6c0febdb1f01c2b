#pragma once

// Changes to table metadata stated as data, as another engine sends them to a catalog (the
// Iceberg REST catalog's TableUpdate and TableRequirement): each update is applied through
// TableMetadataBuilder, so a commit from outside keeps every invariant floe's own commits
// keep, and each requirement is checked against the base the commit starts from.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/spec/table_update.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/status.h"

namespace floe::table {

// The newest format version a table may be created at or upgraded to by a commit: the newest
// whose metadata floe reads.
inline constexpr int32_t kMaxWritableFormatVersion = spec::kMaxReadableFormatVersion;

using spec::MetadataUpdate;
using spec::UpdateName;
using spec::UpdateRequirement;
namespace update = spec::update;

// OK when `base` (null: the table does not exist) meets `requirement`; otherwise a
// CommitConflict in Iceberg's words ("Requirement failed: branch main has changed: expected
// id 1 != 2").
Status CheckRequirement(const UpdateRequirement& requirement, const spec::TableMetadata* base);

// Applies `update`; a change the table cannot take is a Validation error that names the
// update ("Invalid update add-snapshot: Cannot add snapshot with sequence number 3 older
// than last sequence number 4") and leaves the builder's earlier changes as they were.
Status ApplyUpdate(const MetadataUpdate& update, TableMetadataBuilder& builder);

// Every requirement against `base`, then every update on a builder started from it. Null when
// nothing changes. Snapshots the updates add and make current only on the way to another leave
// the history (as Iceberg does), so one commit is one history entry.
Result<std::shared_ptr<spec::TableMetadata>> ApplyTableChanges(
    const spec::TableMetadataPtr& base, const std::vector<UpdateRequirement>& requirements,
    const std::vector<MetadataUpdate>& updates);

// The metadata of a table created by `updates` (a staged create): an empty table in the format
// version upgrade-format-version names (else v2), with the uuid assign-uuid gives (else a new
// one) at the location set-location gives (else `default_location`).
Result<std::shared_ptr<spec::TableMetadata>> NewTableFromUpdates(
    const std::vector<UpdateRequirement>& requirements, const std::vector<MetadataUpdate>& updates,
    const std::string& default_location);

}  // namespace floe::table
