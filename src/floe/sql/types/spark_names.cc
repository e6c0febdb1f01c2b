#include "floe/sql/types/spark_names.h"

#include <cctype>
#include <regex>

#include <arrow/api.h>

#include "floe/util/ascii.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

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
    case TypeId::kUnsupported: return t.ToString();
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

std::string QuoteIfNeeded(const std::string& part) {
  bool plain = !part.empty();
  bool all_digits = true;
  for (char c : part) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '_') plain = false;
    if (!std::isdigit(u)) all_digits = false;
  }
  if (plain && !all_digits) return part;
  std::string out = "`";
  for (char c : part) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

std::string QuotedName(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "." : "") + QuoteIfNeeded(parts[i]);
  return out;
}

Result<bool> MatchesShowPattern(const std::string& name, const std::string& pattern) {
  std::string lower_name = AsciiLower(name);
  size_t start = 0;
  const std::string lower = AsciiLower(pattern);
  while (true) {
    size_t bar = lower.find('|', start);
    std::string alt = lower.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    // Spark trims each alternative.
    size_t b = alt.find_first_not_of(' '), e = alt.find_last_not_of(' ');
    alt = b == std::string::npos ? "" : alt.substr(b, e - b + 1);
    std::string rx;
    for (char ch : alt) rx += ch == '*' ? std::string(".*") : std::string(1, ch);
    try {
      if (std::regex_match(lower_name, std::regex(rx))) return true;
    } catch (const std::regex_error&) {
      return ValidationError("Invalid pattern in SHOW ... LIKE: '", pattern, "'");
    }
    if (bar == std::string::npos) return false;
    start = bar + 1;
  }
}

}  // namespace floe::sql
