#include "floe/manifest/avro_schemas.h"

#include <cctype>
#include <cstdio>

#include <arrow/util/decimal.h>

#include "floe/util/str_cat.h"

namespace floe::manifest {

using spec::Literal;
using spec::TypeId;

namespace {

// Bytes needed to store a decimal of `precision` digits as two's complement (Java's
// TypeUtil.decimalRequiredBytes).
int32_t DecimalRequiredBytes(int32_t precision) {
  for (int32_t bytes = 1; bytes <= 16; ++bytes) {
    // Largest magnitude in `bytes` bytes is 2^(8*bytes-1) - 1; compare digit counts.
    double max_digits = (8.0 * bytes - 1) * 0.30102999566398120;  // log10(2)
    if (static_cast<double>(precision) <= max_digits) return bytes;
  }
  return 16;
}

std::string OptionalMap(const char* name, int field_id, int key_id, int value_id,
                        const char* value_type, const char* doc) {
  return StrCat(R"({"name":")", name, R"(","type":["null",{"type":"array","items":{"type":"record","name":"k)",
                key_id, "_v", value_id, R"(","fields":[{"name":"key","type":"int","field-id":)", key_id,
                R"(},{"name":"value","type":")", value_type, R"(","field-id":)", value_id,
                R"(}]},"logicalType":"map"}],"doc":")", doc, R"(","default":null,"field-id":)", field_id,
                "}");
}

}  // namespace

std::string AvroCompatibleName(const std::string& name) {
  auto valid_first = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto valid_rest = [&](char c) { return valid_first(c) || std::isdigit(static_cast<unsigned char>(c)); };
  bool valid = !name.empty() && valid_first(name[0]);
  for (size_t i = 1; valid && i < name.size(); ++i) valid = valid_rest(name[i]);
  if (valid) return name;
  // As Java's AvroSchemaUtil does: a bad first character becomes "_" (a digit stays after
  // it), any other bad character "_x" and its hex code; readers match by field id anyway.
  auto hex = [](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%X", c);
    return std::string(buf);
  };
  std::string out;
  if (name.empty()) return "_";
  unsigned char first = static_cast<unsigned char>(name[0]);
  if (valid_first(name[0])) {
    out += name[0];
  } else if (std::isdigit(first)) {
    out += "_";
    out += name[0];
  } else {
    out += "_x" + hex(first);
  }
  for (size_t i = 1; i < name.size(); ++i) {
    if (valid_rest(name[i])) {
      out += name[i];
    } else {
      out += "_x" + hex(static_cast<unsigned char>(name[i]));
    }
  }
  return out;
}

Result<std::string> AvroTypeJson(const spec::Type& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::string(R"("boolean")");
    case TypeId::kInt:
      return std::string(R"("int")");
    case TypeId::kLong:
      return std::string(R"("long")");
    case TypeId::kFloat:
      return std::string(R"("float")");
    case TypeId::kDouble:
      return std::string(R"("double")");
    case TypeId::kDate:
      return std::string(R"({"type":"int","logicalType":"date"})");
    case TypeId::kTime:
      return std::string(R"({"type":"long","logicalType":"time-micros"})");
    case TypeId::kTimestamp:
      return std::string(R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":false})");
    case TypeId::kTimestampTz:
      return std::string(R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true})");
    case TypeId::kString:
      return std::string(R"("string")");
    case TypeId::kBinary:
      return std::string(R"("bytes")");
    case TypeId::kUuid:
      return std::string(R"({"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"})");
    case TypeId::kFixed:
      return StrCat(R"({"type":"fixed","name":"fixed_)", type.length(), R"(","size":)", type.length(), "}");
    case TypeId::kDecimal:
      return StrCat(R"({"type":"fixed","name":"decimal_)", type.precision(), "_", type.scale(),
                    R"(","size":)", DecimalRequiredBytes(type.precision()),
                    R"(,"logicalType":"decimal","precision":)", type.precision(), R"(,"scale":)",
                    type.scale(), "}");
    default:
      return Status::NotImplemented("No Avro form for partition type ", type.ToString());
  }
}

Result<std::shared_ptr<const avro::Schema>> ManifestEntrySchema(const spec::Type& partition_type,
                                                                int32_t format_version) {
  std::string partition_fields;
  for (const auto& f : partition_type.fields()) {
    ARROW_ASSIGN_OR_RAISE(std::string t, AvroTypeJson(*f.type));
    if (!partition_fields.empty()) partition_fields += ",";
    partition_fields += StrCat(R"({"name":")", AvroCompatibleName(f.name), R"(","type":["null",)", t,
                               R"(],"default":null,"field-id":)", f.id, "}");
  }
  std::string json = StrCat(
      R"({"type":"record","name":"manifest_entry","fields":[)",
      R"({"name":"status","type":"int","field-id":0},)",
      R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)",
      R"({"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},)",
      R"({"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},)",
      R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)",
      R"({"name":"content","type":"int","doc":"Contents of the file: 0=data, 1=position deletes, 2=equality deletes","field-id":134},)",
      R"({"name":"file_path","type":"string","doc":"Location URI with FS scheme","field-id":100},)",
      R"({"name":"file_format","type":"string","doc":"File format name: avro, orc, or parquet","field-id":101},)",
      R"({"name":"partition","type":{"type":"record","name":"r102","fields":[)", partition_fields,
      R"(]},"doc":"Partition data tuple, schema based on the partition spec","field-id":102},)",
      R"({"name":"record_count","type":"long","doc":"Number of records in the file","field-id":103},)",
      R"({"name":"file_size_in_bytes","type":"long","doc":"Total file size in bytes","field-id":104},)",
      OptionalMap("column_sizes", 108, 117, 118, "long", "Map of column id to total size on disk"), ",",
      OptionalMap("value_counts", 109, 119, 120, "long", "Map of column id to total count, including null and NaN"), ",",
      OptionalMap("null_value_counts", 110, 121, 122, "long", "Map of column id to null value count"), ",",
      OptionalMap("nan_value_counts", 137, 138, 139, "long", "Map of column id to number of NaN values in the column"), ",",
      OptionalMap("lower_bounds", 125, 126, 127, "bytes", "Map of column id to lower bound"), ",",
      OptionalMap("upper_bounds", 128, 129, 130, "bytes", "Map of column id to upper bound"), ",",
      R"({"name":"key_metadata","type":["null","bytes"],"doc":"Encryption key metadata blob","default":null,"field-id":131},)",
      R"({"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"doc":"Splittable offsets","default":null,"field-id":132},)",
      R"({"name":"equality_ids","type":["null",{"type":"array","items":"int","element-id":136}],"doc":"Equality comparison field IDs","default":null,"field-id":135},)",
      R"({"name":"sort_order_id","type":["null","int"],"doc":"Sort order ID","default":null,"field-id":140})",
      format_version >= 3 ?
      R"(,{"name":"first_row_id","type":["null","long"],"doc":"Starting row ID to assign to new rows","default":null,"field-id":142},)"
      R"({"name":"referenced_data_file","type":["null","string"],"doc":"Fully qualified location (URI with FS scheme) of a data file that all deletes reference","default":null,"field-id":143},)"
      R"({"name":"content_offset","type":["null","long"],"doc":"The offset in the file where the content starts","default":null,"field-id":144},)"
      R"({"name":"content_size_in_bytes","type":["null","long"],"doc":"The length of referenced content stored in the file","default":null,"field-id":145})" : "",
      R"(]},"field-id":2}]})");
  return avro::Schema::Parse(json);
}

Result<std::shared_ptr<const avro::Schema>> ManifestListSchema(int32_t format_version) {
  static const char kV2Fields[] =
      R"({"type":"record","name":"manifest_file","fields":[)"
      R"({"name":"manifest_path","type":"string","doc":"Location URI with FS scheme","field-id":500},)"
      R"({"name":"manifest_length","type":"long","doc":"Total file size in bytes","field-id":501},)"
      R"({"name":"partition_spec_id","type":"int","doc":"Spec ID used to write","field-id":502},)"
      R"({"name":"content","type":"int","doc":"Contents of the manifest: 0=data, 1=deletes","field-id":517},)"
      R"({"name":"sequence_number","type":"long","doc":"Sequence number when the manifest was added","field-id":515},)"
      R"({"name":"min_sequence_number","type":"long","doc":"Lowest sequence number in the manifest","field-id":516},)"
      R"({"name":"added_snapshot_id","type":"long","doc":"Snapshot ID that added the manifest","field-id":503},)"
      R"({"name":"added_files_count","type":"int","doc":"Added entry count","field-id":504},)"
      R"({"name":"existing_files_count","type":"int","doc":"Existing entry count","field-id":505},)"
      R"({"name":"deleted_files_count","type":"int","doc":"Deleted entry count","field-id":506},)"
      R"({"name":"added_rows_count","type":"long","doc":"Added rows count","field-id":512},)"
      R"({"name":"existing_rows_count","type":"long","doc":"Existing rows count","field-id":513},)"
      R"({"name":"deleted_rows_count","type":"long","doc":"Deleted rows count","field-id":514},)"
      R"({"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[)"
      R"({"name":"contains_null","type":"boolean","doc":"True if any file has a null partition value","field-id":509},)"
      R"({"name":"contains_nan","type":["null","boolean"],"doc":"True if any file has a nan partition value","default":null,"field-id":518},)"
      R"({"name":"lower_bound","type":["null","bytes"],"doc":"Partition lower bound for all files","default":null,"field-id":510},)"
      R"({"name":"upper_bound","type":["null","bytes"],"doc":"Partition upper bound for all files","default":null,"field-id":511})"
      R"(]},"element-id":508}],"doc":"Summary for each partition","default":null,"field-id":507},)"
      R"({"name":"key_metadata","type":["null","bytes"],"doc":"Encryption key metadata blob","default":null,"field-id":519})";
  static const Result<std::shared_ptr<const avro::Schema>> v2 = avro::Schema::Parse(std::string(kV2Fields) + "]}");
  static const Result<std::shared_ptr<const avro::Schema>> v3 = avro::Schema::Parse(
      std::string(kV2Fields) +
      R"(,{"name":"first_row_id","type":["null","long"],"doc":"Starting row ID to assign to new rows in ADDED data files","default":null,"field-id":520}]})");
  return format_version >= 3 ? v3 : v2;
}

avro::Value LiteralToAvro(const Literal& value) {
  if (value.is_null()) return avro::Value::Union(0, avro::Value::Null());
  avro::Value v;
  switch (value.type()->id()) {
    case TypeId::kBoolean:
      v = avro::Value::Bool(value.get<bool>());
      break;
    case TypeId::kInt:
    case TypeId::kDate:
      v = avro::Value::Int(value.get<int32_t>());
      break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      v = avro::Value::Long(value.get<int64_t>());
      break;
    case TypeId::kFloat:
      v = avro::Value::Float(value.get<float>());
      break;
    case TypeId::kDouble:
      v = avro::Value::Double(value.get<double>());
      break;
    case TypeId::kString:
      v = avro::Value::String(value.get<std::string>());
      break;
    case TypeId::kBinary:
      v = avro::Value::Bytes(value.get<std::string>());
      break;
    case TypeId::kUuid:
    case TypeId::kFixed:
      v = avro::Value::Fixed(value.get<std::string>());
      break;
    case TypeId::kDecimal: {
      // Fixed of the required size, sign-extended big-endian two's complement.
      int32_t size = DecimalRequiredBytes(value.type()->precision());
      auto bytes = value.get<arrow::Decimal128>().ToBytes();  // little-endian, 16 bytes
      std::string out(static_cast<size_t>(size), '\0');
      for (int32_t i = 0; i < size; ++i) out[size - 1 - i] = static_cast<char>(bytes[i]);
      v = avro::Value::Fixed(std::move(out));
      break;
    }
    default:
      return avro::Value::Union(0, avro::Value::Null());
  }
  return avro::Value::Union(1, std::move(v));
}

namespace {
// String, bytes and fixed all carry raw bytes.
Result<std::string_view> RawBytes(const avro::Value& v) {
  switch (v.kind()) {
    case avro::Value::Kind::kString:
    case avro::Value::Kind::kBytes:
    case avro::Value::Kind::kFixed:
      return v.AsString();
    default:
      return Status::Invalid("expected string, bytes or fixed, got ", v.ToString());
  }
}
}  // namespace

Result<Literal> LiteralFromAvro(const avro::Value& in, const spec::TypePtr& type) {
  const avro::Value& v = in.Unwrapped();
  if (v.IsNull()) return Literal::Null(type);
  switch (type->id()) {
    case TypeId::kBoolean: {
      ARROW_ASSIGN_OR_RAISE(bool b, v.GetBool());
      return Literal(type, b);
    }
    case TypeId::kInt:
    case TypeId::kDate: {
      ARROW_ASSIGN_OR_RAISE(int32_t i, v.GetInt32());
      return Literal(type, i);
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      ARROW_ASSIGN_OR_RAISE(int64_t l, v.GetInt64());
      return Literal(type, l);
    }
    case TypeId::kFloat:
      if (v.kind() != avro::Value::Kind::kFloat) break;
      return Literal(type, v.AsFloat());
    case TypeId::kDouble: {
      ARROW_ASSIGN_OR_RAISE(double d, v.GetDouble());
      return Literal(type, d);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, RawBytes(v));
      return Literal(type, std::string(s));
    }
    case TypeId::kUuid: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, RawBytes(v));
      if (s.size() == 16) return Literal(type, std::string(s));
      // Some writers store a uuid partition value as its 36-character text.
      if (s.size() == 36) {
        std::string bytes;
        for (size_t i = 0; i < s.size(); ++i) {
          if (s[i] == '-') continue;
          if (i + 1 >= s.size()) break;
          bytes.push_back(static_cast<char>(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
          ++i;
        }
        if (bytes.size() == 16) return Literal(type, bytes);
      }
      break;
    }
    case TypeId::kDecimal: {
      ARROW_ASSIGN_OR_RAISE(std::string_view s, RawBytes(v));
      if (s.empty() || s.size() > 16) break;
      ARROW_ASSIGN_OR_RAISE(auto dec, arrow::Decimal128::FromBigEndian(
                                          reinterpret_cast<const uint8_t*>(s.data()),
                                          static_cast<int32_t>(s.size())));
      return Literal(type, dec);
    }
    default:
      break;
  }
  return Status::Invalid("Cannot read Avro value ", v.ToString(), " as ", type->ToString());
}

}  // namespace floe::manifest
