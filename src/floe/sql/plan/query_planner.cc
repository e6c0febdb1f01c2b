#include "floe/sql/plan/query_planner.h"

#include "floe/sql/postgres/pg_catalog_tables.h"
#include "floe/sql/postgres/pg_column_names.h"
#include "floe/sql/postgres/pg_order_by_names.h"

#include <cmath>
#include <set>
#include <tuple>

#include <arrow/acero/options.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "floe/sql/plan/bounded_rows.h"
#include "floe/sql/functions/function_registry.h"
#include "floe/sql/execute/insert_conform.h"
#include "floe/sql/plan/metadata_answers.h"
#include "floe/sql/plan/spill/external_sort.h"
#include "floe/sql/plan/spill/partitioned_aggregate.h"
#include "floe/sql/plan/spill/partitioned_join.h"
#include "floe/util/memory_limit.h"
#include "floe/sql/types/decimal_kernels.h"
#include "floe/sql/types/decimal_rules.h"
#include "floe/sql/types/order_key.h"
#include "floe/sql/parse/expr_children.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace ac = arrow::acero;
namespace cp = arrow::compute;

namespace {

bool IsNestedType(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRUCT || t.id() == arrow::Type::LIST || t.id() == arrow::Type::MAP;
}

// Keeps the given columns of `rel` (by index), in that order.
Rel KeepColumns(const Rel& rel, const std::vector<int>& indices) {
  Rel out;
  std::vector<cp::Expression> exprs;
  std::vector<std::string> names;
  for (int i : indices) {
    exprs.push_back(cp::field_ref(i));
    names.push_back("c" + std::to_string(out.columns.size()));
    out.columns.push_back(rel.columns[i]);
  }
  out.decl = Project(rel.decl, std::move(exprs), std::move(names));
  return out;
}

std::vector<int> VisibleIndices(const Rel& rel) {
  std::vector<int> out;
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    if (!rel.columns[i].hidden) out.push_back(static_cast<int>(i));
  }
  return out;
}

bool HasHidden(const Rel& rel) {
  for (const auto& c : rel.columns) {
    if (c.hidden) return true;
  }
  return false;
}

// Collects aggregate calls (not descending into subqueries) by their canonical SQL.
void CollectAggregates(const Expr& e, std::map<std::string, const FunctionCall*>* out, std::vector<std::string>* order) {
  if (auto* f = e.As<FunctionCall>()) {
    // sum(x) OVER (...) is a window function; aggregates may still sit in its arguments.
    if (!f->over && IsAggregateFunction(Lower(f->name.parts.back().name))) {
      std::string key = ToSql(e);
      if (out->emplace(key, f).second) order->push_back(key);
      return;
    }
  }
  ForEachChild(e, [&](const Expr& child) { CollectAggregates(child, out, order); });
}

// Collects window function calls (not descending into subqueries) by their canonical SQL.
void CollectWindows(const Expr& e, std::map<std::string, const Expr*>* out, std::vector<std::string>* order) {
  if (auto* f = e.As<FunctionCall>(); f && f->over) {
    std::string key = ToSql(e);
    if (out->emplace(key, &e).second) order->push_back(key);
    return;
  }
  ForEachChild(e, [&](const Expr& child) { CollectWindows(child, out, order); });
}

// Column names an expression mentions (every name part, lower case); sets `star` for *.
void CollectNames(const Expr& e, std::set<std::string>* names, bool* star);

void CollectRelationNames(const Relation& r, std::set<std::string>* names, bool* star) {
  if (auto* j = r.As<Join>()) {
    CollectRelationNames(*j->left, names, star);
    CollectRelationNames(*j->right, names, star);
    if (j->on) CollectNames(*j->on, names, star);
    for (const auto& u : j->using_columns) names->insert(Lower(u.name));
  }
}

void CollectNames(const Expr& e, std::set<std::string>* names, bool* star) {
  if (auto* c = e.As<ColumnRef>()) {
    for (const auto& p : c->parts) names->insert(Lower(p.name));
    return;
  }
  if (e.Is<Star>()) {
    *star = true;
    return;
  }
  ForEachChild(e, [&](const Expr& child) { CollectNames(child, names, star); });
}

ScanHints HintsFor(const sql::Select& select, const std::vector<OrderItem>* order_by) {
  ScanHints hints;
  bool star = false;
  for (const auto& item : select.items) CollectNames(item.expr, &hints.columns, &star);
  if (select.where) CollectNames(*select.where, &hints.columns, &star);
  for (const auto& g : select.group_by) CollectNames(g, &hints.columns, &star);
  if (select.having) CollectNames(*select.having, &hints.columns, &star);
  if (order_by) {
    for (const auto& o : *order_by) CollectNames(o.expr, &hints.columns, &star);
  }
  for (const auto& r : select.from) CollectRelationNames(r, &hints.columns, &star);
  hints.all_columns = star;
  std::function<void(const Expr&)> split = [&](const Expr& e) {
    if (auto* b = e.As<Binary>(); b && b->op == BinaryOp::kAnd) {
      split(*b->left);
      split(*b->right);
    } else {
      hints.conjuncts.push_back(&e);
    }
  };
  if (select.where) split(*select.where);
  // Aggregates, DISTINCT and sorts do not depend on the order rows arrive in, except
  // first() and last(), which take the first and last rows read.
  std::map<std::string, const FunctionCall*> aggregates;
  std::vector<std::string> names;
  for (const auto& item : select.items) CollectAggregates(item.expr, &aggregates, &names);
  if (select.having) CollectAggregates(*select.having, &aggregates, &names);
  bool order_sensitive = false;
  for (const auto& [key, call] : aggregates) {
    const std::string name = Lower(call->name.parts.back().name);
    order_sensitive |= name == "first" || name == "last";
  }
  hints.any_order = !order_sensitive && (select.distinct || !select.group_by.empty() || !aggregates.empty() ||
                                         (order_by && !order_by->empty()));
  return hints;
}

}  // namespace

ExprContext QueryPlanner::Context(const std::vector<Column>& columns,
                                  const std::map<std::string, int>* computed) {
  ExprContext ctx;
  ctx.columns = &columns;
  ctx.computed = computed;
  ctx.time_zone = env_.time_zone;
  ctx.now_micros = env_.now_micros;
  ctx.sql = env_.sql;
  ctx.parameter_types = env_.parameter_types;
  ctx.run_subquery = [this](const Query& q) { return Run(q); };
  ctx.session = env_.session;
  ctx.outer = outer_;
  return ctx;
}

Result<std::shared_ptr<arrow::Table>> QueryPlanner::Run(const Query& query) {
  auto rel = PlanQuery(query);
  if (!rel.ok() && env_.pushdown && rel.status().message().find("[UNRESOLVED_COLUMN") != std::string::npos) {
    // Planned over every column, the error suggests the closest names of the whole table.
    env_.pushdown = false;
    rel = PlanQuery(query);
    env_.pushdown = true;
  }
  ARROW_RETURN_NOT_OK(rel.status());
  return Execute(*rel);
}

Result<std::shared_ptr<arrow::Scalar>> QueryPlanner::EvaluateConstant(const Expr& expr) {
  std::vector<Column> none;
  ARROW_ASSIGN_OR_RAISE(auto bound, PlanExpr(expr, Context(none)));
  ARROW_ASSIGN_OR_RAISE(auto b, bound.expr.Bind(arrow::Schema({})));
  auto batch = arrow::RecordBatch::Make(arrow::schema({}), 1, arrow::ArrayVector{});
  ARROW_ASSIGN_OR_RAISE(auto datum, cp::ExecuteScalarExpression(b, cp::ExecBatch(*batch)));
  if (datum.is_scalar()) return datum.scalar();
  return datum.make_array()->GetScalar(0);
}

Result<Rel> QueryPlanner::PlanQuery(const Query& query) {
  if (env_.session && IsPgClient(*env_.session)) {
    if (std::optional<Query> named = OrderByNamesAsWritten(query)) return PlanQuery(*named);
  }
  Result<Rel> planned = PlanQueryAsWritten(query);
  if (planned.ok() || !env_.empty_catalog_relation) return planned;
  Result<Rel> over_empty = PlanOverEmptyCatalogRelation(query, planned.status());
  if (over_empty.ok() || apply_subqueries_) return over_empty;
  // Only a catalog query is planned a second time: any other would load its tables again (and
  // a load that failed, timed out say, could then succeed behind the error's back).
  const Select* select = query.As<Select>();
  if (select == nullptr || select->from.empty()) return over_empty;
  for (const auto& item : select->from) {
    if (!ReadsOnlyCatalog(item)) return over_empty;
  }
  // A catalog query with correlated subqueries in its SELECT list (psql's \d reads
  // `array(select ... from unnest(tc.reloptions) x)`): run them row by row.
  apply_subqueries_ = true;
  Result<Rel> applied = PlanQueryAsWritten(query);
  apply_subqueries_ = false;
  return applied.ok() ? applied : over_empty;
}

Result<Rel> QueryPlanner::PlanQueryAsWritten(const Query& query) {
  ctes_.emplace_back();
  struct Pop {
    std::vector<std::map<std::string, PlannedCte>>* s;
    ~Pop() { s->pop_back(); }
  } pop{&ctes_};
  for (const auto& cte : query.with) {
    ARROW_ASSIGN_OR_RAISE(Rel rel, PlanCte(cte));
    auto scope = std::make_shared<std::vector<std::map<std::string, PlannedCte>>>(ctes_);
    for (auto& level : *scope) {
      for (auto& entry : level) entry.second.used = true;
    }
    ctes_.back()[Lower(cte.name.name)] = PlannedCte{std::move(rel), &cte, false, std::move(scope)};
  }
  Rel unused;
  ARROW_ASSIGN_OR_RAISE(Rel rel, PlanBody(query, query.order_by.empty() ? nullptr : &query.order_by, &unused));
  return ApplyOrderLimit(std::move(rel), query);
}

Result<Rel> QueryPlanner::PlanCte(const Cte& cte) {
  ARROW_ASSIGN_OR_RAISE(Rel rel, PlanQuery(*cte.query));
  std::vector<std::string> qualifier{Lower(cte.name.name)};
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    if (i < cte.columns.size()) rel.columns[i].name = cte.columns[i].name;
    rel.columns[i].qualifiers = {qualifier};
  }
  return rel;
}

Result<Rel> QueryPlanner::PlanBody(const Query& query, const std::vector<OrderItem>* order_by, Rel*) {
  if (auto* s = query.As<sql::Select>()) return PlanSelect(*s, order_by);
  if (auto* v = query.As<Values>()) return PlanValues(*v);
  if (auto* op = query.As<SetOperation>()) return PlanSetOperation(*op);
  if (auto* inner = query.As<Box<Query>>()) return PlanQuery(**inner);
  return Status::NotImplemented("query form");
}

// g++ 12 reports copies of arrow::FieldRef (a std::variant) inside SortKey as maybe
// uninitialized; they are not, and the warning is a known false positive of that compiler.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
Result<Rel> QueryPlanner::ApplyOrderLimit(Rel rel, const Query& query) {
  int64_t offset = 0;
  int64_t limit = -1;  // none
  for (auto item : {std::tuple{&query.offset, &offset, "offset"}, std::tuple{&query.limit, &limit, "limit"}}) {
    // Named variables, not a structured binding: clang 14 cannot capture those in a lambda.
    auto* expr = std::get<0>(item);
    int64_t* out = std::get<1>(item);
    const char* what = std::get<2>(item);
    if (!*expr) continue;
    ARROW_ASSIGN_OR_RAISE(auto v, EvaluateConstant(**expr));
    // Spark's checks: an INT that is not NULL and not negative.
    auto invalid = [&](const char* kind, const std::string& why) {
      return ErrorAt(env_.sql, (*expr)->pos,
                     StrCat("[INVALID_LIMIT_LIKE_EXPRESSION.", kind, "] The limit like expression \"", ToSql(**expr),
                            "\" is invalid. ", why));
    };
    auto id = v->type->id();
    if (id != arrow::Type::INT32 && id != arrow::Type::INT16 && id != arrow::Type::INT8) {
      std::string type = id == arrow::Type::INT64 ? "BIGINT" : id == arrow::Type::NA ? "VOID" : v->type->ToString();
      if (id == arrow::Type::DECIMAL128) {
        const auto& d = static_cast<const arrow::Decimal128Type&>(*v->type);
        type = StrCat("DECIMAL(", d.precision(), ",", d.scale(), ")");
      }
      return invalid("DATA_TYPE", StrCat("The ", what, " expression must be integer type, but got \"", type, "\"."));
    }
    if (!v->is_valid) return invalid("IS_NULL", StrCat("The evaluated ", what, " expression must not be null."));
    ARROW_ASSIGN_OR_RAISE(auto i64, v->CastTo(arrow::int64()));
    *out = static_cast<const arrow::Int64Scalar&>(*i64).value;
    if (*out < 0) {
      return invalid("IS_NEGATIVE", StrCat("The ", what, " expression must be equal to or greater than 0, but got ", *out, "."));
    }
  }
  if (!query.order_by.empty()) {
    std::vector<cp::Expression> exprs;
    std::vector<std::string> names;
    std::vector<Column> columns = rel.columns;
    for (size_t i = 0; i < rel.columns.size(); ++i) {
      exprs.push_back(cp::field_ref(static_cast<int>(i)));
      names.push_back("c" + std::to_string(i));
    }
    // (column index, order) of each sort key, in order.
    std::vector<std::pair<int, cp::SortOrder>> key_spec;
    for (const auto& item : query.order_by) {
      int index = -1;
      const Literal* lit = item.expr.As<Literal>();
      // Only an INT literal is a position; a wider one is a constant, as in Spark.
      std::optional<int32_t> position =
          lit && lit->kind == LiteralKind::kInteger ? ParseInt32(lit->value) : std::nullopt;
      if (position) {
        auto visible = VisibleIndices(rel);
        int64_t parsed = *position;
        if (parsed < 1 || parsed > static_cast<int64_t>(visible.size())) {
          return ErrorAt(env_.sql, item.expr.pos,
                         StrCat("[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position ", lit->value,
                                " is not in select list (valid range is [1, ", visible.size(), "])."));
        }
        index = visible[parsed - 1];
      } else {
        std::string text = ToSql(item.expr);
        for (size_t i = 0; i < rel.columns.size(); ++i) {
          if (rel.columns[i].hidden && rel.columns[i].name == text) index = static_cast<int>(i);
        }
      }
      cp::Expression value;
      std::shared_ptr<arrow::DataType> value_type;
      if (index >= 0) {
        value = cp::field_ref(index);
        value_type = rel.columns[index].type;
      } else {
        ARROW_ASSIGN_OR_RAISE(auto bound, PlanExpr(item.expr, Context(rel.columns)));
        value = bound.expr;
        value_type = bound.type;
      }
      bool nulls_first = item.nulls == NullsOrder::kFirst || (item.nulls == NullsOrder::kDefault && item.ascending);
      Status orderable = CheckOrderable(*value_type, StrCat(ToSql(item.expr), item.ascending ? " ASC" : " DESC",
                                                            nulls_first ? " NULLS FIRST" : " NULLS LAST"));
      if (!orderable.ok()) return ErrorAt(env_.sql, item.expr.pos, orderable.message());
      // Arrow sorts no arrays or structs: they sort by bytes in their order.
      if (NeedsOrderKey(*value_type)) value = OrderKey(std::move(value));
      // Acero orders nulls the same way for every key; a leading is-null key per item gives
      // each its own NULLS FIRST / LAST.
      exprs.push_back(cp::call("cast", {cp::call("is_null", {value})}, cp::CastOptions::Unsafe(arrow::int8())));
      names.push_back("c" + std::to_string(exprs.size() - 1));
      key_spec.emplace_back(static_cast<int>(exprs.size() - 1),
                            nulls_first ? cp::SortOrder::Descending : cp::SortOrder::Ascending);
      if (arrow::is_floating(value_type->id())) {
        // NaN sorts above every other value (Arrow places it with the nulls instead).
        exprs.push_back(cp::call("cast", {cp::call("is_nan", {value})}, cp::CastOptions::Unsafe(arrow::int8())));
        names.push_back("c" + std::to_string(exprs.size() - 1));
        key_spec.emplace_back(static_cast<int>(exprs.size() - 1),
                              item.ascending ? cp::SortOrder::Ascending : cp::SortOrder::Descending);
      }
      exprs.push_back(value);
      names.push_back("c" + std::to_string(exprs.size() - 1));
      key_spec.emplace_back(static_cast<int>(exprs.size() - 1),
                            item.ascending ? cp::SortOrder::Ascending : cp::SortOrder::Descending);
    }
    ac::Declaration projected = Project(rel.decl, exprs, names);
    std::vector<Column> all_columns = columns;
    for (size_t i = columns.size(); i < exprs.size(); ++i) {
      Column c;
      c.name = names[i];
      c.type = arrow::int8();
      c.hidden = true;
      all_columns.push_back(c);
    }
    if (limit >= 0 && offset + limit <= (1 << 20)) {
      // Top-N: keep only the first offset + limit rows while the input streams by.
      std::vector<cp::SortKey> named;
      for (const auto& [index, order] : key_spec) named.emplace_back(names[index], order);
      ARROW_ASSIGN_OR_RAISE(auto page, TopRows(projected, named, offset, limit));
      Rel sorted = RelFromTable(page);
      sorted.columns = all_columns;
      return KeepColumns(sorted, VisibleIndices(sorted));
    }
    std::vector<cp::SortKey> keys;
    for (const auto& [index, order] : key_spec) keys.emplace_back(names[index], order);
    ARROW_ASSIGN_OR_RAISE(ac::Declaration ordered,
                          SortWithSpill(std::move(projected), cp::Ordering(keys, cp::NullPlacement::AtEnd), Spill()));
    if (limit >= 0 || offset > 0) {
      ordered = ac::Declaration::Sequence(
          {std::move(ordered), {"fetch", ac::FetchNodeOptions(offset, limit >= 0 ? limit : INT64_MAX / 2)}});
    }
    Rel sorted{std::move(ordered), all_columns, nullptr};
    return KeepColumns(sorted, VisibleIndices(sorted));
  }
  if (query.limit || query.offset) {
    // Without ORDER BY the rows have no order; take them as they come.
    if (limit < 0 && query.limit) return ErrorAt(env_.sql, query.limit->pos, "The limit must not be negative");
    Rel visible = HasHidden(rel) ? KeepColumns(rel, VisibleIndices(rel)) : rel;
    ARROW_ASSIGN_OR_RAISE(auto page, FirstRows(visible.decl, offset, limit));
    std::vector<std::string> names;
    for (const auto& c : visible.columns) names.push_back(c.name);
    ARROW_ASSIGN_OR_RAISE(page, page->RenameColumns(names));
    Rel out = RelFromTable(page);
    for (size_t i = 0; i < out.columns.size(); ++i) out.columns[i].qualifiers = rel.columns[VisibleIndices(rel)[i]].qualifiers;
    return out;
  }
  if (HasHidden(rel)) return KeepColumns(rel, VisibleIndices(rel));
  return rel;
}

#pragma GCC diagnostic pop

Result<Rel> QueryPlanner::PlanValues(const Values& values) {
  if (values.rows.empty()) return Status::Invalid("VALUES without rows");
  size_t width = values.rows[0].size();
  std::vector<std::vector<std::shared_ptr<arrow::Scalar>>> cells(width);
  for (const auto& row : values.rows) {
    if (row.size() != width) {
      return ErrorAt(env_.sql, row.empty() ? SourcePos{} : row[0].pos,
                     "[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table expected " +
                         std::to_string(width) + " columns but found " + std::to_string(row.size()) + " columns in row");
    }
    for (size_t c = 0; c < width; ++c) {
      ARROW_ASSIGN_OR_RAISE(auto v, EvaluateConstant(row[c]));
      cells[c].push_back(v);
    }
  }
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < width; ++c) {
    std::shared_ptr<arrow::DataType> type = arrow::null();
    for (const auto& v : cells[c]) {
      if (v->type->id() == arrow::Type::NA) continue;
      if (type->id() == arrow::Type::NA) {
        type = v->type;
      } else if (IsNestedType(*type) || IsNestedType(*v->type)) {
        auto common = CommonType(type, v->type);
        if (!common) {
          return ErrorAt(env_.sql, values.rows[0][c].pos,
                         StrCat("[INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE] Invalid inline table. Found "
                                "incompatible types in the column `col", c + 1, "` for inline table."));
        }
        type = common;
      } else if (!type->Equals(*v->type)) {
        bool dec = type->id() == arrow::Type::DECIMAL128 || v->type->id() == arrow::Type::DECIMAL128;
        if (arrow::is_integer(type->id()) && arrow::is_integer(v->type->id())) {
          type = arrow::int64();
        } else if (dec && !arrow::is_floating(type->id()) && !arrow::is_floating(v->type->id())) {
          auto as_dec = [](const std::shared_ptr<arrow::DataType>& t) -> std::pair<int, int> {
            if (t->id() == arrow::Type::DECIMAL128) {
              const auto& d = static_cast<const arrow::Decimal128Type&>(*t);
              return {d.precision() - d.scale(), d.scale()};
            }
            return {t->id() == arrow::Type::INT64 ? 20 : 10, 0};
          };
          auto a = as_dec(type), b = as_dec(v->type);
          int scale = std::max(a.second, b.second);
          type = arrow::decimal128(std::min(38, std::max(a.first, b.first) + scale), scale);
        } else if (arrow::is_numeric(type->id()) || arrow::is_numeric(v->type->id()) || dec) {
          type = arrow::float64();
        } else {
          type = arrow::utf8();
        }
      }
    }
    if (IsNestedType(*type)) {
      // Row by row, each value cast by position to the common type (a NULL field may still be
      // of type void, which no builder appends).
      arrow::ArrayVector rows;
      for (const auto& v : cells[c]) {
        std::shared_ptr<arrow::Array> row;
        if (!v->is_valid) {
          ARROW_ASSIGN_OR_RAISE(row, arrow::MakeArrayOfNull(type, 1));
        } else {
          ARROW_ASSIGN_OR_RAISE(auto one, arrow::MakeArrayFromScalar(*v, 1));
          ARROW_ASSIGN_OR_RAISE(row, CastByPosition(one, type));
        }
        rows.push_back(std::move(row));
      }
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::Concatenate(rows));
      fields.push_back(arrow::field("col" + std::to_string(c + 1), type));
      arrays.push_back(array);
      continue;
    }
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
    for (const auto& v : cells[c]) {
      if (!v->is_valid) {
        ARROW_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      if (v->type->Equals(*type)) {
        ARROW_RETURN_NOT_OK(builder->AppendScalar(*v));
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(arrow::Datum(v), type));
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*cast.scalar()));
    }
    ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
    fields.push_back(arrow::field("col" + std::to_string(c + 1), type));
    arrays.push_back(array);
  }
  return RelFromTable(arrow::Table::Make(arrow::schema(fields), arrays));
}

Result<Rel> QueryPlanner::PlanSetOperation(const SetOperation& op) {
  ARROW_ASSIGN_OR_RAISE(Rel left, PlanQuery(*op.left));
  ARROW_ASSIGN_OR_RAISE(Rel right, PlanQuery(*op.right));
  if (left.columns.size() != right.columns.size()) {
    return ErrorAt(env_.sql, op.right->pos,
                   StrCat("[NUM_COLUMNS_MISMATCH] ", op.kind == SetOpKind::kUnion ? "UNION" : op.kind == SetOpKind::kIntersect ? "INTERSECT" : "EXCEPT",
                          " can only be performed on inputs with the same number of columns, but the first input has ",
                          left.columns.size(), " columns and the second input has ", right.columns.size(), " columns."));
  }
  // Cast both sides to common column types.
  std::vector<cp::Expression> le, re;
  std::vector<std::string> names;
  std::vector<Column> columns;
  for (size_t i = 0; i < left.columns.size(); ++i) {
    auto lt = left.columns[i].type, rt = right.columns[i].type;
    std::shared_ptr<arrow::DataType> t = lt;
    if (!lt->Equals(*rt)) {
      if (lt->id() == arrow::Type::NA) {
        t = rt;
      } else if (rt->id() == arrow::Type::NA) {
        t = lt;
      } else if (arrow::is_integer(lt->id()) && arrow::is_integer(rt->id())) {
        t = arrow::int64();
      } else if ((arrow::is_numeric(lt->id()) || lt->id() == arrow::Type::DECIMAL128) &&
                 (arrow::is_numeric(rt->id()) || rt->id() == arrow::Type::DECIMAL128)) {
        t = (lt->id() == arrow::Type::DECIMAL128 && rt->id() == arrow::Type::DECIMAL128) ? lt : arrow::float64();
      } else {
        t = arrow::utf8();
      }
    }
    auto cast = [&](int idx, const std::shared_ptr<arrow::DataType>& from) {
      return from->Equals(*t) ? cp::field_ref(idx) : cp::call("cast", {cp::field_ref(idx)}, cp::CastOptions::Unsafe(t));
    };
    le.push_back(cast(static_cast<int>(i), lt));
    re.push_back(cast(static_cast<int>(i), rt));
    names.push_back("c" + std::to_string(i));
    Column c = left.columns[i];
    c.type = t;
    c.qualifiers.clear();
    c.nullable = left.columns[i].nullable || right.columns[i].nullable;
    columns.push_back(c);
  }
  ac::Declaration l = Project(left.decl, le, names);
  ac::Declaration r = Project(right.decl, re, names);
  Rel out;
  out.columns = columns;
  std::vector<arrow::FieldRef> keys;
  for (size_t i = 0; i < columns.size(); ++i) keys.emplace_back(static_cast<int>(i));
  if (op.kind == SetOpKind::kUnion) {
    out.decl = ac::Declaration("union", {std::move(l), std::move(r)}, ac::ExecNodeOptions{});
  } else {
    std::vector<ac::JoinKeyCmp> cmp(keys.size(), ac::JoinKeyCmp::IS);  // set operations treat NULLs as equal
    ac::HashJoinNodeOptions options(op.kind == SetOpKind::kIntersect ? ac::JoinType::LEFT_SEMI : ac::JoinType::LEFT_ANTI,
                                    keys, keys, keys, {}, cmp);
    ARROW_ASSIGN_OR_RAISE(out.decl, HashJoinWithSpill(std::move(l), std::move(r), std::move(options), Spill()));
  }
  if (!op.all) {
    ARROW_ASSIGN_OR_RAISE(out.decl, AggregateWithSpill(std::move(out.decl), ac::AggregateNodeOptions({}, keys), Spill()));
  }
  return out;
}

Result<Rel> QueryPlanner::PlanSelect(const sql::Select& select, const std::vector<OrderItem>* order_by) {
  // FROM
  Rel input;
  // A single table read, whose metadata may answer the aggregates.
  std::shared_ptr<const TableFacts> facts;
  std::vector<const Expr*> where_conjuncts;
  if (select.from.empty()) {
    auto one = arrow::Table::Make(arrow::schema({arrow::field("__one", arrow::int32())}),
                                  {std::make_shared<arrow::Int32Array>(1, arrow::Buffer::FromString(std::string(4, '\0')))});
    input = RelFromTable(one);
    input.columns[0].hidden = true;
  } else {
    ScanHints hints = HintsFor(select, order_by);
    if (select.from.size() != 1 || !select.from[0].As<TableRef>()) hints.conjuncts.clear();
    // Comma-separated FROM items are cross joins.
    Relation from = select.from[0];
    for (size_t i = 1; i < select.from.size(); ++i) {
      Join cross;
      cross.kind = JoinKind::kCross;
      cross.left = Box<Relation>(std::move(from));
      cross.right = Box<Relation>(select.from[i]);
      from = Relation{std::move(cross), select.from[i].pos};
    }
    ARROW_ASSIGN_OR_RAISE(input, PlanRelation(from, hints));
    if (select.from.size() == 1 && select.from[0].As<TableRef>()) {
      facts = input.facts;
      where_conjuncts = hints.conjuncts;
    }
    input.facts.reset();
  }
  // WHERE
  if (select.where) {
    ARROW_ASSIGN_OR_RAISE(auto cond, PlanExpr(*select.where, Context(input.columns)));
    if (!cond.type->Equals(*arrow::boolean()) && cond.type->id() != arrow::Type::NA) {
      return ErrorAt(env_.sql, select.where->pos,
                     StrCat("[DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN] Filter expression ", ToSql(*select.where), " of type \"",
                            cond.type->ToString(), "\" is not a boolean."));
    }
    input.decl = ac::Declaration::Sequence({std::move(input.decl), {"filter", ac::FilterNodeOptions(cond.expr)}});
  }

  // Aggregation
  std::map<std::string, const FunctionCall*> aggregates;
  std::vector<std::string> agg_order;
  for (const auto& item : select.items) CollectAggregates(item.expr, &aggregates, &agg_order);
  if (select.having) CollectAggregates(*select.having, &aggregates, &agg_order);
  if (order_by) {
    for (const auto& o : *order_by) CollectAggregates(o.expr, &aggregates, &agg_order);
  }
  Rel scope = input;
  std::map<std::string, int> computed;
  const bool aggregated = !aggregates.empty() || !select.group_by.empty();
  bool applied = false;
  if (apply_subqueries_ && !aggregated) {
    ARROW_ASSIGN_OR_RAISE(applied, ApplyCorrelatedSubqueries(select, &input, &computed));
    scope = input;
  }
  if (aggregated) {
    // Group keys: expressions, select-list ordinals or aliases.
    std::vector<const Expr*> key_exprs;
    for (const auto& g : select.group_by) {
      const Expr* e = &g;
      auto* lit = g.As<Literal>();
      // Only an INT literal is a position; a wider one is a constant, as in Spark.
      std::optional<int32_t> position =
          lit && lit->kind == LiteralKind::kInteger ? ParseInt32(lit->value) : std::nullopt;
      if (position) {
        int64_t ordinal = *position;
        if (ordinal < 1 || ordinal > static_cast<int64_t>(select.items.size())) {
          return ErrorAt(env_.sql, g.pos, StrCat("[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position ", lit->value,
                                                 " is not in select list (valid range is [1, ", select.items.size(), "])."));
        }
        e = &select.items[ordinal - 1].expr;
      } else if (auto* c = g.As<ColumnRef>(); c && c->parts.size() == 1) {
        auto resolved = ResolveColumn(c->parts, input.columns, env_.sql, g.pos);
        if (!resolved.ok()) {
          for (const auto& item : select.items) {
            if (item.alias && Lower(item.alias->name) == Lower(c->parts[0].name)) e = &item.expr;
          }
        }
      }
      key_exprs.push_back(e);
    }
    std::vector<cp::Expression> pre;
    std::vector<std::string> pre_names;
    std::vector<Column> post_columns;
    std::vector<arrow::FieldRef> keys;
    for (size_t k = 0; k < key_exprs.size(); ++k) {
      ARROW_ASSIGN_OR_RAISE(auto bound, PlanExpr(*key_exprs[k], Context(input.columns)));
      if (arrow::is_floating(bound.type->id())) {
        // One group for every NaN and for both zeros, as Spark normalizes floating keys.
        auto nan = cp::call("cast", {cp::literal(std::nan(""))}, cp::CastOptions::Unsafe(bound.type));
        auto zero = cp::call("cast", {cp::literal(0.0)}, cp::CastOptions::Unsafe(bound.type));
        bound.expr = cp::call("if_else", {cp::call("is_nan", {bound.expr}), nan, cp::call("add", {bound.expr, zero})});
      }
      pre.push_back(bound.expr);
      pre_names.push_back("__k" + std::to_string(k));
      keys.emplace_back("__k" + std::to_string(k));
      Column c;
      c.name = bound.name;
      c.type = bound.type;
      if (auto* cr = key_exprs[k]->As<ColumnRef>()) {
        auto idx = ResolveColumn(cr->parts, input.columns, env_.sql, key_exprs[k]->pos);
        if (idx.ok()) c = input.columns[*idx];
      }
      post_columns.push_back(c);
      computed[ToSql(*key_exprs[k])] = static_cast<int>(k);
    }
    std::vector<cp::Aggregate> aggs;
    // Arguments no aggregate reads (count(*)'s): not projected, since a constant column
    // would be spelled out row by row between plans.
    std::set<std::string> unread;
    std::vector<std::shared_ptr<arrow::DataType>> result_types;
    std::vector<std::shared_ptr<arrow::DataType>> arg_types;
    std::vector<const FunctionCall*> calls;
    const bool grouped = !keys.empty();
    auto fname = [&](const char* base) { return std::string(grouped ? "hash_" : "") + base; };
    for (size_t a = 0; a < agg_order.size(); ++a) {
      const FunctionCall& f = *aggregates[agg_order[a]];
      std::string fn = Lower(f.name.parts.back().name);
      std::string out = "__a" + std::to_string(a);
      std::string arg = "__arg" + std::to_string(a);
      const AggregateFunction& entry = *FindAggregateFunction(fn);
      std::shared_ptr<arrow::DataType> arg_type = arrow::int32();
      if (!f.star && !f.args.empty()) {
        ARROW_ASSIGN_OR_RAISE(auto bound, PlanExpr(f.args[0], Context(input.columns)));
        if (entry.prepare) bound = entry.prepare(std::move(bound));
        pre.push_back(bound.expr);
        arg_type = bound.type;
      } else {
        pre.push_back(cp::literal(1));
      }
      pre_names.push_back(arg);
      AggregateCall call{f.star, f.distinct, !f.star && !f.args.empty(), arg_type};
      auto kernel = entry.kernel(call);
      if (!kernel.ok()) return ErrorAt(env_.sql, f.name.pos, kernel.status().message());
      if (kernel->takes_argument) {
        aggs.push_back({fname(kernel->function.c_str()), kernel->options, arrow::FieldRef(arg), out});
      } else {
        aggs.push_back({fname(kernel->function.c_str()), kernel->options, std::vector<arrow::FieldRef>{}, out});
        unread.insert(arg);
      }
      std::shared_ptr<arrow::DataType> result = entry.result_type(arg_type);
      if (entry.adjust_argument && !f.star && !f.args.empty()) entry.adjust_argument(arg_type, &pre.back());
      result_types.push_back(result);
      arg_types.push_back(arg_type);
      calls.push_back(&f);
      Column c;
      c.name = GeneratedName(Expr{Expr::Node(f), {}});
      c.type = result;
      post_columns.push_back(c);
      computed[agg_order[a]] = static_cast<int>(key_exprs.size() + a);
    }
    std::optional<Rel> answered;
    if (!grouped && facts && env_.metadata_answers) {
      ARROW_ASSIGN_OR_RAISE(answered, AggregatesFromMetadata(*facts, select, where_conjuncts, input.columns, calls,
                                                             arg_types, post_columns, result_types));
    }
    // Spark orders NaN above every double: max over values with a NaN is NaN, and so is min
    // over NaN alone. Arrow's min and max skip NaN; a second aggregate tells whether a group
    // saw a NaN (for max) or any other value (for min).
    std::vector<std::string> nan_seen(result_types.size());
    for (size_t a = 0; a < result_types.size(); ++a) {
      bool max = aggs[a].function == fname("max");
      if (!(max || aggs[a].function == fname("min")) || !arrow::is_floating(result_types[a]->id())) continue;
      std::string flag = "__nan" + std::to_string(a);
      auto is_nan = cp::call("is_nan", {pre[key_exprs.size() + a]});
      pre.push_back(max ? is_nan : cp::call("invert", {is_nan}));
      pre_names.push_back(flag);
      aggs.push_back({fname("any"), std::make_shared<cp::ScalarAggregateOptions>(true, 1), arrow::FieldRef(flag),
                      flag + "_any"});
      nan_seen[a] = flag + "_any";
    }
    for (size_t i = pre.size(); i-- > 0;) {
      if (unread.count(pre_names[i])) {
        pre.erase(pre.begin() + static_cast<std::ptrdiff_t>(i));
        pre_names.erase(pre_names.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    ac::Declaration pre_decl = Project(input.decl, pre, pre_names);
    ac::Declaration agg_decl;
    if (grouped) {
      ARROW_ASSIGN_OR_RAISE(agg_decl, AggregateWithSpill(std::move(pre_decl), ac::AggregateNodeOptions(aggs, keys), Spill()));
    } else {
      agg_decl = ac::Declaration::Sequence({std::move(pre_decl), {"aggregate", ac::AggregateNodeOptions(aggs, keys)}});
    }
    // Reorder to keys then aggregates by name, casting aggregates to Spark's result types.
    std::vector<cp::Expression> post;
    std::vector<std::string> post_names;
    for (size_t k = 0; k < keys.size(); ++k) {
      post.push_back(cp::field_ref("__k" + std::to_string(k)));
      post_names.push_back("c" + std::to_string(post.size()));
    }
    for (size_t a = 0; a < result_types.size(); ++a) {
      auto ref = cp::field_ref("__a" + std::to_string(a));
      if (!nan_seen[a].empty()) {
        // The flag is NULL only for a group of NULLs, whose result stays NULL.
        auto seen = cp::field_ref(nan_seen[a]);
        if (aggs[a].function == fname("min")) seen = cp::call("invert", {seen});
        auto nan = cp::call("cast", {cp::literal(std::nan(""))}, cp::CastOptions::Unsafe(result_types[a]));
        ref = cp::call("if_else", {seen, nan, ref});
      }
      auto type = result_types[a];
      if (type->id() == arrow::Type::DECIMAL128) {
        // Rounded half up; a sum too wide for its type is NULL, as in Spark.
        const auto& d = static_cast<const arrow::Decimal128Type&>(*type);
        ref = DecimalCall(DecimalOp::kRescale, {ref}, DecimalSpec{d.precision(), d.scale()});
      } else {
        ref = cp::call("cast", {ref}, cp::CastOptions::Unsafe(type));
      }
      post.push_back(ref);
      post_names.push_back("c" + std::to_string(post.size()));
    }
    scope.decl = answered ? std::move(answered->decl) : Project(std::move(agg_decl), post, post_names);
    scope.columns = post_columns;
    if (select.having) {
      ARROW_ASSIGN_OR_RAISE(auto cond, PlanExpr(*select.having, Context(scope.columns, &computed)));
      scope.decl = ac::Declaration::Sequence({std::move(scope.decl), {"filter", ac::FilterNodeOptions(cond.expr)}});
    }
  }

  // Window functions
  std::map<std::string, const Expr*> windows;
  std::vector<std::string> window_order;
  for (const auto& item : select.items) CollectWindows(item.expr, &windows, &window_order);
  if (order_by) {
    for (const auto& o : *order_by) CollectWindows(o.expr, &windows, &window_order);
  }
  if (!windows.empty()) {
    std::vector<const Expr*> calls;
    for (const auto& key : window_order) calls.push_back(windows[key]);
    ARROW_ASSIGN_OR_RAISE(scope, PlanWindows(std::move(scope), calls, aggregated, &computed));
  }

  // Projection
  std::vector<cp::Expression> exprs;
  std::vector<std::string> names;
  std::vector<Column> columns;
  const std::map<std::string, int>* comp = aggregated || !windows.empty() || applied ? &computed : nullptr;
  for (const auto& item : select.items) {
    if (auto* star = item.expr.As<Star>()) {
      std::vector<std::string> q;
      for (const auto& p : star->qualifier) q.push_back(Lower(p.name));
      bool any = false;
      for (size_t i = 0; i < scope.columns.size(); ++i) {
        const Column& c = scope.columns[i];
        if (c.hidden) continue;
        bool match = q.empty();
        for (const auto& cq : c.qualifiers) {
          if (!q.empty() && cq.size() >= q.size() && std::equal(q.begin(), q.end(), cq.end() - q.size())) match = true;
        }
        if (!match) continue;
        if (aggregated) {
          return ErrorAt(env_.sql, item.expr.pos, "[MISSING_AGGREGATION] * cannot be used in an aggregate query");
        }
        any = true;
        exprs.push_back(cp::field_ref(static_cast<int>(i)));
        names.push_back("c" + std::to_string(exprs.size()));
        columns.push_back(c);
      }
      if (!any && !q.empty()) {
        return ErrorAt(env_.sql, item.expr.pos, StrCat("[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve ", ToSql(item.expr),
                                                       " given input columns"));
      }
      continue;
    }
    auto bound = PlanExpr(item.expr, Context(scope.columns, comp));
    if (!bound.ok() && aggregated && item.expr.Is<ColumnRef>()) {
      return ErrorAt(env_.sql, item.expr.pos,
                     StrCat("[MISSING_AGGREGATION] The non-aggregating expression ", QuoteIdentifier(GeneratedName(item.expr)),
                            " is based on columns which are not participating in the GROUP BY clause."));
    }
    ARROW_RETURN_NOT_OK(bound.status());
    exprs.push_back(bound->expr);
    names.push_back("c" + std::to_string(exprs.size()));
    Column c;
    c.name = item.alias ? item.alias->name : bound->name;
    if (!item.alias && env_.session != nullptr && IsPgClient(*env_.session)) {
      c.name = PgOutputName(item.expr, bound->name, *bound->type);
    }
    c.type = bound->type;
    if (!item.alias) {
      if (auto* cr = item.expr.As<ColumnRef>()) {
        auto idx = ResolveColumn(cr->parts, scope.columns, env_.sql, item.expr.pos);
        if (idx.ok() && cr->parts.size() <= 1 + scope.columns[*idx].qualifiers.size() + 2) {
          c.qualifiers = scope.columns[*idx].qualifiers;
          c.nullable = scope.columns[*idx].nullable;
        }
      }
    }
    columns.push_back(c);
  }
  // ORDER BY expressions that are not select outputs ride along as hidden columns.
  if (order_by && !select.distinct) {
    for (const auto& o : *order_by) {
      if (auto* lit = o.expr.As<Literal>(); lit && lit->kind == LiteralKind::kInteger) continue;
      if (auto* cr = o.expr.As<ColumnRef>(); cr && cr->parts.size() == 1) {
        bool is_output = false;
        for (const auto& c : columns) is_output |= Lower(c.name) == Lower(cr->parts[0].name);
        if (is_output) continue;
      }
      bool same = false;
      for (const auto& item : select.items) same |= ToSql(item.expr) == ToSql(o.expr);
      if (same) continue;
      auto bound = PlanExpr(o.expr, Context(scope.columns, comp));
      if (!bound.ok()) continue;  // resolved later against the outputs, or reported there
      exprs.push_back(bound->expr);
      names.push_back("c" + std::to_string(exprs.size()));
      Column c;
      c.name = ToSql(o.expr);
      c.type = bound->type;
      c.hidden = true;
      columns.push_back(c);
    }
  }
  Rel out;
  out.decl = Project(scope.decl, exprs, names);
  out.columns = columns;
  if (select.distinct) {
    std::vector<arrow::FieldRef> keys;
    for (size_t i = 0; i < columns.size(); ++i) keys.emplace_back(static_cast<int>(i));
    ARROW_ASSIGN_OR_RAISE(out.decl, AggregateWithSpill(std::move(out.decl), ac::AggregateNodeOptions({}, keys), Spill()));
  }
  return out;
}

SpillEnv QueryPlanner::Spill() {
  SpillEnv spill;
  spill.pool = StatementMemoryPool();
  spill.memory = MemoryAllowance(spill.pool);
  if (env_.session != nullptr) spill.cancel = env_.session->cancel->flag();
  if (!spill_space_) {
    std::string root = env_.session != nullptr ? env_.session->Setting(kTempDirectoryKey, "") : "";
    spill_space_ = std::make_shared<SpillSpace>(root);
  }
  spill.space = spill_space_;
  return spill;
}

}  // namespace floe::sql
