#include "floe/sql/execute/insert_conform.h"

#include <vector>

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/compute/api.h>
#include <arrow/extension_type.h>
#include <arrow/type.h>

#include "floe/sql/functions/function_registry.h"
#include "floe/sql/types/spark_names.h"
#include "floe/table/arrow_conform.h"
#include "floe/util/ascii.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

using TypePtr = std::shared_ptr<arrow::DataType>;

// Spark's toSQLId: every part in backticks.
std::string SqlId(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string part;
    for (char c : parts[i]) part += c == '`' ? std::string("``") : std::string(1, c);
    out += (i ? ".`" : "`") + part + "`";
  }
  return out;
}

std::string TypeText(const arrow::DataType& type) { return "\"" + AsciiUpper(SparkTypeName(type)) + "\""; }

bool IsNested(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRUCT || t.id() == arrow::Type::LIST || t.id() == arrow::Type::LARGE_LIST ||
         t.id() == arrow::Type::MAP;
}
bool IsNumber(const arrow::DataType& t) {
  return arrow::is_integer(t.id()) || arrow::is_floating(t.id()) || arrow::is_decimal(t.id());
}
bool IsText(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}
bool IsDateTime(const arrow::DataType& t) {
  return t.id() == arrow::Type::DATE32 || t.id() == arrow::Type::TIMESTAMP;
}
const arrow::DataType& Storage(const arrow::DataType& t) {
  return t.id() == arrow::Type::EXTENSION ? *static_cast<const arrow::ExtensionType&>(t).storage_type() : t;
}

// Arrow's Parquet writer refuses a required field whose array has any null, even one under a
// NULL parent struct, where Parquet stores nothing; such slots are never read, so the field's
// validity is dropped (a required field's nulls under valid parents were refused before).
std::shared_ptr<arrow::ArrayData> WithoutHiddenNulls(const std::shared_ptr<arrow::ArrayData>& data,
                                                     const arrow::DataType& type) {
  if (type.num_fields() == 0 || data->child_data.size() != static_cast<size_t>(type.num_fields())) return data;
  auto out = data->Copy();
  for (int i = 0; i < type.num_fields(); ++i) {
    auto child = WithoutHiddenNulls(out->child_data[i], *type.field(i)->type());
    if (type.id() == arrow::Type::STRUCT && !type.field(i)->nullable() && child->GetNullCount() > 0) {
      child = child->Copy();
      child->buffers[0] = nullptr;
      child->null_count = 0;
    }
    out->child_data[i] = std::move(child);
  }
  return out;
}

class Conformer {
 public:
  explicit Conformer(std::string table_sql) : table_sql_(std::move(table_sql)) {}

  // The checks Spark makes before reading any row: shapes and which leaf types may be stored.
  Status CheckType(const arrow::DataType& from_in, const arrow::DataType& want_in, std::vector<std::string>* path) {
    const arrow::DataType& from = Storage(from_in);
    const arrow::DataType& want = Storage(want_in);
    if (from.id() == arrow::Type::NA || from.Equals(want, /*check_metadata=*/false)) return Status::OK();
    switch (want.id()) {
      case arrow::Type::STRUCT: {
        if (from.id() != arrow::Type::STRUCT) break;
        const int have = from.num_fields(), need = want.num_fields();
        if (have > need) {
          std::vector<std::string> extra;
          for (int i = need; i < have; ++i) extra.push_back(SqlId({from.field(i)->name()}));
          return Incompatible("EXTRA_STRUCT_FIELDS",
                              StrCat("Cannot write extra fields ", Join(extra), " to the struct ", SqlId(*path), "."));
        }
        if (have < need) {
          std::vector<std::string> missing;
          for (int i = have; i < need; ++i) missing.push_back(SqlId({want.field(i)->name()}));
          return Incompatible("STRUCT_MISSING_FIELDS", StrCat("Struct ", SqlId(*path), " missing fields: ", Join(missing), "."));
        }
        for (int i = 0; i < need; ++i) {
          path->push_back(want.field(i)->name());
          ARROW_RETURN_NOT_OK(CheckType(*from.field(i)->type(), *want.field(i)->type(), path));
          path->pop_back();
        }
        return Status::OK();
      }
      case arrow::Type::LIST: {
        if (from.id() != arrow::Type::LIST && from.id() != arrow::Type::LARGE_LIST) break;
        path->push_back("element");
        ARROW_RETURN_NOT_OK(CheckType(*from.field(0)->type(), *want.field(0)->type(), path));
        path->pop_back();
        return Status::OK();
      }
      case arrow::Type::MAP: {
        if (from.id() != arrow::Type::MAP) break;
        const auto& f = static_cast<const arrow::MapType&>(from);
        const auto& w = static_cast<const arrow::MapType&>(want);
        path->push_back("key");
        ARROW_RETURN_NOT_OK(CheckType(*f.key_type(), *w.key_type(), path));
        path->back() = "value";
        ARROW_RETURN_NOT_OK(CheckType(*f.item_type(), *w.item_type(), path));
        path->pop_back();
        return Status::OK();
      }
      default: {
        // Spark's ANSI store assignment: numbers to numbers, anything atomic to a string,
        // dates and timestamps to each other.
        bool storable = !IsNested(from) && ((IsNumber(from) && IsNumber(want)) || IsText(want) ||
                                            (IsDateTime(from) && IsDateTime(want)) ||
                                            (IsText(from) && (IsDateTime(want) || want.id() == arrow::Type::BINARY)));
        if (storable) return Status::OK();
        break;
      }
    }
    return Incompatible("CANNOT_SAFELY_CAST",
                        StrCat("Cannot safely cast ", SqlId(*path), " ", TypeText(from), " to ", TypeText(want), "."));
  }

  // Rebuilds `array` as `want` (types already checked); struct children pair up by position.
  Result<std::shared_ptr<arrow::Array>> Conform(const std::shared_ptr<arrow::Array>& array, const arrow::Field& want,
                                                std::vector<std::string>* path) {
    const auto& type = want.type();
    if (array->type()->id() == arrow::Type::NA) return arrow::MakeArrayOfNull(type, array->length());
    if (array->type()->Equals(*type, /*check_metadata=*/false)) return array;
    if (type->id() == arrow::Type::EXTENSION || array->type()->id() == arrow::Type::EXTENSION) {
      return Checked(table::ConformArray(array, want), *array->type(), *type, *path);
    }
    switch (type->id()) {
      case arrow::Type::STRUCT: {
        const auto& in = static_cast<const arrow::StructArray&>(*array);
        // Children unsliced, so the parent's offset and validity bitmap apply unchanged.
        arrow::ArrayVector children;
        for (int i = 0; i < type->num_fields(); ++i) {
          path->push_back(type->field(i)->name());
          auto raw = arrow::MakeArray(in.data()->child_data[i]);
          ARROW_ASSIGN_OR_RAISE(auto child, Conform(raw, *type->field(i), path));
          if (!type->field(i)->nullable()) {
            auto sliced = child->Slice(in.offset(), in.length());
            for (int64_t r = 0; r < in.length(); ++r) {
              if (sliced->IsNull(r) && in.IsValid(r)) return NullInRequired(*path);
            }
          }
          path->pop_back();
          children.push_back(std::move(child));
        }
        return std::make_shared<arrow::StructArray>(type, in.length(), children, in.null_bitmap(), in.null_count(),
                                                    in.offset());
      }
      case arrow::Type::LIST: {
        std::shared_ptr<arrow::Array> list = array;
        if (array->type()->id() == arrow::Type::LARGE_LIST) {
          ARROW_ASSIGN_OR_RAISE(list, arrow::compute::Cast(*array, arrow::list(array->type()->field(0))));
        }
        const auto& in = static_cast<const arrow::ListArray&>(*list);
        path->push_back("element");
        ARROW_ASSIGN_OR_RAISE(auto values, Conform(in.values(), *type->field(0), path));
        if (!type->field(0)->nullable()) ARROW_RETURN_NOT_OK(NoNullsIn(in, *values, *path));
        path->pop_back();
        return std::make_shared<arrow::ListArray>(type, in.length(), in.value_offsets(), values, in.null_bitmap(),
                                                  in.null_count(), in.offset());
      }
      case arrow::Type::MAP: {
        const auto& in = static_cast<const arrow::MapArray&>(*array);
        const auto& map_type = static_cast<const arrow::MapType&>(*type);
        path->push_back("key");
        ARROW_ASSIGN_OR_RAISE(auto keys, Conform(in.keys(), *map_type.key_field(), path));
        path->back() = "value";
        ARROW_ASSIGN_OR_RAISE(auto items, Conform(in.items(), *map_type.item_field(), path));
        if (!map_type.item_field()->nullable()) ARROW_RETURN_NOT_OK(NoNullsIn(in, *items, *path));
        path->pop_back();
        return std::make_shared<arrow::MapArray>(type, in.length(), in.value_offsets(), keys, items, in.null_bitmap(),
                                                 in.null_count(), in.offset());
      }
      default: {
        // Spark stores a fraction into an integer column truncated toward zero; only a value
        // out of the integer's range fails.
        std::shared_ptr<arrow::Array> whole = array;
        if (arrow::is_integer(type->id()) && arrow::is_floating(array->type()->id())) {
          ARROW_ASSIGN_OR_RAISE(auto truncated, arrow::compute::CallFunction("trunc", {array}));
          whole = truncated.make_array();
        } else if (arrow::is_integer(type->id()) && array->type()->id() == arrow::Type::DECIMAL128) {
          const auto& d = static_cast<const arrow::Decimal128Type&>(*array->type());
          arrow::compute::CastOptions options = arrow::compute::CastOptions::Safe(arrow::decimal128(d.precision(), 0));
          options.allow_decimal_truncate = true;
          ARROW_ASSIGN_OR_RAISE(auto truncated, arrow::compute::Cast(arrow::Datum(array), options));
          whole = truncated.make_array();
        }
        return Checked(arrow::compute::Cast(*whole, type), *array->type(), *type, *path);
      }
    }
  }

 private:
  static std::string Join(const std::vector<std::string>& parts) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
    return out;
  }

  Status Incompatible(const std::string& kind, const std::string& detail) const {
    return Status::Invalid("[INCOMPATIBLE_DATA_FOR_TABLE.", kind, "] Cannot write incompatible data for the table ",
                           table_sql_, ": ", detail);
  }

  Status NullInRequired(const std::vector<std::string>& path) const {
    return Status::Invalid("Cannot write NULL to the required field ", SqlId(path), " of the table ", table_sql_, ".");
  }

  // A NULL among the elements (or values) the rows of `list` use.
  Status NoNullsIn(const arrow::ListArray& list, const arrow::Array& values, const std::vector<std::string>& path) const {
    for (int64_t r = 0; r < list.length(); ++r) {
      if (list.IsNull(r)) continue;
      for (int64_t i = list.value_offset(r); i < list.value_offset(r) + list.value_length(r); ++i) {
        if (values.IsNull(i)) return NullInRequired(path);
      }
    }
    return Status::OK();
  }

  // A value that does not fit fails the statement, naming where it was going.
  Result<std::shared_ptr<arrow::Array>> Checked(Result<arrow::Datum> cast, const arrow::DataType& from,
                                                const arrow::DataType& to, const std::vector<std::string>& path) const {
    if (cast.ok()) return cast->make_array();
    if (table_sql_.empty()) return cast.status();
    const std::string& why = cast.status().message();
    // Fractions were cut before, so a float still "truncated" was out of range (or NaN).
    bool overflow = why.find("not in range") != std::string::npos || why.find("out of bounds") != std::string::npos ||
                    why.find("does not fit") != std::string::npos || why.find("overflow") != std::string::npos ||
                    (arrow::is_integer(to.id()) && why.find("truncated") != std::string::npos);
    if (overflow && IsNumber(from) && IsNumber(to)) {
      return Status::Invalid("[CAST_OVERFLOW_IN_TABLE_INSERT] Fail to assign a value of ", TypeText(from),
                             " type to the ", TypeText(to), " type column or variable ", SqlId(path),
                             " due to an overflow. Use `try_cast` on the input value to tolerate overflow and return "
                             "NULL instead.");
    }
    return Status::Invalid("Cannot write ", TypeText(from), " to the ", TypeText(to), " column ", SqlId(path),
                           " of the table ", table_sql_, ": ", cast.status().message());
  }
  Result<std::shared_ptr<arrow::Array>> Checked(Result<std::shared_ptr<arrow::Array>> cast, const arrow::DataType& from,
                                                const arrow::DataType& to, const std::vector<std::string>& path) const {
    if (cast.ok()) return cast;
    return Checked(Result<arrow::Datum>(cast.status()), from, to, path);
  }

  std::string table_sql_;
};

}  // namespace

Result<std::shared_ptr<arrow::ChunkedArray>> ConformForInsert(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                              const arrow::Field& want,
                                                              const std::string& table_sql) {
  Conformer conformer(table_sql);
  std::vector<std::string> path{want.name()};
  ARROW_RETURN_NOT_OK(conformer.CheckType(*column->type(), *want.type(), &path));
  arrow::ArrayVector chunks;
  for (const auto& chunk : column->chunks()) {
    ARROW_ASSIGN_OR_RAISE(auto out, conformer.Conform(chunk, want, &path));
    chunks.push_back(arrow::MakeArray(WithoutHiddenNulls(out->data(), *want.type())));
  }
  return std::make_shared<arrow::ChunkedArray>(std::move(chunks), want.type());
}

Result<std::shared_ptr<arrow::Array>> CastByPosition(const std::shared_ptr<arrow::Array>& array,
                                                     const std::shared_ptr<arrow::DataType>& type) {
  Conformer conformer("");
  std::vector<std::string> path{"value"};
  return conformer.Conform(array, *arrow::field("value", type), &path);
}

}  // namespace floe::sql
