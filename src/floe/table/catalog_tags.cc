#include "floe/table/catalog_tags.h"

#include <algorithm>
#include <map>
#include <set>

#include "floe/table/transaction_commit.h"
#include "floe/util/clock.h"
#include "floe/util/ids.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {

// A table that moves between the read and the swap fails a requirement; the statement then
// reads every table again, this many times in all.
constexpr int kCatalogTagAttempts = 5;

// OK where the catalog keeps a record of catalog tags; else why `verb` cannot be done.
Status CheckKeepsCatalogTags(const Catalog& catalog, const std::string& verb,
                             const std::string& name) {
  if (catalog.KeepsCatalogTags() && !catalog.CommitsMetadata()) return Status::OK();
  return Status::NotImplemented(
      "Cannot ", verb, " catalog tag ", name, ": catalog ", catalog.name(),
      catalog.CommitsMetadata() ? " is a REST catalog, which has" : " has",
      " no place to record the tables a catalog tag covers; catalog tags need a SQL catalog "
      "(SQLite or PostgreSQL)");
}

// Every table of `ns` and of the namespaces below it (of the whole catalog when none).
Status CollectCatalogTagTables(Catalog& catalog, const Namespace& ns,
                               std::vector<TableIdentifier>* out) {
  if (!ns.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto tables, catalog.ListTables(ns));
    out->insert(out->end(), tables.begin(), tables.end());
  }
  ARROW_ASSIGN_OR_RAISE(auto children, catalog.ListNamespaces(ns));
  for (const auto& child : children) {
    ARROW_RETURN_NOT_OK(CollectCatalogTagTables(catalog, child, out));
  }
  return Status::OK();
}

Result<std::vector<TableIdentifier>> CatalogTagScopeTables(Catalog& catalog,
                                                           const std::optional<Namespace>& ns) {
  std::vector<TableIdentifier> out;
  if (ns) {
    ARROW_RETURN_NOT_OK(ns->Validate());
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog.NamespaceExists(*ns));
    if (!exists) return NotFound("Namespace does not exist: ", ns->ToString());
  }
  ARROW_RETURN_NOT_OK(CollectCatalogTagTables(catalog, ns.value_or(Namespace()), &out));
  std::sort(out.begin(), out.end(), [](const TableIdentifier& a, const TableIdentifier& b) {
    return a.ToString() < b.ToString();
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

UpdateRequirement CatalogTagUuidIs(const std::string& uuid) {
  UpdateRequirement r;
  r.kind = UpdateRequirement::Kind::kAssertTableUuid;
  r.uuid = uuid;
  return r;
}

UpdateRequirement CatalogTagRefIs(const std::string& ref, std::optional<int64_t> snapshot_id) {
  UpdateRequirement r;
  r.kind = UpdateRequirement::Kind::kAssertRefSnapshotId;
  r.ref = ref;
  r.snapshot_id = snapshot_id;
  return r;
}

// main's requirement: at `current`, where the metadata has a main ref (v1 metadata may not).
void RequireMainAt(const spec::TableMetadata& md, std::vector<UpdateRequirement>* out) {
  auto it = md.refs.find(spec::kMainBranch);
  if (it != md.refs.end()) out->push_back(CatalogTagRefIs(spec::kMainBranch, it->second.snapshot_id));
}

// The loaded table of `ident`, or nullptr when it no longer exists.
Result<std::shared_ptr<Table>> LoadIfExists(TableCatalog& tables, const TableIdentifier& ident) {
  auto table = tables.LoadTable(ident);
  if (table.ok()) return *table;
  if (IsNotFound(table.status())) return std::shared_ptr<Table>();
  return table.status();
}

bool CatalogTagIdentLess(const TableIdentifier& a, const TableIdentifier& b) {
  return a.ToString() < b.ToString();
}

// Runs one attempt of a catalog-tag statement again while it lost a race with another writer
// (a requirement that no longer held); any other outcome is final.
template <typename T, typename F>
Result<T> WithCatalogTagRetries(F&& attempt) {
  for (int i = 1;; ++i) {
    Result<T> out = attempt();
    if (out.ok() || !IsCommitConflict(out.status()) || i >= kCatalogTagAttempts) return out;
  }
}

}  // namespace

Status CatalogTagNotFound(const Catalog& catalog, const std::string& name) {
  return NotFound("Catalog tag ", name, " does not exist in catalog ", catalog.name());
}

std::string CatalogTagAuditDetail(const std::string& name) { return "catalog tag " + name; }

Status CheckNewCatalogTag(Catalog& catalog, const std::string& name,
                          const CreateCatalogTagOptions& options) {
  if (name.empty()) return ValidationError("Invalid catalog tag name: empty");
  ARROW_RETURN_NOT_OK(CheckKeepsCatalogTags(catalog, "create", name));
  if (options.max_ref_age_ms && *options.max_ref_age_ms <= 0) {
    return ValidationError("Invalid retention for catalog tag ", name, ": ",
                           *options.max_ref_age_ms, " ms; it must be positive");
  }
  ARROW_ASSIGN_OR_RAISE(auto existing, catalog.LoadCatalogTag(name));
  if (existing) {
    return AlreadyExists("Catalog tag ", name, " already exists in catalog ", catalog.name());
  }
  return Status::OK();
}

spec::SnapshotRef CatalogTagRef(int64_t snapshot_id, const CreateCatalogTagOptions& options) {
  spec::SnapshotRef ref;
  ref.snapshot_id = snapshot_id;
  ref.type = spec::SnapshotRefType::kTag;
  ref.max_ref_age_ms = options.max_ref_age_ms;
  return ref;
}

Result<CatalogTagPlan> PlanCatalogTag(TableCatalog& tables, const std::string& name,
                                      const CreateCatalogTagOptions& options,
                                      const std::string& transaction_id, int64_t created_at_ms,
                                      const PendingTables& pending) {
  Catalog& catalog = *tables.catalog();
  ARROW_ASSIGN_OR_RAISE(auto idents, CatalogTagScopeTables(catalog, options.ns));
  CatalogTagPlan plan;
  plan.change.kind = CatalogTagChange::Kind::kCreate;
  CatalogTag& tag = plan.change.tag;
  tag.name = name;
  tag.ns = options.ns;
  tag.created_at_ms = created_at_ms;
  tag.max_ref_age_ms = options.max_ref_age_ms;
  tag.transaction_id = transaction_id;
  for (const auto& ident : idents) {
    auto own = pending.find(ident.ToString());
    spec::TableMetadataPtr md;
    std::string table_name = catalog.name() + "." + ident.ToString();
    if (own != pending.end()) {
      md = own->second;
    } else {
      ARROW_ASSIGN_OR_RAISE(auto table, LoadIfExists(tables, ident));
      if (!table) continue;  // dropped meanwhile
      md = table->metadata();
      table_name = table->name();
    }
    auto ref = md->refs.find(name);
    if (ref != md->refs.end()) {
      return ValidationError("Cannot create catalog tag ", name, ": table ", table_name,
                             " already has a ", ref->second.is_branch() ? "branch" : "tag",
                             " named ", name);
    }
    tag.tables.push_back({ident, md->table_uuid, md->current_snapshot_id});
    if (!md->current_snapshot_id) {
      plan.rows.push_back({ident, std::nullopt, "skipped: no snapshot"});
      continue;
    }
    plan.rows.push_back({ident, md->current_snapshot_id, "tagged"});
    if (own != pending.end()) continue;  // its committer adds the tag
    TableChange tc;
    tc.ident = ident;
    tc.requirements.push_back(CatalogTagUuidIs(md->table_uuid));
    RequireMainAt(*md, &tc.requirements);
    tc.requirements.push_back(CatalogTagRefIs(name, std::nullopt));
    tc.updates.push_back(update::SetSnapshotRef{name, CatalogTagRef(*md->current_snapshot_id, options)});
    plan.changes.push_back(std::move(tc));
  }
  return plan;
}

Result<std::vector<CatalogTagTableAction>> CreateCatalogTag(TableCatalog& tables,
                                                            const std::string& name,
                                                            const CreateCatalogTagOptions& options) {
  ARROW_RETURN_NOT_OK(CheckNewCatalogTag(*tables.catalog(), name, options));
  const std::string transaction_id = NewUuid();
  return WithCatalogTagRetries<std::vector<CatalogTagTableAction>>(
      [&]() -> Result<std::vector<CatalogTagTableAction>> {
        ARROW_ASSIGN_OR_RAISE(auto plan, PlanCatalogTag(tables, name, options, transaction_id,
                                                        NowMillis(), PendingTables{}));
        TableChangesOptions commit;
        commit.transaction_id = transaction_id;
        commit.audit_detail = CatalogTagAuditDetail(name);
        commit.catalog_tag = &plan.change;
        ARROW_RETURN_NOT_OK(CommitTableChanges(tables, plan.changes, commit));
        return std::move(plan.rows);
      });
}

Result<std::vector<CatalogTagTableAction>> DropCatalogTag(TableCatalog& tables,
                                                          const std::string& name) {
  Catalog& catalog = *tables.catalog();
  ARROW_RETURN_NOT_OK(CheckKeepsCatalogTags(catalog, "drop", name));
  const std::string transaction_id = NewUuid();
  return WithCatalogTagRetries<std::vector<CatalogTagTableAction>>(
      [&]() -> Result<std::vector<CatalogTagTableAction>> {
        ARROW_ASSIGN_OR_RAISE(auto recorded, catalog.LoadCatalogTag(name));
        if (!recorded) return CatalogTagNotFound(catalog, name);
        std::vector<TableChange> changes;
        std::vector<CatalogTagTableAction> rows;
        for (const auto& entry : recorded->tables) {
          if (!entry.snapshot_id) continue;  // never tagged
          ARROW_ASSIGN_OR_RAISE(auto table, LoadIfExists(tables, entry.ident));
          if (!table || table->metadata()->table_uuid != entry.table_uuid) {
            rows.push_back({entry.ident, entry.snapshot_id, "dropped since the tag"});
            continue;
          }
          auto md = table->metadata();
          auto ref = md->refs.find(name);
          if (ref == md->refs.end()) {
            rows.push_back({entry.ident, entry.snapshot_id, "left: its tag was removed"});
            continue;
          }
          if (ref->second.is_branch() || ref->second.snapshot_id != *entry.snapshot_id) {
            rows.push_back({entry.ident, ref->second.snapshot_id,
                            StrCat("left: ", name, " now a ", ref->second.is_branch() ? "branch" : "tag",
                                   " at another snapshot")});
            continue;
          }
          TableChange tc;
          tc.ident = entry.ident;
          tc.requirements.push_back(CatalogTagUuidIs(md->table_uuid));
          tc.requirements.push_back(CatalogTagRefIs(name, entry.snapshot_id));
          tc.updates.push_back(update::RemoveSnapshotRef{name});
          changes.push_back(std::move(tc));
          rows.push_back({entry.ident, entry.snapshot_id, "untagged"});
        }
        CatalogTagChange change;
        change.kind = CatalogTagChange::Kind::kDrop;
        change.tag.name = name;
        TableChangesOptions commit;
        commit.transaction_id = transaction_id;
        commit.audit_detail = "drop of catalog tag " + name;
        commit.catalog_tag = &change;
        ARROW_RETURN_NOT_OK(CommitTableChanges(tables, changes, commit));
        return rows;
      });
}

Result<std::vector<CatalogTagMove>> RollbackToCatalogTag(
    TableCatalog& tables, const std::string& name, const RollbackToCatalogTagOptions& options) {
  Catalog& catalog = *tables.catalog();
  ARROW_RETURN_NOT_OK(CheckKeepsCatalogTags(catalog, "roll back to", name));
  const std::string transaction_id = NewUuid();
  return WithCatalogTagRetries<std::vector<CatalogTagMove>>(
      [&]() -> Result<std::vector<CatalogTagMove>> {
        ARROW_ASSIGN_OR_RAISE(auto recorded, catalog.LoadCatalogTag(name));
        if (!recorded) return CatalogTagNotFound(catalog, name);
        std::optional<Namespace> scope = recorded->ns;
        if (options.ns) {
          ARROW_RETURN_NOT_OK(options.ns->Validate());
          if (recorded->ns && !options.ns->HasPrefix(*recorded->ns)) {
            return ValidationError("Cannot roll back to catalog tag ", name, " in namespace ",
                                   options.ns->ToString(), ": the tag covers namespace ",
                                   recorded->ns->ToString(), " only");
          }
          scope = options.ns;
        }
        auto in_scope = [&](const TableIdentifier& ident) {
          return !scope || ident.ns.HasPrefix(*scope);
        };
        std::vector<TableIdentifier> now;
        auto listed = CatalogTagScopeTables(catalog, scope);
        if (listed.ok()) {
          now = std::move(*listed);
        } else if (!IsNotFound(listed.status())) {
          return listed.status();  // a namespace gone with its tables leaves nothing new
        }
        std::set<std::string> covered;
        std::vector<TableChange> changes;
        std::vector<CatalogTagMove> rows;
        auto empty_table = [&](const Table& table, const char* why) {
          auto md = table.metadata();
          CatalogTagMove move{table.ident(), md->current_snapshot_id, std::nullopt, ""};
          if (!md->current_snapshot_id) {
            move.current_snapshot_id = md->current_snapshot_id;
            move.action = "unchanged";
          } else if (!options.include_new_tables) {
            move.current_snapshot_id = md->current_snapshot_id;
            move.action = StrCat(why, " (left alone)");
          } else {
            TableChange tc;
            tc.ident = table.ident();
            tc.requirements.push_back(CatalogTagUuidIs(md->table_uuid));
            RequireMainAt(*md, &tc.requirements);
            tc.updates.push_back(update::RemoveSnapshotRef{spec::kMainBranch});
            changes.push_back(std::move(tc));
            move.action = StrCat("emptied (", why, ")");
          }
          rows.push_back(std::move(move));
        };
        for (const auto& entry : recorded->tables) {
          if (!in_scope(entry.ident)) continue;
          covered.insert(entry.ident.ToString());
          ARROW_ASSIGN_OR_RAISE(auto table, LoadIfExists(tables, entry.ident));
          if (!table || table->metadata()->table_uuid != entry.table_uuid) {
            rows.push_back({entry.ident, std::nullopt, std::nullopt, "dropped since the tag"});
            continue;
          }
          auto md = table->metadata();
          if (!entry.snapshot_id) {
            empty_table(*table, "no snapshot at the tag");
            continue;
          }
          if (!md->SnapshotById(*entry.snapshot_id)) {
            return ValidationError("Cannot roll back ", table->name(), " to catalog tag ", name,
                                   ": snapshot ", *entry.snapshot_id, " no longer exists");
          }
          if (md->current_snapshot_id == entry.snapshot_id) {
            rows.push_back({entry.ident, entry.snapshot_id, entry.snapshot_id, "unchanged"});
            continue;
          }
          spec::SnapshotRef main;
          auto it = md->refs.find(spec::kMainBranch);
          if (it != md->refs.end()) main = it->second;
          main.snapshot_id = *entry.snapshot_id;
          main.type = spec::SnapshotRefType::kBranch;
          TableChange tc;
          tc.ident = entry.ident;
          tc.requirements.push_back(CatalogTagUuidIs(md->table_uuid));
          RequireMainAt(*md, &tc.requirements);
          tc.updates.push_back(update::SetSnapshotRef{spec::kMainBranch, main});
          changes.push_back(std::move(tc));
          rows.push_back({entry.ident, md->current_snapshot_id, entry.snapshot_id, "rolled back"});
        }
        for (const auto& ident : now) {
          if (covered.count(ident.ToString())) continue;
          ARROW_ASSIGN_OR_RAISE(auto table, LoadIfExists(tables, ident));
          if (!table) continue;
          empty_table(*table, "created after the tag");
        }
        std::sort(rows.begin(), rows.end(), [](const CatalogTagMove& a, const CatalogTagMove& b) {
          return CatalogTagIdentLess(a.ident, b.ident);
        });
        if (options.dry_run) return rows;
        TableChangesOptions commit;
        commit.transaction_id = transaction_id;
        commit.audit_detail = "rollback to catalog tag " + name;
        ARROW_RETURN_NOT_OK(CommitTableChanges(tables, changes, commit));
        return rows;
      });
}

}  // namespace floe::table
