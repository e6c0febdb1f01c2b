#include "floe/sql/metadata/audit_log_table.h"

#include <arrow/api.h>

namespace floe::sql {

namespace {

Status AppendText(arrow::StringBuilder& b, const std::string& value) {
  return value.empty() ? b.AppendNull() : b.Append(value);
}

Status AppendText(arrow::StringBuilder& b, const std::optional<std::string>& value) {
  return value ? b.Append(*value) : b.AppendNull();
}

Status AppendId(arrow::Int64Builder& b, const std::optional<int64_t>& value) {
  return value ? b.Append(*value) : b.AppendNull();
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> AuditLogTable(const std::vector<AuditEntry>& rows) {
  auto* pool = arrow::default_memory_pool();
  auto ts = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  auto ref_type = arrow::struct_({arrow::field("name", arrow::utf8()),
                                  arrow::field("from_snapshot_id", arrow::int64()),
                                  arrow::field("to_snapshot_id", arrow::int64())});
  arrow::Int64Builder seq, previous_id, id;
  arrow::TimestampBuilder changed(ts, pool);
  arrow::StringBuilder ns, table, kind, operation, user, client, address, application,
      statement, detail, previous_location, location;
  auto ref_name = std::make_shared<arrow::StringBuilder>();
  auto ref_from = std::make_shared<arrow::Int64Builder>();
  auto ref_to = std::make_shared<arrow::Int64Builder>();
  auto ref_struct = std::make_shared<arrow::StructBuilder>(
      ref_type, pool, std::vector<std::shared_ptr<arrow::ArrayBuilder>>{ref_name, ref_from, ref_to});
  arrow::ListBuilder refs(pool, ref_struct, arrow::list(ref_type));
  for (const auto& r : rows) {
    ARROW_RETURN_NOT_OK(seq.Append(r.seq));
    ARROW_RETURN_NOT_OK(changed.Append(r.at_ms * 1000));
    ARROW_RETURN_NOT_OK(ns.Append(r.ident.ns.ToString()));
    ARROW_RETURN_NOT_OK(table.Append(r.ident.name));
    ARROW_RETURN_NOT_OK(kind.Append(r.kind));
    ARROW_RETURN_NOT_OK(AppendText(operation, r.operation));
    ARROW_RETURN_NOT_OK(AppendId(previous_id, r.previous_snapshot_id));
    ARROW_RETURN_NOT_OK(AppendId(id, r.snapshot_id));
    ARROW_RETURN_NOT_OK(refs.Append());
    for (const auto& move : r.refs) {
      ARROW_RETURN_NOT_OK(ref_struct->Append());
      ARROW_RETURN_NOT_OK(ref_name->Append(move.name));
      ARROW_RETURN_NOT_OK(AppendId(*ref_from, move.from_snapshot_id));
      ARROW_RETURN_NOT_OK(AppendId(*ref_to, move.to_snapshot_id));
    }
    ARROW_RETURN_NOT_OK(AppendText(user, r.user));
    ARROW_RETURN_NOT_OK(AppendText(client, r.client));
    ARROW_RETURN_NOT_OK(AppendText(address, r.client_address));
    ARROW_RETURN_NOT_OK(AppendText(application, r.application_name));
    ARROW_RETURN_NOT_OK(AppendText(statement, r.statement));
    ARROW_RETURN_NOT_OK(AppendText(detail, r.detail));
    ARROW_RETURN_NOT_OK(AppendText(previous_location, r.previous_metadata_location));
    ARROW_RETURN_NOT_OK(AppendText(location, r.metadata_location));
  }
  std::vector<std::shared_ptr<arrow::Field>> fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  auto add = [&](const char* name, std::shared_ptr<arrow::DataType> type,
                 arrow::ArrayBuilder& builder) -> Status {
    fields.push_back(arrow::field(name, std::move(type)));
    ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
    columns.push_back(std::move(array));
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(add("seq", arrow::int64(), seq));
  ARROW_RETURN_NOT_OK(add("changed_at", ts, changed));
  ARROW_RETURN_NOT_OK(add("namespace", arrow::utf8(), ns));
  ARROW_RETURN_NOT_OK(add("table_name", arrow::utf8(), table));
  ARROW_RETURN_NOT_OK(add("kind", arrow::utf8(), kind));
  ARROW_RETURN_NOT_OK(add("operation", arrow::utf8(), operation));
  ARROW_RETURN_NOT_OK(add("previous_snapshot_id", arrow::int64(), previous_id));
  ARROW_RETURN_NOT_OK(add("snapshot_id", arrow::int64(), id));
  ARROW_RETURN_NOT_OK(add("refs", arrow::list(ref_type), refs));
  ARROW_RETURN_NOT_OK(add("user_name", arrow::utf8(), user));
  ARROW_RETURN_NOT_OK(add("client", arrow::utf8(), client));
  ARROW_RETURN_NOT_OK(add("client_address", arrow::utf8(), address));
  ARROW_RETURN_NOT_OK(add("application_name", arrow::utf8(), application));
  ARROW_RETURN_NOT_OK(add("statement", arrow::utf8(), statement));
  ARROW_RETURN_NOT_OK(add("detail", arrow::utf8(), detail));
  ARROW_RETURN_NOT_OK(add("previous_metadata_location", arrow::utf8(), previous_location));
  ARROW_RETURN_NOT_OK(add("metadata_location", arrow::utf8(), location));
  return arrow::Table::Make(arrow::schema(fields), columns);
}

}  // namespace floe::sql
