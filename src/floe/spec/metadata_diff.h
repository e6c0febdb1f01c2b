#pragma once

// A change of table metadata stated as a commit request: the updates that take `base` to
// `updated`, and the requirements an Iceberg client sends with them, so a catalog that commits
// by request (an Iceberg REST catalog) can make any change floe computes.

#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/spec/table_update.h"
#include "floe/util/status.h"

namespace floe::spec {

struct TableChanges {
  std::vector<UpdateRequirement> requirements;
  std::vector<MetadataUpdate> updates;
};

// The updates in the order they apply: format version, schemas, specs, sort orders, location,
// properties, snapshots, refs (removed, then set, main last), snapshots removed, statistics,
// schemas and specs removed. A schema, spec or order added and made current is named -1 ("the
// one added last"), as Iceberg's clients send it. The requirements are those Iceberg's
// UpdateRequirements.forUpdateTable derives: the table's uuid; each ref set or removed at the
// snapshot it had (absent: must not exist); the last assigned field and partition ids when a
// schema or spec is added; the current schema, default spec and sort order when they are set;
// and every branch other than main unchanged when schemas or specs are removed.
// Refused, naming the field, when `updated` is not a change of `base` an update can state (another
// table's uuid, a changed snapshot, a lower format version).
Result<TableChanges> DiffTableMetadata(const TableMetadata& base, const TableMetadata& updated);

// A new table stated as a commit request, as Iceberg's clients commit a create transaction: the
// requirement that the table not exist, and the updates that build `created` from nothing
// (its uuid, format version, schemas, specs, orders, location, properties, snapshots, refs).
Result<TableChanges> CreateTableChanges(const TableMetadata& created);

}  // namespace floe::spec
