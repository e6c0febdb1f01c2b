#include "floe/table/update_schema.h"

#include "floe/table/commit.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/util/ascii.h"

namespace floe::table {

namespace {

using spec::NestedField;
using spec::Type;
using spec::TypeId;
using spec::TypePtr;

bool CanWiden(const Type& from, const Type& to) {
  if (from.Equals(to)) return true;
  if (from.id() == TypeId::kInt && to.id() == TypeId::kLong) return true;
  if (from.id() == TypeId::kFloat && to.id() == TypeId::kDouble) return true;
  return from.id() == TypeId::kDecimal && to.id() == TypeId::kDecimal &&
         from.scale() == to.scale() && to.precision() >= from.precision();
}

Result<size_t> FindColumn(const std::vector<NestedField>& fields, const std::string& name) {
  const std::string lower = AsciiLower(name);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (AsciiLower(fields[i].name) == lower) return i;
  }
  return ValidationError("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `",
                         name, "` cannot be resolved.");
}

bool HasColumn(const std::vector<NestedField>& fields, const std::string& name) {
  return FindColumn(fields, name).ok();
}

}  // namespace

TypePtr AssignFreshIds(const TypePtr& type, int32_t* last) {
  switch (type->id()) {
    case TypeId::kList: {
      int32_t id = ++*last;
      return Type::List(id, AssignFreshIds(type->element().type, last), type->element().required);
    }
    case TypeId::kMap: {
      int32_t key_id = ++*last;
      int32_t value_id = ++*last;
      TypePtr key = AssignFreshIds(type->key().type, last);
      TypePtr value = AssignFreshIds(type->value().type, last);
      return Type::Map(key_id, key, value_id, value, type->value().required);
    }
    case TypeId::kStruct: {
      std::vector<NestedField> fields;
      for (const auto& f : type->fields()) {
        NestedField nf = f;
        nf.id = ++*last;
        nf.type = AssignFreshIds(f.type, last);
        fields.push_back(std::move(nf));
      }
      return Type::Struct(std::move(fields));
    }
    default:
      return type;
  }
}

UpdateSchema& UpdateSchema::AddColumn(std::string name, spec::TypePtr type,
                                      std::optional<std::string> doc,
                                      std::optional<ColumnPosition> position, bool required) {
  changes_.push_back({Kind::kAdd, std::move(name), "", std::move(type), std::move(doc),
                      std::move(position), required});
  return *this;
}

UpdateSchema& UpdateSchema::RenameColumn(std::string name, std::string new_name) {
  changes_.push_back({Kind::kRename, std::move(name), std::move(new_name), nullptr, {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::DeleteColumn(std::string name, bool if_exists) {
  changes_.push_back({Kind::kDelete, std::move(name), "", nullptr, {}, {}, if_exists});
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumnType(std::string name, spec::TypePtr type) {
  changes_.push_back({Kind::kType, std::move(name), "", std::move(type), {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::MakeColumnOptional(std::string name) {
  changes_.push_back({Kind::kOptional, std::move(name), "", nullptr, {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::RequireColumn(std::string name) {
  changes_.push_back({Kind::kRequire, std::move(name), "", nullptr, {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumnDoc(std::string name, std::optional<std::string> doc) {
  changes_.push_back({Kind::kDoc, std::move(name), "", nullptr, std::move(doc), {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::MoveColumn(std::string name, ColumnPosition position) {
  changes_.push_back({Kind::kMove, std::move(name), "", nullptr, {}, std::move(position), false});
  return *this;
}

Result<UpdateSchema::Applied> UpdateSchema::Apply(const spec::TableMetadata& base,
                                                  SchemaChangeError* error) const {
  const spec::SchemaPtr schema = base.current_schema();
  if (!schema) return Status::Invalid("Table ", table_.name(), " has no current schema");
  Applied out;
  out.fields = schema->fields();
  out.identifier_field_ids = schema->identifier_field_ids();
  out.last_column_id = base.last_column_id;
  auto& fields = out.fields;
  using Part = SchemaChangeError::Part;
  for (size_t n = 0; n < changes_.size(); ++n) {
    const Change& c = changes_[n];
    auto fail = [&](Part part, const Status& st) {
      if (error) *error = {n, part};
      return st;
    };
    // Where a column goes: first, after a column, or (nullopt) at the end.
    auto insert_at = [&](const std::optional<ColumnPosition>& pos) -> Result<size_t> {
      if (!pos) return fields.size();
      if (pos->first) return 0;
      auto after = FindColumn(fields, pos->after);
      if (!after.ok()) return fail(Part::kAfter, after.status());
      return *after + 1;
    };
    if (c.kind == Kind::kAdd) {
      if (HasColumn(fields, c.name)) {
        return fail(Part::kColumn, ValidationError("[FIELDS_ALREADY_EXISTS] Cannot add column, because `", c.name,
                                                   "` already exists in ", table_.name(), "."));
      }
      if (c.flag) {
        return fail(Part::kColumn,
                    ValidationError("Incompatible change: cannot add required column: ", c.name));
      }
      int32_t id = ++out.last_column_id;
      NestedField f = spec::Optional(id, c.name, AssignFreshIds(c.type, &out.last_column_id));
      if (c.doc) f.doc = *c.doc;
      ARROW_ASSIGN_OR_RAISE(size_t pos, insert_at(c.position));
      fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(pos), std::move(f));
      continue;
    }
    auto found = FindColumn(fields, c.name);
    if (!found.ok()) {
      if (c.kind == Kind::kDelete && c.flag) continue;
      return fail(Part::kColumn, found.status());
    }
    const size_t i = *found;
    NestedField& f = fields[i];
    switch (c.kind) {
      case Kind::kAdd:
        break;
      case Kind::kRename:
        if (HasColumn(fields, c.new_name)) {
          return fail(Part::kNewName,
                      ValidationError("[FIELDS_ALREADY_EXISTS] Cannot rename column, because `", c.new_name,
                                      "` already exists in ", table_.name(), "."));
        }
        f.name = c.new_name;
        break;
      case Kind::kDelete: {
        if (const spec::PartitionSpec* spec = base.default_spec()) {
          for (const auto& pf : spec->fields()) {
            if (pf.source_id == f.id) {
              return fail(Part::kColumn, ValidationError("Cannot delete field ", f.id, ": ", f.name,
                                                         " as it is used by the partition spec"));
            }
          }
        }
        fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case Kind::kType:
        if (!CanWiden(*f.type, *c.type)) {
          return fail(Part::kColumn, ValidationError("Cannot change column type: ", f.name, ": ",
                                                     f.type->ToString(), " -> ", c.type->ToString()));
        }
        f.type = c.type;
        break;
      case Kind::kOptional:
        f.required = false;
        break;
      case Kind::kRequire:
        if (!f.required) {
          return fail(Part::kColumn, ValidationError("Cannot change column nullability: ", f.name,
                                                     ": optional -> required"));
        }
        break;
      case Kind::kDoc:
        f.doc = c.doc.value_or("");
        break;
      case Kind::kMove: {
        NestedField moved = f;
        fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(i));
        ARROW_ASSIGN_OR_RAISE(size_t pos, insert_at(c.position));
        fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(pos), std::move(moved));
        break;
      }
    }
  }
  if (fields.empty()) {
    if (error) *error = {changes_.empty() ? 0 : changes_.size() - 1, Part::kTable};
    return ValidationError("Cannot drop all columns of a table");
  }
  return out;
}

Status UpdateSchema::Commit(SchemaChangeError* error) {
  return CommitUpdate(table_, [&](TableMetadataBuilder& builder, std::vector<std::string>*) -> Status {
    ARROW_ASSIGN_OR_RAISE(Applied applied, Apply(builder.current(), error));
    spec::Schema schema(0, std::move(applied.fields), std::move(applied.identifier_field_ids));
    ARROW_RETURN_NOT_OK(builder.AddSchema(schema).status());
    return builder.SetCurrentSchema(TableMetadataBuilder::kLastAdded);
  });
}

}  // namespace floe::table
