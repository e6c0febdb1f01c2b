#include "floe/table/transaction_commit.h"

#include <chrono>
#include <set>
#include <thread>

#include "floe/table/audit_change.h"
#include "floe/table/commit.h"
#include "floe/table/commit_provenance.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/protection.h"
#include "floe/util/ids.h"

namespace floe::table {

namespace {

// One attempt: the swaps to make and the files written for them; or, where the catalog
// commits by request, the changes to send.
struct Attempt {
  std::vector<Catalog::TableSwap> swaps;
  std::vector<std::string> written;
  std::vector<Catalog::TableCommit> commits;
};

Status Prepare(TableCatalog& tables, const TableChange& change, const LocationPolicy& policy,
               const TableChangesOptions& options, Attempt* attempt) {
  Catalog& catalog = *tables.catalog();
  FileIO& io = *tables.io();
  const std::string name = catalog.name() + "." + change.ident.ToString();
  spec::TableMetadataPtr base;
  std::string base_location;
  auto location = catalog.LoadTable(change.ident);
  if (location.ok()) {
    base_location = location->metadata_location;
    base = location->metadata;
    if (!base) {
      ARROW_ASSIGN_OR_RAISE(base, ReadCurrentMetadataFile(io, base_location));
    }
  } else if (!IsNotFound(location.status())) {
    return location.status();
  }
  std::shared_ptr<spec::TableMetadata> updated;
  if (base) {
    ARROW_ASSIGN_OR_RAISE(updated, ApplyTableChanges(base, change.requirements, change.updates));
    if (!updated) return Status::OK();
    ARROW_RETURN_NOT_OK(CheckProtection(name, *base, *updated));
  } else {
    bool creates = false;
    for (const auto& r : change.requirements) {
      creates |= r.kind == UpdateRequirement::Kind::kAssertCreate;
    }
    if (!creates) return location.status();
    ARROW_RETURN_NOT_OK(change.ident.ValidateNew());
    ARROW_ASSIGN_OR_RAISE(std::string default_location, catalog.NewTableLocation(change.ident));
    ARROW_ASSIGN_OR_RAISE(updated, NewTableFromUpdates(change.requirements, change.updates,
                                                       default_location));
  }
  ARROW_RETURN_NOT_OK(policy.CheckTable(change.ident, *updated));
  if (catalog.CommitsMetadata()) {
    StampProvenance(tables.provenance(), base ? *base : spec::TableMetadata{}, updated.get());
    attempt->commits.push_back({change.ident, base, std::move(updated)});
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto written, WriteNextMetadata(io, tables.provenance(), base.get(),
                                                        base_location, updated.get()));
  attempt->written.push_back(written.location);
  written.record.transaction_id = options.transaction_id;
  if (written.record.detail.empty()) written.record.detail = options.audit_detail;
  attempt->swaps.push_back(
      {change.ident, base_location, std::move(written.location), std::move(written.record)});
  return Status::OK();
}

}  // namespace

Result<PreparedSwaps> PrepareTableSwaps(TableCatalog& tables,
                                        const std::vector<TableChange>& changes,
                                        const TableChangesOptions& options) {
  if (tables.catalog()->CommitsMetadata()) {
    return Status::NotImplemented("Catalog ", tables.catalog()->name(),
                                  " commits by request and swaps no pointers");
  }
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*tables.catalog()));
  Attempt attempt;
  for (const auto& change : changes) {
    Status st = Prepare(tables, change, policy, options, &attempt);
    if (!st.ok()) {
      for (const auto& file : attempt.written)
        (void)tables.io()->DeleteFile(file, FileKind::kMetadata);
      return st;
    }
  }
  return PreparedSwaps{std::move(attempt.swaps), std::move(attempt.written)};
}

Status CommitTableChanges(TableCatalog& tables, const std::vector<TableChange>& changes) {
  return CommitTableChanges(tables, changes, TableChangesOptions{});
}

Status CommitTableChanges(TableCatalog& tables, const std::vector<TableChange>& changes,
                          const TableChangesOptions& options) {
  if (options.catalog_tag &&
      (tables.catalog()->CommitsMetadata() || !tables.catalog()->KeepsCatalogTags())) {
    return Status::NotImplemented("Catalog ", tables.catalog()->name(),
                                  " keeps no record of catalog tags");
  }
  std::set<std::string> seen;
  for (const auto& change : changes) {
    if (!seen.insert(change.ident.ToString()).second) {
      return Status::Invalid("Invalid table changes: table ", change.ident.ToString(),
                             " is changed twice; state all its changes in one entry");
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*tables.catalog()));
  // The audit rows of a change of several tables name the transaction they share.
  TableChangesOptions shared = options;
  if (shared.transaction_id.empty() && changes.size() > 1) shared.transaction_id = NewUuid();
  const RetryPolicy retry;
  for (int attempt_number = 0;; ++attempt_number) {
    Attempt attempt;
    Status st;
    for (const auto& change : changes) {
      st = Prepare(tables, change, policy, shared, &attempt);
      if (!st.ok()) break;
    }
    bool swapped = false;
    if (st.ok() && (!attempt.swaps.empty() || options.catalog_tag)) {
      st = tables.catalog()->SwapMetadataLocations(attempt.swaps, options.catalog_tag);
      swapped = true;
    } else if (st.ok() && !attempt.commits.empty()) {
      st = tables.catalog()->CommitTables(attempt.commits);
      swapped = true;
    }
    if (st.ok() || IsCommitStateUnknown(st)) return st;  // unknown: the files may be live
    for (const auto& file : attempt.written)
      (void)tables.io()->DeleteFile(file, FileKind::kMetadata);
    // A requirement that failed, or an update the metadata refused, fails again on retry; a
    // table that moved under a swap may leave every requirement holding on fresh metadata.
    const bool swap_lost = swapped && IsCommitConflict(st);
    if (!swap_lost || attempt_number >= retry.num_retries) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(RetryBackoffMs(retry, attempt_number)));
  }
}

}  // namespace floe::table
