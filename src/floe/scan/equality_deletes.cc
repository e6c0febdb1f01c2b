#include "floe/scan/equality_deletes.h"

#include <cmath>
#include <cstring>

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/table.h>

#include "floe/scan/parquet_file_reader.h"

namespace floe::scan {

namespace {

void AppendView(std::string_view bytes, std::string* key) {
  const auto n = static_cast<uint32_t>(bytes.size());
  key->append(reinterpret_cast<const char*>(&n), sizeof(n));
  key->append(bytes);
}

}  // namespace

Status AppendValueKey(const arrow::Array& array, int64_t row, std::string* key) {
  if (array.IsNull(row)) {
    key->push_back('\0');
    return Status::OK();
  }
  key->push_back('\1');
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      key->push_back(static_cast<const arrow::BooleanArray&>(array).Value(row) ? '\1' : '\0');
      return Status::OK();
    case arrow::Type::FLOAT: {
      float v = static_cast<const arrow::FloatArray&>(array).Value(row);
      if (std::isnan(v)) v = std::numeric_limits<float>::quiet_NaN();
      key->append(reinterpret_cast<const char*>(&v), sizeof(v));
      return Status::OK();
    }
    case arrow::Type::DOUBLE: {
      double v = static_cast<const arrow::DoubleArray&>(array).Value(row);
      if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
      key->append(reinterpret_cast<const char*>(&v), sizeof(v));
      return Status::OK();
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      AppendView(static_cast<const arrow::BinaryArray&>(array).GetView(row), key);
      return Status::OK();
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      AppendView(static_cast<const arrow::LargeBinaryArray&>(array).GetView(row), key);
      return Status::OK();
    default:
      break;
  }
  if (arrow::is_fixed_width(array.type_id())) {
    const int width = array.type()->byte_width();
    if (width > 0) {
      const uint8_t* values = array.data()->buffers[1]->data();
      key->append(reinterpret_cast<const char*>(values + (array.offset() + row) * width),
                  static_cast<size_t>(width));
      return Status::OK();
    }
  }
  return Status::NotImplemented("Equality deletes on ", array.type()->ToString(), " columns");
}

Result<std::shared_ptr<const EqualityDeleteSet>> EqualityDeleteIndex::Load(
    const EqualityDeleteRef& file) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = loaded_.find(file.path);
    if (it != loaded_.end()) return it->second;
  }
  std::vector<spec::NestedField> fields;
  for (int32_t id : file.field_ids) {
    const spec::NestedField* field = nullptr;
    for (const auto& top : schema_->fields()) {
      if (top.id == id) field = &top;
    }
    if (!field || !field->type->is_primitive()) {
      return Status::NotImplemented("Equality delete file ", file.path, " compares field id ", id,
                                    ", which is not a top-level column of primitive type");
    }
    spec::NestedField optional = *field;
    optional.required = false;  // a delete row may hold null
    fields.push_back(std::move(optional));
  }
  const spec::Schema projection(0, fields);
  ARROW_ASSIGN_OR_RAISE(auto rows, ReadParquetFile(*io_, file.path, projection));
  ARROW_ASSIGN_OR_RAISE(rows, rows->CombineChunks());
  auto set = std::make_shared<EqualityDeleteSet>();
  set->field_ids = file.field_ids;
  std::string key;
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    key.clear();
    for (int c = 0; c < rows->num_columns(); ++c) {
      auto st = AppendValueKey(*rows->column(c)->chunk(0), r, &key);
      if (!st.ok())
        return Status(st.code(), "Equality delete file " + file.path + ": " + st.message());
    }
    set->keys.insert(key);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return loaded_.emplace(file.path, std::move(set)).first->second;
}

}  // namespace floe::scan
