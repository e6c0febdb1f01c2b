#pragma once

// Result values in PostgreSQL's text and binary formats, as DataRow fields. Text forms are
// the ones PostgreSQL prints with DateStyle ISO: timestamps with tz in the session zone
// ("2024-01-01 10:00:00+00"), bytea as "\x..." hex, floats shortest round-trip. Lists go as
// array literals ("{1,2}"), maps and structs as JSON text; their binary form is that text.

#include <cstdint>
#include <string>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"
#include "floe/util/time_zone.h"

namespace floe::server {

// Appends the value at `row` as one DataRow field: its int32 length and bytes, or -1 for
// null.
Status AppendField(const arrow::Array& array, int64_t row, bool binary, const TimeZone& zone,
                   std::string* out);

// The text form of a non-null value.
Result<std::string> TextValue(const arrow::Array& array, int64_t row, const TimeZone& zone);

// The binary form of a non-null value.
Result<std::string> BinaryValue(const arrow::Array& array, int64_t row, const TimeZone& zone);

// Decimal digits "[-]digits[.digits]" as PostgreSQL's binary numeric (NBASE 10000).
std::string NumericBinary(const std::string& decimal_text, int32_t scale);

}  // namespace floe::server
