#include "floe/table/audit_log.h"

#include "floe/table/audit_change.h"
#include "floe/table/metadata_files.h"

namespace floe::table {

namespace {

std::string SummaryValue(const spec::TableMetadata& md, std::optional<int64_t> id,
                         const char* key) {
  if (!id) return "";
  const spec::Snapshot* s = md.SnapshotById(*id);
  if (!s) return "";
  auto it = s->summary.find(key);
  return it == s->summary.end() ? "" : it->second;
}

}  // namespace

AuditEntry ClassifyAuditEntry(FileIO& io, const AuditEntry& entry) {
  if (entry.classified) return entry;
  AuditEntry out = entry;
  spec::TableMetadataPtr before, after;
  if (entry.previous_metadata_location) {
    auto md = ReadMetadataFile(io, *entry.previous_metadata_location);
    if (md.ok()) before = *md;
  }
  if (entry.metadata_location) {
    auto md = ReadMetadataFile(io, *entry.metadata_location);
    if (md.ok()) after = *md;
  }
  AuditRecord named;
  if (!entry.metadata_location) {
    named.kind = audit_kind::kDrop;
    named.previous_snapshot_id = before ? before->current_snapshot_id : std::nullopt;
  } else if (!after) {
    return out;  // the new metadata file is gone: nothing more can be said
  } else if (entry.detail.rfind("renamed from ", 0) == 0) {
    named.kind = audit_kind::kRename;
    named.previous_snapshot_id = named.snapshot_id = after->current_snapshot_id;
  } else if (!entry.previous_metadata_location) {
    named = DescribeChange(nullptr, *after);
  } else if (!before) {
    return out;
  } else {
    named = DescribeChange(before.get(), *after);
  }
  if (after) {
    // Which engine: what the new snapshot says (Iceberg's engine-name, floe's floe.client).
    std::optional<int64_t> written;
    for (const auto& move : named.refs) {
      if (move.to_snapshot_id && (!before || !before->SnapshotById(*move.to_snapshot_id))) {
        written = move.to_snapshot_id;
      }
    }
    for (const char* key : {"floe.client", "engine-name"}) {
      if (named.client.empty()) named.client = SummaryValue(*after, written, key);
    }
    for (const char* key : {"floe.user", "trino_user"}) {
      if (named.user.empty()) named.user = SummaryValue(*after, written, key);
    }
  }
  out.kind = named.kind;
  out.operation = named.operation;
  out.previous_snapshot_id = named.previous_snapshot_id;
  out.snapshot_id = named.snapshot_id;
  out.refs = named.refs;
  if (out.client.empty()) out.client = named.client;
  if (out.client.empty()) out.client = out.application_name.empty() ? "external" : out.application_name;
  if (out.user.empty()) out.user = named.user;
  out.classified = true;
  return out;
}

Result<std::vector<AuditEntry>> ReadAuditLog(Catalog& catalog, FileIO& io,
                                             const AuditQuery& query) {
  ARROW_ASSIGN_OR_RAISE(std::vector<AuditEntry> rows, catalog.ReadAuditLog(query));
  for (auto& row : rows) {
    if (row.classified) continue;
    AuditEntry named = ClassifyAuditEntry(io, row);
    if (!named.classified) continue;
    // Best effort: a reader that may not write still shows the names.
    (void)catalog.ClassifyAuditEntry(row.seq, named);
    row = std::move(named);
  }
  return rows;
}

}  // namespace floe::table
