#include "floe/sql/bind/binder.h"

#include <map>

#include <arrow/api.h>
#include <arrow/acero/options.h>
#include <arrow/compute/api.h>

#include "floe/scan/metadata_columns.h"
#include "floe/scan/table_scan.h"
#include "floe/sql/plan/metadata_answers.h"
#include "floe/sql/metadata/audit_log_table.h"
#include "floe/sql/metadata/metadata_tables.h"
#include "floe/sql/plan/parallel_scan_node.h"
#include "floe/sql/parse/parse_error.h"
#include "floe/sql/bind/suggest.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/audit_log.h"
#include "floe/sql/bind/read_point_in_time.h"
#include "floe/table/time_travel.h"
#include "floe/util/clock.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

QueryPlanner Binder::Planner() {
  PlannerEnv env;
  env.time_zone = state_.TimeZone();
  env.now_micros = NowMillis() * 1000;
  env.sql = sql_;
  env.resolve_table = [this](const TableRef& ref, const ScanHints& hints) { return BindTableRef(ref, hints); };
  env.load_table = [this](const ObjectName& name) { return LoadTable(name); };
  env.metadata_answers = Lower(state_.Setting(kMetadataAnswersKey, "true")) != "false";
  env.parameter_types = parameter_types_;
  env.session = &state_;
  env.empty_catalog_relation = [this](const TableRef& ref) {
    auto rows = PgRelationRows(state_, ref.name, &pg_relations_);
    return rows.ok() && rows->table && rows->table->num_rows() == 0;
  };
  return QueryPlanner(env);
}

Result<Namespace> Binder::BindNamespace(const ObjectName& name) {
  std::vector<std::string> parts;
  for (const auto& p : name.parts) parts.push_back(p.name);
  if (parts.size() > 1 && Lower(parts[0]) == Lower(state_.catalog->name())) parts.erase(parts.begin());
  return Namespace(parts);
}

Result<Namespace> Binder::BindExistingNamespace(const ObjectName& name) {
  ARROW_ASSIGN_OR_RAISE(Namespace ns, BindNamespace(name));
  ARROW_ASSIGN_OR_RAISE(bool exists, state_.catalog->NamespaceExists(ns));
  if (!exists) {
    return ErrorAt(sql_, name.pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", ns.ToString(), "` cannot be found."));
  }
  return ns;
}

Result<ResolvedName> Binder::BindName(const ObjectName& name, bool allow_suffix) {
  std::vector<std::string> parts;
  for (const auto& p : name.parts) parts.push_back(p.name);
  if (parts.size() > 1 && Lower(parts[0]) == Lower(state_.catalog->name())) parts.erase(parts.begin());
  ResolvedName out;
  // Trino: "t$snapshots".
  if (!parts.empty() && parts.back().find('$') != std::string::npos && allow_suffix) {
    std::string last = parts.back();
    size_t dollar = last.find('$');
    out.suffix = Lower(last.substr(dollar + 1));
    parts.back() = last.substr(0, dollar);
  }
  auto ident_of = [&](const std::vector<std::string>& p) {
    if (p.size() == 1) return TableIdentifier(state_.current_namespace, p[0]);
    return TableIdentifier(Namespace(std::vector<std::string>(p.begin(), p.end() - 1)), p.back());
  };
  TableIdentifier ident = ident_of(parts);
  if (out.suffix.empty() && allow_suffix && parts.size() >= 2) {
    ARROW_ASSIGN_OR_RAISE(bool exists, state_.catalog->TableExists(ident));
    std::string last = Lower(parts.back());
    bool special = IsMetadataTableName(last) || last.rfind("branch_", 0) == 0 || last.rfind("tag_", 0) == 0 ||
                   last.rfind("snapshot_id_", 0) == 0 || last.rfind("at_timestamp_", 0) == 0;
    if (!exists && special) {
      std::vector<std::string> shorter(parts.begin(), parts.end() - 1);
      TableIdentifier candidate = ident_of(shorter);
      // Either the base table exists, or it is the one to report missing.
      ARROW_ASSIGN_OR_RAISE(bool candidate_exists, state_.catalog->TableExists(candidate));
      if (candidate_exists || shorter.size() >= 1) {
        out.suffix = last;
        // Branch and tag names keep their case.
        if (last.rfind("branch_", 0) == 0 || last.rfind("tag_", 0) == 0) out.suffix = parts.back();
        ident = candidate;
        parts = shorter;
      }
    }
  }
  out.ident = ident;
  for (const auto& p : parts) out.qualifier.push_back(Lower(p));
  return out;
}

Result<std::shared_ptr<table::Table>> Binder::LoadTable(const ObjectName& name) {
  ARROW_ASSIGN_OR_RAISE(ResolvedName resolved, BindName(name, false));
  auto table = LoadIdent(resolved.ident);
  if (!table.ok() && IsNotFound(table.status())) {
    return ErrorAt(sql_, name.pos,
                   StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", state_.catalog->name(), "`.`",
                          resolved.ident.ns.ToString(), "`.`", resolved.ident.name, "` cannot be found."));
  }
  return table;
}

void Binder::PinTable(std::shared_ptr<table::Table> table) { pinned_.push_back(std::move(table)); }

Result<std::shared_ptr<table::Table>> Binder::LoadIdent(const TableIdentifier& ident) {
  for (const auto& t : pinned_) {
    if (t->ident() == ident) return t;
  }
  return state_.tables.LoadTable(ident);
}

Result<std::optional<SessionReadPoint>> Binder::SessionReadPointFor(const table::Table& table,
                                                                   bool identifier_travel,
                                                                   const std::string& suffix) const {
  // Only plain reads of table data; a write's target (pinned) reads what it replaces.
  if (identifier_travel || !suffix.empty()) return std::nullopt;
  for (const auto& t : pinned_) {
    if (t.get() == &table) return std::nullopt;
  }
  return ResolveSessionReadPoint(state_, table);
}

Result<Rel> Binder::BindTableRef(const TableRef& ref, const ScanHints& hints) {
  ARROW_ASSIGN_OR_RAISE(PgRelationRowsResult catalog_rows, PgRelationRows(state_, ref.name, &pg_relations_));
  if (catalog_rows.table) {
    if (ref.time_travel) return ErrorAt(sql_, ref.time_travel->pos, "Catalog relations cannot be read as of a time");
    Rel rel = RelFromTable(catalog_rows.table);
    for (auto& c : rel.columns) c.qualifiers = {{catalog_rows.relation.name}, {catalog_rows.relation.schema, catalog_rows.relation.name}};
    return rel;
  }
  ARROW_ASSIGN_OR_RAISE(std::optional<Rel> system_rel, BindSystemRelation(ref));
  if (system_rel) return std::move(*system_rel);
  ARROW_ASSIGN_OR_RAISE(ResolvedName resolved, BindName(ref.name, true));
  auto loaded = LoadIdent(resolved.ident);
  if (!loaded.ok()) {
    if (!IsNotFound(loaded.status())) return loaded.status();
    // Suggest tables of the same namespace with a close name.
    std::string message = StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", state_.catalog->name(), "`.`",
                                 resolved.ident.ns.ToString(), "`.`", resolved.ident.name, "` cannot be found.");
    // `db.t.snapshot`: the namespace is a table, so the last part meant a metadata table.
    const auto& levels = resolved.ident.ns.levels;
    if (!levels.empty()) {
      TableIdentifier owner(Namespace(std::vector<std::string>(levels.begin(), levels.end() - 1)), levels.back());
      auto owner_exists = state_.catalog->TableExists(owner);
      if (owner_exists.ok() && *owner_exists) {
        std::vector<std::string> names;
        for (const auto& entry : AllMetadataTables()) names.push_back(entry.name);
        std::string best = ClosestName(resolved.ident.name, names);
        return ErrorAt(sql_, ref.name.pos, StrCat(message, " Did you mean `", owner.ToString(), ".", best, "`?"));
      }
    }
    auto listed = state_.catalog->ListTables(resolved.ident.ns);
    if (listed.ok() && !listed->empty()) {
      std::vector<std::string> names;
      for (const auto& t : *listed) names.push_back(t.name);
      std::string best = TableIdentifier(resolved.ident.ns, ClosestName(resolved.ident.name, names)).ToString();
      message += " Did you mean `" + best + "`?";
    }
    return ErrorAt(sql_, ref.name.pos, message);
  }
  std::shared_ptr<table::Table> table = *loaded;
  auto md = table->metadata();
  std::string suffix = resolved.suffix;
  // Iceberg's selectors: snapshot_id_<digits> and at_timestamp_<digits>; any other suffix
  // names a metadata table.
  auto digits_after = [&](std::string_view prefix) {
    return suffix.size() > prefix.size() && suffix.rfind(prefix, 0) == 0 &&
           suffix.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
  };
  const bool identifier_travel = suffix.rfind("branch_", 0) == 0 || suffix.rfind("tag_", 0) == 0 ||
                                 digits_after("snapshot_id_") || digits_after("at_timestamp_");
  if (identifier_travel && ref.time_travel) {
    return ErrorAt(sql_, ref.time_travel->pos, "Cannot do time-travel based on both table identifier and AS OF");
  }
  std::optional<table::ResolvedSnapshot> travel;
  std::string note;
  if (ref.time_travel) {
    QueryPlanner planner = Planner();
    ARROW_ASSIGN_OR_RAISE(auto value, planner.EvaluateConstant(ref.time_travel->value));
    if (ref.time_travel->kind == TimeTravelKind::kVersion) {
      if (value->type->id() == arrow::Type::STRING) {
        const auto& s = static_cast<const arrow::StringScalar&>(*value).value->ToString();
        auto r = table::ResolveVersion(md, s);
        if (!r.ok()) return ErrorAt(sql_, ref.time_travel->value.pos, r.status());
        travel = *r;
      } else if (arrow::is_integer(value->type->id())) {
        ARROW_ASSIGN_OR_RAISE(auto i64, value->CastTo(arrow::int64()));
        auto r = table::ResolveVersion(md, static_cast<const arrow::Int64Scalar&>(*i64).value);
        if (!r.ok()) return ErrorAt(sql_, ref.time_travel->value.pos, r.status());
        travel = *r;
      } else if (value->type->id() == arrow::Type::DECIMAL128) {
        // A number wider than a long names no snapshot, as Iceberg reads the version's text.
        return ErrorAt(sql_, ref.time_travel->value.pos,
                       StrCat("Cannot find matching snapshot ID or reference name for version ", value->ToString()));
      } else {
        return ErrorAt(sql_, ref.time_travel->value.pos,
                       "[INVALID_TIME_TRAVEL_SPEC] VERSION AS OF takes an integer snapshot id or a string");
      }
      note = StrCat(table->name(), " VERSION AS OF ", ToSql(ref.time_travel->value), " -> snapshot ",
                    travel->snapshot_id() ? std::to_string(*travel->snapshot_id()) : "none");
    } else {
      int64_t micros = 0;
      if (value->type->id() == arrow::Type::STRING) {
        const auto& s = static_cast<const arrow::StringScalar&>(*value).value->ToString();
        auto parsed = ParseTimestampMicros(s, state_.TimeZone());
        if (!parsed.ok()) return ErrorAt(sql_, ref.time_travel->value.pos, parsed.status());
        micros = *parsed;
      } else if (value->type->id() == arrow::Type::TIMESTAMP) {
        micros = static_cast<const arrow::TimestampScalar&>(*value).value;
      } else if (value->type->id() == arrow::Type::DATE32) {
        micros = int64_t{static_cast<const arrow::Date32Scalar&>(*value).value} * 86400000000LL;
      } else {
        return ErrorAt(sql_, ref.time_travel->value.pos,
                       "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR] TIMESTAMP AS OF must be a constant timestamp");
      }
      // Floor to milliseconds: snapshot-log times are millis.
      int64_t ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
      auto r = table::ResolveTimeTravel(md, table::TimeTravelSpec::AsOf(ms));
      if (!r.ok()) return ErrorAt(sql_, ref.time_travel->value.pos, r.status());
      travel = *r;
      note = StrCat(table->name(), " TIMESTAMP AS OF ", FormatMillisIso(ms), " -> snapshot ",
                    travel->snapshot_id() ? std::to_string(*travel->snapshot_id()) : "none");
    }
  } else if (auto session_point = SessionReadPointFor(*table, identifier_travel, suffix);
             !session_point.ok() || *session_point) {
    if (!session_point.ok()) return ErrorAt(sql_, ref.name.pos, session_point.status());
    travel = std::move((*session_point)->snapshot);
    note = std::move((*session_point)->note);
  } else if (!identifier_travel && suffix.empty() && !state_.Setting(kWapBranchKey, "").empty() &&
             md->refs.count(state_.Setting(kWapBranchKey, ""))) {
    // With spark.wap.branch set, plain reads see the branch being written.
    auto r = table::ResolveTimeTravel(md, table::TimeTravelSpec::Branch(state_.Setting(kWapBranchKey, "")));
    if (!r.ok()) return ErrorAt(sql_, ref.name.pos, r.status());
    travel = *r;
  } else if (identifier_travel) {
    table::TimeTravelSpec spec;
    if (suffix.rfind("branch_", 0) == 0) {
      spec = table::TimeTravelSpec::Branch(suffix.substr(7));
    } else if (suffix.rfind("tag_", 0) == 0) {
      spec = table::TimeTravelSpec::Tag(suffix.substr(4));
    } else {
      bool by_id = suffix.rfind("snapshot_id_", 0) == 0;
      std::string digits = suffix.substr(by_id ? 12 : 13);
      std::optional<int64_t> value = ParseInt64(digits);
      if (!value) {
        return ErrorAt(sql_, ref.name.pos,
                       StrCat("Invalid ", by_id ? "snapshot id" : "timestamp", " in ", table->name(), ".", suffix,
                              ": For input string: \"", digits, "\""));
      }
      spec = by_id ? table::TimeTravelSpec::Snapshot(*value) : table::TimeTravelSpec::AsOf(*value);
    }
    auto r = table::ResolveTimeTravel(md, spec);
    if (!r.ok()) return ErrorAt(sql_, ref.name.pos, r.status());
    travel = *r;
    note = StrCat(table->name(), ".", suffix, " -> snapshot ",
                  travel->snapshot_id() ? std::to_string(*travel->snapshot_id()) : "none");
    suffix.clear();
  }
  if (note.empty() && suffix.empty()) {
    // A plain read: EXPLAIN still says which snapshot it is.
    const std::optional<int64_t> id = travel ? travel->snapshot_id() : md->current_snapshot_id;
    note = StrCat(table->name(), " -> snapshot ", id ? std::to_string(*id) : "none",
                  travel && travel->branch ? " (branch " + *travel->branch + ")" : " (current)");
  }
  if (!note.empty()) resolution_notes_.push_back(note);

  std::shared_ptr<arrow::Table> rows;
  if (!suffix.empty()) {
    if (!IsMetadataTableName(suffix)) {
      return ErrorAt(sql_, ref.name.pos, StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", state_.catalog->name(), "`.`",
                                               resolved.ident.ToString(), "`.`", suffix, "` cannot be found."));
    }
    std::optional<int64_t> snapshot = travel ? travel->snapshot_id() : std::nullopt;
    ARROW_ASSIGN_OR_RAISE(rows, MetadataTable(*table, suffix, snapshot));
  } else {
    scan::TableScan scan(table);
    if (travel) {
      if (travel->branch && *travel->branch != spec::kMainBranch) {
        scan.UseRef(*travel->branch);
      } else if (travel->snapshot_id()) {
        if (travel->branch) {
          scan.UseRef(*travel->branch);
        } else {
          scan.UseSnapshot(*travel->snapshot_id());
        }
      }
    }
    // Read only the columns the query mentions, skip files the WHERE clause rules out, and
    // stream the files into the plan.
    ARROW_ASSIGN_OR_RAISE(auto read_schema, scan.ReadSchema());
    // Iceberg's metadata columns, read when named and hidden from `*`; a table column of
    // the same name wins.
    std::vector<std::string> metadata_columns;
    for (const std::string& name : scan::MetadataColumnNames()) {
      if (hints.columns.count(name) && !read_schema->FindFieldByNameCaseInsensitive(name)) {
        metadata_columns.push_back(name);
      }
    }
    if (!hints.all_columns || !metadata_columns.empty()) {
      std::vector<std::string> columns;
      for (const auto& f : read_schema->fields()) {
        if (hints.all_columns || hints.columns.count(Lower(f.name))) columns.push_back(f.name);
      }
      if (columns.empty() && metadata_columns.empty()) columns.push_back(read_schema->fields().front().name);
      columns.insert(columns.end(), metadata_columns.begin(), metadata_columns.end());
      scan.Select(columns);
    }
    scan.Filter(PushablePredicates(hints.conjuncts, *read_schema));
    auto facts = std::make_shared<TableFacts>(TableFacts{table->name(), table, scan, read_schema});
    Rel streamed;
    if (hints.any_order) {
      ARROW_ASSIGN_OR_RAISE(auto shared, scan.ToSharedRowGroupScan(arrow::acero::ExecPlan::kMaxBatchSize));
      streamed = RelFromSchema(*shared->schema(), ParallelScanSource(shared, state_.cancel->flag()));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto reader, scan.ToRecordBatchReader());
      streamed = RelFromReader(CancellableReader(std::move(reader), state_.cancel->flag()));
    }
    for (auto& column : streamed.columns) {
      for (const auto& name : metadata_columns) column.hidden |= column.name == name;
    }
    const auto& m = scan.metrics();
    scan_notes_.push_back(StrCat(table->name(), ": manifests ", m.manifests, " (", m.manifests_skipped,
                                 " skipped), data files ", m.files, " (", m.files_skipped, " skipped)"));
    streamed.facts = std::move(facts);
    return WithQualifiers(std::move(streamed), resolved);
  }
  return WithQualifiers(RelFromTable(rows), resolved);
}

Result<std::optional<Rel>> Binder::BindSystemRelation(const TableRef& ref) {
  std::vector<std::string> parts;
  for (const auto& p : ref.name.parts) parts.push_back(Lower(p.name));
  if (parts.size() == 3 && parts[0] == Lower(state_.catalog->name())) parts.erase(parts.begin());
  if (parts != std::vector<std::string>{"system", "audit_log"}) return std::nullopt;
  // A table of that name wins, as it would over a metadata table.
  const TableIdentifier ident(Namespace({"system"}), "audit_log");
  ARROW_ASSIGN_OR_RAISE(bool table_exists, state_.catalog->TableExists(ident));
  if (table_exists) return std::nullopt;
  if (ref.time_travel) return ErrorAt(sql_, ref.time_travel->pos, "The audit log cannot be read as of a time");
  ARROW_ASSIGN_OR_RAISE(auto rows, table::ReadAuditLog(*state_.catalog, *state_.io, AuditQuery{}));
  ARROW_ASSIGN_OR_RAISE(auto arrow_rows, AuditLogTable(rows));
  ResolvedName resolved;
  resolved.ident = ident;
  resolved.qualifier = {"system", "audit_log"};
  return WithQualifiers(RelFromTable(arrow_rows), resolved);
}

Rel Binder::WithQualifiers(Rel rel, const ResolvedName& resolved) const {
  std::vector<std::vector<std::string>> qualifiers;
  qualifiers.push_back({resolved.qualifier.back()});
  if (resolved.qualifier.size() > 1) qualifiers.push_back(resolved.qualifier);
  std::vector<std::string> full{Lower(state_.catalog->name())};
  for (const auto& l : resolved.ident.ns.levels) full.push_back(Lower(l));
  full.push_back(Lower(resolved.ident.name));
  qualifiers.push_back(full);
  for (auto& c : rel.columns) c.qualifiers = qualifiers;
  return rel;
}

std::vector<scan::ColumnPredicate> Binder::PushablePredicates(const std::vector<const Expr*>& conjuncts, const spec::Schema& schema) {
  using Op = scan::ColumnPredicate::Op;
  std::vector<scan::ColumnPredicate> out;
  QueryPlanner planner = Planner();
  // Appends `column op constant` when it can be stated exactly in the column's type; anything
  // else is left to the row filter alone.
  auto push = [&](const ColumnRef* column, Op op, const Expr* constant) {
    if (!column) return;
    const spec::NestedField* field = schema.FindFieldByNameCaseInsensitive(column->parts.back().name);
    if (!field || !field->type->is_primitive()) return;
    scan::ColumnPredicate p;
    p.field_id = field->id;
    p.op = op;
    if (constant) {
      if (!constant->Is<Literal>() && !constant->Is<Cast>()) return;
      auto value = planner.EvaluateConstant(*constant);
      if (!value.ok() || !(*value)->is_valid) return;
      auto arrow_type = table::ToArrowType(*field->type);
      if (!arrow_type.ok()) return;
      std::shared_ptr<arrow::Scalar> scalar = *value;
      const auto tid = field->type->id();
      const bool text_column = tid == spec::TypeId::kString || tid == spec::TypeId::kBinary ||
                               tid == spec::TypeId::kFixed || tid == spec::TypeId::kUuid;
      const bool text_value = scalar->type->id() == arrow::Type::STRING || scalar->type->id() == arrow::Type::BINARY;
      // Spark compares a string column with a number as numbers, not as text: text bounds
      // cannot rule such a file out.
      if (text_column && !text_value) return;
      if (scalar->type->id() == arrow::Type::STRING &&
          (tid == spec::TypeId::kTimestamp || tid == spec::TypeId::kTimestampTz || tid == spec::TypeId::kDate)) {
        std::string text = scalar->ToString();
        if (tid == spec::TypeId::kDate) {
          auto days = ParseDateDays(text.substr(0, 10));
          if (!days.ok()) return;
          scalar = std::make_shared<arrow::Date32Scalar>(*days);
        } else {
          auto micros = ParseTimestampMicros(text, tid == spec::TypeId::kTimestamp ? "UTC" : state_.TimeZone());
          if (!micros.ok()) return;
          scalar = std::make_shared<arrow::TimestampScalar>(*micros, *arrow_type);
        }
      }
      if (!scalar->type->Equals(**arrow_type)) {
        // Only exact conversions are safe for pruning (1.5 against an int column is not).
        auto cast = arrow::compute::Cast(arrow::Datum(scalar), *arrow_type, arrow::compute::CastOptions::Safe());
        if (!cast.ok()) return;
        auto back = arrow::compute::Cast(*cast, scalar->type, arrow::compute::CastOptions::Safe());
        if (!back.ok() || !back->scalar()->Equals(*scalar)) return;
        scalar = cast->scalar();
      }
      auto literal = table::LiteralFromScalar(*scalar, field->type);
      if (!literal.ok()) return;
      p.value = *literal;
    }
    out.push_back(std::move(p));
  };
  for (const Expr* e : conjuncts) {
    if (auto* n = e->As<IsNull>()) {
      push(n->operand->As<ColumnRef>(), n->negated ? Op::kNotNull : Op::kIsNull, nullptr);
    } else if (auto* between = e->As<Between>()) {
      // `c BETWEEN lo AND hi` is `c >= lo AND c <= hi`; the negated form rules out nothing alone.
      if (between->negated) continue;
      push(between->operand->As<ColumnRef>(), Op::kGe, between->low.get());
      push(between->operand->As<ColumnRef>(), Op::kLe, between->high.get());
    } else if (auto* b = e->As<Binary>()) {
      static const std::map<BinaryOp, std::pair<Op, Op>> kOps = {
          {BinaryOp::kEq, {Op::kEq, Op::kEq}}, {BinaryOp::kLt, {Op::kLt, Op::kGt}}, {BinaryOp::kLe, {Op::kLe, Op::kGe}},
          {BinaryOp::kGt, {Op::kGt, Op::kLt}}, {BinaryOp::kGe, {Op::kGe, Op::kLe}}};
      auto it = kOps.find(b->op);
      if (it == kOps.end()) continue;
      if (auto* column = b->left->As<ColumnRef>()) {
        push(column, it->second.first, b->right.get());
      } else if (auto* rcolumn = b->right->As<ColumnRef>()) {
        push(rcolumn, it->second.second, b->left.get());
      }
    }
  }
  return out;
}

}  // namespace floe::sql
