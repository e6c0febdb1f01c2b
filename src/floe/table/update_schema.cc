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

// A field and the fields inside it, editable in place; types of nested fields are rebuilt
// from their children when the schema is made again.
struct Node {
  NestedField field;
  std::vector<Node> kids;  // struct fields; a list's element; a map's key and value
};

Node ToNode(const NestedField& f) {
  Node n{f, {}};
  if (f.type->is_nested()) {
    for (const auto& k : f.type->fields()) n.kids.push_back(ToNode(k));
  }
  return n;
}

NestedField ToField(const Node& n) {
  NestedField f = n.field;
  switch (f.type->id()) {
    case TypeId::kStruct: {
      std::vector<NestedField> fields;
      for (const auto& k : n.kids) fields.push_back(ToField(k));
      f.type = Type::Struct(std::move(fields));
      break;
    }
    case TypeId::kList: {
      NestedField e = ToField(n.kids[0]);
      f.type = Type::List(e.id, e.type, e.required);
      break;
    }
    case TypeId::kMap: {
      NestedField k = ToField(n.kids[0]);
      NestedField v = ToField(n.kids[1]);
      f.type = Type::Map(k.id, k.type, v.id, v.type, v.required);
      break;
    }
    default:
      break;
  }
  return f;
}

// The child of `n` a path part names: a struct field (case-insensitively), or a list's
// `element`, a map's `key` or `value`.
std::optional<size_t> Child(const Node& n, const std::string& part) {
  const std::string lower = AsciiLower(part);
  switch (n.field.type->id()) {
    case TypeId::kStruct:
      for (size_t i = 0; i < n.kids.size(); ++i) {
        if (AsciiLower(n.kids[i].field.name) == lower) return i;
      }
      return std::nullopt;
    case TypeId::kList:
      if (lower == "element") return 0;
      return std::nullopt;
    case TypeId::kMap:
      if (lower == "key") return 0;
      if (lower == "value") return 1;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Status Unresolved(const ColumnPath& path) {
  return ValidationError("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name ",
                         path.Quoted(), " cannot be resolved.");
}

// The node a path names, descending from `root`.
Result<Node*> Find(Node& root, const std::vector<std::string>& parts, const ColumnPath& shown) {
  Node* n = &root;
  for (const auto& part : parts) {
    auto i = Child(*n, part);
    if (!i) return Unresolved(shown);
    n = &n->kids[*i];
  }
  return n;
}

bool UsesField(const Node& n, const std::vector<spec::PartitionField>& fields) {
  for (const auto& pf : fields) {
    if (pf.source_id == n.field.id) return true;
  }
  for (const auto& k : n.kids) {
    if (UsesField(k, fields)) return true;
  }
  return false;
}

}  // namespace

std::string ColumnPath::Dotted() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "." : "") + parts[i];
  return out;
}

std::string ColumnPath::Quoted() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ".`" : "`") + parts[i] + "`";
  return out;
}

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

UpdateSchema& UpdateSchema::AddColumn(ColumnPath name, spec::TypePtr type,
                                      std::optional<std::string> doc,
                                      std::optional<ColumnPosition> position, bool required) {
  changes_.push_back({Kind::kAdd, std::move(name), "", std::move(type), std::move(doc),
                      std::move(position), required});
  return *this;
}

UpdateSchema& UpdateSchema::RenameColumn(ColumnPath name, std::string new_name) {
  changes_.push_back({Kind::kRename, std::move(name), std::move(new_name), nullptr, {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::DeleteColumn(ColumnPath name, bool if_exists) {
  changes_.push_back({Kind::kDelete, std::move(name), "", nullptr, {}, {}, if_exists});
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumnType(ColumnPath name, spec::TypePtr type) {
  changes_.push_back({Kind::kType, std::move(name), "", std::move(type), {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::MakeColumnOptional(ColumnPath name) {
  changes_.push_back({Kind::kOptional, std::move(name), "", nullptr, {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::RequireColumn(ColumnPath name) {
  changes_.push_back({Kind::kRequire, std::move(name), "", nullptr, {}, {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::UpdateColumnDoc(ColumnPath name, std::optional<std::string> doc) {
  changes_.push_back({Kind::kDoc, std::move(name), "", nullptr, std::move(doc), {}, false});
  return *this;
}

UpdateSchema& UpdateSchema::MoveColumn(ColumnPath name, ColumnPosition position) {
  changes_.push_back({Kind::kMove, std::move(name), "", nullptr, {}, std::move(position), false});
  return *this;
}

Result<UpdateSchema::Applied> UpdateSchema::Apply(const spec::TableMetadata& base,
                                                  SchemaChangeError* error) const {
  const spec::SchemaPtr schema = base.current_schema();
  if (!schema) return Status::Invalid("Table ", table_.name(), " has no current schema");
  Applied out;
  out.identifier_field_ids = schema->identifier_field_ids();
  out.last_column_id = base.last_column_id;
  Node root = ToNode(spec::Optional(0, "", schema->as_struct()));
  using Part = SchemaChangeError::Part;
  for (size_t n = 0; n < changes_.size(); ++n) {
    const Change& c = changes_[n];
    auto fail = [&](Part part, const Status& st) {
      if (error) *error = {n, part};
      return st;
    };
    const std::vector<std::string>& parts = c.name.parts;
    const std::vector<std::string> parent_parts(parts.begin(), parts.end() - 1);
    const std::string& leaf = parts.back();
    auto parent_found = Find(root, parent_parts, ColumnPath(parent_parts));
    if (!parent_found.ok()) {
      if (c.kind == Kind::kDelete && c.flag) continue;
      return fail(Part::kColumn, parent_found.status());
    }
    Node* parent = *parent_found;
    // Where a field goes among its siblings: first, after one, or (nullopt) at the end.
    auto insert_at = [&](const Node& siblings, const std::optional<ColumnPosition>& pos) -> Result<size_t> {
      if (!pos) return siblings.kids.size();
      if (pos->first) return 0;
      auto after = Child(siblings, pos->after);
      if (!after) {
        std::vector<std::string> shown = parent_parts;
        shown.push_back(pos->after);
        return fail(Part::kAfter, Unresolved(ColumnPath(shown)));
      }
      return *after + 1;
    };
    if (c.kind == Kind::kAdd) {
      // Iceberg adds to the struct of a list's elements or a map's values.
      Node* into = parent;
      while (into->field.type->id() == TypeId::kList || into->field.type->id() == TypeId::kMap) {
        into = &into->kids.back();
      }
      if (into->field.type->id() != TypeId::kStruct) {
        return fail(Part::kColumn, ValidationError("[INVALID_FIELD_NAME] Field name ", c.name.Quoted(), " is invalid: ",
                                                   ColumnPath(parent_parts).Quoted(), " is not a struct."));
      }
      if (Child(*into, leaf)) {
        return fail(Part::kColumn, ValidationError("[FIELDS_ALREADY_EXISTS] Cannot add column, because ",
                                                   c.name.Quoted(), " already exists in ", table_.name(), "."));
      }
      if (c.flag) {
        return fail(Part::kColumn,
                    ValidationError("Incompatible change: cannot add required column: ", c.name.Dotted()));
      }
      int32_t id = ++out.last_column_id;
      NestedField f = spec::Optional(id, leaf, AssignFreshIds(c.type, &out.last_column_id));
      if (c.doc) f.doc = *c.doc;
      ARROW_ASSIGN_OR_RAISE(size_t pos, insert_at(*into, c.position));
      into->kids.insert(into->kids.begin() + static_cast<std::ptrdiff_t>(pos), ToNode(f));
      continue;
    }
    auto found = Child(*parent, leaf);
    if (!found) {
      if (c.kind == Kind::kDelete && c.flag) continue;
      return fail(Part::kColumn, Unresolved(c.name));
    }
    const size_t i = *found;
    Node& node = parent->kids[i];
    NestedField& f = node.field;
    switch (c.kind) {
      case Kind::kAdd:
        break;
      case Kind::kRename:
        if (auto same = Child(*parent, c.new_name); same && *same != i) {
          std::vector<std::string> shown = parent_parts;
          shown.push_back(c.new_name);
          return fail(Part::kNewName,
                      ValidationError("[FIELDS_ALREADY_EXISTS] Cannot rename column, because ",
                                      ColumnPath(shown).Quoted(), " already exists in ", table_.name(), "."));
        }
        f.name = c.new_name;
        break;
      case Kind::kDelete: {
        if (parent->field.type->id() != TypeId::kStruct) {
          return fail(Part::kColumn, ValidationError("Cannot delete element type of list or map: ", c.name.Dotted()));
        }
        if (const spec::PartitionSpec* spec = base.default_spec(); spec && UsesField(node, spec->fields())) {
          return fail(Part::kColumn, ValidationError("Cannot delete field ", f.id, ": ", c.name.Dotted(),
                                                     " as it is used by the partition spec"));
        }
        parent->kids.erase(parent->kids.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case Kind::kType:
        if (!CanWiden(*f.type, *c.type)) {
          return fail(Part::kColumn, ValidationError("Cannot change column type: ", c.name.Dotted(), ": ",
                                                     f.type->ToString(), " -> ", c.type->ToString()));
        }
        f.type = c.type;
        break;
      case Kind::kOptional:
        f.required = false;
        break;
      case Kind::kRequire:
        if (!f.required) {
          return fail(Part::kColumn, ValidationError("Cannot change column nullability: ", c.name.Dotted(),
                                                     ": optional -> required"));
        }
        break;
      case Kind::kDoc:
        f.doc = c.doc.value_or("");
        break;
      case Kind::kMove: {
        if (parent->field.type->id() != TypeId::kStruct) {
          return fail(Part::kColumn, ValidationError("Cannot move fields in non-struct type: ", c.name.Dotted()));
        }
        Node moved = std::move(node);
        parent->kids.erase(parent->kids.begin() + static_cast<std::ptrdiff_t>(i));
        ARROW_ASSIGN_OR_RAISE(size_t pos, insert_at(*parent, c.position));
        parent->kids.insert(parent->kids.begin() + static_cast<std::ptrdiff_t>(pos), std::move(moved));
        break;
      }
    }
  }
  if (root.kids.empty()) {
    if (error) *error = {changes_.empty() ? 0 : changes_.size() - 1, Part::kTable};
    return ValidationError("Cannot drop all columns of a table");
  }
  for (const auto& k : root.kids) out.fields.push_back(ToField(k));
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
