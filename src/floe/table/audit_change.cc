#include "floe/table/audit_change.h"

#include <set>

#include "floe/table/time_travel.h"

namespace floe::table {

namespace {

std::vector<AuditRefMove> RefMoves(const spec::TableMetadata* base,
                                   const spec::TableMetadata& updated) {
  std::vector<AuditRefMove> moves;
  if (base) {
    for (const auto& [name, ref] : base->refs) {
      auto it = updated.refs.find(name);
      if (it == updated.refs.end()) {
        moves.push_back({name, ref.snapshot_id, std::nullopt});
      } else if (it->second.snapshot_id != ref.snapshot_id) {
        moves.push_back({name, ref.snapshot_id, it->second.snapshot_id});
      }
    }
  }
  for (const auto& [name, ref] : updated.refs) {
    if (!base || !base->refs.count(name)) moves.push_back({name, std::nullopt, ref.snapshot_id});
  }
  return moves;
}

}  // namespace

AuditRecord DescribeChange(const spec::TableMetadata* base, const spec::TableMetadata& updated) {
  AuditRecord record;
  record.previous_snapshot_id = base ? base->current_snapshot_id : std::nullopt;
  record.snapshot_id = updated.current_snapshot_id;
  record.refs = RefMoves(base, updated);
  if (!base) {
    // A first metadata file is a new table; one with a history is a table registered again
    // (Spark's register_table, a table moved between catalogs).
    record.kind = updated.metadata_log.empty() ? audit_kind::kCreate : audit_kind::kRegister;
    return record;
  }
  std::set<int64_t> before, after;
  for (const auto& s : base->snapshots) before.insert(s.snapshot_id);
  for (const auto& s : updated.snapshots) after.insert(s.snapshot_id);

  // A ref that moved to a new snapshot: main's first.
  const spec::Snapshot* written = nullptr;
  for (const auto& move : record.refs) {
    if (!move.to_snapshot_id || before.count(*move.to_snapshot_id)) continue;
    const spec::Snapshot* s = updated.SnapshotById(*move.to_snapshot_id);
    if (s && (!written || move.name == spec::kMainBranch)) written = s;
  }
  if (written) {
    record.operation = written->operation;
    if (written->operation == "replace") {
      record.kind = audit_kind::kRewrite;
    } else if (written->summary.count("source-snapshot-id")) {
      record.kind = audit_kind::kCherryPick;
    } else {
      record.kind = audit_kind::kCommit;
    }
    return record;
  }
  const auto& from = record.previous_snapshot_id;
  const auto& to = record.snapshot_id;
  if (from != to) {
    if (!from || !to) {
      record.kind = audit_kind::kSetCurrent;
    } else if (IsAncestorOf(updated, *from, *to) || IsAncestorOf(*base, *from, *to)) {
      // An older metadata file put back may not list `from` any more: ask the base too.
      record.kind = audit_kind::kRollback;
    } else if (IsAncestorOf(updated, *to, *from)) {
      record.kind = audit_kind::kFastForward;
    } else {
      record.kind = audit_kind::kSetCurrent;
    }
    return record;
  }
  for (int64_t id : before) {
    if (!after.count(id)) {
      record.kind = audit_kind::kExpire;
      return record;
    }
  }
  if (base->current_schema_id != updated.current_schema_id) {
    record.kind = audit_kind::kSchema;
  } else if (base->default_spec_id != updated.default_spec_id) {
    record.kind = audit_kind::kSpec;
  } else if (base->default_sort_order_id != updated.default_sort_order_id) {
    record.kind = audit_kind::kSortOrder;
  } else if (!record.refs.empty()) {
    const AuditRefMove& move = record.refs.front();
    record.kind = !move.from_snapshot_id ? audit_kind::kRefCreate
                  : !move.to_snapshot_id ? audit_kind::kRefDrop
                                         : audit_kind::kRefReplace;
  } else if (base->properties != updated.properties) {
    record.kind = audit_kind::kProperties;
  } else {
    record.kind = audit_kind::kMetadata;
  }
  return record;
}

void AddProvenance(const CommitProvenance& provenance, AuditRecord* record) {
  record->user = provenance.user.empty() ? OperatingSystemUser() : provenance.user;
  record->client = provenance.client;
  record->client_address = provenance.client_address;
  record->statement = TruncateStatement(provenance.statement);
  record->idempotency_key = provenance.idempotency_key;
}

AuditRecord CatalogChange(const char* kind, const CommitProvenance& provenance) {
  AuditRecord record;
  record.kind = kind;
  AddProvenance(provenance, &record);
  return record;
}

}  // namespace floe::table
