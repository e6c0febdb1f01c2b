#include "floe/table/arrow_conform.h"

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/compute/api.h>
#include <arrow/extension_type.h>
#include <arrow/type.h>

#include "floe/table/arrow_schema.h"

namespace floe::table {



namespace {

// The validity bitmap of `array` starting at bit 0, or null when it has no nulls.
Result<std::shared_ptr<arrow::Buffer>> ValidityOf(const arrow::Array& array) {
  if (array.null_count() == 0) return nullptr;
  if (array.offset() == 0) return array.null_bitmap();
  ARROW_ASSIGN_OR_RAISE(auto valid, arrow::compute::CallFunction("is_valid", {array.Slice(0)}));
  const auto& bits = static_cast<const arrow::BooleanArray&>(*valid.make_array());
  if (bits.offset() != 0) return Status::Invalid("unexpected offset of an is_valid result");
  return bits.values();
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> ConformArray(const std::shared_ptr<arrow::Array>& array,
                                                   const arrow::Field& expected) {
  const auto& want = expected.type();
  if (array->type()->Equals(*want, /*check_metadata=*/false)) return array;
  if (want->id() == arrow::Type::EXTENSION) {
    const auto& ext = static_cast<const arrow::ExtensionType&>(*want);
    std::shared_ptr<arrow::Array> storage = array;
    if (array->type()->id() == arrow::Type::EXTENSION) {
      storage = static_cast<const arrow::ExtensionArray&>(*array).storage();
    }
    ARROW_ASSIGN_OR_RAISE(storage, ConformArray(storage, *arrow::field("storage", ext.storage_type())));
    return arrow::ExtensionType::WrapArray(want, storage);
  }
  if (array->type()->id() == arrow::Type::EXTENSION) {
    return ConformArray(static_cast<const arrow::ExtensionArray&>(*array).storage(), expected);
  }
  switch (want->id()) {
    case arrow::Type::STRUCT: {
      if (array->type()->id() != arrow::Type::STRUCT) break;
      const auto& in = static_cast<const arrow::StructArray&>(*array);
      const auto& in_type = static_cast<const arrow::StructType&>(*in.type());
      arrow::ArrayVector children;
      for (const auto& child_field : want->fields()) {
        int32_t id = FieldIdOf(*child_field);
        int found = -1;
        for (int i = 0; i < in_type.num_fields(); ++i) {
          int32_t file_id = FieldIdOf(*in_type.field(i));
          bool match = (id >= 0 && file_id >= 0) ? file_id == id
                                                 : in_type.field(i)->name() == child_field->name();
          if (match) {
            found = i;
            break;
          }
        }
        if (found < 0) {
          ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(child_field->type(), in.length()));
          children.push_back(std::move(nulls));
        } else {
          // field(i) is already sliced to the parent's offset and length.
          ARROW_ASSIGN_OR_RAISE(auto child, ConformArray(in.field(found), *child_field));
          children.push_back(std::move(child));
        }
      }
      ARROW_ASSIGN_OR_RAISE(auto validity, ValidityOf(in));
      ARROW_ASSIGN_OR_RAISE(auto out, arrow::StructArray::Make(children, want->fields(), validity,
                                                               in.null_count()));
      return out;
    }
    case arrow::Type::LIST: {
      if (array->type()->id() != arrow::Type::LIST && array->type()->id() != arrow::Type::LARGE_LIST) break;
      const auto& value_field = *want->field(0);
      if (array->type()->id() == arrow::Type::LARGE_LIST) {
        ARROW_ASSIGN_OR_RAISE(auto as_list, arrow::compute::Cast(*array, arrow::list(array->type()->field(0))));
        return ConformArray(as_list, expected);
      }
      const auto& in = static_cast<const arrow::ListArray&>(*array);
      ARROW_ASSIGN_OR_RAISE(auto values, ConformArray(in.values(), value_field));
      return std::make_shared<arrow::ListArray>(want, in.length(), in.value_offsets(), values,
                                                in.null_bitmap(), in.null_count(), in.offset());
    }
    case arrow::Type::MAP: {
      if (array->type()->id() != arrow::Type::MAP) break;
      const auto& in = static_cast<const arrow::MapArray&>(*array);
      const auto& map_type = static_cast<const arrow::MapType&>(*want);
      ARROW_ASSIGN_OR_RAISE(auto keys, ConformArray(in.keys(), *map_type.key_field()));
      ARROW_ASSIGN_OR_RAISE(auto items, ConformArray(in.items(), *map_type.item_field()));
      return std::make_shared<arrow::MapArray>(want, in.length(), in.value_offsets(), keys, items,
                                               in.null_bitmap(), in.null_count(), in.offset());
    }
    default: {
      ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*array, want));
      return cast;
    }
  }
  return Status::TypeError("Cannot read column '", expected.name(), "' of type ",
                           array->type()->ToString(), " as ", want->ToString());
}

Result<std::shared_ptr<arrow::ChunkedArray>> ConformChunkedArray(
    const std::shared_ptr<arrow::ChunkedArray>& array, const arrow::Field& expected) {
  arrow::ArrayVector chunks;
  chunks.reserve(array->num_chunks());
  for (const auto& chunk : array->chunks()) {
    ARROW_ASSIGN_OR_RAISE(auto out, ConformArray(chunk, expected));
    chunks.push_back(std::move(out));
  }
  return std::make_shared<arrow::ChunkedArray>(std::move(chunks), expected.type());
}

}  // namespace floe::table
