#include "floe/sql/bind/expression_binder.h"

#include "floe/sql/bind/expression_binder_internal.h"
#include "floe/sql/functions/function_registry.h"
#include "floe/sql/postgres/pg_catalog_tables.h"
#include "floe/sql/windows/window_spec.h"

namespace floe::sql {

using namespace binding;  // the type helpers of expression_binder_internal.h

bool IsAggregateFunction(const std::string& n) { return FindAggregateFunction(n) != nullptr; }

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& t) {
  switch (t.kind) {
    case TypeKind::kBoolean: return arrow::boolean();
    case TypeKind::kTinyInt: return arrow::int8();
    case TypeKind::kSmallInt: return arrow::int16();
    case TypeKind::kInt: return arrow::int32();
    case TypeKind::kBigInt: return arrow::int64();
    case TypeKind::kFloat: return arrow::float32();
    case TypeKind::kDouble: return arrow::float64();
    case TypeKind::kDecimal: {
      int32_t p = t.precision < 0 ? 10 : t.precision;
      int32_t s = t.scale < 0 ? 0 : t.scale;
      if (p < 1 || p > 38 || s > p) {
        return ValidationError("Invalid decimal(", p, ", ", s, "): precision must be 1..38 and scale <= precision");
      }
      return arrow::decimal128(p, s);
    }
    case TypeKind::kString:
    case TypeKind::kVarchar:
    case TypeKind::kChar: return arrow::utf8();
    case TypeKind::kBinary: return arrow::binary();
    case TypeKind::kDate: return arrow::date32();
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case TypeKind::kTimestampNtz: return arrow::timestamp(arrow::TimeUnit::MICRO);
    case TypeKind::kArray: {
      ARROW_ASSIGN_OR_RAISE(auto e, ToArrowType(t.children.at(0)));
      return arrow::list(arrow::field("element", e));
    }
    case TypeKind::kMap: {
      ARROW_ASSIGN_OR_RAISE(auto k, ToArrowType(t.children.at(0)));
      ARROW_ASSIGN_OR_RAISE(auto v, ToArrowType(t.children.at(1)));
      return arrow::map(k, v);
    }
    case TypeKind::kStruct: {
      arrow::FieldVector fields;
      for (const auto& f : t.fields) {
        ARROW_ASSIGN_OR_RAISE(auto ft, ToArrowType(f.type));
        fields.push_back(arrow::field(f.name.name, ft, !f.not_null));
      }
      return arrow::struct_(fields);
    }
  }
  return Status::NotImplemented("type");
}

Result<int> ResolveColumn(const std::vector<Identifier>& parts, const std::vector<Column>& columns,
                          const std::string& sql, const SourcePos& pos, size_t* consumed) {
  // Try the longest qualifier first: ns.t.c, t.c, then c (the rest is field access).
  for (size_t qlen = std::min<size_t>(parts.size() - 1, 3) + 1; qlen-- > 0;) {
    if (qlen >= parts.size()) continue;
    std::vector<std::string> qualifier;
    for (size_t i = 0; i < qlen; ++i) qualifier.push_back(Lower(parts[i].name));
    std::string name = Lower(parts[qlen].name);
    std::vector<int> matches;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (Lower(columns[i].name) != name) continue;
      if (qlen == 0) {
        matches.push_back(static_cast<int>(i));
        continue;
      }
      for (const auto& q : columns[i].qualifiers) {
        if (q.size() >= qualifier.size() &&
            std::equal(qualifier.begin(), qualifier.end(), q.end() - qualifier.size())) {
          matches.push_back(static_cast<int>(i));
          break;
        }
      }
    }
    if (matches.size() == 1) {
      if (consumed) *consumed = qlen + 1;
      return matches[0];
    }
    if (matches.size() > 1) {
      std::vector<std::string> options;
      for (int m : matches) {
        const auto& c = columns[m];
        std::string q = c.qualifiers.empty() ? "" : QuoteName(c.qualifiers[0].back()) + ".";
        options.push_back(q + QuoteName(c.name));
      }
      std::vector<std::string> written;
      for (const auto& p : parts) written.push_back(p.name);
      return ErrorAt(sql, pos, StrCat("[AMBIGUOUS_REFERENCE] Reference ", QuoteName(JoinStrings(written, ".")),
                                      " is ambiguous, could be: [", JoinStrings(options, ", "), "]."));
    }
  }
  std::vector<std::string> written;
  for (const auto& p : parts) written.push_back(p.name);
  // Suggest the closest visible columns.
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const auto& c : columns) {
    if (c.hidden || c.name.starts_with(kInternalColumnPrefix)) continue;
    std::string shown = (c.qualifiers.empty() ? "" : QuoteName(c.qualifiers[0].back()) + ".") + QuoteName(c.name);
    ranked.push_back({EditDistance(Lower(parts.back().name), Lower(c.name)), shown});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> suggestions;
  for (size_t i = 0; i < ranked.size() && i < 5; ++i) suggestions.push_back(ranked[i].second);
  std::string message = StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name ",
                               QuoteName(JoinStrings(written, "`.`")), " cannot be resolved.");
  if (!suggestions.empty()) message += " Did you mean one of the following? [" + JoinStrings(suggestions, ", ") + "].";
  return ErrorAt(sql, pos, message);
}

std::string GeneratedName(const Expr& expr) {
  if (auto* c = expr.As<ColumnRef>()) return c->parts.back().name;
  if (auto* l = expr.As<Literal>()) {
    if (l->kind == LiteralKind::kNull) return "NULL";
    if (l->kind == LiteralKind::kString) return l->value;
    if (l->kind == LiteralKind::kDate) return "DATE '" + l->value + "'";
    if (l->kind == LiteralKind::kTimestamp) return "TIMESTAMP '" + l->value + "'";
    if (l->kind == LiteralKind::kBigInt) return l->value;
    return l->value;
  }
  if (auto* f = expr.As<FunctionCall>()) {
    std::string name = Lower(f->name.parts.back().name);
    if (f->star || (name == "count" && f->args.empty())) return name + "(1)";
    std::vector<std::string> args;
    for (const auto& a : f->args) args.push_back(GeneratedName(a));
    std::string out = name + "(" + (f->distinct ? "DISTINCT " : "") + JoinStrings(args, ", ") + ")";
    if (f->over) out += " OVER (" + WindowText(*f) + ")";
    return out;
  }
  if (auto* b = expr.As<Binary>()) {
    return "(" + GeneratedName(*b->left) + " " + BinaryOpName(b->op) + " " + GeneratedName(*b->right) + ")";
  }
  if (auto* c = expr.As<Cast>()) {
    return "CAST(" + GeneratedName(*c->operand) + " AS " + ToSql(c->type) + ")";
  }
  if (auto* s = expr.As<Subscript>()) return GeneratedName(*s->base) + "[" + GeneratedName(*s->index) + "]";
  if (auto* fa = expr.As<FieldAccess>()) return fa->field.name;
  return ToSql(expr);
}

namespace binding {

Result<BoundExpr> ExpressionBinder::PlanNode(const ColumnRef& c, const Expr& e) {
  size_t consumed = 0;
  Result<int> resolved = ResolveColumn(c.parts, *ctx_.columns, ctx_.sql, e.pos, &consumed);
  if (!resolved.ok()) {
    // A reference to the enclosing query's row, in a correlated subquery run for that row.
    for (const OuterRow* outer = ctx_.outer; outer; outer = outer->enclosing) {
      size_t outer_consumed = 0;
      Result<int> at = ResolveColumn(c.parts, *outer->columns, ctx_.sql, e.pos, &outer_consumed);
      if (!at.ok()) continue;
      const auto& value = outer->values[static_cast<size_t>(*at)];
      BoundExpr out{cp::literal(value), value->type, (*outer->columns)[static_cast<size_t>(*at)].name};
      for (size_t i = outer_consumed; i < c.parts.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(out, StructField(out, c.parts[i], e.pos));
      }
      return out;
    }
    return resolved.status();
  }
  const int index = *resolved;
  const Column& col = (*ctx_.columns)[index];
  BoundExpr out{cp::field_ref(index), col.type, col.name};
  // Remaining parts are struct field accesses.
  for (size_t i = consumed; i < c.parts.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(out, StructField(out, c.parts[i], e.pos));
  }
  return out;
}

Result<BoundExpr> ExpressionBinder::StructField(const BoundExpr& base, const Identifier& field, const SourcePos& pos) {
  if (base.type->id() != arrow::Type::STRUCT) {
    return Error(pos, StrCat("Cannot access field ", QuoteName(field.name), " of a value of type ",
                             base.type->ToString()));
  }
  const auto& st = static_cast<const arrow::StructType&>(*base.type);
  for (int i = 0; i < st.num_fields(); ++i) {
    if (Lower(st.field(i)->name()) == Lower(field.name)) {
      return BoundExpr{cp::call("struct_field", {base.expr}, cp::StructFieldOptions({i})),
                       st.field(i)->type(), st.field(i)->name()};
    }
  }
  return Error(pos, StrCat("No such struct field ", QuoteName(field.name), " in ", base.type->ToString()));
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Star&, const Expr& e) {
  return Error(e.pos, "Invalid usage of '*' in expression");
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Exists& ex, const Expr& e) {
  if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
  ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*ex.query));
  return BoundExpr{cp::literal(rows->num_rows() > 0), arrow::boolean(), ToSql(e)};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const ScalarSubquery& sq, const Expr& e) {
  if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
  ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*sq.query));
  if (rows->num_columns() != 1) {
    return Error(e.pos, "[INVALID_SUBQUERY_EXPRESSION.SCALAR_SUBQUERY_RETURN_MORE_THAN_ONE_OUTPUT_COLUMN] "
                        "A scalar subquery must return one column");
  }
  if (rows->num_rows() > 1) {
    return Error(e.pos, "[SCALAR_SUBQUERY_TOO_MANY_ROWS] More than one row returned by a subquery used as an expression.");
  }
  auto type = rows->schema()->field(0)->type();
  std::shared_ptr<arrow::Scalar> value = arrow::MakeNullScalar(type);
  if (rows->num_rows() == 1) {
    ARROW_ASSIGN_OR_RAISE(value, rows->column(0)->GetScalar(0));
  }
  return BoundExpr{cp::literal(value), type, "scalarsubquery()"};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Case& c, const Expr& e) {
  std::optional<BoundExpr> operand;
  if (c.operand) {
    ARROW_ASSIGN_OR_RAISE(operand, Plan(*c.operand));
  }
  std::vector<cp::Expression> conditions;
  std::vector<BoundExpr> results;
  for (const auto& w : c.whens) {
    ARROW_ASSIGN_OR_RAISE(auto cond, Plan(w.condition));
    if (operand) {
      BoundExpr left = *operand;
      ARROW_RETURN_NOT_OK(Unify(&left, &cond, *c.operand, w.condition, e.pos));
      cond = BoundExpr{cp::equal(left.expr, cond.expr), arrow::boolean(), ""};
    } else {
      ARROW_ASSIGN_OR_RAISE(cond, Coerce(cond, arrow::boolean(), w.condition.pos));
    }
    // case_when treats a null condition as false, as SQL does.
    conditions.push_back(cond.expr);
    ARROW_ASSIGN_OR_RAISE(auto r, Plan(w.result));
    results.push_back(std::move(r));
  }
  if (c.else_result) {
    ARROW_ASSIGN_OR_RAISE(auto r, Plan(*c.else_result));
    results.push_back(std::move(r));
  }
  std::shared_ptr<ArrowType> type = arrow::null();
  for (const auto& r : results) {
    auto t = CommonType(type, r.type);
    if (!t) return Error(e.pos, "[DATATYPE_MISMATCH] CASE branches have incompatible types");
    type = t;
  }
  if (IsNullType(*type)) type = arrow::utf8();
  std::vector<std::string> names;
  for (size_t i = 0; i < conditions.size(); ++i) names.push_back("c" + std::to_string(i));
  std::vector<cp::Expression> args{cp::call("make_struct", conditions, cp::MakeStructOptions(names))};
  for (auto& r : results) {
    ARROW_ASSIGN_OR_RAISE(r, Coerce(r, type, e.pos));
    args.push_back(r.expr);
  }
  return BoundExpr{cp::call("case_when", args), type, ToSql(e)};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Cast& c, const Expr& /*e*/) {
  ARROW_ASSIGN_OR_RAISE(auto v, Plan(*c.operand));
  ARROW_ASSIGN_OR_RAISE(auto to, ToArrowType(c.type));
  std::string name = "CAST(" + v.name + " AS " + ToSql(c.type) + ")";
  if (const Literal* s = AsStringLiteral(*c.operand)) {
    if (to->id() == arrow::Type::TIMESTAMP) {
      const auto& tt = static_cast<const arrow::TimestampType&>(*to);
      auto micros = ParseTimestampMicros(s->value, tt.timezone().empty() ? "UTC" : ctx_.time_zone);
      if (!micros.ok()) return BoundExpr{cp::literal(arrow::MakeNullScalar(to)), to, name};
      return BoundExpr{cp::literal(arrow::TimestampScalar(*micros, to)), to, name};
    }
    if (to->id() == arrow::Type::DATE32) {
      auto days = ParseDateDays(s->value.substr(0, std::min<size_t>(10, s->value.size())));
      if (!days.ok()) return BoundExpr{cp::literal(arrow::MakeNullScalar(to)), to, name};
      return BoundExpr{cp::literal(arrow::Date32Scalar(*days)), to, name};
    }
  }
  if (IsTimestamp(*v.type) && to->id() == arrow::Type::DATE32) {
    return BoundExpr{cp::call("cast", {Local(v)}, cp::CastOptions::Unsafe(to)), to, name};
  }
  if (IsTimestamp(*v.type) && IsString(*to)) {
    // Spark prints the fraction of a second only when it is not zero, without trailing zeros.
    auto text = cp::call("strftime", {Local(v)}, cp::StrftimeOptions("%Y-%m-%d %H:%M:%S"));
    text = cp::call("replace_substring_regex", {text}, cp::ReplaceSubstringOptions("\\.0+$", ""));
    text = cp::call("replace_substring_regex", {text}, cp::ReplaceSubstringOptions("(\\.[0-9]*[1-9])0+$", "\\1"));
    return BoundExpr{text, to, name};
  }
  if (IsInteger(*v.type) && IsInteger(*to)) {
    // Spark without ANSI mode keeps the low bits, as Java's narrowing does.
    return BoundExpr{cp::call("cast", {v.expr}, cp::CastOptions::Unsafe(to)), to, name};
  }
  if (IsFloating(*v.type) && IsInteger(*to)) return BoundExpr{FloatingToInteger(v, to), to, name};
  if (IsString(*v.type) && IsInteger(*to)) return BoundExpr{StringToIntegerOrNull(v, to), to, name};
  if (IsInteger(*v.type) && IsDecimal(*to)) {
    // At the integer's own width first: Arrow's cast checks the type's range, not the value.
    DecimalSpec d = ForIntegralType(*v.type).value_or(DecimalSpec{20, 0});
    v.type = arrow::decimal128(d.precision, d.scale);
    v.expr = cp::call("cast", {v.expr}, cp::CastOptions::Unsafe(v.type));
  }
  if ((IsDecimal(*v.type) || IsFloating(*v.type)) && IsDecimal(*to)) {
    return BoundExpr{ToDecimalOrNull(v, to), to, name};
  }
  return BoundExpr{cp::call("cast", {v.expr}, c.is_try ? cp::CastOptions::Unsafe(to) : cp::CastOptions::Safe(to)),
                   to, name};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const FunctionCall& f, const Expr& e) {
  std::string fn = Lower(f.name.parts.back().name);
  // Window functions are computed before the SELECT list; reaching here means another clause.
  if (f.over) {
    return Error(e.pos, StrCat("It is not allowed to use window functions inside WHERE, GROUP BY, HAVING or "
                               "join conditions: ",
                               ToSql(e)));
  }
  if (IsAggregateFunction(fn)) {
    return Error(e.pos, StrCat("[MISSING_GROUP_BY] The aggregate function ", fn,
                               " is not allowed here (use it in the SELECT list or HAVING of an aggregate query)"));
  }
  if (fn == kArrayOfQueryFunction && f.args.size() == 1 && f.args[0].Is<ScalarSubquery>()) {
    if (!ctx_.run_subquery) return Error(e.pos, "Subqueries are not supported here");
    ARROW_ASSIGN_OR_RAISE(auto rows, ctx_.run_subquery(*f.args[0].As<ScalarSubquery>()->query));
    if (rows->num_columns() != 1) return Error(e.pos, "ARRAY(query) needs a query of one column");
    std::shared_ptr<arrow::Array> values;
    if (rows->column(0)->num_chunks() == 0) {
      ARROW_ASSIGN_OR_RAISE(values, arrow::MakeEmptyArray(rows->column(0)->type()));
    } else {
      ARROW_ASSIGN_OR_RAISE(values, arrow::Concatenate(rows->column(0)->chunks()));
    }
    auto type = arrow::list(arrow::field("element", values->type()));
    return BoundExpr{cp::literal(std::make_shared<arrow::ListScalar>(values, type)), type, ToSql(e)};
  }
  std::vector<BoundExpr> args;
  for (const auto& a : f.args) {
    ARROW_ASSIGN_OR_RAISE(auto b, Plan(a));
    args.push_back(std::move(b));
  }
  const ScalarFunction* entry = FindScalarFunction(fn);
  if (!entry) return Error(f.name.pos, UnresolvedRoutineMessage(f.name.parts.back().name));
  Binder binder(*this, f, e, fn, GeneratedName(e), std::move(args));
  return BindScalarFunction(*entry, binder);
}

Result<BoundExpr> ExpressionBinder::PlanNode(const Subscript& s, const Expr& e) {
  ARROW_ASSIGN_OR_RAISE(auto base, Plan(*s.base));
  ARROW_ASSIGN_OR_RAISE(auto index, Plan(*s.index));
  if (base.type->id() == arrow::Type::MAP) {
    const auto& mt = static_cast<const arrow::MapType&>(*base.type);
    const Literal* key = s.index->As<Literal>();
    if (!key) return Error(s.index->pos, "map keys must be literals");
    std::shared_ptr<arrow::Scalar> key_scalar;
    if (key->kind == LiteralKind::kString) {
      key_scalar = std::make_shared<arrow::StringScalar>(key->value);
    } else if (key->kind == LiteralKind::kInteger || key->kind == LiteralKind::kBigInt) {
      auto parsed = arrow::Scalar::Parse(mt.key_type(), key->value);
      if (parsed.ok()) key_scalar = *parsed;
    }
    if (!key_scalar || !key_scalar->type->Equals(*mt.key_type())) {
      return Error(s.index->pos, StrCat("[DATATYPE_MISMATCH] The map key must be a ", mt.key_type()->ToString(),
                                        " literal"));
    }
    return BoundExpr{cp::call("map_lookup", {base.expr}, cp::MapLookupOptions(key_scalar, cp::MapLookupOptions::FIRST)),
                     mt.item_type(), GeneratedName(e)};
  }
  if (base.type->id() == arrow::Type::LIST) {
    const auto& lt = static_cast<const arrow::ListType&>(*base.type);
    const Literal* idx = s.index->As<Literal>();
    if ((!idx || idx->kind != LiteralKind::kInteger) && IsInteger(*index.type)) {
      // An index computed per row (the JDBC driver's `(current_schemas(false))[s.r]`).
      cp::Expression at = CastTo(index.expr, index.type, arrow::int64());
      if (ctx_.session && IsPgClient(*ctx_.session)) at = cp::call("subtract", {at, cp::literal(int64_t{1})});
      ARROW_ASSIGN_OR_RAISE(auto element, ListElementAt(base.expr, at));
      return BoundExpr{element, lt.value_type(), GeneratedName(e)};
    }
    if (!idx || idx->kind != LiteralKind::kInteger) return Error(s.index->pos, "array indexes must be integer literals");
    std::optional<int32_t> position = ParseInt32(idx->value);
    if (!position) return Error(s.index->pos, StrCat("array index ", idx->value, " is out of range for INT"));
    if (ctx_.session && IsPgClient(*ctx_.session)) {
      // PostgreSQL's arrays count from 1; an index before the first is NULL.
      if (--*position < 0) return BoundExpr{cp::literal(arrow::MakeNullScalar(lt.value_type())), lt.value_type(), GeneratedName(e)};
    }
    return BoundExpr{cp::call("list_element", {base.expr, cp::literal(*position)}),
                     lt.value_type(), GeneratedName(e)};
  }
  (void)index;
  return Error(e.pos, StrCat("[DATATYPE_MISMATCH] Cannot subscript a value of type ", base.type->ToString()));
}

// For PostgreSQL clients, "ns"."t"."c" (a double-quoted string, then field accesses) is the
// column of that qualified name; nullopt for any other expression.
std::optional<Expr> PgQuotedColumn(const Expr& e, const ExprContext& ctx) {
  if (!ctx.session || !IsPgClient(*ctx.session)) return std::nullopt;
  std::vector<Identifier> parts;
  const Expr* at = &e;
  while (const auto* fa = at->As<FieldAccess>()) {
    parts.insert(parts.begin(), fa->field);
    at = fa->base.get();
  }
  const auto* lit = at->As<Literal>();
  if (!lit || !lit->double_quoted) return std::nullopt;
  parts.insert(parts.begin(), Identifier{lit->value, true, at->pos});
  ColumnRef ref;
  ref.parts = std::move(parts);
  return Expr{std::move(ref), e.pos};
}

Result<BoundExpr> ExpressionBinder::PlanNode(const FieldAccess& fa, const Expr& e) {
  if (std::optional<Expr> column = PgQuotedColumn(e, ctx_)) return Plan(*column);
  ARROW_ASSIGN_OR_RAISE(auto base, Plan(*fa.base));
  return StructField(base, fa.field, e.pos);
}

}  // namespace binding

std::shared_ptr<arrow::DataType> CommonType(const std::shared_ptr<arrow::DataType>& a,
                                            const std::shared_ptr<arrow::DataType>& b) {
  return binding::CommonType(a, b);
}

Result<BoundExpr> PlanExpr(const Expr& expr, const ExprContext& ctx) {
  binding::ExpressionBinder binder(ctx);
  return binder.Plan(expr);
}

}  // namespace floe::sql
