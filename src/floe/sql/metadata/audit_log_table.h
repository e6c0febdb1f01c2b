#pragma once

// The audit log as a relation: `lakehouse.system.audit_log` (every table of the catalog)
// and the metadata table `db.t.audit_log` (one table's rows, also after it was dropped).

#include <memory>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/catalog/audit_log.h"

namespace floe::sql {

// Columns: seq, changed_at, namespace, table_name, kind, operation,
// previous_snapshot_id, snapshot_id, refs (array of name, from_snapshot_id,
// to_snapshot_id), user_name, client, client_address, application_name, statement, detail,
// previous_metadata_location, metadata_location. Rows in the order given (newest first).
Result<std::shared_ptr<arrow::Table>> AuditLogTable(const std::vector<AuditEntry>& rows);

}  // namespace floe::sql
