// The SQL catalog's audit log: its table and trigger, the row floe writes with each change,
// and reading it back.

#include <cstdint>
#include <limits>
#include <string>

#include "floe/catalog/audit_log_sql.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/util/clock.h"
#include "floe/util/number_parse.h"

namespace floe {

namespace {

// A database user without the right to create a table or a trigger: floe works on without.
bool IsPermissionRefusal(const Status& st) {
  const std::string& m = st.message();
  return m.find("permission denied") != std::string::npos ||
         m.find("must be owner") != std::string::npos ||
         m.find("readonly database") != std::string::npos;
}

SqlDriver::Arg Text(const std::string& value) {
  if (value.empty()) return std::nullopt;
  return std::string_view(value);
}

std::string IdText(const std::optional<int64_t>& id) {
  return id ? std::to_string(*id) : std::string();
}

Result<std::optional<int64_t>> OptionalInt(const std::optional<std::string>& value,
                                           const char* column) {
  if (!value) return std::nullopt;
  std::optional<int64_t> out = ParseInt64(*value);
  if (!out) return Status::IOError("Unreadable ", column, " in floe_audit_log: ", *value);
  return out;
}

Result<AuditEntry> ParseAuditRow(const SqlDriver::Row& row) {
  AuditEntry e;
  ARROW_ASSIGN_OR_RAISE(auto seq, OptionalInt(row[0], "seq"));
  ARROW_ASSIGN_OR_RAISE(auto at, OptionalInt(row[1], "at_ms"));
  if (!seq || !at) return Status::IOError("A floe_audit_log row without seq or at_ms");
  e.seq = *seq;
  e.at_ms = *at;
  e.ident = TableIdentifier(Namespace(SplitDots(row[3].value_or(""))), row[4].value_or(""));
  e.kind = row[5].value_or("");
  e.operation = row[6].value_or("");
  e.previous_metadata_location = row[7];
  e.metadata_location = row[8];
  ARROW_ASSIGN_OR_RAISE(e.previous_snapshot_id, OptionalInt(row[9], "previous_snapshot_id"));
  ARROW_ASSIGN_OR_RAISE(e.snapshot_id, OptionalInt(row[10], "snapshot_id"));
  if (row[11]) {
    ARROW_ASSIGN_OR_RAISE(e.refs, DecodeRefMoves(*row[11]));
  }
  e.user = row[12].value_or("");
  e.client = row[13].value_or("");
  e.client_address = row[14].value_or("");
  e.application_name = row[15].value_or("");
  e.statement = row[16].value_or("");
  e.detail = row[17].value_or("");
  e.classified = row[18].value_or("0") != "0";
  return e;
}

}  // namespace

Status SqlCatalog::CreateAuditTrigger() {
  if (postgres_) {
    ARROW_RETURN_NOT_OK(driver_->Exec(audit_log_sql::kPostgresFunction));
    ARROW_RETURN_NOT_OK(driver_->Exec(audit_log_sql::kPostgresDropTrigger));
    return driver_->Exec(audit_log_sql::kPostgresTrigger);
  }
  ARROW_RETURN_NOT_OK(driver_->Exec(audit_log_sql::kSqliteDropTriggers));
  return driver_->Exec(audit_log_sql::kSqliteTriggers);
}

// Catalogs made before keys were kept get the table on their first open by a floe that keeps
// them; without the right to create it, requests are not replayed (and nothing else changes).
Status SqlCatalog::InitIdempotencyKeys() {
  ARROW_ASSIGN_OR_RAISE(bool exists,
                        Read([&] { return driver_->HasTable("floe_idempotency_keys"); }));
  if (!exists) {
    Status st = InWriteTransaction([&]() -> Status {
      ARROW_RETURN_NOT_OK(driver_->LockSchema());
      ARROW_ASSIGN_OR_RAISE(bool now, driver_->HasTable("floe_idempotency_keys"));
      if (now) return Status::OK();
      ARROW_RETURN_NOT_OK(driver_->Exec(audit_log_sql::kCreateKeys));
      return driver_->Exec(audit_log_sql::kCreateKeysIndex);
    });
    if (!st.ok()) return IsPermissionRefusal(st) ? Status::OK() : st;
  }
  idempotency_keys_ = true;
  return Status::OK();
}

Status SqlCatalog::InitAuditLog() {
  ARROW_ASSIGN_OR_RAISE(bool exists, Read([&] { return driver_->HasTable("floe_audit_log"); }));
  if (exists) {
    audit_log_ = true;
    return InitIdempotencyKeys();
  }
  // The log and its trigger come together, so that no change is ever recorded by one half.
  auto create = [&](bool with_trigger) {
    return InWriteTransaction([&]() -> Status {
      ARROW_RETURN_NOT_OK(driver_->LockSchema());
      ARROW_ASSIGN_OR_RAISE(bool now, driver_->HasTable("floe_audit_log"));
      if (now) return Status::OK();  // another process was first
      ARROW_RETURN_NOT_OK(driver_->Exec(postgres_ ? audit_log_sql::kCreateTablePostgres
                                                  : audit_log_sql::kCreateTableSqlite));
      ARROW_RETURN_NOT_OK(driver_->Exec(audit_log_sql::kCreateTableIndex));
      ARROW_RETURN_NOT_OK(driver_->Exec(audit_log_sql::kCreateCatalogIndex));
      if (with_trigger) ARROW_RETURN_NOT_OK(CreateAuditTrigger());
      return Status::OK();
    });
  };
  Status st = create(true);
  if (st.ok()) {
    audit_log_ = true;
    return InitIdempotencyKeys();
  }
  if (!IsPermissionRefusal(st)) return st;
  trigger_refused_ = st.message();
  st = create(false);
  if (st.ok()) {
    audit_log_ = true;
    return InitIdempotencyKeys();
  } else if (!IsPermissionRefusal(st)) {
    return st;
  }
  return Status::OK();
}

Result<std::vector<Catalog::KeyedChange>> SqlCatalog::FindIdempotencyKey(const std::string& key,
                                                                         int64_t since_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<KeyedChange> out;
  if (!idempotency_keys_) return out;
  ARROW_ASSIGN_OR_RAISE(
      auto rows, Read([&] {
        return Query(audit_log_sql::kSelectKey, {name_, key, std::to_string(since_ms)});
      }));
  for (const auto& row : rows) {
    KeyedChange change;
    change.ident = TableIdentifier(Namespace(SplitDots(row[0].value_or(""))), row[1].value_or(""));
    change.kind = row[2].value_or("");
    change.metadata_location = row[3];
    out.push_back(std::move(change));
  }
  return out;
}

Status SqlCatalog::RecordChange(const TableIdentifier& ident,
                                const std::optional<std::string>& previous,
                                const std::optional<std::string>& next, const AuditRecord& record) {
  if (!audit_log_) return Status::OK();
  const std::string at = std::to_string(NowMillis());
  const std::string ns = ident.ns.ToString();
  const std::string previous_id = IdText(record.previous_snapshot_id);
  const std::string id = IdText(record.snapshot_id);
  const std::string refs = record.refs.empty() ? std::string() : EncodeRefMoves(record.refs);
  // The rows of one change of several tables name the transaction they share.
  std::string detail = record.detail;
  if (!record.transaction_id.empty()) {
    detail = (detail.empty() ? "" : detail + "; ") + "transaction " + record.transaction_id;
  }
  if (!record.idempotency_key.empty() && idempotency_keys_) {
    constexpr int64_t kDayMs = 24 * 3600 * 1000;
    ARROW_RETURN_NOT_OK(
        Execute(audit_log_sql::kForgetKeys, {name_, std::to_string(NowMillis() - kDayMs)})
            .status());
    ARROW_RETURN_NOT_OK(
        Execute(audit_log_sql::kInsertKey,
                {name_, record.idempotency_key, at, ns, ident.name,
                 record.kind.empty() ? std::string_view(audit_kind::kExternal) : record.kind,
                 next ? SqlDriver::Arg(*next) : std::nullopt})
            .status());
  }
  return Execute(postgres_ ? audit_log_sql::kInsertPostgres : audit_log_sql::kInsertSqlite,
                 {at, name_, ns, ident.name,
                  record.kind.empty() ? std::string_view(audit_kind::kExternal) : record.kind,
                  Text(record.operation), previous ? SqlDriver::Arg(*previous) : std::nullopt,
                  next ? SqlDriver::Arg(*next) : std::nullopt, Text(previous_id), Text(id),
                  Text(refs), Text(record.user), Text(record.client), Text(record.client_address),
                  Text(record.application_name), Text(record.statement), Text(detail),
                  record.classified ? "1" : "0"})
      .status();
}

Status SqlCatalog::RecordAuditEntry(const TableIdentifier& ident,
                                    const std::string& metadata_location,
                                    const AuditRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  return InWriteTransaction(
      [&] { return RecordChange(ident, metadata_location, metadata_location, record); });
}

Status SqlCatalog::AuditedSwap(const TableIdentifier& ident, const std::string& expected_location,
                               const std::string& new_location, const AuditRecord& record) {
  const std::string table = ident.ToString();
  const std::string ns = ident.ns.ToString();
  Status st = InWriteTransaction(
      [&]() -> Status { return SwapEntry(ident, expected_location, new_location, record); },
      // The answer to COMMIT was lost: the audit row, written in the same transaction, says
      // whether it happened.
      [&]() -> Result<bool> {
        ARROW_ASSIGN_OR_RAISE(
            auto rows,
            Query("SELECT 1 FROM floe_audit_log WHERE catalog_name = ? AND table_namespace = ? "
                  "AND table_name = ? AND previous_metadata_location = ? AND metadata_location = ?",
                  {name_, ns, ident.name, expected_location, new_location}));
        return !rows.empty();
      },
      // A writer that lost the race to the same table waits for the winner's COMMIT and
      // then finds the pointer moved: a conflict at once, not a serialization failure
      // retried after a pause. The log row needs no read, so nothing else can conflict.
      /*compare_and_swap=*/true);
  if (st.ok() || IsCommitConflict(st) || IsCommitStateUnknown(st)) return st;
  switch (driver_->last_failure()) {
    case SqlFailure::kBusy:
    case SqlFailure::kRetry:
      // Reported before anything changed: the swap did not happen.
      return CommitConflict("Cannot commit table ", table, ": ", st.message(), "; ", new_location,
                            " was not committed");
    case SqlFailure::kConnectionLost:
      return CommitStateUnknown("Cannot tell whether table ", table, " was committed from ",
                                expected_location, " to ", new_location, ": ", st.message());
    default:
      // The transaction was rolled back: the pointer did not move.
      return WithContext(st, StrCat("Cannot commit ", table));
  }
}

Result<std::vector<AuditEntry>> SqlCatalog::ReadAuditLog(const AuditQuery& query) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AuditEntry> out;
  if (!audit_log_) return out;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::string before = std::to_string(query.before_seq.value_or(kMax));
  const std::string since =
      std::to_string(query.since_ms.value_or(std::numeric_limits<int64_t>::min()));
  const std::string limit = std::to_string(query.limit > 0 ? query.limit : kMax);
  ARROW_ASSIGN_OR_RAISE(
      auto rows, Read([&]() -> Result<std::vector<Row>> {
        if (query.seq) return Query(audit_log_sql::kSelectSeq, {name_, std::to_string(*query.seq)});
        if (query.table) {
          return Query(
              audit_log_sql::kSelectTable,
              {name_, before, since, limit, query.table->ns.ToString(), query.table->name});
        }
        return Query(audit_log_sql::kSelectCatalog, {name_, before, since, limit});
      }));
  out.reserve(rows.size());
  for (const auto& row : rows) {
    if (row.size() < 19) return Status::IOError("floe_audit_log has too few columns");
    ARROW_ASSIGN_OR_RAISE(AuditEntry entry, ParseAuditRow(row));
    out.push_back(std::move(entry));
  }
  return out;
}

Status SqlCatalog::ClassifyAuditEntry(int64_t seq, const AuditRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!audit_log_) return Status::OK();
  const std::string refs = record.refs.empty() ? std::string() : EncodeRefMoves(record.refs);
  const std::string previous_id = IdText(record.previous_snapshot_id);
  const std::string id = IdText(record.snapshot_id);
  return InWriteTransaction([&]() -> Status {
    return Execute(
               audit_log_sql::kClassify,
               {std::to_string(seq), record.kind, Text(record.operation), Text(previous_id),
                Text(id), Text(refs), Text(record.client), Text(record.user), Text(record.detail)})
        .status();
  });
}

Result<AuditTriggerState> SqlCatalog::AuditTrigger() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!audit_log_) {
    return AuditTriggerState{false, !trigger_refused_.empty(),
                             StrCat("catalog ", name_, " has no audit log: ", trigger_refused_)};
  }
  ARROW_ASSIGN_OR_RAISE(
      auto rows, Read([&] {
        return Query(
            postgres_ ? audit_log_sql::kPostgresHasTrigger : audit_log_sql::kSqliteHasTrigger, {});
      }));
  const std::string count = rows.empty() ? "0" : rows[0][0].value_or("0");
  if (count == (postgres_ ? "1" : "3")) return AuditTriggerState{true, false, ""};
  if (!trigger_refused_.empty()) {
    return AuditTriggerState{false, true,
                             StrCat("the database refused the trigger: ", trigger_refused_)};
  }
  return AuditTriggerState{false, false, "the trigger is not installed"};
}

Status SqlCatalog::InstallAuditTrigger() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!audit_log_) {
    ARROW_RETURN_NOT_OK(InitAuditLog());
    if (audit_log_) return Status::OK();
    return Status::Invalid("Cannot install the audit trigger of catalog ", name_, ": ",
                           trigger_refused_);
  }
  ARROW_RETURN_NOT_OK(WithContext(InWriteTransaction([&]() -> Status {
                                    ARROW_RETURN_NOT_OK(driver_->LockSchema());
                                    return CreateAuditTrigger();
                                  }),
                                  StrCat("Cannot install the audit trigger of catalog ", name_)));
  trigger_refused_.clear();
  return Status::OK();
}

Status SqlCatalog::RemoveAuditTrigger() {
  std::lock_guard<std::mutex> lock(mu_);
  return WithContext(InWriteTransaction([&]() -> Status {
                       ARROW_RETURN_NOT_OK(driver_->LockSchema());
                       return driver_->Exec(postgres_ ? audit_log_sql::kPostgresDropTrigger
                                                      : audit_log_sql::kSqliteDropTriggers);
                     }),
                     StrCat("Cannot remove the audit trigger of catalog ", name_));
}

}  // namespace floe
