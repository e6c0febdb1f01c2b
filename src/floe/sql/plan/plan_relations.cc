// FROM items: table references, subqueries, table functions and joins (hash joins, with
// the join keys found in ON / USING), planned onto Acero.

#include "floe/sql/plan/query_planner.h"

#include <cmath>
#include <set>
#include <tuple>
#include <arrow/acero/options.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>
#include "floe/scan/changelog_scan.h"
#include "floe/sql/plan/table_changes_function.h"
#include "floe/sql/session/session_state.h"
#include "floe/sql/execute/statement_cancel.h"
#include "floe/sql/plan/spill/partitioned_join.h"
#include "floe/sql/functions/function_registry.h"
#include "floe/sql/types/decimal_kernels.h"
#include "floe/sql/types/decimal_rules.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace ac = arrow::acero;
namespace cp = arrow::compute;

namespace {

// A changelog view's rows, read afresh: the table as it is now, the range its options name.
Result<std::shared_ptr<arrow::RecordBatchReader>> ReadChangelogView(SessionState& session,
                                                                    const ChangelogView& view) {
  ARROW_ASSIGN_OR_RAISE(auto table, session.tables.LoadTable(view.table));
  ARROW_ASSIGN_OR_RAISE(scan::ChangelogOptions options,
                        scan::ChangelogRangeFromReadOptions(*table, view.read_options));
  options.identifier_columns = view.identifier_columns;
  options.compute_updates = view.compute_updates;
  options.net_changes = view.net_changes;
  return scan::StreamChangelog(table, options);
}

}  // namespace

Result<Rel> QueryPlanner::PlanRelation(const Relation& relation, const ScanHints& hints) {
  if (auto* t = relation.As<TableRef>()) {
    if (t->name.parts.size() == 1 && !t->time_travel) {
      std::string name = Lower(t->name.parts[0].name);
      for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
        auto found = it->find(name);
        if (found != it->end()) {
          Rel rel;
          if (!found->second.used) {
            found->second.used = true;
            rel = found->second.rel;
          } else {
            const Cte* definition = found->second.definition;
            auto scope = found->second.scope;
            auto current = std::move(ctes_);
            ctes_ = *scope;
            auto again = PlanCte(*definition);
            ctes_ = std::move(current);
            ARROW_ASSIGN_OR_RAISE(rel, std::move(again));
          }
          std::vector<std::string> q{t->alias ? Lower(t->alias->name.name) : name};
          for (auto& c : rel.columns) c.qualifiers = {q};
          return rel;
        }
      }
      if (env_.session != nullptr) {
        auto view = env_.session->changelog_views.find(name);
        if (view != env_.session->changelog_views.end()) {
          auto rows = ReadChangelogView(*env_.session, view->second);
          if (!rows.ok()) return ErrorAt(env_.sql, relation.pos, rows.status().message());
          Rel rel = RelFromReader(*rows, {t->alias ? Lower(t->alias->name.name) : name});
          return rel;
        }
      }
    }
    // Without pushdown every column is read; the metadata columns still only when named.
    ScanHints every_column;
    every_column.columns = hints.columns;
    every_column.all_columns = true;
    ARROW_ASSIGN_OR_RAISE(Rel rel, env_.resolve_table(*t, env_.pushdown ? hints : every_column));
    if (t->alias) {
      for (auto& c : rel.columns) c.qualifiers = {{Lower(t->alias->name.name)}};
      for (size_t i = 0; i < t->alias->columns.size() && i < rel.columns.size(); ++i) {
        rel.columns[i].name = t->alias->columns[i].name;
      }
    }
    return rel;
  }
  if (auto* s = relation.As<SubqueryRef>()) {
    ARROW_ASSIGN_OR_RAISE(Rel rel, PlanQuery(*s->query));
    std::vector<std::vector<std::string>> qualifiers;
    if (s->alias) qualifiers.push_back({Lower(s->alias->name.name)});
    for (size_t i = 0; i < rel.columns.size(); ++i) {
      rel.columns[i].qualifiers = qualifiers;
      if (s->alias && i < s->alias->columns.size()) rel.columns[i].name = s->alias->columns[i].name;
    }
    return rel;
  }
  if (auto* f = relation.As<TableFunctionRef>()) {
    std::string name = Lower(f->name.parts.back().name);
    if (name == kTableChangesFunction && env_.session != nullptr && env_.load_table) {
      std::vector<TableFunctionArgument> args;
      for (const auto& a : f->args) {
        ARROW_ASSIGN_OR_RAISE(auto v, EvaluateConstant(a.value));
        args.push_back({a.name ? std::optional<std::string>(Lower(a.name->name)) : std::nullopt, std::move(v)});
      }
      auto rows = TableChanges(*env_.session, env_.load_table, args);
      if (!rows.ok()) return ErrorAt(env_.sql, relation.pos, rows.status().message());
      auto reader = CancellableReader(std::move(*rows), env_.session->cancel->flag());
      Rel rel = RelFromReader(std::move(reader), {f->alias ? Lower(f->alias->name.name) : name});
      if (f->alias) {
        for (size_t i = 0; i < f->alias->columns.size() && i < rel.columns.size(); ++i)
          rel.columns[i].name = f->alias->columns[i].name;
      }
      return rel;
    }
    const TableFunction* entry = FindTableFunction(name);
    if (!entry) {
      return ErrorAt(env_.sql, relation.pos, StrCat("[UNRESOLVED_ROUTINE] Cannot resolve table function `", name, "`."));
    }
    std::vector<std::shared_ptr<arrow::Scalar>> args;
    for (const auto& a : f->args) {
      if (a.name) {
        return ErrorAt(env_.sql, a.name->pos,
                       StrCat("Table function `", name, "` takes no named arguments (got `", a.name->name, "`)"));
      }
      ARROW_ASSIGN_OR_RAISE(auto v, EvaluateConstant(a.value));
      args.push_back(std::move(v));
    }
    auto rows = entry->impl(args);
    if (!rows.ok()) return ErrorAt(env_.sql, relation.pos, rows.status().message());
    // A table function can be long (range(1e9)): a cancel stops it between batches as it stops a scan.
    std::shared_ptr<arrow::RecordBatchReader> reader = *rows;
    if (env_.session != nullptr) reader = CancellableReader(std::move(reader), env_.session->cancel->flag());
    Rel rel = RelFromReader(std::move(reader), f->alias ? std::vector<std::string>{Lower(f->alias->name.name)}
                                           : std::vector<std::string>{"range"});
    if (f->alias && !f->alias->columns.empty()) {
      rel.columns[0].name = f->alias->columns[0].name;
    } else if (f->alias && (name == "unnest" || name == "generate_series")) {
      // PostgreSQL names the one column of a function returning a scalar after the alias:
      // `FROM unnest(a) x` reads x.
      rel.columns[0].name = f->alias->name.name;
    }
    return rel;
  }
  if (auto* j = relation.As<Join>()) return PlanJoin(*j, hints);
  return Status::NotImplemented("relation");
}

Result<Rel> QueryPlanner::PlanJoin(const Join& join, const ScanHints& hints) {
  ScanHints columns_only = hints;
  columns_only.conjuncts.clear();
  ARROW_ASSIGN_OR_RAISE(Rel left, PlanRelation(*join.left, columns_only));
  ARROW_ASSIGN_OR_RAISE(Rel right, PlanRelation(*join.right, columns_only));
  std::vector<Column> combined = left.columns;
  combined.insert(combined.end(), right.columns.begin(), right.columns.end());
  const int nl = static_cast<int>(left.columns.size());

  // Split the ON condition into equi-join keys (one side from each input) and a residual.
  std::vector<const Expr*> conjuncts;
  std::function<void(const Expr&)> split = [&](const Expr& e) {
    if (auto* b = e.As<Binary>(); b && b->op == BinaryOp::kAnd) {
      split(*b->left);
      split(*b->right);
    } else {
      conjuncts.push_back(&e);
    }
  };
  if (join.on) split(*join.on);
  std::vector<BoundExpr> left_keys, right_keys;
  std::vector<const Expr*> residual;
  auto try_side = [&](const Expr& e, const std::vector<Column>& cols) -> std::optional<BoundExpr> {
    auto r = PlanExpr(e, Context(cols));
    if (!r.ok()) return std::nullopt;
    return *r;
  };
  for (const Expr* c : conjuncts) {
    auto* b = c->As<Binary>();
    if (b && (b->op == BinaryOp::kEq || b->op == BinaryOp::kNullSafeEq)) {
      auto ll = try_side(*b->left, left.columns), rr = try_side(*b->right, right.columns);
      auto lr = try_side(*b->left, right.columns), rl = try_side(*b->right, left.columns);
      if (ll && rr && !lr && !rl) {
        left_keys.push_back(*ll);
        right_keys.push_back(*rr);
        continue;
      }
      if (lr && rl && !ll && !rr) {
        left_keys.push_back(*rl);
        right_keys.push_back(*lr);
        continue;
      }
    }
    residual.push_back(c);
  }
  for (const auto& u : join.using_columns) {
    ARROW_ASSIGN_OR_RAISE(int li, ResolveColumn({u}, left.columns, env_.sql, u.pos));
    ARROW_ASSIGN_OR_RAISE(int ri, ResolveColumn({u}, right.columns, env_.sql, u.pos));
    left_keys.push_back({cp::field_ref(li), left.columns[li].type, u.name});
    right_keys.push_back({cp::field_ref(ri), right.columns[ri].type, u.name});
    right.columns[ri].hidden = true;
    combined[nl + ri].hidden = true;
  }
  if (left_keys.empty()) {
    // Cross joins and joins on other conditions: every row matches a constant key.
    left_keys.push_back({cp::literal(0), arrow::int32(), "k"});
    right_keys.push_back({cp::literal(0), arrow::int32(), "k"});
  }
  // Append the keys as extra columns, cast to a common type.
  auto extend = [&](const Rel& rel, const std::vector<BoundExpr>& keys, const std::vector<BoundExpr>& other) {
    std::vector<cp::Expression> exprs;
    std::vector<std::string> names;
    for (size_t i = 0; i < rel.columns.size(); ++i) {
      exprs.push_back(cp::field_ref(static_cast<int>(i)));
      names.push_back("c" + std::to_string(i));
    }
    for (size_t k = 0; k < keys.size(); ++k) {
      auto type = keys[k].type;
      if (!type->Equals(*other[k].type)) {
        bool numeric = arrow::is_numeric(type->id()) || type->id() == arrow::Type::DECIMAL128;
        bool other_numeric = arrow::is_numeric(other[k].type->id()) || other[k].type->id() == arrow::Type::DECIMAL128;
        type = numeric && other_numeric ? (arrow::is_floating(type->id()) || arrow::is_floating(other[k].type->id()) ||
                                                   type->id() == arrow::Type::DECIMAL128 || other[k].type->id() == arrow::Type::DECIMAL128
                                               ? arrow::float64()
                                               : arrow::int64())
                                        : type;
      }
      exprs.push_back(type->Equals(*keys[k].type) ? keys[k].expr
                                                  : cp::call("cast", {keys[k].expr}, cp::CastOptions::Unsafe(type)));
      names.push_back("k" + std::to_string(k));
    }
    return Project(rel.decl, exprs, names);
  };
  ac::Declaration l = extend(left, left_keys, right_keys);
  ac::Declaration r = extend(right, right_keys, left_keys);
  std::vector<arrow::FieldRef> lk, rk, lout, rout;
  std::vector<ac::JoinKeyCmp> cmp;
  for (size_t k = 0; k < left_keys.size(); ++k) {
    lk.emplace_back(nl + static_cast<int>(k));
    rk.emplace_back(static_cast<int>(right.columns.size() + k));
    cmp.push_back(ac::JoinKeyCmp::EQ);
  }
  for (int i = 0; i < nl; ++i) lout.emplace_back(i);
  const bool semi = join.kind == JoinKind::kLeftSemi || join.kind == JoinKind::kLeftAnti;
  if (!semi) {
    for (size_t i = 0; i < right.columns.size(); ++i) rout.emplace_back(static_cast<int>(i));
  }
  cp::Expression filter = cp::literal(true);
  if (!residual.empty()) {
    // Acero binds the residual filter to both inputs whole: the left columns, the left's
    // key columns, then the right's columns. Unnamed placeholders keep the keys' places.
    std::vector<Column> filter_columns = left.columns;
    for (size_t k = 0; k < left_keys.size(); ++k) {
      Column key;
      key.name = "\x01key" + std::to_string(k);
      key.type = left_keys[k].type;
      key.hidden = true;
      filter_columns.push_back(std::move(key));
    }
    filter_columns.insert(filter_columns.end(), combined.begin() + nl, combined.end());
    cp::Expression all = cp::literal(true);
    for (const Expr* c : residual) {
      ARROW_ASSIGN_OR_RAISE(auto bound, PlanExpr(*c, Context(filter_columns)));
      all = cp::call("and_kleene", {all, bound.expr});
    }
    filter = all;
    if (semi) {
      // Semi/anti joins output only the left side, but their filter may use both.
      for (size_t i = 0; i < right.columns.size(); ++i) rout.emplace_back(static_cast<int>(i));
    }
  }
  ac::JoinType type = ac::JoinType::INNER;
  switch (join.kind) {
    case JoinKind::kInner:
    case JoinKind::kCross: type = ac::JoinType::INNER; break;
    case JoinKind::kLeft: type = ac::JoinType::LEFT_OUTER; break;
    case JoinKind::kRight: type = ac::JoinType::RIGHT_OUTER; break;
    case JoinKind::kFull: type = ac::JoinType::FULL_OUTER; break;
    case JoinKind::kLeftSemi: type = ac::JoinType::LEFT_SEMI; break;
    case JoinKind::kLeftAnti: type = ac::JoinType::LEFT_ANTI; break;
  }
  if (semi) rout.clear();
  ac::HashJoinNodeOptions options(type, lk, rk, lout, rout, cmp, filter);
  Rel out;
  ARROW_ASSIGN_OR_RAISE(out.decl, HashJoinWithSpill(std::move(l), std::move(r), std::move(options), Spill()));
  out.columns = left.columns;
  if (!semi) out.columns.insert(out.columns.end(), right.columns.begin(), right.columns.end());
  if (join.kind == JoinKind::kLeft || join.kind == JoinKind::kFull) {
    for (size_t i = nl; i < out.columns.size(); ++i) out.columns[i].nullable = true;
  }
  return out;
}

}  // namespace floe::sql
