#include "floe/sql/execute/executors.h"

#include "floe/sql/parse/parse_error.h"
#include "floe/sql/postgres/pg_catalog_tables.h"
#include "floe/sql/postgres/pg_settings.h"
#include "floe/sql/execute/result_tables.h"

namespace floe::sql {

Result<StatementResult> ExecuteSetConfig(ExecContext& ctx, const SetConfig& s) {
  if (s.key && IsPgClient(ctx.state) && FindPgParameter(*s.key)) {
    // PostgreSQL's SET: the parameter changes (TimeZone is the session time zone), nothing is shown.
    if (!s.value) return Rows(StringTable({*s.key}, {{PgParameterValue(ctx.state, *s.key)}}));
    Status st = PgSetParameter(ctx.state, *s.key, *s.value);
    if (!st.ok()) return ErrorAt(ctx.sql, ctx.statement.pos, st.message());
    return Message("");
  }
  if (!s.key) {
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& [k, v] : ctx.state.settings) rows.push_back({k, v});
    return Rows(StringTable({"key", "value"}, rows));
  }
  if (!s.value) {
    return Rows(StringTable({"key", "value"}, {{*s.key, ctx.state.Setting(*s.key, "<undefined>")}}));
  }
  ARROW_RETURN_NOT_OK(ctx.state.SetSetting(*s.key, *s.value));
  return Rows(StringTable({"key", "value"}, {{*s.key, *s.value}}));
}

Result<StatementResult> ExecuteSetTimeZone(ExecContext& ctx, const SetTimeZone& tz) {
  const std::string& sql = ctx.sql;
  if (tz.kind == TimeZoneKind::kName) {
    ARROW_RETURN_NOT_OK(ctx.state.SetSetting(kTimeZoneKey, tz.zone));
  } else if (tz.kind == TimeZoneKind::kLocal) {
    // The session zone never follows the machine's: LOCAL is UTC here.
    ARROW_RETURN_NOT_OK(ctx.state.SetSetting(kTimeZoneKey, "UTC"));
  } else {
    return ErrorAt(sql, ctx.statement.pos, "SET TIME ZONE INTERVAL is not supported; use an offset such as '+03:00'");
  }
  return Message("");
}

Result<StatementResult> ExecuteReset(ExecContext& ctx, const Reset& r) {
  ctx.state.ResetSetting(r.key);
  return Message("");
}

}  // namespace floe::sql
