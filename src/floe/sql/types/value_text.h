#pragma once

// Arrow values as text, the way Spark 3.5's Dataset.show() prints them (its ToPrettyString
// cast): NULL for nulls at any depth, true/false, integers in decimal, doubles and floats as
// Java's Double/Float.toString (0.1, 1.0E10, NaN, Infinity), decimals as plain strings with
// their scale (1.50, 0.000), dates yyyy-MM-dd, timestamps yyyy-MM-dd HH:mm:ss with the
// fraction only when non-zero and trailing zeros dropped, binary as [01 AB], arrays as
// [1, 2], maps as {k -> v, k2 -> v2} and structs as {a, b} (values only).
//
// Timestamps with a time zone (Spark's TimestampType, Iceberg's timestamptz) are shown in
// the session time zone; timestamps without one (timestamp_ntz) are shown as stored.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <arrow/type_fwd.h>

#include "floe/util/status.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

class ValueText {
 public:
  explicit ValueText(TimeZone zone = TimeZone::Utc()) : zone_(std::move(zone)) {}
  // `time_zone` as spark.sql.session.timeZone takes it (see floe::TimeZone::Make): an IANA
  // region, UTC, or an offset such as +03:00 or UTC-5; empty means UTC.
  static Result<ValueText> Make(std::string_view time_zone);

  // Appends the text of array[i] (NULL when null).
  void Append(const arrow::Array& array, int64_t i, std::string* out) const;
  std::string Format(const arrow::Array& array, int64_t i) const;

  // The pieces, for callers that hold a plain value.
  void AppendTimestamp(int64_t value, arrow::TimeUnit::type unit, bool in_session_zone,
                       std::string* out) const;

 private:
  TimeZone zone_;
};

// Java's Double.toString / Float.toString: shortest digits that read back to the same
// value; plain notation for 1e-3 <= |v| < 1e7 ("0.001", "1234567.0"), otherwise
// computerized scientific notation ("1.0E7", "1.2E-4"); "NaN", "Infinity", "-Infinity".
// The elements of row i of a list, large list or fixed-size list array.
struct ListSlice {
  const arrow::Array* values = nullptr;
  int64_t begin = 0;
  int64_t length = 0;
};
ListSlice ListElements(const arrow::Array& array, int64_t i);

std::string JavaDoubleString(double value);
std::string JavaFloatString(float value);

// An unscaled decimal integer ("-12345") with `scale` as a plain decimal ("-123.45").
std::string PlainDecimalString(std::string_view unscaled, int32_t scale);

// "yyyy-MM-dd" of a day count since 1970-01-01.
std::string DateString(int64_t days);

// Spark's SchemaUtils.escapeMetaCharacters: \n \r \t \f \b \v \a become two-character
// escapes so that a cell stays on one line.
std::string EscapeMetaCharacters(std::string_view text);

// Spark's Utils.stringHalfWidth: UTF-16 length plus one for each full-width character
// (Hangul Jamo, CJK, Hangul syllables, full-width forms), the columns a terminal uses.
int64_t DisplayWidth(std::string_view utf8);

// Spark's show() truncation: text longer than `limit` UTF-16 units keeps its first
// limit - 3 units and gets "..." (no ellipsis when limit < 4). limit <= 0 keeps all.
std::string TruncateForDisplay(std::string_view utf8, int64_t limit);

}  // namespace floe::sql
