#include "floe/table/arrow_schema.h"

#include <string>

#include <arrow/extension/uuid.h>
#include <arrow/type.h>
#include <arrow/util/key_value_metadata.h>

#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::table {

using spec::NestedField;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const Type& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return arrow::boolean();
    case TypeId::kInt:
      return arrow::int32();
    case TypeId::kLong:
      return arrow::int64();
    case TypeId::kFloat:
      return arrow::float32();
    case TypeId::kDouble:
      return arrow::float64();
    case TypeId::kDecimal:
      return arrow::decimal128(type.precision(), type.scale());
    case TypeId::kDate:
      return arrow::date32();
    case TypeId::kTime:
      return arrow::time64(arrow::TimeUnit::MICRO);
    case TypeId::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO);
    case TypeId::kTimestampTz:
      return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case TypeId::kString:
      return arrow::utf8();
    case TypeId::kUuid:
      return arrow::extension::uuid();
    case TypeId::kFixed:
      return arrow::fixed_size_binary(type.length());
    case TypeId::kBinary:
      return arrow::binary();
    case TypeId::kUnsupported:
      break;
    case TypeId::kStruct: {
      arrow::FieldVector children;
      for (const auto& f : type.fields()) {
        ARROW_ASSIGN_OR_RAISE(auto child, ToArrowField(f));
        children.push_back(std::move(child));
      }
      return arrow::struct_(std::move(children));
    }
    case TypeId::kList: {
      ARROW_ASSIGN_OR_RAISE(auto element, ToArrowField(type.element()));
      return arrow::list(element->WithName("element"));
    }
    case TypeId::kMap: {
      ARROW_ASSIGN_OR_RAISE(auto key, ToArrowField(type.key()));
      ARROW_ASSIGN_OR_RAISE(auto value, ToArrowField(type.value()));
      return std::make_shared<arrow::MapType>(key->WithName("key")->WithNullable(false),
                                              value->WithName("value"));
    }
  }
  return Status::NotImplemented("Cannot convert Iceberg type to Arrow: ", type.ToString());
}

Result<std::shared_ptr<arrow::Field>> ToArrowField(const NestedField& field) {
  if (field.type && field.type->id() == TypeId::kUnsupported) {
    return Status::NotImplemented("Cannot read column '", field.name, "' of type ", field.type->ToString(),
                                  ": floe does not support this format-version 3 type yet; select the other columns");
  }
  ARROW_ASSIGN_OR_RAISE(auto type, ToArrowType(*field.type));
  auto metadata = arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(field.id)});
  return arrow::field(field.name, std::move(type), !field.required, std::move(metadata));
}

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const spec::Schema& schema) {
  arrow::FieldVector fields;
  fields.reserve(schema.fields().size());
  for (const auto& f : schema.fields()) {
    ARROW_ASSIGN_OR_RAISE(auto field, ToArrowField(f));
    fields.push_back(std::move(field));
  }
  return arrow::schema(std::move(fields));
}

int32_t FieldIdOf(const arrow::Field& field) {
  const auto& md = field.metadata();
  if (!md) return -1;
  int index = md->FindKey(kParquetFieldIdKey);
  if (index < 0) return -1;
  return ParseInt32(md->value(index)).value_or(-1);
}

namespace {

class IdAssigner {
 public:
  // Iceberg assigns ids breadth-first per struct: a struct's own fields first, then the
  // children of each nested field.
  Result<std::vector<NestedField>> Fields(const arrow::FieldVector& fields) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < fields.size(); ++i) ids.push_back(++next_);
    std::vector<NestedField> out;
    for (size_t i = 0; i < fields.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(TypePtr type, Convert(*fields[i]->type()));
      NestedField f;
      f.id = ids[i];
      f.name = fields[i]->name();
      f.type = std::move(type);
      f.required = !fields[i]->nullable();
      out.push_back(std::move(f));
    }
    return out;
  }

  Result<TypePtr> Convert(const arrow::DataType& type) {
    switch (type.id()) {
      case arrow::Type::BOOL:
        return Type::Boolean();
      case arrow::Type::INT8:
      case arrow::Type::INT16:
      case arrow::Type::INT32:
      case arrow::Type::UINT8:
      case arrow::Type::UINT16:
        return Type::Int();
      case arrow::Type::INT64:
      case arrow::Type::UINT32:
        return Type::Long();
      case arrow::Type::HALF_FLOAT:
      case arrow::Type::FLOAT:
        return Type::Float();
      case arrow::Type::DOUBLE:
        return Type::Double();
      case arrow::Type::DECIMAL128: {
        const auto& d = static_cast<const arrow::Decimal128Type&>(type);
        return Type::Decimal(d.precision(), d.scale());
      }
      case arrow::Type::DATE32:
      case arrow::Type::DATE64:
        return Type::Date();
      case arrow::Type::TIME32:
      case arrow::Type::TIME64:
        return Type::Time();
      case arrow::Type::TIMESTAMP: {
        const auto& t = static_cast<const arrow::TimestampType&>(type);
        return t.timezone().empty() ? Type::Timestamp() : Type::TimestampTz();
      }
      case arrow::Type::STRING:
      case arrow::Type::LARGE_STRING:
      case arrow::Type::STRING_VIEW:
        return Type::String();
      case arrow::Type::BINARY:
      case arrow::Type::LARGE_BINARY:
      case arrow::Type::BINARY_VIEW:
        return Type::Binary();
      case arrow::Type::FIXED_SIZE_BINARY:
        return Type::Fixed(static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width());
      case arrow::Type::EXTENSION: {
        const auto& ext = static_cast<const arrow::ExtensionType&>(type);
        if (ext.extension_name() == "arrow.uuid") return Type::Uuid();
        return Convert(*ext.storage_type());
      }
      case arrow::Type::STRUCT: {
        ARROW_ASSIGN_OR_RAISE(auto fields, Fields(type.fields()));
        return Type::Struct(std::move(fields));
      }
      case arrow::Type::LIST:
      case arrow::Type::LARGE_LIST: {
        const auto& value_field = type.field(0);
        int32_t element_id = ++next_;
        ARROW_ASSIGN_OR_RAISE(auto element, Convert(*value_field->type()));
        return Type::List(element_id, std::move(element), !value_field->nullable());
      }
      case arrow::Type::MAP: {
        const auto& map = static_cast<const arrow::MapType&>(type);
        int32_t key_id = ++next_;
        int32_t value_id = ++next_;
        ARROW_ASSIGN_OR_RAISE(auto key, Convert(*map.key_type()));
        ARROW_ASSIGN_OR_RAISE(auto value, Convert(*map.item_type()));
        return Type::Map(key_id, std::move(key), value_id, std::move(value),
                         !map.item_field()->nullable());
      }
      default:
        return ValidationError("Unsupported Arrow type for an Iceberg column: ", type.ToString());
    }
  }

 private:
  int32_t next_ = 0;
};

}  // namespace

Result<spec::SchemaPtr> SchemaFromArrow(const arrow::Schema& schema, int32_t schema_id) {
  IdAssigner assigner;
  ARROW_ASSIGN_OR_RAISE(auto fields, assigner.Fields(schema.fields()));
  return std::make_shared<const spec::Schema>(schema_id, std::move(fields));
}

}  // namespace floe::table
