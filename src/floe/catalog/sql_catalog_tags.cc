// The SQL catalog's record of catalog tags (catalog_tags_sql.h).

#include <map>
#include <string>

#include "floe/catalog/catalog_tags_sql.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/util/number_parse.h"

namespace floe {

namespace {

Result<std::optional<int64_t>> TagInt(const std::optional<std::string>& value,
                                      const char* column) {
  if (!value) return std::nullopt;
  std::optional<int64_t> out = ParseInt64(*value);
  if (!out) return Status::IOError("Unreadable ", column, " in floe_catalog_tags: ", *value);
  return out;
}

std::string OptionalText(const std::optional<int64_t>& value) {
  return value ? std::to_string(*value) : std::string();
}

SqlDriver::Arg NullIfEmpty(const std::string& value) {
  if (value.empty()) return std::nullopt;
  return std::string_view(value);
}

}  // namespace

Result<bool> SqlCatalog::HasCatalogTags() {
  if (has_catalog_tags_) return true;
  ARROW_ASSIGN_OR_RAISE(has_catalog_tags_, driver_->HasTable("floe_catalog_tags"));
  return has_catalog_tags_;
}

Status SqlCatalog::ChangeCatalogTag(const CatalogTagChange& change) {
  const CatalogTag& tag = change.tag;
  if (change.kind == CatalogTagChange::Kind::kDrop) {
    ARROW_ASSIGN_OR_RAISE(bool has_tags, HasCatalogTags());
    ARROW_ASSIGN_OR_RAISE(int deleted,
                          has_tags ? Execute(catalog_tags_sql::kDeleteTag, {name_, tag.name})
                                   : Result<int>(0));
    if (deleted == 0) {
      return NotFound("Catalog tag ", tag.name, " does not exist in catalog ", name_);
    }
    return Execute(catalog_tags_sql::kDeleteTables, {name_, tag.name}).status();
  }
  ARROW_ASSIGN_OR_RAISE(bool has_tags, HasCatalogTags());
  if (!has_tags) {
    ARROW_RETURN_NOT_OK(driver_->LockSchema());
    ARROW_RETURN_NOT_OK(driver_->Exec(catalog_tags_sql::kCreateTags));
    ARROW_RETURN_NOT_OK(driver_->Exec(catalog_tags_sql::kCreateTables));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto rows, Query(catalog_tags_sql::kSelectTag, {name_, tag.name}));
    if (!rows.empty()) {
      return AlreadyExists("Catalog tag ", tag.name, " already exists in catalog ", name_);
    }
  }
  const std::string ns = tag.ns ? tag.ns->ToString() : std::string();
  const std::string created = std::to_string(tag.created_at_ms);
  const std::string age = OptionalText(tag.max_ref_age_ms);
  ARROW_RETURN_NOT_OK(Execute(catalog_tags_sql::kInsertTag,
                              {name_, tag.name, tag.ns ? SqlDriver::Arg(ns) : std::nullopt,
                               created, NullIfEmpty(age), NullIfEmpty(tag.transaction_id)}));
  for (const auto& table : tag.tables) {
    const std::string table_ns = table.ident.ns.ToString();
    const std::string snapshot = OptionalText(table.snapshot_id);
    ARROW_RETURN_NOT_OK(Execute(catalog_tags_sql::kInsertTable,
                                {name_, tag.name, table_ns, table.ident.name,
                                 NullIfEmpty(table.table_uuid), NullIfEmpty(snapshot)}));
  }
  return Status::OK();
}

Result<std::vector<CatalogTag>> SqlCatalog::ReadCatalogTags(
    const std::optional<std::string>& name) {
  std::vector<CatalogTag> out;
  ARROW_ASSIGN_OR_RAISE(bool has_tags, HasCatalogTags());
  if (!has_tags) return out;
  std::vector<Row> tag_rows, table_rows;
  if (name) {
    ARROW_ASSIGN_OR_RAISE(tag_rows, Query(catalog_tags_sql::kSelectTag, {name_, *name}));
    if (tag_rows.empty()) return out;
    ARROW_ASSIGN_OR_RAISE(table_rows, Query(catalog_tags_sql::kSelectTables, {name_, *name}));
  } else {
    ARROW_ASSIGN_OR_RAISE(tag_rows, Query(catalog_tags_sql::kSelectTags, {name_}));
    ARROW_ASSIGN_OR_RAISE(table_rows, Query(catalog_tags_sql::kSelectAllTables, {name_}));
  }
  std::map<std::string, size_t> index;
  for (const auto& row : tag_rows) {
    CatalogTag tag;
    tag.name = row[0].value_or("");
    if (row[1]) tag.ns = Namespace(SplitDots(*row[1]));
    ARROW_ASSIGN_OR_RAISE(auto created, TagInt(row[2], "created_at_ms"));
    tag.created_at_ms = created.value_or(0);
    ARROW_ASSIGN_OR_RAISE(tag.max_ref_age_ms, TagInt(row[3], "max_ref_age_ms"));
    tag.transaction_id = row[4].value_or("");
    index[tag.name] = out.size();
    out.push_back(std::move(tag));
  }
  for (const auto& row : table_rows) {
    auto it = index.find(row[0].value_or(""));
    if (it == index.end()) continue;
    CatalogTagTable table;
    table.ident = TableIdentifier(Namespace(SplitDots(row[1].value_or(""))), row[2].value_or(""));
    table.table_uuid = row[3].value_or("");
    ARROW_ASSIGN_OR_RAISE(table.snapshot_id, TagInt(row[4], "snapshot_id"));
    out[it->second].tables.push_back(std::move(table));
  }
  return out;
}

Result<std::optional<CatalogTag>> SqlCatalog::LoadCatalogTag(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ARROW_ASSIGN_OR_RAISE(auto tags, Read([&] { return ReadCatalogTags(name); }));
  if (tags.empty()) return std::optional<CatalogTag>();
  return std::optional<CatalogTag>(std::move(tags[0]));
}

Result<std::vector<CatalogTag>> SqlCatalog::ListCatalogTags() {
  std::lock_guard<std::mutex> lock(mu_);
  return Read([&] { return ReadCatalogTags(std::nullopt); });
}

}  // namespace floe
