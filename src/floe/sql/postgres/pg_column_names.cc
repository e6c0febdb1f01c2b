#include "floe/sql/postgres/pg_column_names.h"

#include "floe/sql/postgres/pg_types.h"
#include "floe/util/ascii.h"

namespace floe::sql {

std::string PgOutputName(const Expr& expr, const std::string& spark_name,
                         const arrow::DataType& type) {
  if (expr.Is<ColumnRef>() || expr.Is<FieldAccess>()) return spark_name;
  // "id": a column's name written as PostgreSQL quotes it.
  if (const auto* lit = expr.As<Literal>(); lit && lit->double_quoted) return lit->value;
  if (const auto* call = expr.As<FunctionCall>(); call && !call->name.parts.empty()) {
    const Identifier& last = call->name.parts.back();
    return last.quoted ? last.name : AsciiLower(last.name);
  }
  if (expr.Is<Cast>()) return PgTypeOf(type).name;
  if (expr.Is<Case>()) return "case";
  return "?column?";
}

}  // namespace floe::sql
