#include "floe/table/update_partition_spec.h"

#include <map>
#include <set>
#include <utility>

#include "floe/table/commit.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/str_cat.h"

namespace floe::table {

namespace {

using spec::PartitionField;
using spec::TransformKind;

// Java's Type.toString, which Iceberg's binding errors print.
std::string JavaTypeString(const spec::Type& type);

std::string JavaFieldString(const spec::NestedField& f) {
  std::string out = StrCat(f.id, ": ", f.name, ": ", f.required ? "required " : "optional ", JavaTypeString(*f.type));
  if (!f.doc.empty()) out += " (" + f.doc + ")";
  return out;
}

std::string JavaTypeString(const spec::Type& type) {
  switch (type.id()) {
    case spec::TypeId::kDecimal:
      return StrCat("decimal(", type.precision(), ", ", type.scale(), ")");
    case spec::TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < type.fields().size(); ++i) out += (i ? ", " : "") + JavaFieldString(type.fields()[i]);
      return out + ">";
    }
    case spec::TypeId::kList:
      return "list<" + JavaTypeString(*type.element().type) + ">";
    case spec::TypeId::kMap:
      return "map<" + JavaTypeString(*type.key().type) + ", " + JavaTypeString(*type.value().type) + ">";
    default:
      return type.ToString();
  }
}

// PartitionField.toString: "1000: id_bucket: bucket[16](1)".
std::string FieldString(const PartitionField& f) {
  return StrCat(f.field_id, ": ", f.name, ": ", f.transform.ToString(), "(", f.source_id, ")");
}

bool IsTime(const spec::Transform& t) {
  auto k = t.kind();
  return k == TransformKind::kYear || k == TransformKind::kMonth || k == TransformKind::kDay ||
         k == TransformKind::kHour;
}

std::string GeneratedName(const std::string& source, const spec::Transform& t) {
  switch (t.kind()) {
    case TransformKind::kIdentity: return source;
    case TransformKind::kBucket: return StrCat(source, "_bucket_", t.param());
    case TransformKind::kTruncate: return StrCat(source, "_trunc_", t.param());
    case TransformKind::kYear: return source + "_year";
    case TransformKind::kMonth: return source + "_month";
    case TransformKind::kDay: return source + "_day";
    case TransformKind::kHour: return source + "_hour";
    case TransformKind::kVoid: return source + "_null";
    default: return source + "_" + t.ToString();
  }
}

// One pass of the changes over a spec, keeping Iceberg's indexes: the spec's fields by name
// and by (source, transform), what was added, removed and renamed so far.
class SpecEdit {
 public:
  SpecEdit(const spec::TableMetadata& base, const spec::PartitionSpec& spec, const spec::Schema& schema)
      : base_(base), spec_(spec), schema_(schema), last_id_(base.last_partition_id) {
    for (const auto& f : spec.fields()) {
      by_name_[f.name] = &f;
      by_transform_[{f.source_id, f.transform.ToString()}] = &f;
    }
  }

  // Binds a term to its source field id and transform, as UnboundTerm.bind does.
  Result<std::pair<int32_t, spec::Transform>> Resolve(const PartitionTerm& term) const {
    const spec::NestedField* f = schema_.FindFieldByName(term.column);
    if (!f) {
      return ValidationError("Cannot find field '", term.column, "' in struct: ", JavaTypeString(*schema_.as_struct()));
    }
    if (term.transform.kind() != TransformKind::kIdentity && !term.transform.CanTransform(*f->type)) {
      return ValidationError("Cannot bind: ", term.transform.ToString(), " cannot transform ", JavaTypeString(*f->type),
                             " values from '", term.column, "'");
    }
    return std::make_pair(f->id, term.transform);
  }

  Status Add(const std::optional<std::string>& name, const PartitionTerm& term) {
    if (name) {
      if (auto it = added_by_name_.find(*name); it != added_by_name_.end()) {
        return ValidationError("Cannot add duplicate partition field: ", FieldString(it->second));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(term));
    const auto key = std::make_pair(resolved.first, resolved.second.ToString());
    const std::string shown_name = name.value_or("null");
    auto existing = by_transform_.find(key);
    if (existing != by_transform_.end()) {
      const PartitionField& e = *existing->second;
      // Dropping and adding the same transform again keeps the field (under the new name).
      if (deletes_.count(e.field_id) && e.transform == resolved.second) {
        deletes_.erase(e.field_id);
        if (name && *name != e.name) return Rename(e.name, *name);
        return Status::OK();
      }
      if (!deletes_.count(e.field_id) || e.transform.ToString() == resolved.second.ToString()) {
        return ValidationError("Cannot add duplicate partition field ", shown_name, "=", term.ToString(),
                               ", conflicts with ", FieldString(e));
      }
    }
    if (auto it = added_by_transform_.find(key); it != added_by_transform_.end()) {
      return ValidationError("Cannot add duplicate partition field ", shown_name, "=", term.ToString(),
                             ", already added: ", FieldString(it->second));
    }
    PartitionField field = RecycleOrCreate(resolved.first, resolved.second, name);
    if (field.name.empty()) field.name = GeneratedName(schema_.FindColumnName(field.source_id), field.transform);
    if (IsTime(field.transform)) {
      auto [it, inserted] = added_time_fields_.try_emplace(field.source_id, field);
      if (!inserted) {
        return ValidationError("Cannot add redundant partition field: ", FieldString(it->second), " conflicts with ",
                               FieldString(field));
      }
    }
    added_by_transform_[key] = field;
    if (auto it = by_name_.find(field.name); it != by_name_.end()) {
      const PartitionField& same_name = *it->second;
      if (!deletes_.count(same_name.field_id)) {
        if (same_name.transform.kind() != TransformKind::kVoid) {
          return ValidationError("Cannot add duplicate partition field name: ", shown_name);
        }
        // A v1 void field keeps its id under a name that frees this one.
        ARROW_RETURN_NOT_OK(Rename(same_name.name, StrCat(same_name.name, "_", same_name.field_id)));
      } else {
        renames_[same_name.name] = StrCat(same_name.name, "_", same_name.field_id);
      }
    }
    added_by_name_[field.name] = field;
    adds_.push_back(std::move(field));
    return Status::OK();
  }

  Status RemoveByName(const std::string& name) {
    if (auto it = added_by_name_.find(name); it != added_by_name_.end()) {
      return ValidationError("Cannot delete newly added field: ", FieldString(it->second));
    }
    if (renames_.count(name)) return ValidationError("Cannot rename and delete partition field: ", name);
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return ValidationError("Cannot find partition field to remove: ", name);
    deletes_.insert(it->second->field_id);
    return Status::OK();
  }

  Status RemoveByTerm(const PartitionTerm& term) {
    ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(term));
    const auto key = std::make_pair(resolved.first, resolved.second.ToString());
    if (auto it = added_by_transform_.find(key); it != added_by_transform_.end()) {
      return ValidationError("Cannot delete newly added field: ", FieldString(it->second));
    }
    auto it = by_transform_.find(key);
    if (it == by_transform_.end()) return ValidationError("Cannot find partition field to remove: ", term.ToString());
    if (renames_.count(it->second->name)) {
      return ValidationError("Cannot rename and delete partition field: ", it->second->name);
    }
    deletes_.insert(it->second->field_id);
    return Status::OK();
  }

  Result<std::vector<PartitionField>> Fields() const {
    std::vector<PartitionField> out;
    auto renamed = [&](const std::string& n) {
      auto it = renames_.find(n);
      return it == renames_.end() ? n : it->second;
    };
    for (const auto& f : spec_.fields()) {
      if (!deletes_.count(f.field_id)) {
        out.push_back({f.source_id, f.field_id, renamed(f.name), f.transform});
      } else if (base_.format_version < 2) {
        // v1 field ids are positional: a removed field stays as void so later ones keep theirs.
        out.push_back({f.source_id, f.field_id, renamed(f.name), spec::Transform::Void()});
      }
    }
    for (const auto& f : adds_) out.push_back(f);
    std::set<std::string> names;
    for (const auto& f : out) {
      const spec::NestedField* same = schema_.FindFieldByName(f.name);
      if (same && schema_.FindFieldById(f.source_id) && same->id != f.source_id) {
        return ValidationError("Cannot create identity partition sourced from different field in schema: ", f.name);
      }
      if (f.name.empty()) return ValidationError("Cannot use empty partition name: ", f.name);
      if (!names.insert(f.name).second) return ValidationError("Cannot use partition name more than once: ", f.name);
    }
    for (const auto& f : out) {
      if (f.transform.kind() == TransformKind::kVoid) continue;
      const spec::NestedField* source = schema_.FindFieldById(f.source_id);
      if (!source) return ValidationError("Cannot find source column for partition field: ", FieldString(f));
      if (!source->type->is_primitive()) {
        return ValidationError("Cannot partition by non-primitive source field: ", JavaTypeString(*source->type));
      }
      if (!f.transform.CanTransform(*source->type)) {
        return ValidationError("Invalid source type ", JavaTypeString(*source->type),
                               " for transform: ", f.transform.ToString());
      }
    }
    return out;
  }

 private:
  Status Rename(const std::string& from, const std::string& to) {
    if (auto it = by_name_.find(to); it != by_name_.end() && it->second->transform.kind() == TransformKind::kVoid) {
      ARROW_RETURN_NOT_OK(Rename(it->second->name, StrCat(it->second->name, "_", it->second->field_id)));
    }
    if (added_by_name_.count(from)) return ValidationError("Cannot rename newly added partition field: ", from);
    auto it = by_name_.find(from);
    if (it == by_name_.end()) return ValidationError("Cannot find partition field to rename: ", from);
    if (deletes_.count(it->second->field_id)) return ValidationError("Cannot delete and rename partition field: ", from);
    renames_[from] = to;
    return Status::OK();
  }

  // v2 brings back a field of an earlier spec with the same source and transform (and name,
  // when one is given), so files of that spec and the new one share the partition field id.
  PartitionField RecycleOrCreate(int32_t source_id, const spec::Transform& transform,
                                 const std::optional<std::string>& name) {
    if (base_.format_version >= 2) {
      for (const auto& s : base_.partition_specs) {
        for (const auto& f : s.fields()) {
          if (f.source_id == source_id && f.transform == transform && (!name || f.name == *name)) return f;
        }
      }
    }
    return {source_id, ++last_id_, name.value_or(""), transform};
  }

  const spec::TableMetadata& base_;
  const spec::PartitionSpec& spec_;
  const spec::Schema& schema_;
  int32_t last_id_;
  std::map<std::string, const PartitionField*> by_name_;
  std::map<std::pair<int32_t, std::string>, const PartitionField*> by_transform_;
  std::vector<PartitionField> adds_;
  std::map<int32_t, PartitionField> added_time_fields_;
  std::map<std::pair<int32_t, std::string>, PartitionField> added_by_transform_;
  std::map<std::string, PartitionField> added_by_name_;
  std::set<int32_t> deletes_;
  std::map<std::string, std::string> renames_;
};

}  // namespace

std::string PartitionTerm::ToString() const {
  std::string ref = "ref(name=\"" + column + "\")";
  if (transform.kind() == TransformKind::kIdentity) return ref;
  return transform.ToString() + "(" + ref + ")";
}

UpdatePartitionSpec& UpdatePartitionSpec::AddField(std::optional<std::string> name, PartitionTerm term) {
  changes_.push_back({Change::Kind::kAdd, std::move(name), std::move(term)});
  return *this;
}

UpdatePartitionSpec& UpdatePartitionSpec::RemoveField(std::string name) {
  changes_.push_back({Change::Kind::kRemoveByName, std::move(name), {}});
  return *this;
}

UpdatePartitionSpec& UpdatePartitionSpec::RemoveField(PartitionTerm term) {
  changes_.push_back({Change::Kind::kRemoveByTerm, std::nullopt, std::move(term)});
  return *this;
}

Result<spec::PartitionSpec> UpdatePartitionSpec::Apply(const spec::TableMetadata& base, size_t* failed) const {
  const spec::PartitionSpec* current = base.default_spec();
  const spec::SchemaPtr schema = base.current_schema();
  if (!current || !schema) return Status::Invalid("Table ", table_.name(), " has no default partition spec");
  for (const auto& f : current->fields()) {
    if (f.transform.kind() == TransformKind::kUnknown) {
      return ValidationError("Cannot update partition spec with unknown transform: ", FieldString(f));
    }
  }
  SpecEdit edit(base, *current, *schema);
  for (size_t i = 0; i < changes_.size(); ++i) {
    const Change& c = changes_[i];
    Status st = c.kind == Change::Kind::kAdd            ? edit.Add(c.name, c.term)
                : c.kind == Change::Kind::kRemoveByName ? edit.RemoveByName(*c.name)
                                                        : edit.RemoveByTerm(c.term);
    if (!st.ok()) {
      if (failed) *failed = i;
      return st;
    }
  }
  auto fields = edit.Fields();
  if (!fields.ok()) {
    if (failed) *failed = changes_.empty() ? 0 : changes_.size() - 1;
    return fields.status();
  }
  return spec::PartitionSpec(0, std::move(*fields));
}

Status UpdatePartitionSpec::Commit(size_t* failed) {
  return CommitUpdate(table_, [&](TableMetadataBuilder& builder, std::vector<std::string>*) -> Status {
    ARROW_ASSIGN_OR_RAISE(spec::PartitionSpec spec, Apply(builder.current(), failed));
    ARROW_RETURN_NOT_OK(builder.AddPartitionSpec(spec).status());
    return builder.SetDefaultPartitionSpec(TableMetadataBuilder::kLastAdded);
  });
}

}  // namespace floe::table
