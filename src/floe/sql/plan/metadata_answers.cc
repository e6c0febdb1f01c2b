#include "floe/sql/plan/metadata_answers.h"

#include <cmath>

#include <arrow/compute/api.h>
#include <arrow/scalar.h>

#include <arrow/array/util.h>
#include <arrow/table.h>

#include "floe/spec/literal.h"
#include "floe/sql/plan/query_planner.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

using Op = scan::ColumnPredicate::Op;

// Column types whose bounds are the exact minimum and maximum (strings and binary may be
// truncated; booleans and nested types are left to the normal plan).
bool BoundsAreExact(spec::TypeId id) {
  switch (id) {
    case spec::TypeId::kInt:
    case spec::TypeId::kLong:
    case spec::TypeId::kFloat:
    case spec::TypeId::kDouble:
    case spec::TypeId::kDecimal:
    case spec::TypeId::kDate:
    case spec::TypeId::kTime:
    case spec::TypeId::kTimestamp:
    case spec::TypeId::kTimestampTz:
      return true;
    default:
      return false;
  }
}

// The width a bound of `id` has; a file written before a type promotion (int -> long,
// float -> double) carries the narrower form, which is left to the normal plan.
std::optional<size_t> FixedWidth(spec::TypeId id) {
  switch (id) {
    case spec::TypeId::kInt:
    case spec::TypeId::kFloat:
    case spec::TypeId::kDate:
      return 4;
    case spec::TypeId::kLong:
    case spec::TypeId::kDouble:
    case spec::TypeId::kTime:
    case spec::TypeId::kTimestamp:
    case spec::TypeId::kTimestampTz:
      return 8;
    default:
      return std::nullopt;
  }
}

// A floating bound that is a zero (its sign cannot be told from the data's order) or not a
// number is not used.
bool UsableFloating(const spec::Literal& v) {
  double d = 0;
  if (const auto* f = std::get_if<float>(&v.value())) {
    d = *f;
  } else if (const auto* x = std::get_if<double>(&v.value())) {
    d = *x;
  } else {
    return true;
  }
  return d != 0 && !std::isnan(d);
}

struct Extremes {
  std::optional<spec::Literal> min, max;
};

}  // namespace

bool PartitionValueSatisfies(const spec::Literal& value, const scan::ColumnPredicate& predicate) {
  if (predicate.op == Op::kIsNull) return value.is_null();
  if (predicate.op == Op::kNotNull) return !value.is_null();
  if (value.is_null() || predicate.value.is_null()) return false;
  int c = value.Compare(predicate.value);
  switch (predicate.op) {
    case Op::kEq: return c == 0;
    case Op::kLt: return c < 0;
    case Op::kLe: return c <= 0;
    case Op::kGt: return c > 0;
    case Op::kGe: return c >= 0;
    default: return false;
  }
}

std::optional<bool> PartitionValuesSatisfy(const spec::TableMetadata& md, const manifest::DataFile& file,
                                           const std::vector<scan::ColumnPredicate>& predicates) {
  if (predicates.empty()) return true;
  const spec::PartitionSpec* spec = md.SpecById(file.spec_id);
  if (!spec || spec->fields().size() != file.partition.size()) return std::nullopt;
  for (const auto& p : predicates) {
    std::optional<size_t> slot;
    for (size_t i = 0; i < spec->fields().size(); ++i) {
      const auto& f = spec->fields()[i];
      if (f.source_id == p.field_id && f.transform.kind() == spec::TransformKind::kIdentity) slot = i;
    }
    if (!slot) return std::nullopt;
    const spec::Literal& value = file.partition[*slot];
    const bool compares = p.op != Op::kIsNull && p.op != Op::kNotNull;
    if (compares && !value.is_null() &&
        (!value.type() || !p.value.type() || value.type()->id() != p.value.type()->id())) {
      return std::nullopt;
    }
    if (!PartitionValueSatisfies(value, p)) return false;  // no row of the file matches
  }
  return true;
}

std::optional<MetadataAnswer> AnswerFromMetadata(const TableFacts& facts,
                                                 const std::vector<MetadataAggregate>& aggregates,
                                                 const std::vector<scan::ColumnPredicate>& where) {
  // Delete files make record counts overstate the rows: a file they apply to sends the query
  // to the normal plan, as does any planning error, for it to report.
  scan::TableScan scan = facts.scan;
  std::vector<int32_t> stats_columns;
  for (const auto& a : aggregates) {
    if (a.kind != MetadataAggregate::Kind::kCount) stats_columns.push_back(a.field_id);
  }
  scan.IncludeColumnStats(std::move(stats_columns));
  auto tasks = scan.PlanFiles();
  if (!tasks.ok()) return std::nullopt;
  auto md = facts.table->metadata();
  int64_t rows = 0;
  bool bounds_used = false;
  std::vector<Extremes> extremes(aggregates.size());
  for (const auto& task : *tasks) {
    const manifest::DataFile& file = task.file;
    if (file.content != manifest::FileContent::kData) return std::nullopt;
    // Every predicate must be decided by the file's partition value alone.
    const std::optional<bool> matches = PartitionValuesSatisfy(*md, file, where);
    if (!matches) return std::nullopt;
    if (!*matches) continue;
    if (!task.deletes.empty()) return std::nullopt;
    rows += file.record_count;
    for (size_t a = 0; a < aggregates.size(); ++a) {
      const MetadataAggregate& agg = aggregates[a];
      if (agg.kind == MetadataAggregate::Kind::kCount) continue;
      bounds_used = true;
      const spec::NestedField* field = facts.schema->FindFieldById(agg.field_id);
      if (!field || !BoundsAreExact(field->type->id())) return std::nullopt;
      if (file.record_count == 0) continue;
      auto values = file.value_counts.find(agg.field_id);
      auto nulls = file.null_value_counts.find(agg.field_id);
      if (values != file.value_counts.end() && nulls != file.null_value_counts.end() && values->second == nulls->second) {
        continue;  // only NULLs here
      }
      auto lower = file.lower_bounds.find(agg.field_id);
      auto upper = file.upper_bounds.find(agg.field_id);
      if (lower == file.lower_bounds.end() || upper == file.upper_bounds.end()) return std::nullopt;
      const spec::TypeId id = field->type->id();
      if (id == spec::TypeId::kFloat || id == spec::TypeId::kDouble) {
        // Spark orders NaN above every value, which bounds leave out: only a count of 0 will do.
        auto nans = file.nan_value_counts.find(agg.field_id);
        if (nans == file.nan_value_counts.end() || nans->second != 0) return std::nullopt;
      }
      if (auto width = FixedWidth(id);
          width && (lower->second.size() != *width || upper->second.size() != *width)) {
        return std::nullopt;
      }
      auto low = spec::FromSingleValueBinary(field->type, lower->second);
      auto high = spec::FromSingleValueBinary(field->type, upper->second);
      if (!low.ok() || !high.ok() || low->is_null() || high->is_null()) return std::nullopt;
      if (!UsableFloating(*low) || !UsableFloating(*high)) return std::nullopt;
      Extremes& e = extremes[a];
      if (!e.min || low->Compare(*e.min) < 0) e.min = *low;
      if (!e.max || high->Compare(*e.max) > 0) e.max = *high;
    }
  }
  MetadataAnswer answer;
  for (size_t a = 0; a < aggregates.size(); ++a) {
    const MetadataAggregate& agg = aggregates[a];
    if (agg.kind == MetadataAggregate::Kind::kCount) {
      answer.values.push_back(std::make_shared<arrow::Int64Scalar>(rows));
      continue;
    }
    const auto& value = agg.kind == MetadataAggregate::Kind::kMin ? extremes[a].min : extremes[a].max;
    if (!value) {
      answer.values.push_back(arrow::MakeNullScalar(agg.type));
      continue;
    }
    auto scalar = table::LiteralToScalar(*value);
    if (!scalar.ok()) return std::nullopt;
    std::shared_ptr<arrow::Scalar> out = *scalar;
    if (!out->type->Equals(*agg.type)) {
      // Only a change of representation (e.g. the time zone a timestamp type names).
      auto cast = out->CastTo(agg.type);
      if (!cast.ok()) return std::nullopt;
      out = *cast;
    }
    answer.values.push_back(std::move(out));
  }
  const auto& m = scan.metrics();
  answer.note = StrCat(facts.table_name, ": answered from metadata: ", tasks->size(), " data files, record counts",
                       bounds_used ? " and column bounds" : "", " (no data file read); manifests ", m.manifests, " (",
                       m.manifests_skipped, " skipped), data files ", m.files, " (", m.files_skipped, " skipped)");
  return answer;
}

namespace {

// Column types a WHERE conjunct may test against partition values: ordered exactly as the
// filter orders them (no floating types, whose NaN the filter orders specially).
bool ExactlyComparable(spec::TypeId id) {
  switch (id) {
    case spec::TypeId::kBoolean:
    case spec::TypeId::kInt:
    case spec::TypeId::kLong:
    case spec::TypeId::kDecimal:
    case spec::TypeId::kDate:
    case spec::TypeId::kTimestamp:
    case spec::TypeId::kTimestampTz:
    case spec::TypeId::kString:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<std::optional<Rel>> QueryPlanner::AggregatesFromMetadata(
    const TableFacts& facts, const sql::Select& select, const std::vector<const Expr*>& where,
    const std::vector<Column>& input_columns, const std::vector<const FunctionCall*>& calls,
    const std::vector<std::shared_ptr<arrow::DataType>>& arg_types, const std::vector<Column>& columns,
    const std::vector<std::shared_ptr<arrow::DataType>>& result_types) {
  const std::optional<Rel> normal_plan;
  if (calls.empty() || !select.group_by.empty() || (select.where && where.empty())) return normal_plan;
  // The table column a plain column reference names (not a field inside a struct).
  auto table_field = [&](const Expr& e) -> const spec::NestedField* {
    auto* ref = e.As<ColumnRef>();
    if (!ref) return nullptr;
    size_t consumed = ref->parts.size();
    auto index = ResolveColumn(ref->parts, input_columns, env_.sql, e.pos, &consumed);
    if (!index.ok() || consumed != ref->parts.size()) return nullptr;
    const spec::NestedField* field = facts.schema->FindFieldByName(input_columns[*index].name);
    bool top_level = false;
    for (const auto& f : facts.schema->fields()) top_level |= field && f.id == field->id;
    return top_level ? field : nullptr;
  };
  std::vector<MetadataAggregate> wanted;
  bool only_counts = true;
  for (size_t a = 0; a < calls.size(); ++a) {
    const FunctionCall& f = *calls[a];
    const std::string fn = Lower(f.name.parts.back().name);
    MetadataAggregate agg;
    if (fn == "count" && !f.distinct) {
      // count(*) or count of a non-NULL constant: every row.
      const Literal* lit = f.args.size() == 1 ? f.args[0].As<Literal>() : nullptr;
      if (!f.star && !(lit && lit->kind != LiteralKind::kNull)) return normal_plan;
      agg.kind = MetadataAggregate::Kind::kCount;
    } else if ((fn == "min" || fn == "max") && !f.star && f.args.size() == 1) {
      const spec::NestedField* field = table_field(f.args[0]);
      if (!field) return normal_plan;
      // The aggregate must see the column's own values, not a converted form of them.
      auto type = table::ToArrowType(*field->type);
      if (!type.ok() || !(*type)->Equals(*arg_types[a])) return normal_plan;
      agg.kind = fn == "min" ? MetadataAggregate::Kind::kMin : MetadataAggregate::Kind::kMax;
      agg.field_id = field->id;
      agg.type = arg_types[a];
      only_counts = false;
    } else {
      return normal_plan;
    }
    wanted.push_back(std::move(agg));
  }
  // WHERE: every conjunct `column op constant` or `column IS [NOT] NULL`, decided per file
  // by an identity-partition value; only record counts are answered under a WHERE.
  std::vector<scan::ColumnPredicate> predicates;
  if (!where.empty() && !only_counts) return normal_plan;
  for (const Expr* e : where) {
    using Op = scan::ColumnPredicate::Op;
    const spec::NestedField* field = nullptr;
    const Expr* constant = nullptr;
    scan::ColumnPredicate p;
    if (auto* n = e->As<IsNull>()) {
      field = table_field(*n->operand);
      p.op = n->negated ? Op::kNotNull : Op::kIsNull;
    } else if (auto* b = e->As<Binary>()) {
      static const std::map<BinaryOp, std::pair<Op, Op>> kOps = {
          {BinaryOp::kEq, {Op::kEq, Op::kEq}}, {BinaryOp::kLt, {Op::kLt, Op::kGt}}, {BinaryOp::kLe, {Op::kLe, Op::kGe}},
          {BinaryOp::kGt, {Op::kGt, Op::kLt}}, {BinaryOp::kGe, {Op::kGe, Op::kLe}}};
      auto it = kOps.find(b->op);
      if (it == kOps.end()) return normal_plan;
      if (b->right->Is<Literal>() && (field = table_field(*b->left))) {
        constant = b->right.get();
        p.op = it->second.first;
      } else if (b->left->Is<Literal>() && (field = table_field(*b->right))) {
        constant = b->left.get();
        p.op = it->second.second;
      }
      if (!constant) return normal_plan;
    }
    if (!field || !ExactlyComparable(field->type->id())) return normal_plan;
    p.field_id = field->id;
    if (constant) {
      auto evaluated = EvaluateConstant(*constant);
      auto type = table::ToArrowType(*field->type);
      if (!evaluated.ok() || !type.ok() || !(*evaluated)->is_valid) return normal_plan;
      std::shared_ptr<arrow::Scalar> value = *evaluated;
      if (!value->type->Equals(**type)) {
        // An integer constant against an integer column of another width, when it fits.
        if (!arrow::is_integer(value->type->id()) || !arrow::is_integer((*type)->id())) return normal_plan;
        auto cast = value->CastTo(*type);
        if (!cast.ok()) return normal_plan;
        auto back = (*cast)->CastTo(value->type);
        if (!back.ok() || !(*back)->Equals(*value)) return normal_plan;
        value = *cast;
      }
      auto literal = table::LiteralFromScalar(*value, field->type);
      if (!literal.ok()) return normal_plan;
      p.value = *literal;
    }
    predicates.push_back(std::move(p));
  }
  std::optional<MetadataAnswer> answer = AnswerFromMetadata(facts, wanted, predicates);
  if (!answer) return normal_plan;
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t a = 0; a < wanted.size(); ++a) {
    std::shared_ptr<arrow::Scalar> value = answer->values[a];
    if (!value->type->Equals(*result_types[a])) {
      auto cast = value->CastTo(result_types[a]);
      if (!cast.ok()) return normal_plan;
      value = *cast;
    }
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*value, 1));
    fields.push_back(arrow::field("c" + std::to_string(a + 1), result_types[a]));
    arrays.push_back(std::move(array));
  }
  Rel rel = RelFromTable(arrow::Table::Make(arrow::schema(fields), arrays, 1));
  rel.columns = columns;
  notes_.push_back(answer->note);
  return std::optional<Rel>(std::move(rel));
}

}  // namespace floe::sql
