#include "floe/spec/table_partition_type.h"

#include <algorithm>
#include <map>

namespace floe::spec {

namespace {

// The source column's type: in the current schema, else in the newest earlier schema that
// still had it (a column dropped after an earlier spec used it).
TypePtr SourceType(const TableMetadata& md, int32_t source_id) {
  if (auto schema = md.current_schema()) {
    if (const NestedField* f = schema->FindFieldById(source_id)) return f->type;
  }
  for (auto it = md.schemas.rbegin(); it != md.schemas.rend(); ++it) {
    if (const NestedField* f = (*it)->FindFieldById(source_id)) return f->type;
  }
  return nullptr;
}

}  // namespace

Result<TypePtr> TablePartitionType(const TableMetadata& md) {
  struct Slot {
    std::string name;
    TypePtr type;
    bool is_void = false;
  };
  std::map<int32_t, Slot> slots;
  std::vector<const PartitionSpec*> specs;
  for (const auto& s : md.partition_specs) specs.push_back(&s);
  std::sort(specs.begin(), specs.end(), [](auto* a, auto* b) { return a->spec_id() > b->spec_id(); });
  for (const PartitionSpec* spec : specs) {
    for (const auto& f : spec->fields()) {
      TypePtr source = SourceType(md, f.source_id);
      TypePtr type = Type::Int();
      if (source) {
        ARROW_ASSIGN_OR_RAISE(type, f.transform.ResultType(source));
      }
      const bool is_void = f.transform.kind() == TransformKind::kVoid;
      auto [it, inserted] = slots.try_emplace(f.field_id, Slot{f.name, type, is_void});
      // A v1 field dropped to void takes its type from the spec that still transforms it.
      if (!inserted && it->second.is_void && !is_void) {
        it->second.type = type;
        it->second.is_void = false;
      }
    }
  }
  std::vector<NestedField> fields;
  for (auto& [id, slot] : slots) fields.push_back(Optional(id, slot.name, slot.type));
  return Type::Struct(std::move(fields));
}

std::vector<Literal> CoercePartition(const Type& table_type, const TableMetadata& md, int32_t spec_id,
                                     const std::vector<Literal>& partition) {
  std::vector<Literal> out;
  const PartitionSpec* spec = md.SpecById(spec_id);
  for (const auto& field : table_type.fields()) {
    Literal value = Literal::Null(field.type);
    if (spec) {
      const auto& fields = spec->fields();
      for (size_t i = 0; i < fields.size() && i < partition.size(); ++i) {
        if (fields[i].field_id == field.id && fields[i].transform.kind() != TransformKind::kVoid) {
          value = partition[i];
        }
      }
    }
    out.push_back(std::move(value));
  }
  return out;
}

}  // namespace floe::spec
