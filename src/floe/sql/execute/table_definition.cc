#include "floe/sql/execute/table_definition.h"

#include "floe/table/metadata_update.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

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
// creating). floe writes format versions 2 and 3: anything else fails before a commit, with
// Iceberg's phrase where Iceberg would fail too.
Result<int32_t> CheckFormatVersion(const std::string& value, std::optional<int> current, const std::string& table) {
  std::optional<int32_t> wanted = ParseInt32(value);
  if (!wanted) {
    return ValidationError("Invalid format-version '", value, "' for table ", table,
                           ": For input string: \"", value, "\"");
  }
  if (current && *wanted < *current) {
    return ValidationError("Cannot downgrade v", *current, " table to v", *wanted, ": ", table);
  }
  if (*wanted > table::kMaxWritableFormatVersion) {
    return ValidationError("Cannot ", current ? "upgrade" : "create", " table ", table,
                           " at unsupported format version: v", *wanted, " (supported: v",
                           table::kMaxWritableFormatVersion, ")");
  }
  if (*wanted < 2) {
    return ValidationError("Cannot ", current ? "upgrade" : "create", " table ", table, " at format-version ", *wanted,
                           ": floe writes format-version 2 and 3 tables");
  }
  return *wanted;
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

}  // namespace floe::sql
