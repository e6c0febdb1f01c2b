#include "floe/spec/schema.h"

#include <algorithm>
#include <cctype>

#include "floe/util/ascii.h"

namespace floe::spec {

namespace {

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// Walks a type the way Java's IndexByName does: full names always, plus "short" names that
// skip the `element`/`value` level when a list element or map value is a struct, kept only
// where they do not collide with a full name.
struct Indexer {
  std::unordered_map<int32_t, const NestedField*>* by_id;
  std::unordered_map<std::string, int32_t>* full;
  std::unordered_map<int32_t, std::string>* id_to_name;
  std::vector<std::pair<std::string, int32_t>> short_names;
  int32_t highest = 0;

  void Add(const NestedField& field, const std::string& full_name, const std::string& short_name) {
    (*by_id)[field.id] = &field;
    full->emplace(full_name, field.id);
    id_to_name->emplace(field.id, full_name);
    if (short_name != full_name) short_names.emplace_back(short_name, field.id);
    highest = std::max(highest, field.id);
    if (field.type) Visit(*field.type, full_name, short_name);
  }

  void Visit(const Type& type, const std::string& full_prefix, const std::string& short_prefix) {
    switch (type.id()) {
      case TypeId::kStruct:
        for (const auto& f : type.fields()) {
          Add(f, Join(full_prefix, f.name), Join(short_prefix, f.name));
        }
        break;
      case TypeId::kList: {
        const NestedField& e = type.element();
        bool skip = e.type && e.type->id() == TypeId::kStruct;
        Add(e, Join(full_prefix, "element"), skip ? short_prefix : Join(short_prefix, "element"));
        break;
      }
      case TypeId::kMap: {
        const NestedField& k = type.key();
        const NestedField& v = type.value();
        Add(k, Join(full_prefix, "key"), Join(short_prefix, "key"));
        bool skip = v.type && v.type->id() == TypeId::kStruct;
        Add(v, Join(full_prefix, "value"), skip ? short_prefix : Join(short_prefix, "value"));
        break;
      }
      default:
        break;
    }
  }
};

}  // namespace

Schema::Schema(int32_t schema_id, std::vector<NestedField> fields,
               std::vector<int32_t> identifier_field_ids)
    : schema_id_(schema_id),
      struct_(Type::Struct(std::move(fields))),
      identifier_field_ids_(std::move(identifier_field_ids)) {
  Indexer indexer{&by_id_, &name_to_id_, &id_to_name_, {}, 0};
  indexer.Visit(*struct_, "", "");
  for (auto& [name, id] : indexer.short_names) {
    // A short name that is already somebody's full name keeps the full name's meaning.
    name_to_id_.emplace(name, id);
  }
  highest_field_id_ = indexer.highest;
  for (const auto& [name, id] : name_to_id_) {
    auto [it, inserted] = lower_name_to_id_.emplace(AsciiLower(name), id);
    // Prefer the field whose full name lower-cases to the key, then the lowest id, so the
    // choice does not depend on hash order.
    if (!inserted && it->second != id) {
      bool existing_full = AsciiLower(FindColumnName(it->second)) == it->first;
      bool candidate_full = AsciiLower(FindColumnName(id)) == it->first;
      if ((candidate_full && !existing_full) ||
          (candidate_full == existing_full && id < it->second)) {
        it->second = id;
      }
    }
  }
}

const NestedField* Schema::FindFieldById(int32_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

const NestedField* Schema::FindFieldByName(std::string_view full_name) const {
  auto it = name_to_id_.find(std::string(full_name));
  return it == name_to_id_.end() ? nullptr : FindFieldById(it->second);
}

const NestedField* Schema::FindFieldByNameCaseInsensitive(std::string_view full_name) const {
  auto it = lower_name_to_id_.find(AsciiLower(full_name));
  return it == lower_name_to_id_.end() ? nullptr : FindFieldById(it->second);
}

std::string Schema::FindColumnName(int32_t id) const {
  auto it = id_to_name_.find(id);
  return it == id_to_name_.end() ? std::string() : it->second;
}

bool Schema::SameStructure(const Schema& other) const {
  return struct_->Equals(*other.struct_) && identifier_field_ids_ == other.identifier_field_ids_;
}

bool Schema::Equals(const Schema& other) const {
  return schema_id_ == other.schema_id_ && SameStructure(other);
}

SchemaPtr WithRowLineage(const Schema& schema) {
  std::vector<NestedField> fields = schema.fields();
  fields.push_back(Optional(kRowIdFieldId, kRowIdName, Type::Long()));
  fields.push_back(
      Optional(kLastUpdatedSequenceNumberFieldId, kLastUpdatedSequenceNumberName, Type::Long()));
  return std::make_shared<const Schema>(schema.schema_id(), std::move(fields),
                                        schema.identifier_field_ids());
}

}  // namespace floe::spec
