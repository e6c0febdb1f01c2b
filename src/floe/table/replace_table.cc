#include "floe/table/replace_table.h"

#include "floe/table/commit.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/table/update_schema.h"

namespace floe::table {

Status ReplaceTable(Table& table, const spec::Schema& schema, const CreateTableOptions& options) {
  // Fresh ids, the spec and the defaults of a new table, computed once; only their ids are
  // mapped onto each attempt's base.
  ARROW_ASSIGN_OR_RAISE(auto fresh, NewTableMetadata(schema, options, table.metadata()->location));
  return CommitUpdate(table, [&](TableMetadataBuilder& builder, std::vector<std::string>*) -> Status {
    const spec::TableMetadata& current = builder.current();
    const spec::SchemaPtr current_schema = current.current_schema();
    if (!current_schema) return Status::Invalid("Table ", table.name(), " has no current schema");
    int32_t next_id = current.last_column_id;
    std::vector<spec::NestedField> fields;
    for (const auto& f : fresh->current_schema()->fields()) {
      spec::NestedField nf = f;
      const spec::NestedField* old = current_schema->FindFieldByNameCaseInsensitive(f.name);
      if (old && old->type->is_primitive() && f.type->is_primitive()) {
        nf.id = old->id;
      } else {
        // New ids for the column and everything nested in it: the fresh schema numbered
        // them from 1, which the table's earlier columns already use.
        nf.id = ++next_id;
        nf.type = AssignFreshIds(f.type, &next_id);
      }
      fields.push_back(std::move(nf));
    }
    ARROW_ASSIGN_OR_RAISE(int32_t schema_id, builder.AddSchema(spec::Schema(0, std::move(fields))));
    ARROW_RETURN_NOT_OK(builder.SetCurrentSchema(schema_id));
    const spec::SchemaPtr new_schema = builder.current().SchemaById(schema_id);

    std::vector<spec::PartitionField> partition_fields;
    int32_t partition_id = current.last_partition_id;
    for (const auto& pf : fresh->default_spec()->fields()) {
      std::string column = fresh->current_schema()->FindColumnName(pf.source_id);
      const spec::NestedField* source = new_schema->FindFieldByName(column);
      partition_fields.push_back({source ? source->id : pf.source_id, ++partition_id, pf.name, pf.transform});
    }
    ARROW_RETURN_NOT_OK(builder.AddPartitionSpec(spec::PartitionSpec(0, partition_fields)).status());
    ARROW_RETURN_NOT_OK(builder.SetDefaultPartitionSpec(TableMetadataBuilder::kLastAdded));
    builder.SetProperties(fresh->properties);
    builder.RemoveRef(spec::kMainBranch);
    // A replace may upgrade the table, never downgrade it (as Iceberg).
    if (options.format_version > current.format_version) {
      ARROW_RETURN_NOT_OK(builder.UpgradeFormatVersion(options.format_version, options.format_version));
    }
    return Status::OK();
  });
}

}  // namespace floe::table
