#pragma once

// The one writer of the JSON floe prints and serves: the floe commands' --json output, the
// metadata pages' API, `floe sql --format json` rows and the JSON text of nested values on the
// PostgreSQL wire. It wraps RapidJSON's Writer: strings are escaped as RFC 8259 asks ('"',
// '\\' and control characters; \b \f \n \r \t short, the rest as \u00XX) and UTF-8 is copied
// as is. The Iceberg metadata files are written by spec/ with RapidJSON directly.
//
//   JsonWriter json(JsonWriter::Style::kSpaced);
//   json.StartObject().Key("table").String("db.t").Key("parent_id").Null().EndObject();
//   json.view();  // {"table": "db.t", "parent_id": null}
//
// Calls must form one JSON value (a key before each member's value, every object and array
// closed); a misuse asserts in debug builds.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe {

class JsonWriter {
 public:
  enum class Style {
    kCompact,  // {"a":1,"b":[1,2]}
    kSpaced,   // {"a": 1, "b": [1, 2]}: still one line, as PostgreSQL shows json
  };

  explicit JsonWriter(Style style = Style::kCompact);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& StartObject();
  JsonWriter& EndObject();
  JsonWriter& StartArray();
  JsonWriter& EndArray();
  // The name of the object member whose value comes next.
  JsonWriter& Key(std::string_view name);

  JsonWriter& String(std::string_view value);
  JsonWriter& Int64(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // An instant as ISO-8601 in UTC with a Z, "2024-01-15T10:30:00.123Z" (the fraction only
  // when not zero, without trailing zeros).
  JsonWriter& Time(int64_t epoch_ms);

  // The value, or null when absent.
  JsonWriter& OptionalInt64(const std::optional<int64_t>& value);
  JsonWriter& OptionalString(const std::optional<std::string>& value);
  JsonWriter& OptionalTime(const std::optional<int64_t>& epoch_ms);
  // An array of strings.
  JsonWriter& Strings(const std::vector<std::string>& values);

  // Text that is already one JSON value, copied as is: a double or decimal whose digits must
  // stay as they were formatted, or a document written elsewhere. Not checked.
  JsonWriter& Raw(std::string_view json);

  // What has been written so far: one JSON text once the value is complete.
  std::string_view view() const;
  // Returns what has been written and starts over, empty, for another value.
  std::string Take();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe
