#include "floe/sql/postgres/pg_types.h"

#include <arrow/extension_type.h>
#include <arrow/type.h>

namespace floe::sql {

namespace {

// Element types first, then their arrays (PostgreSQL's oids and spellings).
const std::vector<PgTypeRow> kRows = {
    {pg_oid::kBool, "bool", 1, true, 'B', 1000, 0, "boolean"},
    {pg_oid::kBytea, "bytea", -1, false, 'U', 1001, 0, "bytea"},
    {pg_oid::kChar, "char", 1, true, 'Z', 1002, 0, "\"char\""},
    {pg_oid::kName, "name", 64, false, 'S', 1003, 0, "name"},
    {pg_oid::kInt8, "int8", 8, true, 'N', 1016, 0, "bigint"},
    {pg_oid::kInt2, "int2", 2, true, 'N', 1005, 0, "smallint"},
    {pg_oid::kInt4, "int4", 4, true, 'N', 1007, 0, "integer"},
    {pg_oid::kRegproc, "regproc", 4, true, 'N', 1008, 0, "regproc"},
    {pg_oid::kText, "text", -1, false, 'S', 1009, 0, "text"},
    {pg_oid::kOid, "oid", 4, true, 'N', 1028, 0, "oid"},
    {pg_oid::kFloat4, "float4", 4, true, 'N', 1021, 0, "real"},
    {pg_oid::kFloat8, "float8", 8, true, 'N', 1022, 0, "double precision"},
    {pg_oid::kVarchar, "varchar", -1, false, 'S', 1015, 0, "character varying"},
    {pg_oid::kDate, "date", 4, true, 'D', 1182, 0, "date"},
    {pg_oid::kTime, "time", 8, true, 'D', 1183, 0, "time without time zone"},
    {pg_oid::kTimestamp, "timestamp", 8, true, 'D', 1115, 0, "timestamp without time zone"},
    {pg_oid::kTimestamptz, "timestamptz", 8, true, 'D', 1185, 0, "timestamp with time zone"},
    {pg_oid::kNumeric, "numeric", -1, false, 'N', 1231, 0, "numeric"},
    {pg_oid::kRegclass, "regclass", 4, true, 'N', 2210, 0, "regclass"},
    {pg_oid::kRegtype, "regtype", 4, true, 'N', 2211, 0, "regtype"},
    {pg_oid::kUuid, "uuid", 16, false, 'U', 2951, 0, "uuid"},
    {1000, "_bool", -1, false, 'A', 0, pg_oid::kBool, "boolean[]"},
    {1001, "_bytea", -1, false, 'A', 0, pg_oid::kBytea, "bytea[]"},
    {1002, "_char", -1, false, 'A', 0, pg_oid::kChar, "\"char\"[]"},
    {1003, "_name", -1, false, 'A', 0, pg_oid::kName, "name[]"},
    {1005, "_int2", -1, false, 'A', 0, pg_oid::kInt2, "smallint[]"},
    {1007, "_int4", -1, false, 'A', 0, pg_oid::kInt4, "integer[]"},
    {1008, "_regproc", -1, false, 'A', 0, pg_oid::kRegproc, "regproc[]"},
    {1009, "_text", -1, false, 'A', 0, pg_oid::kText, "text[]"},
    {1015, "_varchar", -1, false, 'A', 0, pg_oid::kVarchar, "character varying[]"},
    {1016, "_int8", -1, false, 'A', 0, pg_oid::kInt8, "bigint[]"},
    {1021, "_float4", -1, false, 'A', 0, pg_oid::kFloat4, "real[]"},
    {1022, "_float8", -1, false, 'A', 0, pg_oid::kFloat8, "double precision[]"},
    {1028, "_oid", -1, false, 'A', 0, pg_oid::kOid, "oid[]"},
    {1115, "_timestamp", -1, false, 'A', 0, pg_oid::kTimestamp, "timestamp without time zone[]"},
    {1182, "_date", -1, false, 'A', 0, pg_oid::kDate, "date[]"},
    {1183, "_time", -1, false, 'A', 0, pg_oid::kTime, "time without time zone[]"},
    {1185, "_timestamptz", -1, false, 'A', 0, pg_oid::kTimestamptz, "timestamp with time zone[]"},
    {1231, "_numeric", -1, false, 'A', 0, pg_oid::kNumeric, "numeric[]"},
    {2210, "_regclass", -1, false, 'A', 0, pg_oid::kRegclass, "regclass[]"},
    {2211, "_regtype", -1, false, 'A', 0, pg_oid::kRegtype, "regtype[]"},
    {2951, "_uuid", -1, false, 'A', 0, pg_oid::kUuid, "uuid[]"},
};

PgType Make(int32_t oid, int32_t typmod = -1) {
  const PgTypeRow* row = FindPgType(oid);
  return PgType{oid, row->name, typmod, row->typlen};
}

}  // namespace

const std::vector<PgTypeRow>& PgTypeRows() { return kRows; }

const PgTypeRow* FindPgType(int32_t oid) {
  for (const auto& row : kRows) {
    if (row.oid == oid) return &row;
  }
  return nullptr;
}

int32_t PgTypeOidByName(const std::string& name) {
  static const std::vector<std::pair<const char*, int32_t>> kAliases = {
      {"integer", pg_oid::kInt4},
      {"int", pg_oid::kInt4},
      {"smallint", pg_oid::kInt2},
      {"bigint", pg_oid::kInt8},
      {"boolean", pg_oid::kBool},
      {"real", pg_oid::kFloat4},
      {"double precision", pg_oid::kFloat8},
      {"character varying", pg_oid::kVarchar},
      {"\"char\"", pg_oid::kChar},
      {"decimal", pg_oid::kNumeric},
      {"timestamp without time zone", pg_oid::kTimestamp},
      {"timestamp with time zone", pg_oid::kTimestamptz},
      {"time without time zone", pg_oid::kTime}};
  for (const auto& row : kRows) {
    if (name == row.name) return row.oid;
  }
  for (const auto& [alias, oid] : kAliases) {
    if (name == alias) return oid;
  }
  return 0;
}

int32_t PgPseudoTypeOid(const std::string& name) {
  static const std::vector<std::pair<const char*, int32_t>> kPseudo = {
      {"record", 2249}, {"any", 2276},      {"anyarray", 2277}, {"void", 2278},
      {"trigger", 2279}, {"internal", 2281}, {"anyelement", 2283}};
  for (const auto& [pseudo, oid] : kPseudo) {
    if (name == pseudo) return oid;
  }
  return 0;
}

PgType PgTypeOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return Make(pg_oid::kBool);
    case arrow::Type::INT8:  // PostgreSQL has no one-byte integer
    case arrow::Type::INT16:
      return Make(pg_oid::kInt2);
    case arrow::Type::INT32:
      return Make(pg_oid::kInt4);
    case arrow::Type::INT64:
      return Make(pg_oid::kInt8);
    case arrow::Type::FLOAT:
      return Make(pg_oid::kFloat4);
    case arrow::Type::DOUBLE:
      return Make(pg_oid::kFloat8);
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      const auto& d = static_cast<const arrow::DecimalType&>(type);
      return Make(pg_oid::kNumeric, ((d.precision() << 16) | d.scale()) + 4);
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return Make(pg_oid::kText);
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
      return Make(pg_oid::kBytea);
    case arrow::Type::DATE32:
    case arrow::Type::DATE64:
      return Make(pg_oid::kDate);
    case arrow::Type::TIME32:
    case arrow::Type::TIME64:
      return Make(pg_oid::kTime);
    case arrow::Type::TIMESTAMP: {
      const auto& t = static_cast<const arrow::TimestampType&>(type);
      return Make(t.timezone().empty() ? pg_oid::kTimestamp : pg_oid::kTimestamptz);
    }
    case arrow::Type::EXTENSION: {
      const auto& ext = static_cast<const arrow::ExtensionType&>(type);
      if (ext.extension_name() == "arrow.uuid") return Make(pg_oid::kUuid);
      return PgTypeOf(*ext.storage_type());
    }
    default:
      return Make(pg_oid::kText);
  }
}

std::string PgFormatType(int32_t oid, int32_t typmod) {
  const PgTypeRow* row = FindPgType(oid);
  if (!row) return "???";
  std::string name = row->sql_name;
  if (typmod >= 4 && oid == pg_oid::kNumeric) {
    int32_t m = typmod - 4;
    return name + "(" + std::to_string((m >> 16) & 0xffff) + "," + std::to_string(m & 0xffff) + ")";
  }
  if (typmod >= 4 && oid == pg_oid::kVarchar) return name + "(" + std::to_string(typmod - 4) + ")";
  return name;
}

}  // namespace floe::sql
