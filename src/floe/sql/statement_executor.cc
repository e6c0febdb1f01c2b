#include "floe/sql/statement_executor.h"

#include <algorithm>
#include <set>
#include <regex>
#include <sstream>

#include <arrow/api.h>
#include <arrow/acero/options.h>
#include <arrow/compute/api.h>

#include "floe/scan/table_scan.h"
#include "floe/sql/metadata_tables.h"
#include "floe/sql/parse_error.h"
#include "floe/sql/show_functions.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/commit.h"
#include "floe/table/partitioner.h"
#include "floe/table/snapshot_management.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/time_travel.h"
#include "floe/util/clock.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

namespace {

const char kTimeZoneKey[] = "spark.sql.session.timeZone";
const char kOverwriteModeKey[] = "spark.sql.sources.partitionOverwriteMode";
const char kWapBranchKey[] = "spark.wap.branch";

StatementResult Message(std::string text) {
  StatementResult r;
  r.message = std::move(text);
  return r;
}

StatementResult Rows(std::shared_ptr<arrow::Table> rows) {
  StatementResult r;
  r.rows = std::move(rows);
  return r;
}

// A table of strings from rows of cells.
std::shared_ptr<arrow::Table> StringTable(const std::vector<std::string>& names,
                                          const std::vector<std::vector<std::optional<std::string>>>& rows) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < names.size(); ++c) {
    arrow::StringBuilder b;
    for (const auto& row : rows) {
      if (row[c]) {
        (void)b.Append(*row[c]);
      } else {
        (void)b.AppendNull();
      }
    }
    fields.push_back(arrow::field(names[c], arrow::utf8()));
    arrays.push_back(b.Finish().ValueOrDie());
  }
  return arrow::Table::Make(arrow::schema(fields), arrays);
}

// Spark's SQL name of an Iceberg type.
std::string SparkTypeName(const spec::Type& t) {
  using spec::TypeId;
  switch (t.id()) {
    case TypeId::kBoolean: return "boolean";
    case TypeId::kInt: return "int";
    case TypeId::kLong: return "bigint";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kDecimal: return StrCat("decimal(", t.precision(), ",", t.scale(), ")");
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "string";
    case TypeId::kTimestamp: return "timestamp_ntz";
    case TypeId::kTimestampTz: return "timestamp";
    case TypeId::kString: return "string";
    case TypeId::kUuid: return "string";
    case TypeId::kFixed: return "binary";
    case TypeId::kBinary: return "binary";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < t.fields().size(); ++i) {
        out += (i ? "," : "") + t.fields()[i].name + ":" + SparkTypeName(*t.fields()[i].type);
      }
      return out + ">";
    }
    case TypeId::kList: return "array<" + SparkTypeName(*t.element().type) + ">";
    case TypeId::kMap: return "map<" + SparkTypeName(*t.key().type) + "," + SparkTypeName(*t.value().type) + ">";
  }
  return "unknown";
}

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Spark's rendering of a partition field: days(ts), bucket(16, id), ...
std::string PartitionFieldText(const spec::PartitionField& f, const spec::Schema& schema) {
  std::string col = schema.FindColumnName(f.source_id);
  switch (f.transform.kind()) {
    case spec::TransformKind::kIdentity: return col;
    case spec::TransformKind::kBucket: return StrCat("bucket(", f.transform.param(), ", ", col, ")");
    case spec::TransformKind::kTruncate: return StrCat("truncate(", f.transform.param(), ", ", col, ")");
    case spec::TransformKind::kYear: return "years(" + col + ")";
    case spec::TransformKind::kMonth: return "months(" + col + ")";
    case spec::TransformKind::kDay: return "days(" + col + ")";
    case spec::TransformKind::kHour: return "hours(" + col + ")";
    default: return f.transform.ToString() + "(" + col + ")";
  }
}

// AST type -> Iceberg type; ids are placeholders that table creation reassigns.
Result<spec::TypePtr> IcebergType(const DataType& t, int32_t* next_id) {
  using spec::Type;
  switch (t.kind) {
    case TypeKind::kBoolean: return Type::Boolean();
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt: return Type::Int();
    case TypeKind::kBigInt: return Type::Long();
    case TypeKind::kFloat: return Type::Float();
    case TypeKind::kDouble: return Type::Double();
    case TypeKind::kDecimal: {
      int32_t p = t.precision < 0 ? 10 : t.precision;
      int32_t s = t.scale < 0 ? 0 : t.scale;
      if (p < 1 || p > 38 || s > p) return ValidationError("Invalid decimal(", p, ",", s, ")");
      return Type::Decimal(p, s);
    }
    case TypeKind::kString:
    case TypeKind::kVarchar:
    case TypeKind::kChar: return Type::String();
    case TypeKind::kBinary: return Type::Binary();
    case TypeKind::kDate: return Type::Date();
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: return Type::TimestampTz();
    case TypeKind::kTimestampNtz: return Type::Timestamp();
    case TypeKind::kArray: {
      int32_t id = ++*next_id;
      ARROW_ASSIGN_OR_RAISE(auto e, IcebergType(t.children.at(0), next_id));
      return Type::List(id, e, false);
    }
    case TypeKind::kMap: {
      int32_t k = ++*next_id, v = ++*next_id;
      ARROW_ASSIGN_OR_RAISE(auto kt, IcebergType(t.children.at(0), next_id));
      ARROW_ASSIGN_OR_RAISE(auto vt, IcebergType(t.children.at(1), next_id));
      return Type::Map(k, kt, v, vt, false);
    }
    case TypeKind::kStruct: {
      std::vector<spec::NestedField> fields;
      for (const auto& f : t.fields) {
        int32_t id = ++*next_id;
        ARROW_ASSIGN_OR_RAISE(auto ft, IcebergType(f.type, next_id));
        spec::NestedField nf = f.not_null ? spec::Required(id, f.name.name, ft) : spec::Optional(id, f.name.name, ft);
        if (f.comment) nf.doc = *f.comment;
        fields.push_back(nf);
      }
      return Type::Struct(fields);
    }
  }
  return Status::NotImplemented("type");
}

// The 'format-version' a statement asks for, against the table's current one (none when
// creating). floe writes format version 2 only: the same version is accepted, anything else
// fails before a commit, with Iceberg's phrase where Iceberg would fail too.
Status CheckFormatVersion(const std::string& value, std::optional<int> current, const std::string& table) {
  std::optional<int32_t> wanted = ParseInt32(value);
  if (!wanted) {
    return ValidationError("Invalid format-version '", value, "' for table ", table,
                           ": For input string: \"", value, "\"");
  }
  if (current && *wanted < *current) {
    return ValidationError("Cannot downgrade v", *current, " table to v", *wanted, ": ", table);
  }
  if (*wanted != 2) {
    return ValidationError("Cannot ", current ? "upgrade" : "create", " table ", table, " at format-version ", *wanted,
                           ": floe writes format-version 2 tables only");
  }
  return Status::OK();
}

// The Spark class name of a value's type, as Iceberg's procedure errors print it.
std::string SparkTypeClassName(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::NA: return "NullType";
    case arrow::Type::BOOL: return "BooleanType";
    case arrow::Type::INT8: return "ByteType";
    case arrow::Type::INT16: return "ShortType";
    case arrow::Type::INT32: return "IntegerType";
    case arrow::Type::INT64: return "LongType";
    case arrow::Type::FLOAT: return "FloatType";
    case arrow::Type::DOUBLE: return "DoubleType";
    case arrow::Type::STRING: return "StringType";
    case arrow::Type::BINARY: return "BinaryType";
    case arrow::Type::DATE32: return "DateType";
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).timezone().empty() ? "TimestampNTZType" : "TimestampType";
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return StrCat("DecimalType(", d.precision(), ",", d.scale(), ")");
    }
    default: return type.ToString();
  }
}

// A table's properties as Spark shows them: Iceberg's reserved ones added.
std::map<std::string, std::string> ShownProperties(const spec::TableMetadata& md) {
  std::map<std::string, std::string> props = md.properties;
  if (md.current_snapshot_id) props["current-snapshot-id"] = std::to_string(*md.current_snapshot_id);
  props["format"] = "iceberg/parquet";
  props["format-version"] = std::to_string(md.format_version);
  return props;
}

spec::Transform ToTransform(const PartitionField& f) {
  switch (f.transform) {
    case TransformKind::kIdentity: return spec::Transform::Identity();
    case TransformKind::kYear: return spec::Transform::Year();
    case TransformKind::kMonth: return spec::Transform::Month();
    case TransformKind::kDay: return spec::Transform::Day();
    case TransformKind::kHour: return spec::Transform::Hour();
    case TransformKind::kBucket: return spec::Transform::Bucket(f.param);
    case TransformKind::kTruncate: return spec::Transform::Truncate(f.param);
  }
  return spec::Transform::Identity();
}

std::string JoinNames(const std::vector<Identifier>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "." : "") + parts[i].name;
  return out;
}

int64_t DurationMs(const RefDuration& d) {
  switch (d.unit) {
    case TimeUnit::kDays: return d.amount * 86400000;
    case TimeUnit::kHours: return d.amount * 3600000;
    case TimeUnit::kMinutes: return d.amount * 60000;
  }
  return 0;
}

}  // namespace

Session::Impl::Impl(std::shared_ptr<Catalog> catalog, std::shared_ptr<FileIO> io)
    : catalog_(catalog), io_(io), tables_(catalog, io), current_namespace_({"default"}) {
  settings_[kTimeZoneKey] = "UTC";
}

std::string Session::Impl::Setting(const std::string& key, const std::string& fallback) const {
  auto it = settings_.find(key);
  return it == settings_.end() ? fallback : it->second;
}

Status Session::Impl::SetSetting(const std::string& key, const std::string& value) {
  if (key == kTimeZoneKey) {
    auto tz = floe::TimeZone::Make(value);
    if (!tz.ok()) return tz.status();
  }
  settings_[key] = value;
  return Status::OK();
}

std::string Session::Impl::TimeZone() const { return Setting(kTimeZoneKey, "UTC"); }

QueryPlanner Session::Impl::Planner(const std::string& sql) {
  PlannerEnv env;
  env.time_zone = TimeZone();
  env.now_micros = NowMillis() * 1000;
  env.sql = sql;
  env.resolve_table = [this, sql](const TableRef& ref, const ScanHints& hints) { return ResolveTableRef(ref, hints, sql); };
  return QueryPlanner(env);
}

Result<Namespace> Session::Impl::ResolveNamespace(const ObjectName& name) {
  std::vector<std::string> parts;
  for (const auto& p : name.parts) parts.push_back(p.name);
  if (parts.size() > 1 && Lower(parts[0]) == Lower(catalog_->name())) parts.erase(parts.begin());
  return Namespace(parts);
}

Result<ResolvedName> Session::Impl::ResolveName(const ObjectName& name, bool allow_suffix) {
  std::vector<std::string> parts;
  for (const auto& p : name.parts) parts.push_back(p.name);
  if (parts.size() > 1 && Lower(parts[0]) == Lower(catalog_->name())) parts.erase(parts.begin());
  ResolvedName out;
  // Trino: "t$snapshots".
  if (!parts.empty() && parts.back().find('$') != std::string::npos && allow_suffix) {
    std::string last = parts.back();
    size_t dollar = last.find('$');
    out.suffix = Lower(last.substr(dollar + 1));
    parts.back() = last.substr(0, dollar);
  }
  auto ident_of = [&](const std::vector<std::string>& p) {
    if (p.size() == 1) return TableIdentifier(current_namespace_, p[0]);
    return TableIdentifier(Namespace(std::vector<std::string>(p.begin(), p.end() - 1)), p.back());
  };
  TableIdentifier ident = ident_of(parts);
  if (out.suffix.empty() && allow_suffix && parts.size() >= 2) {
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(ident));
    std::string last = Lower(parts.back());
    bool special = IsMetadataTableName(last) || last.rfind("branch_", 0) == 0 || last.rfind("tag_", 0) == 0 ||
                   last.rfind("snapshot_id_", 0) == 0 || last.rfind("at_timestamp_", 0) == 0;
    if (!exists && special) {
      std::vector<std::string> shorter(parts.begin(), parts.end() - 1);
      TableIdentifier candidate = ident_of(shorter);
      // Either the base table exists, or it is the one to report missing.
      ARROW_ASSIGN_OR_RAISE(bool candidate_exists, catalog_->TableExists(candidate));
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

Result<std::shared_ptr<table::Table>> Session::Impl::LoadTable(const ObjectName& name, const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(ResolvedName resolved, ResolveName(name, false));
  auto table = tables_.LoadTable(resolved.ident);
  if (!table.ok() && IsNotFound(table.status())) {
    return ErrorAt(sql, name.pos,
                   StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", catalog_->name(), "`.`",
                          resolved.ident.ns.ToString(), "`.`", resolved.ident.name, "` cannot be found."));
  }
  return table;
}

Result<Rel> Session::Impl::ResolveTableRef(const TableRef& ref, const ScanHints& hints, const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(ResolvedName resolved, ResolveName(ref.name, true));
  auto loaded = tables_.LoadTable(resolved.ident);
  if (!loaded.ok()) {
    if (!IsNotFound(loaded.status())) return loaded.status();
    // Suggest tables of the same namespace with a close name.
    std::string message = StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", catalog_->name(), "`.`",
                                 resolved.ident.ns.ToString(), "`.`", resolved.ident.name, "` cannot be found.");
    auto listed = catalog_->ListTables(resolved.ident.ns);
    if (listed.ok() && !listed->empty()) {
      std::string best;
      size_t best_distance = SIZE_MAX;
      for (const auto& t : *listed) {
        size_t distance = EditDistance(Lower(t.name), Lower(resolved.ident.name));
        if (distance < best_distance) {
          best_distance = distance;
          best = t.ToString();
        }
      }
      message += " Did you mean `" + best + "`?";
    }
    return ErrorAt(sql, ref.name.pos, message);
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
    return ErrorAt(sql, ref.time_travel->pos, "Cannot do time-travel based on both table identifier and AS OF");
  }
  std::optional<table::ResolvedSnapshot> travel;
  std::string note;
  if (ref.time_travel) {
    QueryPlanner planner = Planner(sql);
    ARROW_ASSIGN_OR_RAISE(auto value, planner.EvaluateConstant(ref.time_travel->value));
    if (ref.time_travel->kind == TimeTravelKind::kVersion) {
      if (value->type->id() == arrow::Type::STRING) {
        const auto& s = static_cast<const arrow::StringScalar&>(*value).value->ToString();
        auto r = table::ResolveVersion(md, s);
        if (!r.ok()) return ErrorAt(sql, ref.time_travel->value.pos, r.status().message());
        travel = *r;
      } else if (arrow::is_integer(value->type->id())) {
        ARROW_ASSIGN_OR_RAISE(auto i64, value->CastTo(arrow::int64()));
        auto r = table::ResolveVersion(md, static_cast<const arrow::Int64Scalar&>(*i64).value);
        if (!r.ok()) return ErrorAt(sql, ref.time_travel->value.pos, r.status().message());
        travel = *r;
      } else if (value->type->id() == arrow::Type::DECIMAL128) {
        // A number wider than a long names no snapshot, as Iceberg reads the version's text.
        return ErrorAt(sql, ref.time_travel->value.pos,
                       StrCat("Cannot find matching snapshot ID or reference name for version ", value->ToString()));
      } else {
        return ErrorAt(sql, ref.time_travel->value.pos,
                       "[INVALID_TIME_TRAVEL_SPEC] VERSION AS OF takes an integer snapshot id or a string");
      }
      note = StrCat(table->name(), " VERSION AS OF ", ToSql(ref.time_travel->value), " -> snapshot ",
                    travel->snapshot_id() ? std::to_string(*travel->snapshot_id()) : "none");
    } else {
      int64_t micros = 0;
      if (value->type->id() == arrow::Type::STRING) {
        const auto& s = static_cast<const arrow::StringScalar&>(*value).value->ToString();
        auto parsed = ParseTimestampMicros(s, TimeZone());
        if (!parsed.ok()) return ErrorAt(sql, ref.time_travel->value.pos, parsed.status().message());
        micros = *parsed;
      } else if (value->type->id() == arrow::Type::TIMESTAMP) {
        micros = static_cast<const arrow::TimestampScalar&>(*value).value;
      } else if (value->type->id() == arrow::Type::DATE32) {
        micros = int64_t{static_cast<const arrow::Date32Scalar&>(*value).value} * 86400000000LL;
      } else {
        return ErrorAt(sql, ref.time_travel->value.pos,
                       "[INVALID_TIME_TRAVEL_TIMESTAMP_EXPR] TIMESTAMP AS OF must be a constant timestamp");
      }
      // Floor to milliseconds: snapshot-log times are millis.
      int64_t ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
      auto r = table::ResolveTimeTravel(md, table::TimeTravelSpec::AsOf(ms));
      if (!r.ok()) return ErrorAt(sql, ref.time_travel->value.pos, r.status().message());
      travel = *r;
      note = StrCat(table->name(), " TIMESTAMP AS OF ", FormatMillisIso(ms), " -> snapshot ",
                    travel->snapshot_id() ? std::to_string(*travel->snapshot_id()) : "none");
    }
  } else if (!identifier_travel && suffix.empty() && !Setting(kWapBranchKey, "").empty() &&
             md->refs.count(Setting(kWapBranchKey, ""))) {
    // With spark.wap.branch set, plain reads see the branch being written.
    auto r = table::ResolveTimeTravel(md, table::TimeTravelSpec::Branch(Setting(kWapBranchKey, "")));
    if (!r.ok()) return ErrorAt(sql, ref.name.pos, r.status().message());
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
        return ErrorAt(sql, ref.name.pos,
                       StrCat("Invalid ", by_id ? "snapshot id" : "timestamp", " in ", table->name(), ".", suffix,
                              ": For input string: \"", digits, "\""));
      }
      spec = by_id ? table::TimeTravelSpec::Snapshot(*value) : table::TimeTravelSpec::AsOf(*value);
    }
    auto r = table::ResolveTimeTravel(md, spec);
    if (!r.ok()) return ErrorAt(sql, ref.name.pos, r.status().message());
    travel = *r;
    note = StrCat(table->name(), ".", suffix, " -> snapshot ",
                  travel->snapshot_id() ? std::to_string(*travel->snapshot_id()) : "none");
    suffix.clear();
  }
  if (!note.empty()) resolution_notes_.push_back(note);

  std::shared_ptr<arrow::Table> rows;
  if (!suffix.empty()) {
    if (!IsMetadataTableName(suffix)) {
      return ErrorAt(sql, ref.name.pos, StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", catalog_->name(), "`.`",
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
    if (!hints.all_columns) {
      std::vector<std::string> columns;
      for (const auto& f : read_schema->fields()) {
        if (hints.columns.count(Lower(f.name))) columns.push_back(f.name);
      }
      if (columns.empty()) columns.push_back(read_schema->fields().front().name);
      scan.Select(columns);
    }
    scan.Filter(PushablePredicates(hints.conjuncts, *read_schema, sql));
    ARROW_ASSIGN_OR_RAISE(auto reader, scan.ToRecordBatchReader());
    Rel streamed;
    for (const auto& f : reader->schema()->fields()) {
      Column c;
      c.name = f->name();
      c.type = f->type();
      c.nullable = f->nullable();
      streamed.columns.push_back(std::move(c));
    }
    streamed.decl = arrow::acero::Declaration("record_batch_reader_source",
                                              arrow::acero::RecordBatchReaderSourceNodeOptions(reader));
    rows = nullptr;
    return WithQualifiers(std::move(streamed), resolved);
  }
  return WithQualifiers(RelFromTable(rows), resolved);
}

Rel Session::Impl::WithQualifiers(Rel rel, const ResolvedName& resolved) const {
  std::vector<std::vector<std::string>> qualifiers;
  qualifiers.push_back({resolved.qualifier.back()});
  if (resolved.qualifier.size() > 1) qualifiers.push_back(resolved.qualifier);
  std::vector<std::string> full{Lower(catalog_->name())};
  for (const auto& l : resolved.ident.ns.levels) full.push_back(Lower(l));
  full.push_back(Lower(resolved.ident.name));
  qualifiers.push_back(full);
  for (auto& c : rel.columns) c.qualifiers = qualifiers;
  return rel;
}

std::vector<scan::ColumnPredicate> Session::Impl::PushablePredicates(const std::vector<const Expr*>& conjuncts,
                                                                     const spec::Schema& schema, const std::string& sql) {
  using Op = scan::ColumnPredicate::Op;
  std::vector<scan::ColumnPredicate> out;
  QueryPlanner planner = Planner(sql);
  for (const Expr* e : conjuncts) {
    const ColumnRef* column = nullptr;
    const Expr* constant = nullptr;
    Op op = Op::kEq;
    if (auto* n = e->As<IsNull>()) {
      column = n->operand->As<ColumnRef>();
      op = n->negated ? Op::kNotNull : Op::kIsNull;
    } else if (auto* b = e->As<Binary>()) {
      static const std::map<BinaryOp, std::pair<Op, Op>> kOps = {
          {BinaryOp::kEq, {Op::kEq, Op::kEq}}, {BinaryOp::kLt, {Op::kLt, Op::kGt}}, {BinaryOp::kLe, {Op::kLe, Op::kGe}},
          {BinaryOp::kGt, {Op::kGt, Op::kLt}}, {BinaryOp::kGe, {Op::kGe, Op::kLe}}};
      auto it = kOps.find(b->op);
      if (it == kOps.end()) continue;
      if ((column = b->left->As<ColumnRef>()) && (b->right->Is<Literal>() || b->right->Is<Cast>())) {
        constant = b->right.get();
        op = it->second.first;
      } else if ((column = b->right->As<ColumnRef>()) && (b->left->Is<Literal>() || b->left->Is<Cast>())) {
        constant = b->left.get();
        op = it->second.second;
      } else {
        continue;
      }
    }
    if (!column) continue;
    const spec::NestedField* field = schema.FindFieldByNameCaseInsensitive(column->parts.back().name);
    if (!field || !field->type->is_primitive()) continue;
    scan::ColumnPredicate p;
    p.field_id = field->id;
    p.op = op;
    if (constant) {
      auto value = planner.EvaluateConstant(*constant);
      if (!value.ok() || !(*value)->is_valid) continue;
      auto arrow_type = table::ToArrowType(*field->type);
      if (!arrow_type.ok()) continue;
      std::shared_ptr<arrow::Scalar> scalar = *value;
      const auto tid = field->type->id();
      if (scalar->type->id() == arrow::Type::STRING &&
          (tid == spec::TypeId::kTimestamp || tid == spec::TypeId::kTimestampTz || tid == spec::TypeId::kDate)) {
        std::string text = scalar->ToString();
        if (tid == spec::TypeId::kDate) {
          auto days = ParseDateDays(text.substr(0, 10));
          if (!days.ok()) continue;
          scalar = std::make_shared<arrow::Date32Scalar>(*days);
        } else {
          auto micros = ParseTimestampMicros(text, tid == spec::TypeId::kTimestamp ? "UTC" : TimeZone());
          if (!micros.ok()) continue;
          scalar = std::make_shared<arrow::TimestampScalar>(*micros, *arrow_type);
        }
      }
      if (!scalar->type->Equals(**arrow_type)) {
        // Only exact conversions are safe for pruning (1.5 against an int column is not).
        auto cast = arrow::compute::Cast(arrow::Datum(scalar), *arrow_type, arrow::compute::CastOptions::Safe());
        if (!cast.ok()) continue;
        auto back = arrow::compute::Cast(*cast, scalar->type, arrow::compute::CastOptions::Safe());
        if (!back.ok() || !back->scalar()->Equals(*scalar)) continue;
        scalar = cast->scalar();
      }
      auto literal = table::LiteralFromScalar(*scalar, field->type);
      if (!literal.ok()) continue;
      p.value = *literal;
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<StatementResult> Session::Impl::RunQuery(const Query& query, const std::string& sql) {
  QueryPlanner planner = Planner(sql);
  ARROW_ASSIGN_OR_RAISE(auto rows, planner.Run(query));
  return Rows(std::move(rows));
}

Result<StatementResult> Session::Impl::Execute(const Statement& statement, const std::string& sql) {
  resolution_notes_.clear();
  if (auto* q = statement.As<Query>()) return RunQuery(*q, sql);
  if (auto* e = statement.As<sql::Explain>()) return Explain(*e, sql);
  if (auto* c = statement.As<CreateNamespace>()) {
    ARROW_ASSIGN_OR_RAISE(Namespace ns, ResolveNamespace(c->name));
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->NamespaceExists(ns));
    if (exists) {
      if (c->if_not_exists) return Message("");
      return ErrorAt(sql, c->name.pos, StrCat("[SCHEMA_ALREADY_EXISTS] Cannot create schema `", ns.ToString(),
                                              "` because it already exists."));
    }
    NamespaceProperties props;
    for (const auto& p : c->properties) props[p.key] = p.value;
    if (c->comment) props["comment"] = *c->comment;
    if (c->location) props["location"] = *c->location;
    ARROW_RETURN_NOT_OK(catalog_->CreateNamespace(ns, props));
    return Message("");
  }
  if (auto* d = statement.As<DropNamespace>()) {
    ARROW_ASSIGN_OR_RAISE(Namespace ns, ResolveNamespace(d->name));
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->NamespaceExists(ns));
    if (!exists) {
      if (d->if_exists) return Message("");
      return ErrorAt(sql, d->name.pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", ns.ToString(), "` cannot be found."));
    }
    ARROW_ASSIGN_OR_RAISE(auto tables, catalog_->ListTables(ns));
    if (!tables.empty()) {
      if (!d->cascade) {
        return ErrorAt(sql, d->name.pos, StrCat("[SCHEMA_NOT_EMPTY] Cannot drop a schema `", ns.ToString(),
                                                "` because it contains objects."));
      }
      for (const auto& t : tables) ARROW_RETURN_NOT_OK(tables_.DropTable(t, false));
    }
    ARROW_RETURN_NOT_OK(catalog_->DropNamespace(ns));
    return Message("");
  }
  if (auto* s = statement.As<ShowNamespaces>()) {
    Namespace parent;
    if (s->in) {
      ARROW_ASSIGN_OR_RAISE(parent, ResolveNamespace(*s->in));
    }
    ARROW_ASSIGN_OR_RAISE(auto list, catalog_->ListNamespaces(parent));
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& ns : list) {
      std::string text = ns.ToString();
      if (s->pattern) {
        // Spark's SHOW ... LIKE: '*' is any text, '|' separates alternatives.
        std::string pat = Lower(*s->pattern);
        bool match = false;
        std::stringstream alternatives(pat);
        std::string alt;
        while (std::getline(alternatives, alt, '|')) {
          std::string rx;
          for (char ch : alt) rx += ch == '*' ? std::string(".*") : std::string(1, ch);
          match |= std::regex_match(Lower(text), std::regex(rx));
        }
        if (!match) continue;
      }
      rows.push_back({text});
    }
    std::sort(rows.begin(), rows.end());
    return Rows(StringTable({"namespace"}, rows));
  }
  if (auto* s = statement.As<ShowTables>()) {
    Namespace ns = current_namespace_;
    if (s->in) {
      ARROW_ASSIGN_OR_RAISE(ns, ResolveNamespace(*s->in));
    }
    ARROW_ASSIGN_OR_RAISE(auto list, catalog_->ListTables(ns));
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& t : list) rows.push_back({t.ns.ToString(), t.name, std::string("false")});
    std::sort(rows.begin(), rows.end());
    auto table = StringTable({"namespace", "tableName", "isTemporary"}, rows);
    ARROW_ASSIGN_OR_RAISE(auto is_temp, arrow::compute::Cast(table->column(2), arrow::boolean()));
    ARROW_ASSIGN_OR_RAISE(table, table->SetColumn(2, arrow::field("isTemporary", arrow::boolean()), is_temp.chunked_array()));
    return Rows(table);
  }
  if (auto* u = statement.As<Use>()) {
    ARROW_ASSIGN_OR_RAISE(Namespace ns, ResolveNamespace(u->name));
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->NamespaceExists(ns));
    if (!exists) return ErrorAt(sql, u->name.pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", ns.ToString(), "` cannot be found."));
    current_namespace_ = ns;
    return Message("");
  }
  if (auto* c = statement.As<sql::CreateTable>()) return CreateTable(*c, sql);
  if (auto* d = statement.As<DropTable>()) {
    ARROW_ASSIGN_OR_RAISE(ResolvedName name, ResolveName(d->name, false));
    ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(name.ident));
    if (!exists) {
      if (d->if_exists) return Message("");
      return ErrorAt(sql, d->name.pos, StrCat("[TABLE_OR_VIEW_NOT_FOUND] The table or view `", catalog_->name(), "`.`",
                                              name.ident.ns.ToString(), "`.`", name.ident.name, "` cannot be found."));
    }
    ARROW_ASSIGN_OR_RAISE(auto dropped, tables_.DropTable(name.ident, d->purge));
    return Message(dropped.Warning());
  }
  if (auto* a = statement.As<sql::AlterTable>()) return AlterTable(*a, sql);
  if (auto* d = statement.As<sql::Describe>()) return Describe(*d, sql);
  if (auto* f = statement.As<DescribeFunction>()) return RunDescribeFunction(*f, sql);
  if (auto* f = statement.As<ShowFunctions>()) return RunShowFunctions(*f);
  if (auto* s = statement.As<sql::ShowCreateTable>()) return ShowCreateTable(*s, sql);
  if (auto* s = statement.As<ShowTblProperties>()) {
    ARROW_ASSIGN_OR_RAISE(auto table, LoadTable(s->name, sql));
    auto md = table->metadata();
    std::map<std::string, std::string> props = ShownProperties(*md);
    std::vector<std::vector<std::optional<std::string>>> rows;
    for (const auto& [k, v] : props) {
      if (s->key && *s->key != k) continue;
      rows.push_back({k, v});
    }
    if (s->key && rows.empty()) {
      rows.push_back({*s->key, StrCat("Table ", table->name(), " does not have property: ", *s->key)});
    }
    return Rows(StringTable({"key", "value"}, rows));
  }
  if (auto* i = statement.As<sql::Insert>()) return Insert(*i, sql);
  if (statement.As<Delete>() || statement.As<Update>() || statement.As<Merge>()) {
    return ErrorAt(sql, statement.pos, "DELETE, UPDATE and MERGE INTO are not supported by floe yet");
  }
  if (auto* c = statement.As<sql::Call>()) return Call(*c, sql);
  if (auto* s = statement.As<SetConfig>()) {
    if (!s->key) {
      std::vector<std::vector<std::optional<std::string>>> rows;
      for (const auto& [k, v] : settings_) rows.push_back({k, v});
      return Rows(StringTable({"key", "value"}, rows));
    }
    if (!s->value) {
      return Rows(StringTable({"key", "value"}, {{*s->key, Setting(*s->key, "<undefined>")}}));
    }
    ARROW_RETURN_NOT_OK(SetSetting(*s->key, *s->value));
    return Rows(StringTable({"key", "value"}, {{*s->key, *s->value}}));
  }
  if (auto* tz = statement.As<SetTimeZone>()) {
    if (tz->kind == TimeZoneKind::kName) {
      ARROW_RETURN_NOT_OK(SetSetting(kTimeZoneKey, tz->zone));
    } else if (tz->kind == TimeZoneKind::kLocal) {
      // The session zone never follows the machine's: LOCAL is UTC here.
      ARROW_RETURN_NOT_OK(SetSetting(kTimeZoneKey, "UTC"));
    } else {
      return ErrorAt(sql, statement.pos, "SET TIME ZONE INTERVAL is not supported; use an offset such as '+03:00'");
    }
    return Message("");
  }
  if (auto* r = statement.As<Reset>()) {
    if (r->key) {
      settings_.erase(*r->key);
    } else {
      settings_.clear();
    }
    if (!settings_.count(kTimeZoneKey)) settings_[kTimeZoneKey] = "UTC";
    return Message("");
  }
  return ErrorAt(sql, statement.pos, "This statement is not supported yet");
}

Result<StatementResult> Session::Impl::Explain(const sql::Explain& explain, const std::string& sql) {
  std::string text = "== Statement ==\n" + ToSql(*explain.statement) + "\n";
  if (auto* q = explain.statement->As<Query>()) {
    // Plan it to resolve every table reference (and time-travel clause).
    QueryPlanner planner = Planner(sql);
    ARROW_ASSIGN_OR_RAISE(Rel rel, planner.PlanQuery(*q));
    text += "\n== Time travel ==\n";
    if (resolution_notes_.empty()) text += "(current snapshots)\n";
    for (const auto& n : resolution_notes_) text += n + "\n";
    text += "\n== Output ==\n";
    for (const auto& c : rel.columns) {
      if (!c.hidden) text += c.name + ": " + c.type->ToString() + "\n";
    }
  }
  return Rows(StringTable({"plan"}, {{text}}));
}

Result<StatementResult> Session::Impl::CreateTable(const sql::CreateTable& create, const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(ResolvedName name, ResolveName(create.name, false));
  if (create.provider && Lower(*create.provider) != "iceberg") {
    return ErrorAt(sql, create.name.pos, "floe creates Iceberg tables only (USING iceberg)");
  }
  ARROW_ASSIGN_OR_RAISE(bool exists, catalog_->TableExists(name.ident));
  if (exists && create.mode == CreateMode::kCreate) {
    if (create.if_not_exists) return Message("");
    return ErrorAt(sql, create.name.pos,
                   StrCat("[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `", name.ident.ns.ToString(), "`.`",
                          name.ident.name, "` because it already exists."));
  }
  if (!exists && create.mode == CreateMode::kReplace) {
    return ErrorAt(sql, create.name.pos, StrCat("[TABLE_OR_VIEW_NOT_FOUND] Cannot replace table `", name.ident.ToString(),
                                                "` because it does not exist."));
  }
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, catalog_->NamespaceExists(name.ident.ns));
  if (!ns_exists) {
    return ErrorAt(sql, create.name.pos, StrCat("[SCHEMA_NOT_FOUND] The schema `", name.ident.ns.ToString(), "` cannot be found."));
  }
  // Schema: from the column list, or from the query's result.
  std::shared_ptr<arrow::Table> data;
  spec::SchemaPtr schema;
  if (create.as_query) {
    QueryPlanner planner = Planner(sql);
    ARROW_ASSIGN_OR_RAISE(data, planner.Run(*create.as_query));
    // CTAS columns are nullable, as Spark makes them.
    arrow::FieldVector fields;
    for (const auto& f : data->schema()->fields()) fields.push_back(f->WithNullable(true));
    ARROW_ASSIGN_OR_RAISE(schema, table::SchemaFromArrow(*arrow::schema(fields)));
  } else {
    if (create.columns.empty()) return ErrorAt(sql, create.name.pos, "CREATE TABLE needs a column list or AS SELECT");
    int32_t next = 0;
    std::vector<spec::NestedField> fields;
    std::set<std::string> seen;
    for (const auto& c : create.columns) {
      if (!seen.insert(Lower(c.name.name)).second) {
        return ErrorAt(sql, c.name.pos, StrCat("[COLUMN_ALREADY_EXISTS] The column `", c.name.name, "` already exists."));
      }
      int32_t id = ++next;
      ARROW_ASSIGN_OR_RAISE(auto type, IcebergType(c.type, &next));
      spec::NestedField f = c.not_null ? spec::Required(id, c.name.name, type) : spec::Optional(id, c.name.name, type);
      if (c.comment) f.doc = *c.comment;
      fields.push_back(f);
    }
    schema = std::make_shared<const spec::Schema>(0, fields);
  }
  table::CreateTableOptions options;
  for (const auto& p : create.partitioned_by) {
    options.partition_by.push_back({JoinNames(p.column), ToTransform(p), ""});
  }
  for (const auto& p : create.properties) options.properties[p.key] = p.value;
  if (create.comment) options.properties["comment"] = *create.comment;
  if (create.location) options.location = *create.location;
  auto fv = options.properties.find("format-version");
  if (fv != options.properties.end()) {
    Status st = CheckFormatVersion(fv->second, std::nullopt, ToSql(create.name));
    if (!st.ok()) return ErrorAt(sql, create.name.pos, st.message());
    options.properties.erase(fv);
  }
  std::shared_ptr<table::Table> table;
  if (exists) {
    // CREATE OR REPLACE / REPLACE: a new schema, spec and properties on the same table; the
    // history stays and stays readable, and the next snapshot has no parent.
    ARROW_ASSIGN_OR_RAISE(table, tables_.LoadTable(name.ident));
    auto base = table->metadata();
    ARROW_ASSIGN_OR_RAISE(auto fresh, table::NewTableMetadata(*schema, options, base->location));
    Status st = table::Commit(*table, [&](const spec::TableMetadataPtr& current, std::vector<std::string>*)
                                          -> Result<std::shared_ptr<spec::TableMetadata>> {
      auto md = std::make_shared<spec::TableMetadata>(*current);
      // Field ids: a column keeps its id when the current schema has one of the same name.
      auto cur_schema = current->current_schema();
      int32_t next_id = current->last_column_id;
      std::vector<spec::NestedField> fields;
      for (const auto& f : fresh->current_schema()->fields()) {
        spec::NestedField nf = f;
        const spec::NestedField* old = cur_schema->FindFieldByNameCaseInsensitive(f.name);
        nf.id = (old && old->type->is_primitive() && f.type->is_primitive()) ? old->id : ++next_id;
        fields.push_back(nf);
      }
      int32_t schema_id = 0;
      for (const auto& s : current->schemas) schema_id = std::max(schema_id, s->schema_id() + 1);
      auto new_schema = std::make_shared<const spec::Schema>(schema_id, fields);
      md->schemas.push_back(new_schema);
      md->current_schema_id = schema_id;
      md->last_column_id = std::max(next_id, new_schema->HighestFieldId());
      int32_t spec_id = 0;
      for (const auto& s : current->partition_specs) spec_id = std::max(spec_id, s.spec_id() + 1);
      std::vector<spec::PartitionField> pfields;
      int32_t pid = current->last_partition_id;
      for (const auto& pf : fresh->default_spec()->fields()) {
        std::string col = fresh->current_schema()->FindColumnName(pf.source_id);
        const spec::NestedField* src = new_schema->FindFieldByName(col);
        pfields.push_back({src ? src->id : pf.source_id, ++pid, pf.name, pf.transform});
      }
      md->partition_specs.push_back(spec::PartitionSpec(spec_id, pfields));
      md->default_spec_id = spec_id;
      md->last_partition_id = std::max(current->last_partition_id, pid);
      for (const auto& [k, v] : fresh->properties) md->properties[k] = v;
      md->refs.erase(spec::kMainBranch);
      md->current_snapshot_id.reset();
      return md;
    });
    ARROW_RETURN_NOT_OK(st);
  } else {
    ARROW_ASSIGN_OR_RAISE(table, tables_.CreateTable(name.ident, *schema, options));
  }
  // A replaced table gets its (possibly empty) snapshot; a new one only when there are rows.
  if (data && (data->num_rows() > 0 || exists)) {
    ARROW_RETURN_NOT_OK(table::AppendData(*table, *data).status());
  }
  return Message("");
}

Result<StatementResult> Session::Impl::Insert(const sql::Insert& insert, const std::string& sql) {
  // INSERT INTO t.branch_b writes to branch b; so does any write while spark.wap.branch is set.
  ARROW_ASSIGN_OR_RAISE(ResolvedName target, ResolveName(insert.table, true));
  table::WriteOptions write_options;
  if (!target.suffix.empty()) {
    if (target.suffix.rfind("branch_", 0) != 0) {
      return ErrorAt(sql, insert.table.pos, StrCat("Cannot write to ", ToSql(insert.table), ": only branches (branch_<name>) can be written"));
    }
    write_options.branch = target.suffix.substr(7);
  } else if (!Setting(kWapBranchKey, "").empty()) {
    write_options.branch = Setting(kWapBranchKey, "");
  }
  ObjectName base_name = insert.table;
  if (!target.suffix.empty()) base_name.parts.pop_back();
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTable(base_name, sql));
  if (write_options.branch != spec::kMainBranch) {
    auto md0 = table->metadata();
    auto ref = md0->refs.find(write_options.branch);
    if (ref == md0->refs.end() && !target.suffix.empty()) {
      return ErrorAt(sql, insert.table.pos, StrCat("Cannot use branch (does not exist): ", write_options.branch));
    }
    if (ref != md0->refs.end() && !ref->second.is_branch()) {
      return ErrorAt(sql, insert.table.pos, StrCat("Ref ", write_options.branch, " is a tag not a branch"));
    }
  }
  auto md = table->metadata();
  auto schema = md->current_schema();
  QueryPlanner planner = Planner(sql);
  ARROW_ASSIGN_OR_RAISE(auto data, planner.Run(insert.query));
  // Static partition values become constant columns.
  std::map<std::string, std::shared_ptr<arrow::Scalar>> static_values;
  for (const auto& p : insert.partition) {
    if (p.value) {
      ARROW_ASSIGN_OR_RAISE(auto v, planner.EvaluateConstant(*p.value));
      static_values[Lower(p.column.name)] = v;
    }
  }
  // Target columns: the list given, else the table's columns minus static partition ones;
  // data columns are matched by position, as Spark does.
  std::vector<const spec::NestedField*> targets;
  if (!insert.columns.empty()) {
    for (const auto& c : insert.columns) {
      const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(c.name);
      if (!f) {
        return ErrorAt(sql, c.pos, StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `",
                                          c.name, "` cannot be resolved."));
      }
      targets.push_back(f);
    }
  } else {
    for (const auto& f : schema->fields()) {
      if (!static_values.count(Lower(f.name))) targets.push_back(&f);
    }
  }
  if (static_cast<size_t>(data->num_columns()) != targets.size()) {
    std::string table_cols, data_cols;
    for (size_t i = 0; i < targets.size(); ++i) table_cols += (i ? ", `" : "`") + targets[i]->name + "`";
    for (int i = 0; i < data->num_columns(); ++i) data_cols += (i ? ", `" : "`") + data->schema()->field(i)->name() + "`";
    const char* reason = static_cast<size_t>(data->num_columns()) > targets.size() ? "TOO_MANY_DATA_COLUMNS" : "NOT_ENOUGH_DATA_COLUMNS";
    return ErrorAt(sql, insert.query.pos,
                   StrCat("[INSERT_COLUMN_ARITY_MISMATCH.", reason, "] Cannot write to `", catalog_->name(), "`.`",
                          table->ident().ns.ToString(), "`.`", table->ident().name, "`, the reason is ",
                          static_cast<size_t>(data->num_columns()) > targets.size() ? "too many" : "not enough",
                          " data columns:\nTable columns: ", table_cols, ".\nData columns: ", data_cols, "."));
  }
  arrow::FieldVector fields;
  arrow::ChunkedArrayVector columns;
  for (size_t i = 0; i < targets.size(); ++i) {
    fields.push_back(data->schema()->field(static_cast<int>(i))->WithName(targets[i]->name));
    columns.push_back(data->column(static_cast<int>(i)));
  }
  for (const auto& [col, value] : static_values) {
    const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(col);
    if (!f) return ErrorAt(sql, insert.table.pos, StrCat("Unknown partition column: ", col));
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*value, data->num_rows()));
    fields.push_back(arrow::field(f->name, value->type));
    columns.push_back(std::make_shared<arrow::ChunkedArray>(array));
  }
  auto rows = arrow::Table::Make(arrow::schema(fields), columns, data->num_rows());
  if (!insert.overwrite) {
    auto appended = table::AppendData(*table, *rows, write_options);
    if (!appended.ok()) return WithContext(appended.status(), "Cannot write to " + table->name());
    return Message("");
  }
  table::OverwriteFilter filter = table::OverwriteFilter::All();
  const spec::PartitionSpec* spec = md->default_spec();
  if (!static_values.empty()) {
    // Files whose identity partition values equal the static ones.
    std::vector<std::pair<size_t, spec::Literal>> wanted;
    for (const auto& [col, value] : static_values) {
      const spec::NestedField* f = schema->FindFieldByNameCaseInsensitive(col);
      bool found = false;
      for (size_t i = 0; i < spec->fields().size(); ++i) {
        const auto& pf = spec->fields()[i];
        if (pf.source_id == f->id && pf.transform.kind() == spec::TransformKind::kIdentity) {
          ARROW_ASSIGN_OR_RAISE(auto cast, value->CastTo(*table::ToArrowType(*f->type)));
          ARROW_ASSIGN_OR_RAISE(auto lit, table::LiteralFromScalar(*cast, f->type));
          wanted.push_back({i, lit});
          found = true;
        }
      }
      if (!found) {
        return ErrorAt(sql, insert.table.pos, StrCat("PARTITION (", col, " = ...) names a column that is not an identity partition of ",
                                                     table->name()));
      }
    }
    int32_t spec_id = spec->spec_id();
    // How conflict messages name the overwritten rows: "region = 'EU' AND day = 3".
    std::string description;
    for (const auto& [col, value] : static_values) {
      const bool quoted = value->type->id() == arrow::Type::STRING || value->type->id() == arrow::Type::LARGE_STRING;
      description += StrCat(description.empty() ? "" : " AND ", col, " = ", quoted ? "'" : "", value->ToString(),
                            quoted ? "'" : "");
    }
    filter = table::OverwriteFilter::Where(
        [wanted, spec_id](const manifest::DataFile& f) {
          if (f.spec_id != spec_id) return false;
          for (const auto& [i, lit] : wanted) {
            if (i >= f.partition.size() || f.partition[i].is_null() || !(f.partition[i] == lit)) return false;
          }
          return true;
        },
        description);
  } else if (Lower(Setting(kOverwriteModeKey, "static")) == "dynamic") {
    filter = table::OverwriteFilter::DynamicPartitions();
  }
  auto written = table::OverwriteData(*table, *rows, filter, write_options);
  if (!written.ok()) return WithContext(written.status(), "Cannot write to " + table->name());
  return Message("");
}

Result<StatementResult> Session::Impl::AlterTable(const sql::AlterTable& alter, const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTable(alter.name, sql));
  auto commit = [&](std::function<Status(spec::TableMetadata*)> edit) {
    return table::Commit(*table, [&](const spec::TableMetadataPtr& base, std::vector<std::string>*)
                                     -> Result<std::shared_ptr<spec::TableMetadata>> {
      auto md = std::make_shared<spec::TableMetadata>(*base);
      ARROW_RETURN_NOT_OK(edit(md.get()));
      return md;
    });
  };
  // A new current schema from edited fields.
  auto evolve = [&](std::function<Status(std::vector<spec::NestedField>*, int32_t* last_id)> edit) {
    return commit([&](spec::TableMetadata* md) -> Status {
      std::vector<spec::NestedField> fields = md->current_schema()->fields();
      int32_t last = md->last_column_id;
      ARROW_RETURN_NOT_OK(edit(&fields, &last));
      int32_t schema_id = 0;
      for (const auto& s : md->schemas) schema_id = std::max(schema_id, s->schema_id() + 1);
      auto schema = std::make_shared<const spec::Schema>(schema_id, fields, md->current_schema()->identifier_field_ids());
      for (const auto& s : md->schemas) {
        if (s->SameStructure(*schema)) {
          md->current_schema_id = s->schema_id();
          return Status::OK();
        }
      }
      md->schemas.push_back(schema);
      md->current_schema_id = schema_id;
      md->last_column_id = std::max(last, schema->HighestFieldId());
      return Status::OK();
    });
  };
  auto find_top = [&](std::vector<spec::NestedField>* fields, const std::vector<Identifier>& name) -> Result<size_t> {
    if (name.size() != 1) return ErrorAt(sql, name[0].pos, "Nested columns cannot be altered yet");
    for (size_t i = 0; i < fields->size(); ++i) {
      if (Lower((*fields)[i].name) == Lower(name[0].name)) return i;
    }
    return ErrorAt(sql, name[0].pos, StrCat("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `",
                                            name[0].name, "` cannot be resolved."));
  };
  if (auto* s = alter.As<SetProperties>()) {
    // format-version is the table's own, not a stored property; floe keeps tables at v2.
    for (const auto& p : s->properties) {
      if (p.key != "format-version") continue;
      Status st = CheckFormatVersion(p.value, table->metadata()->format_version, table->name());
      if (!st.ok()) return ErrorAt(sql, alter.name.pos, st.message());
    }
    ARROW_RETURN_NOT_OK(commit([&](spec::TableMetadata* md) {
      for (const auto& p : s->properties) {
        if (p.key != "format-version") md->properties[p.key] = p.value;
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* u = alter.As<UnsetProperties>()) {
    ARROW_RETURN_NOT_OK(commit([&](spec::TableMetadata* md) -> Status {
      for (const auto& k : u->keys) {
        if (!md->properties.count(k) && !u->if_exists) {
          return ErrorAt(sql, alter.name.pos, StrCat("[UNSET_NONEXISTENT_PROPERTIES] Attempted to unset non-existent properties [`",
                                                     k, "`] in table ", table->name(), "."));
        }
        md->properties.erase(k);
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* a = alter.As<AddColumns>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t* last) -> Status {
      for (const auto& c : a->columns) {
        if (c.name.size() != 1) return ErrorAt(sql, c.name[0].pos, "Adding nested columns is not supported yet");
        for (const auto& f : *fields) {
          if (Lower(f.name) == Lower(c.name[0].name)) {
            return ErrorAt(sql, c.name[0].pos, StrCat("[FIELDS_ALREADY_EXISTS] Cannot add column, because `", c.name[0].name,
                                                      "` already exists in ", table->name(), "."));
          }
        }
        if (c.not_null) return ErrorAt(sql, c.name[0].pos, "Incompatible change: cannot add required column: " + c.name[0].name);
        int32_t id = ++*last;
        ARROW_ASSIGN_OR_RAISE(auto type, IcebergType(c.type, last));
        spec::NestedField f = spec::Optional(id, c.name[0].name, type);
        if (c.comment) f.doc = *c.comment;
        size_t pos = fields->size();
        if (c.position) {
          if (c.position->first) {
            pos = 0;
          } else {
            ARROW_ASSIGN_OR_RAISE(size_t after, find_top(fields, c.position->after));
            pos = after + 1;
          }
        }
        fields->insert(fields->begin() + static_cast<long>(pos), f);
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* r = alter.As<RenameColumn>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t*) -> Status {
      ARROW_ASSIGN_OR_RAISE(size_t i, find_top(fields, r->column));
      for (const auto& f : *fields) {
        if (Lower(f.name) == Lower(r->new_name.name)) {
          return ErrorAt(sql, r->new_name.pos, StrCat("[FIELDS_ALREADY_EXISTS] Cannot rename column, because `",
                                                      r->new_name.name, "` already exists in ", table->name(), "."));
        }
      }
      (*fields)[i].name = r->new_name.name;
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* d = alter.As<DropColumns>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t*) -> Status {
      for (const auto& col : d->columns) {
        auto i = find_top(fields, col);
        if (!i.ok()) {
          if (d->if_exists) continue;
          return i.status();
        }
        for (const auto& pf : table->metadata()->default_spec()->fields()) {
          if (pf.source_id == (*fields)[*i].id) {
            return ErrorAt(sql, col[0].pos, StrCat("Cannot delete field ", (*fields)[*i].id, ": ", (*fields)[*i].name,
                                                   " as it is used by the partition spec"));
          }
        }
        fields->erase(fields->begin() + static_cast<long>(*i));
      }
      if (fields->empty()) return ErrorAt(sql, alter.name.pos, "Cannot drop all columns of a table");
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* ac = alter.As<AlterColumn>()) {
    ARROW_RETURN_NOT_OK(evolve([&](std::vector<spec::NestedField>* fields, int32_t* last) -> Status {
      ARROW_ASSIGN_OR_RAISE(size_t i, find_top(fields, ac->column));
      auto& f = (*fields)[i];
      switch (ac->action) {
        case AlterColumnAction::kType: {
          ARROW_ASSIGN_OR_RAISE(auto to, IcebergType(ac->type, last));
          auto from = f.type;
          bool ok = from->Equals(*to) || (from->id() == spec::TypeId::kInt && to->id() == spec::TypeId::kLong) ||
                    (from->id() == spec::TypeId::kFloat && to->id() == spec::TypeId::kDouble) ||
                    (from->id() == spec::TypeId::kDecimal && to->id() == spec::TypeId::kDecimal &&
                     from->scale() == to->scale() && to->precision() >= from->precision());
          if (!ok) {
            return ErrorAt(sql, ac->column[0].pos, StrCat("Cannot change column type: ", f.name, ": ", from->ToString(),
                                                          " -> ", to->ToString()));
          }
          f.type = to;
          return Status::OK();
        }
        case AlterColumnAction::kDropNotNull:
          f.required = false;
          return Status::OK();
        case AlterColumnAction::kSetNotNull:
          if (!f.required) return ErrorAt(sql, ac->column[0].pos, "Cannot change column nullability: " + f.name + ": optional -> required");
          return Status::OK();
        case AlterColumnAction::kComment:
          f.doc = ac->comment;
          return Status::OK();
        case AlterColumnAction::kPosition: {
          spec::NestedField moved = f;
          fields->erase(fields->begin() + static_cast<long>(i));
          size_t pos = 0;
          if (!ac->position.first) {
            ARROW_ASSIGN_OR_RAISE(size_t after, find_top(fields, ac->position.after));
            pos = after + 1;
          }
          fields->insert(fields->begin() + static_cast<long>(pos), moved);
          return Status::OK();
        }
      }
      return Status::OK();
    }));
    return Message("");
  }
  if (auto* r = alter.As<RenameTable>()) {
    ARROW_ASSIGN_OR_RAISE(ResolvedName to, ResolveName(r->new_name, false));
    ARROW_RETURN_NOT_OK(tables_.RenameTable(table->ident(), to.ident));
    return Message("");
  }
  if (auto* c = alter.As<CreateRef>()) {
    table::RefOptions options;
    options.mode = !c->replace ? table::RefWriteMode::kCreate
                               : (c->create ? table::RefWriteMode::kCreateOrReplace : table::RefWriteMode::kReplace);
    options.if_not_exists = c->if_not_exists;
    options.snapshot_id = c->as_of_version;
    if (c->retain) options.max_ref_age_ms = DurationMs(*c->retain);
    if (c->min_snapshots_to_keep) options.min_snapshots_to_keep = static_cast<int32_t>(*c->min_snapshots_to_keep);
    if (c->max_snapshot_age) options.max_snapshot_age_ms = DurationMs(*c->max_snapshot_age);
    Status st = c->kind == RefKind::kTag ? table::CreateOrReplaceTag(*table, c->name.name, options)
                                         : table::CreateOrReplaceBranch(*table, c->name.name, options);
    if (!st.ok()) return ErrorAt(sql, c->name.pos, st.message());
    return Message("");
  }
  if (auto* d = alter.As<DropRef>()) {
    Status st = d->kind == RefKind::kTag ? table::DropTag(*table, d->name.name, d->if_exists)
                                         : table::DropBranch(*table, d->name.name, d->if_exists);
    if (!st.ok()) return ErrorAt(sql, d->name.pos, st.message());
    return Message("");
  }
  if (auto* e = alter.As<ExecuteProcedure>()) {
    // Trino: ALTER TABLE t EXECUTE proc(args) is CALL system.proc(t, args).
    sql::Call call;
    call.procedure.parts = {Identifier{"system", false, {}}, e->procedure};
    call.procedure.pos = alter.name.pos;
    CallArgument table_arg;
    Literal lit;
    lit.kind = LiteralKind::kString;
    lit.value = table->ident().ToString();
    table_arg.value.node = lit;
    call.args.push_back(table_arg);
    for (const auto& a : e->args) call.args.push_back(a);
    return Call(call, sql);
  }
  return ErrorAt(sql, alter.name.pos, "This ALTER TABLE form is not supported yet");
}

Result<StatementResult> Session::Impl::Describe(const sql::Describe& describe, const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTable(describe.name, sql));
  auto md = table->metadata();
  auto schema = md->current_schema();
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (const auto& f : schema->fields()) {
    rows.push_back({f.name, SparkTypeName(*f.type), f.doc.empty() ? std::nullopt : std::optional<std::string>(f.doc)});
  }
  const spec::PartitionSpec* spec = md->default_spec();
  if (spec && !spec->fields().empty()) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Partitioning", "", ""});
    for (size_t i = 0; i < spec->fields().size(); ++i) {
      rows.push_back({StrCat("Part ", i), PartitionFieldText(spec->fields()[i], *schema), ""});
    }
  }
  if (describe.extended) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Metadata Columns", "", ""});
    rows.push_back({"_spec_id", "int", ""});
    rows.push_back({"_partition", "struct<>", ""});
    rows.push_back({"_file", "string", ""});
    rows.push_back({"_pos", "bigint", ""});
    rows.push_back({"", "", ""});
    rows.push_back({"# Detailed Table Information", "", ""});
    rows.push_back({"Name", table->name(), ""});
    rows.push_back({"Type", "MANAGED", ""});
    rows.push_back({"Location", md->location, ""});
    rows.push_back({"Provider", "iceberg", ""});
    std::string props = "[";
    std::map<std::string, std::string> all = ShownProperties(*md);
    bool first = true;
    for (const auto& [k, v] : all) {
      props += (first ? "" : ",") + k + "=" + v;
      first = false;
    }
    rows.push_back({"Table Properties", props + "]", ""});
  }
  return Rows(StringTable({"col_name", "data_type", "comment"}, rows));
}

Result<StatementResult> Session::Impl::ShowCreateTable(const sql::ShowCreateTable& show, const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTable(show.name, sql));
  auto md = table->metadata();
  auto schema = md->current_schema();
  std::string text = "CREATE TABLE " + table->name() + " (\n";
  for (size_t i = 0; i < schema->fields().size(); ++i) {
    const auto& f = schema->fields()[i];
    text += "  " + f.name + " " + Upper(SparkTypeName(*f.type)) + (f.required ? " NOT NULL" : "");
    if (!f.doc.empty()) text += " COMMENT " + QuoteString(f.doc);
    text += i + 1 < schema->fields().size() ? ",\n" : ")\n";
  }
  text += "USING iceberg\n";
  const spec::PartitionSpec* spec = md->default_spec();
  if (spec && !spec->fields().empty()) {
    text += "PARTITIONED BY (";
    for (size_t i = 0; i < spec->fields().size(); ++i) {
      text += (i ? ", " : "") + PartitionFieldText(spec->fields()[i], *schema);
    }
    text += ")\n";
  }
  text += "LOCATION '" + md->location + "'\n";
  std::map<std::string, std::string> props = ShownProperties(*md);
  text += "TBLPROPERTIES (\n";
  size_t i = 0;
  for (const auto& [k, v] : props) {
    text += "  '" + k + "' = '" + v + "'" + (++i < props.size() ? ",\n" : ")\n");
  }
  return Rows(StringTable({"createtab_stmt"}, {{text}}));
}

Result<StatementResult> Session::Impl::Call(const sql::Call& call, const std::string& sql) {
  const auto& parts = call.procedure.parts;
  std::string proc = Lower(parts.back().name);
  if (parts.size() < 2 || Lower(parts[parts.size() - 2].name) != "system" ||
      (parts.size() == 3 && Lower(parts[0].name) != Lower(catalog_->name())) || parts.size() > 3) {
    return ErrorAt(sql, call.procedure.pos, StrCat("Procedure ", ToSql(call.procedure), " not found"));
  }
  // Each procedure's parameters in order, and how many of the first are required.
  struct Params {
    std::vector<std::string> names;
    size_t required;
  };
  static const std::map<std::string, Params> kParams = {
      {"rollback_to_snapshot", {{"table", "snapshot_id"}, 2}},
      {"rollback_to_timestamp", {{"table", "timestamp"}, 2}},
      {"set_current_snapshot", {{"table", "snapshot_id", "ref"}, 1}},
      {"cherrypick_snapshot", {{"table", "snapshot_id"}, 2}},
      {"fast_forward", {{"table", "branch", "to"}, 3}},
      {"ancestors_of", {{"table", "snapshot_id"}, 1}},
  };
  auto params_it = kParams.find(proc);
  if (params_it == kParams.end()) {
    return ErrorAt(sql, call.procedure.pos, StrCat("Procedure system.", proc, " not found"));
  }
  const std::vector<std::string>& params = params_it->second.names;
  QueryPlanner planner = Planner(sql);
  std::map<std::string, std::shared_ptr<arrow::Scalar>> args;
  size_t position = 0;
  // Iceberg's messages for arguments that do not bind.
  for (const auto& a : call.args) {
    std::string name;
    if (a.name) {
      name = Lower(a.name->name);
      if (std::find(params.begin(), params.end(), name) == params.end()) {
        return ErrorAt(sql, a.name->pos, StrCat("Could not build name to arg map: Unknown argument: ", name));
      }
    } else {
      if (position >= params.size()) return ErrorAt(sql, a.value.pos, "Too many arguments for procedure");
      name = params[position++];
    }
    if (args.count(name)) {
      return ErrorAt(sql, a.value.pos, StrCat("Could not build name to arg map: Duplicate procedure argument: ", name));
    }
    ARROW_ASSIGN_OR_RAISE(auto value, planner.EvaluateConstant(a.value));
    if (!value->is_valid) {
      return ErrorAt(sql, a.value.pos, StrCat("Argument ", name, " of procedure ", proc, " cannot be NULL"));
    }
    args[name] = std::move(value);
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < params_it->second.required; ++i) {
    if (!args.count(params[i])) missing.push_back(params[i]);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ",") + m;
    return ErrorAt(sql, call.procedure.pos, StrCat("Missing required parameters: [", list, "]"));
  }
  auto arg_pos = [&](const std::string& name) {
    size_t index = 0;
    for (const auto& a : call.args) {
      if (a.name ? Lower(a.name->name) == name : index < params.size() && params[index] == name) return a.value.pos;
      if (!a.name) ++index;
    }
    return call.procedure.pos;
  };
  auto wrong_type = [&](const std::string& name, const char* want) {
    return ErrorAt(sql, arg_pos(name), StrCat("Wrong arg type for ", name, ": cannot cast ",
                                              SparkTypeClassName(*args[name]->type), " to ", want));
  };
  auto get_string = [&](const std::string& name) -> Result<std::optional<std::string>> {
    auto it = args.find(name);
    if (it == args.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second->ToString());
  };
  auto get_long = [&](const std::string& name) -> Result<std::optional<int64_t>> {
    auto it = args.find(name);
    if (it == args.end()) return std::optional<int64_t>();
    if (!arrow::is_integer(it->second->type->id())) return wrong_type(name, "LongType");
    ARROW_ASSIGN_OR_RAISE(auto cast, it->second->CastTo(arrow::int64()));
    return std::optional<int64_t>(static_cast<const arrow::Int64Scalar&>(*cast).value);
  };
  const auto& table_arg = args["table"];
  if (table_arg->type->id() != arrow::Type::STRING) {
    return ErrorAt(sql, arg_pos("table"), StrCat("Cannot parse identifier for arg table: ", table_arg->ToString()));
  }
  std::string table_name = table_arg->ToString();
  if (table_name.empty()) return ErrorAt(sql, arg_pos("table"), "Cannot handle an empty identifier for argument table");
  // 'ns.t' or a fully qualified name, as Spark accepts.
  ObjectName name;
  std::stringstream in(table_name);
  std::string part;
  while (std::getline(in, part, '.')) name.parts.push_back(Identifier{part, false, {}});
  name.pos = call.procedure.pos;
  auto resolved = ResolveName(name, false);
  Result<std::shared_ptr<table::Table>> loaded =
      resolved.ok() ? tables_.LoadTable(resolved->ident) : Result<std::shared_ptr<table::Table>>(resolved.status());
  if (!loaded.ok()) {
    if (resolved.ok() && !IsNotFound(loaded.status())) return loaded.status();
    return ErrorAt(sql, arg_pos("table"),
                   StrCat("Couldn't load table '", table_name, "' in catalog '", catalog_->name(), "'"));
  }
  std::shared_ptr<table::Table> table = *loaded;
  auto fail = [&](const Status& st) { return ErrorAt(sql, call.procedure.pos, st.message()); };
  auto two_longs = [](const std::string& a, std::optional<int64_t> av, const std::string& b, int64_t bv) {
    arrow::Int64Builder x, y;
    (void)(av ? x.Append(*av) : x.AppendNull());
    (void)y.Append(bv);
    return arrow::Table::Make(arrow::schema({arrow::field(a, arrow::int64()), arrow::field(b, arrow::int64())}),
                              {x.Finish().ValueOrDie(), y.Finish().ValueOrDie()});
  };
  if (proc == "rollback_to_snapshot" || proc == "cherrypick_snapshot") {
    ARROW_ASSIGN_OR_RAISE(auto id, get_long("snapshot_id"));
    if (proc == "cherrypick_snapshot") {
      auto r = table::CherrypickSnapshot(*table, *id);
      if (!r.ok()) return fail(r.status());
      return Rows(two_longs("source_snapshot_id", r->source_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
    }
    auto r = table::RollbackToSnapshot(*table, *id);
    if (!r.ok()) return fail(r.status());
    return Rows(two_longs("previous_snapshot_id", r->previous_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
  }
  if (proc == "rollback_to_timestamp") {
    auto it = args.find("timestamp");
    int64_t ms = 0;
    if (it->second->type->id() == arrow::Type::TIMESTAMP) {
      int64_t micros = static_cast<const arrow::TimestampScalar&>(*it->second).value;
      ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
    } else if (it->second->type->id() == arrow::Type::STRING) {
      // Beyond Iceberg, which takes only timestamps: a string that reads as one.
      auto micros = ParseTimestampMicros(it->second->ToString(), TimeZone());
      if (!micros.ok()) return wrong_type("timestamp", "TimestampType");
      ms = *micros >= 0 ? *micros / 1000 : -((-*micros + 999) / 1000);
    } else {
      return wrong_type("timestamp", "TimestampType");
    }
    auto r = table::RollbackToTimestamp(*table, ms);
    if (!r.ok()) return fail(r.status());
    return Rows(two_longs("previous_snapshot_id", r->previous_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
  }
  if (proc == "set_current_snapshot") {
    ARROW_ASSIGN_OR_RAISE(auto id, get_long("snapshot_id"));
    ARROW_ASSIGN_OR_RAISE(auto ref, get_string("ref"));
    auto r = table::SetCurrentSnapshot(*table, id, ref);
    if (!r.ok()) return fail(r.status());
    return Rows(two_longs("previous_snapshot_id", r->previous_snapshot_id, "current_snapshot_id", r->current_snapshot_id));
  }
  if (proc == "fast_forward") {
    ARROW_ASSIGN_OR_RAISE(auto branch, get_string("branch"));
    ARROW_ASSIGN_OR_RAISE(auto to, get_string("to"));
    auto r = table::FastForward(*table, *branch, *to);
    if (!r.ok()) return fail(r.status());
    arrow::StringBuilder b;
    arrow::Int64Builder prev, upd;
    ARROW_RETURN_NOT_OK(b.Append(r->branch_updated));
    ARROW_RETURN_NOT_OK(r->previous_ref ? prev.Append(*r->previous_ref) : prev.AppendNull());
    ARROW_RETURN_NOT_OK(upd.Append(r->updated_ref));
    auto schema = arrow::schema({arrow::field("branch_updated", arrow::utf8()), arrow::field("previous_ref", arrow::int64()),
                                 arrow::field("updated_ref", arrow::int64())});
    return Rows(arrow::Table::Make(schema, {b.Finish().ValueOrDie(), prev.Finish().ValueOrDie(), upd.Finish().ValueOrDie()}));
  }
  // ancestors_of
  ARROW_ASSIGN_OR_RAISE(auto id, get_long("snapshot_id"));
  auto md = table->metadata();
  if (id && !md->SnapshotById(*id)) return fail(NotFound("Cannot find snapshot: ", *id));
  arrow::Int64Builder ids, ts;
  for (const auto& row : table::AncestorsOfRows(*md, id)) {
    ARROW_RETURN_NOT_OK(ids.Append(row.snapshot_id));
    ARROW_RETURN_NOT_OK(ts.Append(row.timestamp_ms));
  }
  auto schema = arrow::schema({arrow::field("snapshot_id", arrow::int64()), arrow::field("timestamp", arrow::int64())});
  return Rows(arrow::Table::Make(schema, {ids.Finish().ValueOrDie(), ts.Finish().ValueOrDie()}));
}

}  // namespace floe::sql
