#pragma once

// The PostgreSQL type a floe result column is sent as: its OID, typmod and length for
// RowDescription. Types without a PostgreSQL counterpart (lists, maps, structs) go as text.

#include <cstdint>

#include <arrow/type_fwd.h>

namespace floe::server {

namespace pg_oid {
inline constexpr int32_t kBool = 16;
inline constexpr int32_t kBytea = 17;
inline constexpr int32_t kInt8 = 20;
inline constexpr int32_t kInt2 = 21;
inline constexpr int32_t kInt4 = 23;
inline constexpr int32_t kText = 25;
inline constexpr int32_t kFloat4 = 700;
inline constexpr int32_t kFloat8 = 701;
inline constexpr int32_t kUnknown = 705;
inline constexpr int32_t kVarchar = 1043;
inline constexpr int32_t kDate = 1082;
inline constexpr int32_t kTime = 1083;
inline constexpr int32_t kTimestamp = 1114;
inline constexpr int32_t kTimestampTz = 1184;
inline constexpr int32_t kNumeric = 1700;
inline constexpr int32_t kUuid = 2950;
}  // namespace pg_oid

struct PgType {
  int32_t oid = pg_oid::kText;
  int32_t typmod = -1;
  int16_t length = -1;  // bytes for fixed-width types, -1 for variable
};

PgType PgTypeFor(const arrow::DataType& type);

}  // namespace floe::server
