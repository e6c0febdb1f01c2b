#pragma once

// The PostgreSQL type floe reports for each value type, in one place: the pg_catalog tables
// (pg_type, pg_attribute, information_schema.columns), format_type() and a PostgreSQL
// server's RowDescription all read it. Iceberg types reach here as the Arrow types that
// result batches carry.

#include <cstdint>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

namespace floe::sql {

// PostgreSQL's type oids (pg_type.dat) for the types floe reports.
namespace pg_oid {
inline constexpr int32_t kBool = 16;
inline constexpr int32_t kBytea = 17;
inline constexpr int32_t kChar = 18;  // "char", one byte
inline constexpr int32_t kName = 19;
inline constexpr int32_t kInt8 = 20;
inline constexpr int32_t kInt2 = 21;
inline constexpr int32_t kInt4 = 23;
inline constexpr int32_t kRegproc = 24;
inline constexpr int32_t kText = 25;
inline constexpr int32_t kOid = 26;
inline constexpr int32_t kFloat4 = 700;
inline constexpr int32_t kFloat8 = 701;
inline constexpr int32_t kUnknown = 705;  // a literal not yet typed
inline constexpr int32_t kVarchar = 1043;
inline constexpr int32_t kDate = 1082;
inline constexpr int32_t kTime = 1083;
inline constexpr int32_t kTimestamp = 1114;
inline constexpr int32_t kTimestamptz = 1184;
inline constexpr int32_t kNumeric = 1700;
inline constexpr int32_t kRegclass = 2205;
inline constexpr int32_t kRegtype = 2206;
inline constexpr int32_t kUuid = 2950;
// Arrays drivers send as parameters (a Python or Java list).
inline constexpr int32_t kCharArray = 1002;
inline constexpr int32_t kNameArray = 1003;
inline constexpr int32_t kInt2Array = 1005;
inline constexpr int32_t kInt4Array = 1007;
inline constexpr int32_t kTextArray = 1009;
inline constexpr int32_t kVarcharArray = 1015;
inline constexpr int32_t kOidArray = 1028;
inline constexpr int32_t kInt8Array = 1016;
}  // namespace pg_oid

struct PgType {
  int32_t oid = pg_oid::kText;
  std::string name;     // pg_type.typname: "int4", "numeric", "timestamptz"
  int32_t typmod = -1;  // numeric(p, s): ((p << 16) | s) + 4; else -1
  int16_t typlen = -1;  // bytes of a fixed-size value, -1 for variable size
};

// The PostgreSQL type of values of `type`: int -> int4, long -> int8, float -> float4,
// double -> float8, decimal(p, s) -> numeric with its typmod, string -> text, boolean -> bool,
// date, time, timestamp (without zone) -> timestamp, timestamptz, binary -> bytea,
// uuid -> uuid; lists, maps, structs (shown as text) and anything else -> text.
PgType PgTypeOf(const arrow::DataType& type);

// One row of pg_type.
struct PgTypeRow {
  int32_t oid;
  const char* name;
  int16_t typlen;
  bool byval;
  char category;         // pg_type.typcategory
  int32_t array_oid;     // the type of arrays of it, 0 when none
  int32_t element_oid;   // for array types, their element; else 0
  const char* sql_name;  // what format_type() prints without a typmod
};

// The types pg_type lists: those PgTypeOf reports, oid, regproc, regclass, regtype, name,
// "char", varchar and their array types.
const std::vector<PgTypeRow>& PgTypeRows();
const PgTypeRow* FindPgType(int32_t oid);
// The oid of a type name as PostgreSQL spells it (int4, integer, "char", ...); 0 when unknown.
int32_t PgTypeOidByName(const std::string& lower_name);

// The oid of one of PostgreSQL's pseudo-types (trigger, void, record, any, anyelement,
// anyarray, internal), which pg_type does not list here but `'trigger'::regtype` names; 0 for
// any other name.
int32_t PgPseudoTypeOid(const std::string& lower_name);

// format_type(oid, typmod): "integer", "numeric(10,2)", "timestamp with time zone",
// "character varying(20)"; "???" for an oid it does not know, as PostgreSQL prints.
std::string PgFormatType(int32_t oid, int32_t typmod);

}  // namespace floe::sql
