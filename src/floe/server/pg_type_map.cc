#include "floe/server/pg_type_map.h"

#include <arrow/extension_type.h>
#include <arrow/type.h>

namespace floe::server {

PgType PgTypeFor(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return {pg_oid::kBool, -1, 1};
    case arrow::Type::INT8:
    case arrow::Type::INT16:
      return {pg_oid::kInt2, -1, 2};
    case arrow::Type::INT32:
      return {pg_oid::kInt4, -1, 4};
    case arrow::Type::INT64:
      return {pg_oid::kInt8, -1, 8};
    case arrow::Type::FLOAT:
      return {pg_oid::kFloat4, -1, 4};
    case arrow::Type::DOUBLE:
      return {pg_oid::kFloat8, -1, 8};
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return {pg_oid::kNumeric, ((d.precision() << 16) | d.scale()) + 4, -1};
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return {pg_oid::kText, -1, -1};
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return {pg_oid::kBytea, -1, -1};
    case arrow::Type::FIXED_SIZE_BINARY:
      if (static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width() == 16) {
        return {pg_oid::kUuid, -1, 16};
      }
      return {pg_oid::kBytea, -1, -1};
    case arrow::Type::DATE32:
      return {pg_oid::kDate, -1, 4};
    case arrow::Type::TIME32:
    case arrow::Type::TIME64:
      return {pg_oid::kTime, -1, 8};
    case arrow::Type::TIMESTAMP:
      if (static_cast<const arrow::TimestampType&>(type).timezone().empty()) {
        return {pg_oid::kTimestamp, -1, 8};
      }
      return {pg_oid::kTimestampTz, -1, 8};
    case arrow::Type::EXTENSION: {
      const auto& ext = static_cast<const arrow::ExtensionType&>(type);
      if (ext.extension_name() == "arrow.uuid") return {pg_oid::kUuid, -1, 16};
      return PgTypeFor(*ext.storage_type());
    }
    default:
      return {pg_oid::kText, -1, -1};
  }
}

}  // namespace floe::server
