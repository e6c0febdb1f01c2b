#include "floe/table/table_catalog.h"

#include <optional>
#include <set>
#include <unordered_map>

#include "floe/io/object_store.h"
#include "floe/table/audit_change.h"
#include "floe/table/commit.h"
#include "floe/table/commit_provenance.h"
#include "floe/table/location_policy.h"
#include "floe/table/metadata_files.h"
#include "floe/table/reachable_files.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/clock.h"
#include "floe/util/ids.h"

namespace floe::table {

using spec::NestedField;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

namespace {

// Reassigns field ids the way Iceberg does for a new table: each struct's fields first,
// then their children, depth first. `mapping` receives old id -> new id.
class FreshIds {
 public:
  std::vector<NestedField> Fields(const std::vector<NestedField>& fields) {
    std::vector<NestedField> out = fields;
    for (auto& f : out) {
      int32_t id = ++next_;
      mapping[f.id] = id;
      f.id = id;
    }
    for (auto& f : out) f.type = Convert(f.type);
    return out;
  }

  TypePtr Convert(const TypePtr& type) {
    switch (type->id()) {
      case TypeId::kStruct:
        return Type::Struct(Fields(type->fields()));
      case TypeId::kList: {
        int32_t id = ++next_;
        mapping[type->element().id] = id;
        return Type::List(id, Convert(type->element().type), type->element().required);
      }
      case TypeId::kMap: {
        int32_t key_id = ++next_;
        int32_t value_id = ++next_;
        mapping[type->key().id] = key_id;
        mapping[type->value().id] = value_id;
        return Type::Map(key_id, Convert(type->key().type), value_id, Convert(type->value().type),
                         type->value().required);
      }
      default:
        return type;
    }
  }

  std::unordered_map<int32_t, int32_t> mapping;

 private:
  int32_t next_ = 0;
};

const NestedField* FindColumn(const spec::Schema& schema, const std::string& name) {
  const NestedField* f = schema.FindFieldByName(name);
  return f ? f : schema.FindFieldByNameCaseInsensitive(name);
}

}  // namespace

std::string DefaultPartitionFieldName(const std::string& column, const spec::Transform& t) {
  switch (t.kind()) {
    case spec::TransformKind::kIdentity:
      return column;
    case spec::TransformKind::kBucket:
      return column + "_bucket";
    case spec::TransformKind::kTruncate:
      return column + "_trunc";
    case spec::TransformKind::kYear:
      return column + "_year";
    case spec::TransformKind::kMonth:
      return column + "_month";
    case spec::TransformKind::kDay:
      return column + "_day";
    case spec::TransformKind::kHour:
      return column + "_hour";
    case spec::TransformKind::kVoid:
      return column + "_null";
    default:
      return column + "_" + t.ToString();
  }
}

Result<std::shared_ptr<spec::TableMetadata>> NewTableMetadata(const spec::Schema& schema,
                                                              const CreateTableOptions& options,
                                                              const std::string& location) {
  if (options.format_version < 1 || options.format_version > spec::kMaxReadableFormatVersion) {
    return ValidationError("Unsupported format version: ", options.format_version);
  }
  FreshIds fresh;
  std::vector<NestedField> fields = fresh.Fields(schema.fields());
  std::vector<int32_t> identifiers;
  for (int32_t id : schema.identifier_field_ids()) identifiers.push_back(fresh.mapping[id]);
  auto fresh_schema = std::make_shared<const spec::Schema>(0, std::move(fields), identifiers);

  std::vector<spec::PartitionField> partition_fields;
  std::set<std::string> names;
  int32_t next_partition_id = spec::kFirstPartitionFieldId;
  for (const auto& upf : options.partition_by) {
    const NestedField* source = FindColumn(*fresh_schema, upf.source_column);
    if (!source) return ValidationError("Cannot find source column: ", upf.source_column);
    if (!upf.transform.CanTransform(*source->type)) {
      return ValidationError("Invalid source type ", source->type->ToString(), " for transform: ",
                             upf.transform.ToString());
    }
    std::string name = upf.name.empty() ? DefaultPartitionFieldName(source->name, upf.transform)
                                         : upf.name;
    if (!names.insert(name).second) {
      return ValidationError("Cannot use partition name more than once: ", name);
    }
    for (const auto& existing : partition_fields) {
      if (existing.source_id == source->id && existing.transform == upf.transform) {
        return ValidationError("Cannot add redundant partition field: ", name);
      }
    }
    partition_fields.push_back({source->id, next_partition_id++, name, upf.transform});
  }
  spec::PartitionSpec partition_spec(0, partition_fields);

  spec::SortOrder order;
  for (const auto& usf : options.sort_by) {
    const NestedField* source = FindColumn(*fresh_schema, usf.source_column);
    if (!source) return ValidationError("Cannot find source column: ", usf.source_column);
    order.fields.push_back({usf.transform, source->id, usf.direction, usf.null_order});
  }

  auto builder = TableMetadataBuilder::ForNewTable(options.format_version, NewUuid(), location);
  ARROW_RETURN_NOT_OK(builder.AddSchema(*fresh_schema).status());
  ARROW_RETURN_NOT_OK(builder.SetCurrentSchema(TableMetadataBuilder::kLastAdded));
  ARROW_RETURN_NOT_OK(builder.AddPartitionSpec(partition_spec).status());
  ARROW_RETURN_NOT_OK(builder.SetDefaultPartitionSpec(TableMetadataBuilder::kLastAdded));
  ARROW_RETURN_NOT_OK(builder.AddSortOrder(order).status());
  ARROW_RETURN_NOT_OK(builder.SetDefaultSortOrder(TableMetadataBuilder::kLastAdded));
  builder.SetProperties(options.properties);
  // Iceberg writes zstd Parquet by default and records it on every new table.
  if (!options.properties.count("write.parquet.compression-codec")) {
    builder.SetProperties({{"write.parquet.compression-codec", "zstd"}});
  }
  return builder.Build();
}

std::string TableCatalog::DefaultLocation(const TableIdentifier& ident) const {
  return catalog_->DefaultTableLocation(ident);
}

Result<std::shared_ptr<spec::TableMetadata>> TableCatalog::StageCreate(
    const TableIdentifier& ident, const spec::Schema& schema, const CreateTableOptions& options) {
  // Before anything is written: the names become directories of the default location.
  ARROW_RETURN_NOT_OK(ident.ValidateNew());
  ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(ident));
  if (exists) return AlreadyExists("Table already exists: ", ident.ToString());
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, catalog_->NamespaceExists(ident.ns));
  if (!ns_exists) return NotFound("Namespace does not exist: ", ident.ns.ToString());
  auto canonical = [&](std::string_view what, const std::string& given) -> Result<std::string> {
    auto out = CanonicalLocation(given);
    if (!out.ok()) {
      return ValidationError(what, " ", given, " of table ", ident.ToString(),
                             " is not usable: ", out.status().message());
    }
    return out;
  };
  std::string location = options.location;
  if (location.empty()) {
    ARROW_ASSIGN_OR_RAISE(location, catalog_->NewTableLocation(ident));
  }
  ARROW_ASSIGN_OR_RAISE(location, canonical("Location", location));
  if (options.location_as_given && !options.location.empty()) {
    location = options.location;
    while (location.size() > 1 && location.back() == '/') location.pop_back();
  }
  CreateTableOptions stored = options;
  for (const char* key : kLocationProperties) {
    auto it = stored.properties.find(key);
    if (it != stored.properties.end() && !it->second.empty()) {
      ARROW_ASSIGN_OR_RAISE(it->second, canonical(key, it->second));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto md, NewTableMetadata(schema, stored, location));
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*catalog_));
  ARROW_RETURN_NOT_OK(policy.CheckTable(ident, *md));
  return md;
}

Result<std::shared_ptr<Table>> TableCatalog::CreateTable(const TableIdentifier& ident,
                                                         const spec::Schema& schema,
                                                         const CreateTableOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto md, StageCreate(ident, schema, options));
  return WriteNewTable(ident, std::move(md));
}

Result<std::shared_ptr<Table>> TableCatalog::CreateTableFromMetadata(
    const TableIdentifier& ident, std::shared_ptr<spec::TableMetadata> md) {
  ARROW_RETURN_NOT_OK(ident.ValidateNew());
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*catalog_));
  ARROW_RETURN_NOT_OK(policy.CheckTable(ident, *md));
  return WriteNewTable(ident, std::move(md));
}

Result<std::shared_ptr<Table>> TableCatalog::WriteNewTable(const TableIdentifier& ident,
                                                           std::shared_ptr<spec::TableMetadata> md) {
  if (catalog_->CommitsMetadata()) {
    StampProvenance(provenance(), spec::TableMetadata{}, md.get());
    ARROW_ASSIGN_OR_RAISE(CatalogTable created, catalog_->CommitTable(ident, nullptr, *md));
    ARROW_ASSIGN_OR_RAISE(auto io, io_->ForTable(created.config));
    spec::TableMetadataPtr metadata = created.metadata ? created.metadata : md;
    auto table = std::make_shared<Table>(ident, catalog_, std::move(io), std::move(metadata),
                                         std::move(created.metadata_location));
    table->set_provenance(provenance_);
    return table;
  }
  ARROW_ASSIGN_OR_RAISE(auto written, WriteNextMetadata(*io_, provenance(), nullptr, "", md.get()));
  std::string& metadata_location = written.location;
  Status st = catalog_->CreateTableEntry(ident, metadata_location, written.record);
  if (!st.ok()) {
    (void)io_->DeleteFile(metadata_location, FileKind::kMetadata);
    return st;
  }
  auto table = std::make_shared<Table>(ident, catalog_, io_, std::move(md), std::move(metadata_location));
  table->set_provenance(provenance_);
  return table;
}

Result<std::shared_ptr<Table>> TableCatalog::RegisterTable(const TableIdentifier& ident,
                                                           const std::string& metadata_location,
                                                           bool overwrite) {
  ARROW_RETURN_NOT_OK(ident.ValidateNew());
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, catalog_->NamespaceExists(ident.ns));
  if (!ns_exists) return NotFound("Namespace does not exist: ", ident.ns.ToString());
  auto read = ReadMetadataFile(*io_, metadata_location);
  if (!read.ok()) {
    return ValidationError("Cannot register table ", ident.ToString(), ": ",
                           read.status().message());
  }
  const spec::TableMetadataPtr& md = *read;
  ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*catalog_));
  ARROW_RETURN_NOT_OK(policy.CheckTable(ident, *md));
  auto current = catalog_->LoadMetadataLocation(ident);
  if (current.ok() && !overwrite) return AlreadyExists("Table already exists: ", ident.ToString());
  if (!current.ok() && !IsNotFound(current.status())) return current.status();
  spec::TableMetadataPtr before;
  if (current.ok()) {
    ARROW_ASSIGN_OR_RAISE(before, ReadMetadataFile(*io_, *current));
  }
  AuditRecord record = DescribeChange(before.get(), *md);
  AddProvenance(provenance(), &record);
  record.detail = "registered " + metadata_location;
  if (current.ok()) {
    ARROW_RETURN_NOT_OK(
        catalog_->SwapMetadataLocation(ident, *current, metadata_location, record));
  } else {
    ARROW_RETURN_NOT_OK(catalog_->CreateTableEntry(ident, metadata_location, record));
  }
  auto table = std::make_shared<Table>(ident, catalog_, io_, md, metadata_location);
  table->set_provenance(provenance_);
  return table;
}

const CommitProvenance& TableCatalog::provenance() const {
  static const CommitProvenance kEmbedded;
  return provenance_ ? *provenance_ : kEmbedded;
}

Result<std::shared_ptr<Table>> TableCatalog::LoadTable(const TableIdentifier& ident) {
  if (transaction_) {
    if (auto seen = transaction_->Find(ident)) return seen;
  }
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<Table> table, Table::Load(catalog_, io_, ident));
  table->set_provenance(provenance_);
  if (transaction_) transaction_->Track(table);
  return table;
}

Status TableCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  return catalog_->RenameTable(from, to, CatalogChange(audit_kind::kRename, provenance()));
}

std::string DropTableResult::Warning() const {
  if (!purge_skipped.empty()) {
    return StrCat("Warning: dropped table ", ident.ToString(), " without deleting its files: ",
                  purge_skipped);
  }
  if (refused.empty()) return "";
  constexpr size_t kListed = 10;
  std::string out = StrCat("Warning: dropped table ", ident.ToString(), " but kept ",
                           refused.size(), refused.size() == 1 ? " file" : " files",
                           " its metadata names outside the table location ", location, ":");
  for (size_t i = 0; i < refused.size() && i < kListed; ++i) out += "\n  " + refused[i];
  if (refused.size() > kListed) out += StrCat("\n  ... and ", refused.size() - kListed, " more");
  return out;
}

Result<DropTableResult> TableCatalog::DropTable(const TableIdentifier& ident, bool purge) {
  DropTableResult result;
  result.ident = ident;
  spec::TableMetadataPtr md;
  std::string metadata_location;
  if (purge) {
    ARROW_ASSIGN_OR_RAISE(metadata_location, catalog_->LoadMetadataLocation(ident));
    auto read = ReadMetadataFile(*io_, metadata_location);
    // As Iceberg does: a table whose metadata is gone can still be dropped.
    if (read.ok()) {
      md = *read;
    } else {
      result.purge_skipped = read.status().message();
    }
  }
  std::optional<PurgeScope> scope;
  if (md) {
    ARROW_ASSIGN_OR_RAISE(auto policy, LocationPolicy::ForCatalog(*catalog_));
    scope.emplace(policy, *md);
  }
  ARROW_RETURN_NOT_OK(
      catalog_
          ->DropTableEntry(ident, purge ? DropRecord::kPurged : DropRecord::kKeep,
                           CatalogChange(audit_kind::kDrop, provenance()))
          .status());
  if (!md) return result;
  result.location = md->location;
  ReachableFiles reachable = CollectReachableFiles(*io_, *md, metadata_location);
  std::set<std::string> refused;
  auto remove = [&](const std::string& location, FileKind kind) {
    if (scope->Allows(location)) {
      (void)io_->DeleteFile(location, kind);
      // Hadoop's local file system (Spark's, on a local warehouse) writes a checksum file
      // beside each file; Iceberg's purge takes it along, and so does this one.
      if (!IsObjectStoreLocation(location)) (void)io_->DeleteFile(HadoopChecksumOf(location), kind);
    } else {
      refused.insert(location);
    }
  };
  for (const auto& f : reachable.content_files) remove(f, FileKind::kData);
  for (const auto& f : reachable.manifests) remove(f, FileKind::kManifest);
  for (const auto& f : reachable.manifest_lists) remove(f, FileKind::kManifestList);
  for (const auto& f : reachable.metadata_files) remove(f, FileKind::kMetadata);
  result.refused.assign(refused.begin(), refused.end());
  return result;
}

Result<std::shared_ptr<Table>> TableCatalog::UndropTable(const TableIdentifier& ident) {
  const std::string table = ident.ToString();
  ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(ident));
  if (exists) {
    return AlreadyExists("Cannot undrop table ", table,
                         ": a table with that name already exists; rename or drop it first");
  }
  ARROW_ASSIGN_OR_RAISE(auto dropped, catalog_->FindDroppedTable(ident));
  if (!dropped) {
    return NotFound("Table ", table,
                    " was not dropped: there is no dropped table of that name to undrop");
  }
  if (dropped->purged) {
    return ValidationError("Cannot undrop table ", table, ": it was dropped with PURGE at ",
                           FormatMillisUtc(dropped->dropped_at_ms),
                           " UTC, which deleted its files");
  }
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, catalog_->NamespaceExists(ident.ns));
  if (!ns_exists) {
    return NotFound("Cannot undrop table ", table, ": namespace ", ident.ns.ToString(),
                    " does not exist; create it first");
  }
  const std::string& location = dropped->metadata_location;
  auto present = io_->Exists(location);
  if (present.ok() && !*present) {
    return NotFound("Cannot undrop table ", table, ": its metadata file ", location,
                    " is gone");
  }
  auto md = ReadMetadataFile(*io_, location);
  if (!md.ok()) {
    return ValidationError("Cannot undrop table ", table, ": its metadata file ", location,
                           " cannot be read: ", md.status().message());
  }
  AuditRecord record = CatalogChange(audit_kind::kUndrop, provenance());
  record.snapshot_id = (*md)->current_snapshot_id;
  ARROW_RETURN_NOT_OK(catalog_->UndropTableEntry(*dropped, record));
  auto restored = std::make_shared<Table>(ident, catalog_, io_, std::move(*md), location);
  restored->set_provenance(provenance_);
  return restored;
}

}  // namespace floe::table
