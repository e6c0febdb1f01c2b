#include "floe/table/partitioner.h"

#include <unordered_map>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/table.h>

#include "floe/table/arrow_conform.h"
#include "floe/table/arrow_literal.h"
#include "floe/table/arrow_schema.h"

namespace floe::table {

namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A byte key that identifies a partition tuple.
void AppendKey(const spec::Literal& value, std::string* key) {
  if (value.is_null()) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  std::string bytes = spec::ToSingleValueBinary(value);
  uint32_t n = static_cast<uint32_t>(bytes.size());
  key->append(reinterpret_cast<const char*>(&n), sizeof(n));
  key->append(bytes);
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ConformToSchema(const arrow::Table& data,
                                                      const spec::Schema& schema) {
  ARROW_ASSIGN_OR_RAISE(auto target, ToArrowSchema(schema));
  arrow::ChunkedArrayVector columns;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const auto& field = schema.fields()[i];
    const auto& arrow_field = target->field(static_cast<int>(i));
    int found = -1;
    for (int c = 0; c < data.num_columns(); ++c) {
      if (Lower(data.schema()->field(c)->name()) == Lower(field.name)) {
        found = c;
        break;
      }
    }
    if (found < 0) {
      if (field.required) {
        return ValidationError("Cannot write incompatible data: missing required column '",
                               field.name, "'");
      }
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(arrow_field->type(), data.num_rows()));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
      continue;
    }
    auto conformed = ConformChunkedArray(data.column(found), *arrow_field);
    if (!conformed.ok()) {
      return ValidationError("Cannot write incompatible data to column '", field.name,
                             "' (", field.type->ToString(), "): ", conformed.status().message());
    }
    if (field.required && (*conformed)->null_count() > 0) {
      return ValidationError("Cannot write null values to required column '", field.name, "'");
    }
    columns.push_back(std::move(conformed).ValueUnsafe());
  }
  for (int c = 0; c < data.num_columns(); ++c) {
    if (!schema.FindFieldByNameCaseInsensitive(data.schema()->field(c)->name())) {
      return ValidationError("Cannot write incompatible data: column '",
                             data.schema()->field(c)->name(), "' is not in the table schema");
    }
  }
  return arrow::Table::Make(target, std::move(columns), data.num_rows());
}

namespace {

// The values of field `id` when `field` is it or a struct holding it at any depth, a null
// struct making its fields null; nullptr when neither.
Result<std::shared_ptr<arrow::Array>> SourceArray(const arrow::Field& field, const std::shared_ptr<arrow::Array>& array,
                                                  int32_t id) {
  if (FieldIdOf(field) == id) return array;
  if (field.type()->id() != arrow::Type::STRUCT) return nullptr;
  const auto& st = static_cast<const arrow::StructArray&>(*array);
  for (int k = 0; k < field.type()->num_fields(); ++k) {
    ARROW_ASSIGN_OR_RAISE(auto child, st.GetFlattenedField(k));
    ARROW_ASSIGN_OR_RAISE(auto found, SourceArray(*field.type()->field(k), child, id));
    if (found) return found;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<PartitionSlice>> SplitByPartition(const std::shared_ptr<arrow::Table>& data,
                                                     const spec::Schema& schema,
                                                     const spec::PartitionSpec& spec) {
  if (spec.fields().empty()) return std::vector<PartitionSlice>{{{}, data}};
  ARROW_ASSIGN_OR_RAISE(auto combined, data->CombineChunks());
  struct Source {
    std::shared_ptr<arrow::Array> array;
    spec::TypePtr type;
  };
  std::vector<Source> sources;
  for (const auto& pf : spec.fields()) {
    std::shared_ptr<arrow::Array> array;
    for (int c = 0; c < combined->num_columns() && !array; ++c) {
      ARROW_ASSIGN_OR_RAISE(array, SourceArray(*combined->schema()->field(c), combined->column(c)->chunk(0),
                                               pf.source_id));
    }
    const spec::NestedField* field = schema.FindFieldById(pf.source_id);
    if (!array || !field) {
      return Status::NotImplemented("Partitioning by unknown source field ", pf.source_id, " (", pf.name,
                                    ") is not supported");
    }
    sources.push_back({std::move(array), field->type});
  }
  std::unordered_map<std::string, size_t> slice_of;
  std::vector<PartitionSlice> slices;
  std::vector<arrow::Int64Builder> indices;
  const int64_t n = combined->num_rows();
  std::string key;
  std::vector<spec::Literal> tuple(spec.fields().size());
  for (int64_t row = 0; row < n; ++row) {
    key.clear();
    for (size_t f = 0; f < sources.size(); ++f) {
      ARROW_ASSIGN_OR_RAISE(auto value, LiteralFromArray(*sources[f].array, row, sources[f].type));
      ARROW_ASSIGN_OR_RAISE(tuple[f], spec.fields()[f].transform.Apply(value));
      AppendKey(tuple[f], &key);
    }
    auto [it, inserted] = slice_of.try_emplace(key, slices.size());
    if (inserted) {
      slices.push_back({tuple, nullptr});
      indices.emplace_back();
    }
    ARROW_RETURN_NOT_OK(indices[it->second].Append(row));
  }
  for (size_t i = 0; i < slices.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto idx, indices[i].Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(combined, idx));
    slices[i].rows = taken.table();
  }
  return slices;
}

}  // namespace floe::table
