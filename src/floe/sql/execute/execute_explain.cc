#include "floe/sql/execute/executors.h"

#include "floe/sql/execute/result_tables.h"

namespace floe::sql {

Result<StatementResult> ExecuteExplain(ExecContext& ctx, const sql::Explain& explain) {
  std::string text = "== Statement ==\n" + ToSql(*explain.statement) + "\n";
  if (auto* q = explain.statement->As<Query>()) {
    // Plan it to resolve every table reference (and time-travel clause).
    QueryPlanner planner = ctx.binder.Planner();
    ARROW_ASSIGN_OR_RAISE(Rel rel, planner.PlanQuery(*q));
    text += "\n== Time travel ==\n";
    if (ctx.binder.resolution_notes().empty()) text += "(current snapshots)\n";
    for (const auto& n : ctx.binder.resolution_notes()) text += n + "\n";
    if (!ctx.binder.scan_notes().empty() || !planner.notes().empty()) {
      text += "\n== Scans ==\n";
      for (const auto& n : ctx.binder.scan_notes()) text += n + "\n";
      for (const auto& n : planner.notes()) text += n + "\n";
    }
    text += "\n== Output ==\n";
    for (const auto& c : rel.columns) {
      if (!c.hidden) text += c.name + ": " + c.type->ToString() + "\n";
    }
  }
  return Rows(StringTable({"plan"}, {{text}}));
}

}  // namespace floe::sql
