#include "floe/sql/postgres/pg_column_names.h"

#include "floe/sql/bind/expression_binder.h"
#include "floe/sql/postgres/pg_types.h"
#include "floe/util/ascii.h"

namespace floe::sql {

namespace {

std::string NameOf(const Identifier& id) { return id.quoted ? id.name : AsciiLower(id.name); }

// PostgreSQL's FigureColname: the name an expression suggests and how strongly, 2 for a
// column, function or subquery column, 1 for a cast's type or CASE, 0 for none. `type` is the
// expression's type when known (the outermost one).
int Figure(const Expr& expr, const arrow::DataType* type, std::string* name) {
  if (const auto* c = expr.As<ColumnRef>()) {
    *name = NameOf(c->parts.back());
    return 2;
  }
  if (const auto* fa = expr.As<FieldAccess>()) {
    *name = NameOf(fa->field);
    return 2;
  }
  if (const auto* lit = expr.As<Literal>(); lit && lit->double_quoted) {
    *name = lit->value;
    return 2;
  }
  if (const auto* call = expr.As<FunctionCall>(); call && !call->name.parts.empty()) {
    const std::string fn = NameOf(call->name.parts.back());
    // x::regtype, x::regclass, x::regtype[], ... are read as calls: named as casts.
    for (const char* kind : {"regtype", "regclass", "regnamespace", "regproc", "regrole", "regtype_array"}) {
      if (fn != kind || call->args.size() != 1) continue;
      if (Figure(call->args[0], nullptr, name) > 1) return 2;
      *name = fn == "regtype_array" ? "regtype" : fn;
      return 1;
    }
    *name = call->name.parts.back().name == kArrayOfQueryFunction ? "array" : fn;
    return 2;
  }
  if (const auto* sub = expr.As<Subscript>()) return Figure(*sub->base, nullptr, name);
  if (expr.Is<Exists>()) {
    *name = "exists";
    return 2;
  }
  if (const auto* sq = expr.As<ScalarSubquery>()) {
    const Select* select = sq->query->As<Select>();
    if (!select || select->items.size() != 1) return 0;
    if (select->items[0].alias) {
      *name = NameOf(*select->items[0].alias);
    } else if (Figure(select->items[0].expr, nullptr, name) == 0) {
      *name = "?column?";
    }
    return 2;
  }
  if (const auto* cast = expr.As<Cast>()) {
    int strength = Figure(*cast->operand, nullptr, name);
    if (strength > 1) return strength;
    std::shared_ptr<arrow::DataType> cast_type;
    if (!type) {
      auto arrow_type = ToArrowType(cast->type);
      if (!arrow_type.ok()) return strength;
      cast_type = *arrow_type;
      type = cast_type.get();
    }
    *name = PgTypeOf(*type).name;
    return 1;
  }
  if (const auto* c = expr.As<Case>()) {
    if (c->else_result && Figure(*c->else_result, nullptr, name) > 1) return 2;
    *name = "case";
    return 1;
  }
  return 0;
}

}  // namespace

std::string PgOutputName(const Expr& expr, const std::string& spark_name,
                         const arrow::DataType& type) {
  if (expr.Is<ColumnRef>() || expr.Is<FieldAccess>()) return spark_name;
  std::string name;
  return Figure(expr, &type, &name) > 0 ? name : "?column?";
}

}  // namespace floe::sql
