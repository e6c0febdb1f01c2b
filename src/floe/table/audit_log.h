#pragma once

// Reading the catalog's audit log as floe shows it: a row the trigger wrote for another
// engine's change is named first, from the two metadata files it links (what moved, and
// which engine the new snapshot says made it), and the names are written back so the next
// reader finds them.

#include <vector>

#include "floe/catalog/audit_log.h"
#include "floe/catalog/catalog.h"
#include "floe/io/file_io.h"

namespace floe::table {

Result<std::vector<AuditEntry>> ReadAuditLog(Catalog& catalog, FileIO& io,
                                             const AuditQuery& query);

// What an unclassified row was; the row as it is when its metadata files cannot be read.
AuditEntry ClassifyAuditEntry(FileIO& io, const AuditEntry& entry);

}  // namespace floe::table
