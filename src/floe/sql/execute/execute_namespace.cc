#include "floe/sql/execute/executors.h"

#include "floe/sql/parse/parse_error.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

Result<StatementResult> ExecuteCreateNamespace(ExecContext& ctx, const CreateNamespace& c) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(Namespace ns, ctx.binder.BindNamespace(c.name));
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.state.catalog->NamespaceExists(ns));
  if (exists) {
    if (c.if_not_exists) return Message("");
    return ErrorAt(sql, c.name.pos, StrCat("[SCHEMA_ALREADY_EXISTS] Cannot create schema `", ns.ToString(),
                                            "` because it already exists."));
  }
  NamespaceProperties props;
  for (const auto& p : c.properties) props[p.key] = p.value;
  if (c.comment) props["comment"] = *c.comment;
  if (c.location) props["location"] = *c.location;
  ARROW_RETURN_NOT_OK(ctx.state.catalog->CreateNamespace(ns, props));
  return Message("");
}

Result<StatementResult> ExecuteDropNamespace(ExecContext& ctx, const DropNamespace& d) {
  const std::string& sql = ctx.sql;
  ARROW_ASSIGN_OR_RAISE(Namespace ns, ctx.binder.BindNamespace(d.name));
  ARROW_ASSIGN_OR_RAISE(bool exists, ctx.state.catalog->NamespaceExists(ns));
  if (!exists) {
    if (d.if_exists) return Message("");
    return ErrorAt(sql, d.name.pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", ns.ToString(), "` cannot be found."));
  }
  ARROW_ASSIGN_OR_RAISE(auto tables, ctx.state.catalog->ListTables(ns));
  if (!tables.empty()) {
    if (!d.cascade) {
      return ErrorAt(sql, d.name.pos, StrCat("[SCHEMA_NOT_EMPTY] Cannot drop a schema `", ns.ToString(),
                                              "` because it contains objects."));
    }
    for (const auto& t : tables) ARROW_RETURN_NOT_OK(ctx.state.tables.DropTable(t, false));
  }
  ARROW_RETURN_NOT_OK(ctx.state.catalog->DropNamespace(ns));
  return Message("");
}

Result<StatementResult> ExecuteUse(ExecContext& ctx, const Use& u) {
  ARROW_ASSIGN_OR_RAISE(Namespace ns, ctx.binder.BindExistingNamespace(u.name));
  ctx.state.current_namespace = ns;
  return Message("");
}

}  // namespace floe::sql
