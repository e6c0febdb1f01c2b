#pragma once

// What a change of a table's metadata did, in the audit log's words: the kind of change,
// the operation of a new snapshot, main's snapshot before and after, and every branch or
// tag that moved. floe names its own commits so as it makes them, and other engines'
// changes from their two metadata files when the log is read.

#include "floe/catalog/audit_log.h"
#include "floe/spec/table_metadata.h"
#include "floe/table/commit_provenance.h"

namespace floe::table {

// `base` is null for a new table. One kind names the change, the first that applies of: a
// new snapshot some ref moved to (commit, rewrite, cherry-pick), main moved to a snapshot
// it had (rollback, fast-forward, set-current), expired snapshots, a new current schema,
// default spec or sort order, a branch or tag created, moved or dropped, properties, and
// anything else (metadata).
AuditRecord DescribeChange(const spec::TableMetadata* base, const spec::TableMetadata& updated);

// The who and from where of a floe commit.
void AddProvenance(const CommitProvenance& provenance, AuditRecord* record);

// A record of a catalog-level change (create, drop, rename, ...) made with `provenance`.
AuditRecord CatalogChange(const char* kind, const CommitProvenance& provenance);

}  // namespace floe::table
