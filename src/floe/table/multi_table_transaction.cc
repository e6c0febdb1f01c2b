#include "floe/table/multi_table_transaction.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

#include "floe/table/catalog_tags.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/protection.h"
#include "floe/table/table_catalog.h"
#include "floe/table/transaction_commit.h"
#include "floe/util/clock.h"
#include "floe/util/crash_point.h"

namespace floe::table {

struct MultiTableTransaction::Entry {
  std::shared_ptr<Table> table;
  spec::TableMetadataPtr read_base;
  std::string read_location;
  std::vector<StagedWrite> writes;
  // Per write, the files its staging wrote for the view (manifest lists, rewritten
  // manifests): live if the commit needs no replay, garbage if it does.
  std::vector<std::vector<std::string>> staged_files;
};

namespace {

void RemoveAll(FileIO& io, const std::vector<std::string>& files) {
  for (const auto& f : files) (void)io.DeleteFile(f, FileKind::kOther);
}

// Snapshots a transaction adds to its tables all carry the commit's time, not the time each
// statement ran: a reader asking for any table "as of" a moment sees all of the transaction
// or none of it.
void StampCommitTime(const spec::TableMetadata& base, int64_t commit_ms,
                     spec::TableMetadata* updated) {
  const int64_t at = std::max(commit_ms, base.last_updated_ms);
  std::set<int64_t> added;
  for (auto& s : updated->snapshots) {
    if (base.SnapshotById(s.snapshot_id) != nullptr) continue;
    s.timestamp_ms = at;
    added.insert(s.snapshot_id);
  }
  for (auto& e : updated->snapshot_log) {
    if (added.count(e.snapshot_id)) e.timestamp_ms = at;
  }
  updated->last_updated_ms = std::max(updated->last_updated_ms, at);
}

// What the commit's audit rows and metadata say made it: the client of the session and the
// statements that wrote the table.
CommitProvenance ProvenanceOf(const CommitProvenance& session,
                              const std::vector<StagedWrite>& writes) {
  CommitProvenance out = session;
  std::string statements;
  for (const auto& w : writes) {
    if (w.provenance.statement.empty()) continue;
    if (!statements.empty()) statements += "; ";
    statements += w.provenance.statement;
  }
  out.statement = TruncateStatement(statements);
  return out;
}

struct Prepared {
  std::shared_ptr<Table> table;
  spec::TableMetadataPtr base;
  std::string base_location;
  std::shared_ptr<spec::TableMetadata> updated;
  bool replayed = false;
  std::string location;  // the new metadata file (catalogs floe writes the files for)
};

}  // namespace

MultiTableTransaction::MultiTableTransaction(std::string id) : id_(std::move(id)) {}

MultiTableTransaction::~MultiTableTransaction() {
  for (auto& e : entries_) e->table->set_transaction(nullptr);
}

MultiTableTransaction::Entry* MultiTableTransaction::FindEntry(const TableIdentifier& ident) const {
  for (const auto& e : entries_) {
    if (e->table->ident() == ident) return e.get();
  }
  return nullptr;
}

std::shared_ptr<Table> MultiTableTransaction::Find(const TableIdentifier& ident) const {
  Entry* e = FindEntry(ident);
  return e ? e->table : nullptr;
}

void MultiTableTransaction::Track(const std::shared_ptr<Table>& table) {
  if (FindEntry(table->ident())) return;
  auto e = std::make_unique<Entry>();
  e->table = table;
  e->read_base = table->metadata();
  e->read_location = table->metadata_location();
  table->set_transaction(this);
  entries_.push_back(std::move(e));
}

Status MultiTableTransaction::Stage(Table& table, StagedWrite write) {
  Entry* e = FindEntry(table.ident());
  if (!e || e->table.get() != &table) {
    return Status::Invalid("Table ", table.name(), " is not part of transaction ", id_);
  }
  spec::TableMetadataPtr base = table.metadata();
  std::vector<std::string> files;
  auto updated = write.apply(base, &files);
  if (!updated.ok()) {
    RemoveAll(*table.io(), files);
    return updated.status();
  }
  std::shared_ptr<spec::TableMetadata> metadata = std::move(updated).ValueUnsafe();
  if (!metadata) {
    RemoveAll(*table.io(), files);
    return Status::OK();
  }
  Status st = CheckTableLocations(table, *metadata);
  if (st.ok()) st = CheckProtection(table.name(), *base, *metadata);
  if (!st.ok()) {
    RemoveAll(*table.io(), files);
    return st;
  }
  StampProvenance(write.provenance, *base, metadata.get());
  e->writes.push_back(std::move(write));
  e->staged_files.push_back(std::move(files));
  table.SetCurrent(std::move(metadata), e->read_location);
  return Status::OK();
}

bool MultiTableTransaction::HasWrites() const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [](const auto& e) { return !e->writes.empty(); });
}

std::vector<TableIdentifier> MultiTableTransaction::WrittenTables() const {
  std::vector<TableIdentifier> out;
  for (const auto& e : entries_) {
    if (!e->writes.empty()) out.push_back(e->table->ident());
  }
  return out;
}

Status MultiTableTransaction::CommitOnce(TableCatalog& tables, int64_t commit_ms, const NewCatalogTag* tag,
                                         bool* retry) {
  *retry = false;
  Catalog& catalog = *tables.catalog();
  std::vector<Prepared> prepared;
  std::vector<std::pair<FileIO*, std::string>> written;  // this attempt's files
  auto fail = [&](Status st) {
    for (const auto& [io, file] : written) (void)io->DeleteFile(file, FileKind::kOther);
    return st;
  };
  for (auto& e : entries_) {
    if (e->writes.empty()) continue;
    Table& table = *e->table;
    FileIO& io = *table.io();
    const std::string name = table.name();
    Prepared p;
    p.table = e->table;
    auto loaded = catalog.LoadTable(table.ident());
    if (!loaded.ok()) {
      if (IsNotFound(loaded.status())) {
        return fail(CommitConflict("Cannot commit the transaction: table ", name,
                                   " was dropped since the transaction read it"));
      }
      return fail(loaded.status());
    }
    p.base_location = loaded->metadata_location;
    p.base = loaded->metadata;
    if (!p.base) {
      auto read = ReadCurrentMetadataFile(io, p.base_location);
      if (!read.ok()) return fail(read.status());
      p.base = *read;
    }
    if (p.base_location == e->read_location) {
      p.updated = std::make_shared<spec::TableMetadata>(*table.metadata());
    } else {
      if (p.base->table_uuid != e->read_base->table_uuid) {
        return fail(CommitConflict("Cannot commit the transaction: table ", name,
                                   " was replaced by another table since the transaction read it"));
      }
      // Others committed meanwhile: every write is checked against what they changed, then
      // applied again on top of it.
      for (const auto& w : e->writes) {
        if (!w.validate_since) continue;
        Status valid = w.validate_since(*p.base, *e->read_base);
        if (!valid.ok()) {
          return fail(WithContext(valid, "Cannot commit the transaction: " + name +
                                             " changed since the transaction read it"));
        }
      }
      spec::TableMetadataPtr current = p.base;
      for (const auto& w : e->writes) {
        std::vector<std::string> files;
        auto applied = w.apply(current, &files);
        for (auto& f : files) written.emplace_back(&io, std::move(f));
        if (!applied.ok()) {
          return fail(WithContext(applied.status(), "Cannot commit the transaction: " + name));
        }
        if (!*applied) continue;
        StampProvenance(w.provenance, *current, applied->get());
        current = *applied;
      }
      p.updated = std::make_shared<spec::TableMetadata>(*current);
      p.replayed = true;
    }
    StampCommitTime(*p.base, commit_ms, p.updated.get());
    Status allowed = CheckTableLocations(table, *p.updated);
    if (allowed.ok()) allowed = CheckProtection(name, *p.base, *p.updated);
    if (!allowed.ok()) {
      RecordRefusal(table, allowed);
      return fail(allowed);
    }
    prepared.push_back(std::move(p));
  }
  if (prepared.empty() && !tag) return Status::OK();

  Status st;
  if (catalog.CommitsMetadata()) {
    std::vector<Catalog::TableCommit> commits;
    for (auto& p : prepared) {
      Entry* e = FindEntry(p.table->ident());
      StampProvenance(ProvenanceOf(tables.provenance(), e->writes), *p.base, p.updated.get());
      commits.push_back({p.table->ident(), p.base, p.updated});
    }
    CrashPoint("transaction-after-files");
    if (commits.size() == 1) {
      auto one = catalog.CommitTable(commits[0].ident, commits[0].base.get(), *commits[0].updated);
      st = one.status();
      if (one.ok()) prepared[0].location = one->metadata_location;
    } else {
      st = catalog.CommitTables(commits);
    }
  } else {
    std::optional<CatalogTagPlan> plan;
    if (tag) {
      PendingTables pending;
      for (const auto& p : prepared) pending[p.table->ident().ToString()] = p.updated;
      auto planned = PlanCatalogTag(tables, tag->name, tag->options, id_, commit_ms, pending);
      if (!planned.ok()) return fail(planned.status());
      plan = std::move(*planned);
      std::set<std::string> tagged;
      for (const auto& row : plan->rows) {
        if (row.snapshot_id) tagged.insert(row.ident.ToString());
      }
      for (auto& p : prepared) {
        if (!tagged.count(p.table->ident().ToString())) continue;
        p.updated->refs[tag->name] = CatalogTagRef(*p.updated->current_snapshot_id, tag->options);
      }
    }
    std::vector<Catalog::TableSwap> swaps;
    for (auto& p : prepared) {
      Entry* e = FindEntry(p.table->ident());
      const CommitProvenance provenance = ProvenanceOf(tables.provenance(), e->writes);
      auto next = WriteNextMetadata(*p.table->io(), provenance, p.base.get(), p.base_location,
                                    p.updated.get());
      if (!next.ok()) return fail(WithContext(next.status(), "Cannot commit " + p.table->name()));
      written.emplace_back(p.table->io().get(), next->location);
      p.location = next->location;
      next->record.transaction_id = id_;
      swaps.push_back({p.table->ident(), p.base_location, next->location, std::move(next->record)});
    }
    if (plan) {
      TableChangesOptions options;
      options.transaction_id = id_;
      options.audit_detail = CatalogTagAuditDetail(tag->name);
      auto others = PrepareTableSwaps(tables, plan->changes, options);
      if (!others.ok()) {
        *retry = IsCommitConflict(others.status());  // a table moved since the plan read it
        return fail(others.status());
      }
      for (auto& file : others->written) written.emplace_back(tables.io().get(), std::move(file));
      for (auto& swap : others->swaps) swaps.push_back(std::move(swap));
    }
    CrashPoint("transaction-after-files");
    st = catalog.SwapMetadataLocations(swaps, plan ? &plan->change : nullptr);
  }
  if (IsCommitStateUnknown(st)) return st;  // the new files may be live: keep them all
  if (!st.ok()) {
    *retry = IsCommitConflict(st);  // a table moved between its load and the swap
    return fail(st);
  }
  CrashPoint("transaction-after-catalog");
  for (auto& p : prepared) {
    Entry* e = FindEntry(p.table->ident());
    if (p.replayed) {
      for (const auto& files : e->staged_files) RemoveAll(*p.table->io(), files);
    }
    for (const auto& w : e->writes) {
      if (w.committed) w.committed();
    }
    e->writes.clear();
    e->staged_files.clear();
    p.table->SetCurrent(p.updated, p.location);
  }
  return Status::OK();
}

Status MultiTableTransaction::Commit(TableCatalog& tables, const NewCatalogTag* tag) {
  if (tag) {
    Status possible = CheckNewCatalogTag(*tables.catalog(), tag->name, tag->options);
    if (!possible.ok()) {
      Discard();
      return WithContext(possible, "Cannot commit the transaction");
    }
  }
  const RetryPolicy retry;
  const int64_t commit_ms = NowMillis();
  for (int attempt = 0;; ++attempt) {
    bool again = false;
    Status st = CommitOnce(tables, commit_ms, tag, &again);
    if (st.ok() || IsCommitStateUnknown(st)) return st;
    if (!again || attempt >= retry.num_retries) {
      Discard();
      return st;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(RetryBackoffMs(retry, attempt)));
  }
}

void MultiTableTransaction::Discard() {
  for (auto& e : entries_) {
    for (size_t i = e->writes.size(); i-- > 0;) {
      RemoveAll(*e->table->io(), e->staged_files[i]);
      if (e->writes[i].discard) e->writes[i].discard();
    }
    e->writes.clear();
    e->staged_files.clear();
    e->table->SetCurrent(e->read_base, e->read_location);
  }
}

MultiTableTransaction::Mark MultiTableTransaction::Save() const {
  Mark mark;
  for (const auto& e : entries_) {
    const std::string key = e->table->ident().ToString();
    mark.writes[key] = e->writes.size();
    mark.views[key] = e->table->metadata();
  }
  return mark;
}

void MultiTableTransaction::RollbackTo(const Mark& mark) {
  for (auto& e : entries_) {
    const std::string key = e->table->ident().ToString();
    auto kept = mark.writes.find(key);
    const size_t keep = kept == mark.writes.end() ? 0 : kept->second;
    for (size_t i = e->writes.size(); i-- > keep;) {
      RemoveAll(*e->table->io(), e->staged_files[i]);
      if (e->writes[i].discard) e->writes[i].discard();
    }
    e->writes.resize(std::min(keep, e->writes.size()));
    e->staged_files.resize(e->writes.size());
    auto view = mark.views.find(key);
    e->table->SetCurrent(view == mark.views.end() ? e->read_base : view->second,
                         e->read_location);
  }
}

}  // namespace floe::table
