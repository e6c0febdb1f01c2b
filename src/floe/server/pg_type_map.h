#pragma once

// The PostgreSQL type a result column is sent as in RowDescription: the one the catalog
// relations report for it too (sql::PgTypeOf), so a client sees the same type in both.

#include "floe/sql/postgres/pg_types.h"

namespace floe::server {

namespace pg_oid = sql::pg_oid;
using sql::PgType;

inline PgType PgTypeFor(const arrow::DataType& type) { return sql::PgTypeOf(type); }

}  // namespace floe::server
