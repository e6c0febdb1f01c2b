#include "floe/sql/execute/executors.h"

#include <map>
#include <sstream>
#include <arrow/api.h>
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/types/spark_names.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteCall(ExecContext& ctx, const sql::Call& call) {
  const std::string& sql = ctx.sql;
  const auto& parts = call.procedure.parts;
  if (parts.size() < 2 || Lower(parts[parts.size() - 2].name) != "system" ||
      (parts.size() == 3 && Lower(parts[0].name) != Lower(ctx.state.catalog->name())) || parts.size() > 3) {
    return ErrorAt(sql, call.procedure.pos, StrCat("Procedure ", ToSql(call.procedure), " not found"));
  }
  const Procedure* procedure = FindProcedure(parts.back().name);
  if (!procedure) {
    return ErrorAt(sql, call.procedure.pos,
                   StrCat("Procedure system.", Lower(parts.back().name), " not found. Did you mean `system.",
                          ClosestProcedureName(parts.back().name), "`?"));
  }
  const std::string& proc = procedure->name;
  const std::vector<ProcedureParameter>& params = procedure->parameters;
  auto param_index = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].name == name) return i;
    }
    return std::nullopt;
  };
  QueryPlanner planner = ctx.binder.Planner();
  std::map<std::string, std::shared_ptr<arrow::Scalar>> args;
  std::map<std::string, SourcePos> arg_pos;
  size_t position = 0;
  // Iceberg's messages for arguments that do not bind.
  for (const auto& a : call.args) {
    std::string name;
    if (a.name) {
      name = Lower(a.name->name);
      if (!param_index(name)) {
        return ErrorAt(sql, a.name->pos, StrCat("Could not build name to arg map: Unknown argument: ", name));
      }
    } else {
      if (position >= params.size()) return ErrorAt(sql, a.value.pos, "Too many arguments for procedure");
      name = params[position++].name;
    }
    if (args.count(name)) {
      return ErrorAt(sql, a.value.pos, StrCat("Could not build name to arg map: Duplicate procedure argument: ", name));
    }
    ARROW_ASSIGN_OR_RAISE(auto value, planner.EvaluateConstant(a.value));
    if (!value->is_valid) {
      return ErrorAt(sql, a.value.pos, StrCat("Argument ", name, " of procedure ", proc, " cannot be NULL"));
    }
    args[name] = std::move(value);
    arg_pos[name] = a.value.pos;
  }
  std::vector<std::string> missing;
  for (const auto& p : params) {
    if (p.required && !args.count(p.name)) missing.push_back(p.name);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ",") + m;
    return ErrorAt(sql, call.procedure.pos, StrCat("Missing required parameters: [", list, "]"));
  }
  // Each argument converted to its parameter's type, with Iceberg's message when it cannot be.
  ProcedureCall bound;
  for (const auto& arg : args) {
    // Named, not structured, bindings: the lambda below captures them (clang 14 cannot).
    const std::string& name = arg.first;
    const std::shared_ptr<arrow::Scalar>& value = arg.second;
    const ProcedureParameter& p = params[*param_index(name)];
    auto wrong_type = [&](const char* want) {
      return ErrorAt(sql, arg_pos[name], StrCat("Wrong arg type for ", name, ": cannot cast ",
                                                SparkTypeClassName(*value->type), " to ", want));
    };
    if (name == "table") continue;
    switch (p.type) {
      case ProcedureArgType::kString:
        bound.args.SetString(name, value->ToString());
        break;
      case ProcedureArgType::kInteger: {
        if (!arrow::is_integer(value->type->id())) return wrong_type("IntegerType");
        ARROW_ASSIGN_OR_RAISE(auto cast, value->CastTo(arrow::int64()));
        int64_t v = static_cast<const arrow::Int64Scalar&>(*cast).value;
        if (v < INT32_MIN || v > INT32_MAX) return wrong_type("IntegerType");
        bound.args.SetLong(name, v);
        break;
      }
      case ProcedureArgType::kLong: {
        if (!arrow::is_integer(value->type->id())) return wrong_type("LongType");
        ARROW_ASSIGN_OR_RAISE(auto cast, value->CastTo(arrow::int64()));
        bound.args.SetLong(name, static_cast<const arrow::Int64Scalar&>(*cast).value);
        break;
      }
      case ProcedureArgType::kBoolean:
        if (value->type->id() != arrow::Type::BOOL) return wrong_type("BooleanType");
        bound.args.SetBool(name, static_cast<const arrow::BooleanScalar&>(*value).value);
        break;
      case ProcedureArgType::kLongArray: {
        const char* want = "ArrayType(LongType,true)";
        if (value->type->id() != arrow::Type::LIST) return wrong_type(want);
        const auto& items = *static_cast<const arrow::ListScalar&>(*value).value;
        // array() with no elements has null-typed items.
        if (items.type_id() != arrow::Type::NA && !arrow::is_integer(items.type_id())) return wrong_type(want);
        std::vector<int64_t> ids;
        for (int64_t i = 0; i < items.length(); ++i) {
          ARROW_ASSIGN_OR_RAISE(auto item, items.GetScalar(i));
          if (!item->is_valid) {
            return ErrorAt(sql, arg_pos[name], StrCat("Argument ", name, " of procedure ", proc, " cannot hold NULL"));
          }
          ARROW_ASSIGN_OR_RAISE(auto cast, item->CastTo(arrow::int64()));
          ids.push_back(static_cast<const arrow::Int64Scalar&>(*cast).value);
        }
        bound.args.SetLongArray(name, std::move(ids));
        break;
      }
      case ProcedureArgType::kStringArray: {
        const char* want = "ArrayType(StringType,true)";
        if (value->type->id() != arrow::Type::LIST) return wrong_type(want);
        const auto& items = *static_cast<const arrow::ListScalar&>(*value).value;
        if (items.type_id() != arrow::Type::NA && items.type_id() != arrow::Type::STRING) return wrong_type(want);
        std::vector<std::string> names;
        for (int64_t i = 0; i < items.length(); ++i) {
          ARROW_ASSIGN_OR_RAISE(auto item, items.GetScalar(i));
          if (!item->is_valid) {
            return ErrorAt(sql, arg_pos[name], StrCat("Argument ", name, " of procedure ", proc, " cannot hold NULL"));
          }
          names.push_back(item->ToString());
        }
        bound.args.SetStringArray(name, std::move(names));
        break;
      }
      case ProcedureArgType::kStringMap: {
        const char* want = "MapType(StringType,StringType,true)";
        if (value->type->id() != arrow::Type::MAP) return wrong_type(want);
        const auto& entries = static_cast<const arrow::StructArray&>(*static_cast<const arrow::MapScalar&>(*value).value);
        std::vector<std::pair<std::string, std::string>> pairs;
        for (int64_t i = 0; i < entries.length(); ++i) {
          ARROW_ASSIGN_OR_RAISE(auto k, entries.field(0)->GetScalar(i));
          ARROW_ASSIGN_OR_RAISE(auto v, entries.field(1)->GetScalar(i));
          if (!k->is_valid || !v->is_valid) {
            return ErrorAt(sql, arg_pos[name], StrCat("Argument ", name, " of procedure ", proc, " cannot hold NULL"));
          }
          pairs.emplace_back(k->ToString(), v->ToString());
        }
        bound.args.SetStringMap(name, std::move(pairs));
        break;
      }
      case ProcedureArgType::kTimestamp: {
        int64_t micros = 0;
        if (value->type->id() == arrow::Type::TIMESTAMP) {
          micros = static_cast<const arrow::TimestampScalar&>(*value).value;
        } else if (value->type->id() == arrow::Type::STRING) {
          // Beyond Iceberg, which takes only timestamps: a string that reads as one.
          auto parsed = ParseTimestampMicros(value->ToString(), ctx.state.TimeZone());
          if (!parsed.ok()) return wrong_type("TimestampType");
          micros = *parsed;
        } else {
          return wrong_type("TimestampType");
        }
        bound.args.SetLong(name, micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000));
        break;
      }
    }
  }
  bound.ctx = &ctx;
  if (!param_index("table")) {  // a procedure of the whole catalog (rollback_to_catalog_tag)
    auto rows = procedure->run(bound);
    if (!rows.ok()) return ErrorAt(sql, call.procedure.pos, rows.status());
    return Rows(*rows);
  }
  const auto& table_arg = args["table"];
  if (table_arg->type->id() != arrow::Type::STRING) {
    return ErrorAt(sql, arg_pos["table"], StrCat("Cannot parse identifier for arg table: ", table_arg->ToString()));
  }
  std::string table_name = table_arg->ToString();
  if (table_name.empty()) return ErrorAt(sql, arg_pos["table"], "Cannot handle an empty identifier for argument table");
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
    return ErrorAt(sql, arg_pos["table"],
                   NotFound("Couldn't load table '", table_name, "' in catalog '", ctx.state.catalog->name(), "'"));
  }
  bound.table = *loaded;
  bound.ctx = &ctx;
  auto rows = procedure->run(bound);
  if (!rows.ok()) return ErrorAt(sql, call.procedure.pos, rows.status());
  return Rows(*rows);
}

}  // namespace floe::sql
