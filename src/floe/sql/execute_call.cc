#include "floe/sql/executors.h"

#include <sstream>
#include <arrow/api.h>
#include "floe/sql/parse_error.h"
#include "floe/sql/result_tables.h"
#include "floe/sql/spark_names.h"
#include "floe/table/history.h"
#include "floe/table/snapshot_management.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteCall(ExecContext& ctx, const sql::Call& call) {
  const std::string& sql = ctx.sql;
  const auto& parts = call.procedure.parts;
  std::string proc = Lower(parts.back().name);
  if (parts.size() < 2 || Lower(parts[parts.size() - 2].name) != "system" ||
      (parts.size() == 3 && Lower(parts[0].name) != Lower(ctx.state.catalog->name())) || parts.size() > 3) {
    return ErrorAt(sql, call.procedure.pos, StrCat("Procedure ", ToSql(call.procedure), " not found"));
  }
  // Each procedure's parameters in order, and how many of the first are required.
  struct Params {
    std::vector<std::string> names;
    size_t required;
  };
  static const std::map<std::string, Params> kParams = {
      {"rollback_to_snapshot", {{"table", "snapshot_id"}, 2}},
      {"rollback_to_timestamp", {{"table", "timestamp"}, 2}},
      {"set_current_snapshot", {{"table", "snapshot_id", "ref"}, 1}},
      {"cherrypick_snapshot", {{"table", "snapshot_id"}, 2}},
      {"fast_forward", {{"table", "branch", "to"}, 3}},
      {"ancestors_of", {{"table", "snapshot_id"}, 1}},
  };
  auto params_it = kParams.find(proc);
  if (params_it == kParams.end()) {
    return ErrorAt(sql, call.procedure.pos, StrCat("Procedure system.", proc, " not found"));
  }
  const std::vector<std::string>& params = params_it->second.names;
  QueryPlanner planner = ctx.binder.Planner();
  std::map<std::string, std::shared_ptr<arrow::Scalar>> args;
  size_t position = 0;
  // Iceberg's messages for arguments that do not bind.
  for (const auto& a : call.args) {
    std::string name;
    if (a.name) {
      name = Lower(a.name->name);
      if (std::find(params.begin(), params.end(), name) == params.end()) {
        return ErrorAt(sql, a.name->pos, StrCat("Could not build name to arg map: Unknown argument: ", name));
      }
    } else {
      if (position >= params.size()) return ErrorAt(sql, a.value.pos, "Too many arguments for procedure");
      name = params[position++];
    }
    if (args.count(name)) {
      return ErrorAt(sql, a.value.pos, StrCat("Could not build name to arg map: Duplicate procedure argument: ", name));
    }
    ARROW_ASSIGN_OR_RAISE(auto value, planner.EvaluateConstant(a.value));
    if (!value->is_valid) {
      return ErrorAt(sql, a.value.pos, StrCat("Argument ", name, " of procedure ", proc, " cannot be NULL"));
    }
    args[name] = std::move(value);
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < params_it->second.required; ++i) {
    if (!args.count(params[i])) missing.push_back(params[i]);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ",") + m;
    return ErrorAt(sql, call.procedure.pos, StrCat("Missing required parameters: [", list, "]"));
  }
  auto arg_pos = [&](const std::string& name) {
    size_t index = 0;
    for (const auto& a : call.args) {
      if (a.name ? Lower(a.name->name) == name : index < params.size() && params[index] == name) return a.value.pos;
      if (!a.name) ++index;
    }
    return call.procedure.pos;
  };
  auto wrong_type = [&](const std::string& name, const char* want) {
    return ErrorAt(sql, arg_pos(name), StrCat("Wrong arg type for ", name, ": cannot cast ",
                                              SparkTypeClassName(*args[name]->type), " to ", want));
  };
  auto get_string = [&](const std::string& name) -> Result<std::optional<std::string>> {
    auto it = args.find(name);
    if (it == args.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second->ToString());
  };
  auto get_long = [&](const std::string& name) -> Result<std::optional<int64_t>> {
    auto it = args.find(name);
    if (it == args.end()) return std::optional<int64_t>();
    if (!arrow::is_integer(it->second->type->id())) return wrong_type(name, "LongType");
    ARROW_ASSIGN_OR_RAISE(auto cast, it->second->CastTo(arrow::int64()));
    return std::optional<int64_t>(static_cast<const arrow::Int64Scalar&>(*cast).value);
  };
  const auto& table_arg = args["table"];
  if (table_arg->type->id() != arrow::Type::STRING) {
    return ErrorAt(sql, arg_pos("table"), StrCat("Cannot parse identifier for arg table: ", table_arg->ToString()));
  }
  std::string table_name = table_arg->ToString();
  if (table_name.empty()) return ErrorAt(sql, arg_pos("table"), "Cannot handle an empty identifier for argument table");
  // 'ns.t' or a fully qualified name, as Spark accepts.
  ObjectName name;
  std::stringstream in(table_name);
  std::string part;
  while (std::getline(in, part, '.')) name.parts.push_back(Identifier{part, false, {}});
  name.pos = call.procedure.pos;
  auto resolved = ctx.binder.BindName(name, false);
  Result<std::shared_ptr<table::Table>> loaded =
      resolved.ok() ? ctx.state.tables.LoadTable(resolved->ident) : Result<std::shared_ptr<table::Table>>(resolved.status());
  if (!loaded.ok()) {
    if (resolved.ok() && !IsNotFound(loaded.status())) return loaded.status();
    return ErrorAt(sql, arg_pos("table"),
                   StrCat("Couldn't load table '", table_name, "' in catalog '", ctx.state.catalog->name(), "'"));
  }
  std::shared_ptr<table::Table> table = *loaded;
  auto fail = [&](const Status& st) { return ErrorAt(sql, call.procedure.pos, st.message()); };
  auto two_longs = [](const std::string& a, std::optional<int64_t> av, const std::string& b, int64_t bv) {
    arrow::Int64Builder x, y;
    (void)(av ? x.Append(*av) : x.AppendNull());
    (void)y.Append(bv);
    return arrow::Table::Make(arrow::schema({arrow::field(a, arrow::int64()), arrow::field(b, arrow::int64())}),
                              {x.Finish().ValueOrDie(), y.Finish().ValueOrDie()});
  };
  if (proc == "rollback_to_snapshot" || proc == "cherrypick_snapshot") {
    ARROW_ASSIGN_OR_RAISE(auto id, get_long("snapshot_id"));
    if (proc == "cherrypick_snapshot") {
      auto r = table::CherrypickSnapshot(*table, *id);
      if (!r.ok()) return fail(r.status());
      return Rows(two_longs("source_snapshot_id", r->source_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
    }
    auto r = table::RollbackToSnapshot(*table, *id);
    if (!r.ok()) return fail(r.status());
    return Rows(two_longs("previous_snapshot_id", r->previous_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
  }
  if (proc == "rollback_to_timestamp") {
    auto it = args.find("timestamp");
    int64_t ms = 0;
    if (it->second->type->id() == arrow::Type::TIMESTAMP) {
      int64_t micros = static_cast<const arrow::TimestampScalar&>(*it->second).value;
      ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
    } else if (it->second->type->id() == arrow::Type::STRING) {
      // Beyond Iceberg, which takes only timestamps: a string that reads as one.
      auto micros = ParseTimestampMicros(it->second->ToString(), ctx.state.TimeZone());
      if (!micros.ok()) return wrong_type("timestamp", "TimestampType");
      ms = *micros >= 0 ? *micros / 1000 : -((-*micros + 999) / 1000);
    } else {
      return wrong_type("timestamp", "TimestampType");
    }
    auto r = table::RollbackToTimestamp(*table, ms);
    if (!r.ok()) return fail(r.status());
    return Rows(two_longs("previous_snapshot_id", r->previous_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
  }
  if (proc == "set_current_snapshot") {
    ARROW_ASSIGN_OR_RAISE(auto id, get_long("snapshot_id"));
    ARROW_ASSIGN_OR_RAISE(auto ref, get_string("ref"));
    auto r = table::SetCurrentSnapshot(*table, id, ref);
    if (!r.ok()) return fail(r.status());
    return Rows(two_longs("previous_snapshot_id", r->previous_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
  }
  if (proc == "fast_forward") {
    ARROW_ASSIGN_OR_RAISE(auto branch, get_string("branch"));
    ARROW_ASSIGN_OR_RAISE(auto to, get_string("to"));
    auto r = table::FastForward(*table, *branch, *to);
    if (!r.ok()) return fail(r.status());
    arrow::StringBuilder b;
    arrow::Int64Builder prev, upd;
    ARROW_RETURN_NOT_OK(b.Append(r->branch_updated));
    ARROW_RETURN_NOT_OK(r->previous_ref ? prev.Append(*r->previous_ref) : prev.AppendNull());
    ARROW_RETURN_NOT_OK(upd.Append(r->updated_ref));
    auto schema = arrow::schema({arrow::field("branch_updated", arrow::utf8()), arrow::field("previous_ref", arrow::int64()),
                                 arrow::field("updated_ref", arrow::int64())});
    return Rows(arrow::Table::Make(schema, {b.Finish().ValueOrDie(), prev.Finish().ValueOrDie(), upd.Finish().ValueOrDie()}));
  }
  // ancestors_of
  ARROW_ASSIGN_OR_RAISE(auto id, get_long("snapshot_id"));
  auto md = table->metadata();
  if (id && !md->SnapshotById(*id)) return fail(NotFound("Cannot find snapshot: ", *id));
  arrow::Int64Builder ids, ts;
  for (const auto& row : table::AncestorsOfRows(*md, id)) {
    ARROW_RETURN_NOT_OK(ids.Append(row.snapshot_id));
    ARROW_RETURN_NOT_OK(ts.Append(row.timestamp_ms));
  }
  auto schema = arrow::schema({arrow::field("snapshot_id", arrow::int64()), arrow::field("timestamp", arrow::int64())});
  return Rows(arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), ts.Finish().ValueOrDie()}));
}

}  // namespace floe::sql
