#include "floe/avro/schema.h"

#include <set>

#include "floe/avro/json_internal.h"

namespace floe::avro {

namespace {

constexpr int kMaxSchemaDepth = 200;

struct TypeNameEntry {
  const char* name;
  Type type;
};

constexpr TypeNameEntry kPrimitiveNames[] = {
    {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},
    {"long", Type::kLong},   {"float", Type::kFloat},     {"double", Type::kDouble},
    {"bytes", Type::kBytes}, {"string", Type::kString},
};

std::optional<Type> PrimitiveFromName(std::string_view name) {
  for (const auto& e : kPrimitiveNames) {
    if (name == e.name) return e.type;
  }
  return std::nullopt;
}

}  // namespace

const char* TypeName(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return "boolean";
    case Type::kInt:
      return "int";
    case Type::kLong:
      return "long";
    case Type::kFloat:
      return "float";
    case Type::kDouble:
      return "double";
    case Type::kBytes:
      return "bytes";
    case Type::kString:
      return "string";
    case Type::kRecord:
      return "record";
    case Type::kEnum:
      return "enum";
    case Type::kArray:
      return "array";
    case Type::kMap:
      return "map";
    case Type::kUnion:
      return "union";
    case Type::kFixed:
      return "fixed";
  }
  return "unknown";
}

bool IsPrimitive(Type type) { return type <= Type::kString; }

bool IsNamed(Type type) {
  return type == Type::kRecord || type == Type::kEnum || type == Type::kFixed;
}

// ---------------------------------------------------------------------------------------
// Attributes

const JsonValue* Attributes::Find(std::string_view key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Attributes::Set(std::string key, JsonValue value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

std::optional<int32_t> Attributes::GetInt32(std::string_view key) const {
  const JsonValue* v = Find(key);
  if (v == nullptr || !v->is_int()) return std::nullopt;
  if (v->as_int() < INT32_MIN || v->as_int() > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(v->as_int());
}

std::optional<std::string_view> Attributes::GetString(std::string_view key) const {
  const JsonValue* v = Find(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->as_string());
}

std::optional<bool> Attributes::GetBool(std::string_view key) const {
  const JsonValue* v = Find(key);
  if (v == nullptr || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}

// ---------------------------------------------------------------------------------------
// Node

Node Node::Primitive(Type type) {
  Node n;
  n.type = type;
  return n;
}

Node Node::Record(std::string name, std::vector<Field> fields,
                  std::optional<std::string> name_space) {
  Node n;
  n.type = Type::kRecord;
  n.name = std::move(name);
  n.name_space = std::move(name_space);
  n.fields = std::move(fields);
  return n;
}

Node Node::Enum(std::string name, std::vector<std::string> symbols,
                std::optional<std::string> name_space) {
  Node n;
  n.type = Type::kEnum;
  n.name = std::move(name);
  n.name_space = std::move(name_space);
  n.symbols = std::move(symbols);
  return n;
}

Node Node::Fixed(std::string name, int64_t size, std::optional<std::string> name_space) {
  Node n;
  n.type = Type::kFixed;
  n.name = std::move(name);
  n.name_space = std::move(name_space);
  n.fixed_size = size;
  return n;
}

Node Node::Array(Node items) {
  Node n;
  n.type = Type::kArray;
  n.children.push_back(std::move(items));
  return n;
}

Node Node::Map(Node values) {
  Node n;
  n.type = Type::kMap;
  n.children.push_back(std::move(values));
  return n;
}

Node Node::Union(std::vector<Node> branches) {
  Node n;
  n.type = Type::kUnion;
  n.children = std::move(branches);
  return n;
}

Node Node::Optional(Node type) {
  std::vector<Node> branches;
  branches.push_back(Primitive(Type::kNull));
  branches.push_back(std::move(type));
  return Union(std::move(branches));
}

Node Node::Reference(std::string name) {
  Node n;
  n.is_reference = true;
  n.name = std::move(name);
  return n;
}

Node&& Node::WithAttribute(std::string key, JsonValue value) && {
  attributes.Set(std::move(key), std::move(value));
  return std::move(*this);
}

Node& Node::WithAttribute(std::string key, JsonValue value) & {
  attributes.Set(std::move(key), std::move(value));
  return *this;
}

int Node::NullBranch() const {
  if (type != Type::kUnion) return -1;
  for (size_t i = 0; i < children.size(); ++i) {
    if (children[i].type == Type::kNull && !children[i].is_reference) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool operator==(const Node& a, const Node& b) {
  // full_name is derived, so it does not take part.
  return a.type == b.type && a.is_reference == b.is_reference && a.name == b.name &&
         a.name_space == b.name_space && a.doc == b.doc && a.fixed_size == b.fixed_size &&
         a.symbols == b.symbols && a.attributes == b.attributes && a.children == b.children &&
         a.fields == b.fields;
}

// ---------------------------------------------------------------------------------------
// Validation and name resolution

namespace {

class Resolver {
 public:
  explicit Resolver(std::unordered_map<std::string, const Node*>* named) : named_(named) {}

  Status Visit(Node* node, const std::string& enclosing_ns, int depth) {
    if (depth > kMaxSchemaDepth) {
      return Status::Invalid("Avro schema nested deeper than ", kMaxSchemaDepth);
    }
    if (node->is_reference) return ResolveReference(node, enclosing_ns);
    std::string ns = enclosing_ns;
    if (IsNamed(node->type)) {
      ARROW_RETURN_NOT_OK(Define(node, enclosing_ns, &ns));
    }
    switch (node->type) {
      case Type::kRecord: {
        std::set<std::string_view> seen;
        for (Field& f : node->fields) {
          if (f.name.empty()) {
            return Status::Invalid("Avro record ", node->full_name, " has a field with no name");
          }
          if (!seen.insert(f.name).second) {
            return Status::Invalid("Avro record ", node->full_name, " has duplicate field '",
                                   f.name, "'");
          }
          ARROW_RETURN_NOT_OK(Visit(&f.type, ns, depth + 1));
        }
        return Status::OK();
      }
      case Type::kEnum: {
        std::set<std::string_view> seen;
        for (const std::string& s : node->symbols) {
          if (s.empty() || !seen.insert(s).second) {
            return Status::Invalid("Avro enum ", node->full_name, " has an empty or duplicate symbol '",
                                   s, "'");
          }
        }
        return Status::OK();
      }
      case Type::kFixed:
        if (node->fixed_size < 0 || node->fixed_size > INT32_MAX) {
          return Status::Invalid("Avro fixed ", node->full_name, " has invalid size ",
                                 node->fixed_size);
        }
        return Status::OK();
      case Type::kArray:
      case Type::kMap:
        if (node->children.size() != 1) {
          return Status::Invalid("Avro ", TypeName(node->type), " needs exactly one ",
                                 node->type == Type::kArray ? "items" : "values", " type");
        }
        return Visit(&node->children[0], ns, depth + 1);
      case Type::kUnion:
        return VisitUnion(node, ns, depth);
      default:
        return Status::OK();
    }
  }

 private:
  Status Define(Node* node, const std::string& enclosing_ns, std::string* own_ns) {
    if (node->name.empty()) {
      return Status::Invalid("Avro ", TypeName(node->type), " type has no name");
    }
    size_t dot = node->name.rfind('.');
    if (dot != std::string::npos) {
      node->full_name = node->name;
      *own_ns = node->name.substr(0, dot);
    } else {
      *own_ns = node->name_space.value_or(enclosing_ns);
      node->full_name = own_ns->empty() ? node->name : *own_ns + "." + node->name;
    }
    if (PrimitiveFromName(node->full_name)) {
      return Status::Invalid("Avro named type may not be called '", node->full_name, "'");
    }
    // Registered before visiting the fields, so a record may refer to itself.
    if (!named_->emplace(node->full_name, node).second) {
      return Status::Invalid("Avro schema defines '", node->full_name, "' twice");
    }
    return Status::OK();
  }

  Status ResolveReference(Node* node, const std::string& enclosing_ns) {
    const Node* target = nullptr;
    if (node->name.find('.') == std::string::npos && !enclosing_ns.empty()) {
      auto it = named_->find(enclosing_ns + "." + node->name);
      if (it != named_->end()) target = it->second;
    }
    if (target == nullptr) {
      auto it = named_->find(node->name);
      if (it != named_->end()) target = it->second;
    }
    if (target == nullptr) {
      return Status::Invalid("Avro schema refers to undefined type '", node->name, "'");
    }
    node->type = target->type;
    node->full_name = target->full_name;
    return Status::OK();
  }

  Status VisitUnion(Node* node, const std::string& ns, int depth) {
    if (node->children.empty()) return Status::Invalid("Avro union has no branches");
    std::set<std::string> seen;
    for (Node& branch : node->children) {
      if (branch.type == Type::kUnion && !branch.is_reference) {
        return Status::Invalid("Avro union may not directly contain a union");
      }
      ARROW_RETURN_NOT_OK(Visit(&branch, ns, depth + 1));
      std::string key = IsNamed(branch.type) ? branch.full_name : TypeName(branch.type);
      if (!seen.insert(key).second) {
        return Status::Invalid("Avro union contains '", key, "' twice");
      }
    }
    return Status::OK();
  }

  std::unordered_map<std::string, const Node*>* named_;
};

// ---------------------------------------------------------------------------------------
// JSON -> Node

std::string_view AsView(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

Status ReadAttribute(const rapidjson::Value::ConstMemberIterator& m, Attributes* attrs) {
  ARROW_ASSIGN_OR_RAISE(JsonValue value, internal::FromRapidJson(m->value, 1));
  attrs->Set(std::string(AsView(m->name)), std::move(value));
  return Status::OK();
}

Result<Node> ParseNode(const rapidjson::Value& v, int depth);

Result<Field> ParseField(const rapidjson::Value& v, int depth) {
  if (!v.IsObject()) return Status::Invalid("Avro record field must be a JSON object");
  Field field;
  bool has_name = false;
  bool has_type = false;
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string_view key = AsView(m->name);
    if (key == "name") {
      if (!m->value.IsString()) return Status::Invalid("Avro field name must be a string");
      field.name = std::string(AsView(m->value));
      has_name = true;
    } else if (key == "type") {
      ARROW_ASSIGN_OR_RAISE(field.type, ParseNode(m->value, depth + 1));
      has_type = true;
    } else if (key == "doc" && m->value.IsString()) {
      field.doc = std::string(AsView(m->value));
    } else if (key == "default") {
      ARROW_ASSIGN_OR_RAISE(field.default_value, internal::FromRapidJson(m->value, 1));
    } else {
      ARROW_RETURN_NOT_OK(ReadAttribute(m, &field.attributes));
    }
  }
  if (!has_name) return Status::Invalid("Avro record field has no name");
  if (!has_type) return Status::Invalid("Avro field '", field.name, "' has no type");
  return field;
}

Result<Node> ParseObject(const rapidjson::Value& v, int depth) {
  auto type_it = v.FindMember("type");
  if (type_it == v.MemberEnd()) return Status::Invalid("Avro schema object has no 'type'");
  if (!type_it->value.IsString()) {
    return Status::Invalid("Avro schema 'type' must be a string");
  }
  std::string_view type = AsView(type_it->value);
  Node node;
  if (auto primitive = PrimitiveFromName(type)) {
    node.type = *primitive;
  } else if (type == "record" || type == "error") {
    node.type = Type::kRecord;
  } else if (type == "enum") {
    node.type = Type::kEnum;
  } else if (type == "array") {
    node.type = Type::kArray;
  } else if (type == "map") {
    node.type = Type::kMap;
  } else if (type == "fixed") {
    node.type = Type::kFixed;
  } else {
    node = Node::Reference(std::string(type));
  }
  const bool named = IsNamed(node.type) && !node.is_reference;
  bool has_fields = false, has_symbols = false, has_size = false, has_child = false;
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string_view key = AsView(m->name);
    const rapidjson::Value& val = m->value;
    if (key == "type") continue;
    if (named && key == "name") {
      if (!val.IsString()) return Status::Invalid("Avro type name must be a string");
      node.name = std::string(AsView(val));
    } else if (named && key == "namespace" && (val.IsString() || val.IsNull())) {
      node.name_space = val.IsString() ? std::string(AsView(val)) : std::string();
    } else if (named && key == "doc" && val.IsString()) {
      node.doc = std::string(AsView(val));
    } else if (node.type == Type::kRecord && !node.is_reference && key == "fields") {
      if (!val.IsArray()) return Status::Invalid("Avro record 'fields' must be an array");
      for (const auto& f : val.GetArray()) {
        ARROW_ASSIGN_OR_RAISE(Field field, ParseField(f, depth));
        node.fields.push_back(std::move(field));
      }
      has_fields = true;
    } else if (node.type == Type::kEnum && !node.is_reference && key == "symbols") {
      if (!val.IsArray()) return Status::Invalid("Avro enum 'symbols' must be an array");
      for (const auto& s : val.GetArray()) {
        if (!s.IsString()) return Status::Invalid("Avro enum symbols must be strings");
        node.symbols.emplace_back(AsView(s));
      }
      has_symbols = true;
    } else if (node.type == Type::kFixed && !node.is_reference && key == "size") {
      if (!val.IsInt64()) return Status::Invalid("Avro fixed 'size' must be an integer");
      node.fixed_size = val.GetInt64();
      has_size = true;
    } else if ((node.type == Type::kArray && key == "items") ||
               (node.type == Type::kMap && key == "values")) {
      ARROW_ASSIGN_OR_RAISE(Node child, ParseNode(val, depth + 1));
      node.children.push_back(std::move(child));
      has_child = true;
    } else {
      ARROW_RETURN_NOT_OK(ReadAttribute(m, &node.attributes));
    }
  }
  if (named && node.name.empty()) {
    return Status::Invalid("Avro ", TypeName(node.type), " type has no name");
  }
  if (node.is_reference) return node;
  if (node.type == Type::kRecord && !has_fields) {
    return Status::Invalid("Avro record '", node.name, "' has no 'fields'");
  }
  if (node.type == Type::kEnum && !has_symbols) {
    return Status::Invalid("Avro enum '", node.name, "' has no 'symbols'");
  }
  if (node.type == Type::kFixed && !has_size) {
    return Status::Invalid("Avro fixed '", node.name, "' has no 'size'");
  }
  if ((node.type == Type::kArray || node.type == Type::kMap) && !has_child) {
    return Status::Invalid("Avro ", TypeName(node.type), " has no ",
                           node.type == Type::kArray ? "'items'" : "'values'");
  }
  return node;
}

Result<Node> ParseNode(const rapidjson::Value& v, int depth) {
  if (depth > kMaxSchemaDepth) {
    return Status::Invalid("Avro schema nested deeper than ", kMaxSchemaDepth);
  }
  if (v.IsString()) {
    std::string_view name = AsView(v);
    if (auto primitive = PrimitiveFromName(name)) return Node::Primitive(*primitive);
    return Node::Reference(std::string(name));
  }
  if (v.IsArray()) {
    std::vector<Node> branches;
    for (const auto& b : v.GetArray()) {
      ARROW_ASSIGN_OR_RAISE(Node branch, ParseNode(b, depth + 1));
      branches.push_back(std::move(branch));
    }
    return Node::Union(std::move(branches));
  }
  if (v.IsObject()) return ParseObject(v, depth);
  return Status::Invalid("Avro schema must be a string, array or object");
}

// ---------------------------------------------------------------------------------------
// Node -> JSON

void WriteString(internal::JsonWriter* w, std::string_view s) {
  w->String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void WriteAttributes(const Attributes& attrs, internal::JsonWriter* w) {
  for (const auto& [k, v] : attrs.entries()) {
    WriteString(w, k);
    internal::WriteJson(v, w);
  }
}

void WriteNode(const Node& node, internal::JsonWriter* w) {
  if (node.is_reference || IsPrimitive(node.type)) {
    const std::string_view type = node.is_reference ? std::string_view(node.name)
                                                    : std::string_view(TypeName(node.type));
    if (node.attributes.empty()) {
      WriteString(w, type);
      return;
    }
    w->StartObject();
    w->Key("type");
    WriteString(w, type);
    WriteAttributes(node.attributes, w);
    w->EndObject();
    return;
  }
  if (node.type == Type::kUnion) {
    w->StartArray();
    for (const Node& b : node.children) WriteNode(b, w);
    w->EndArray();
    return;
  }
  w->StartObject();
  w->Key("type");
  WriteString(w, TypeName(node.type));
  if (IsNamed(node.type)) {
    w->Key("name");
    WriteString(w, node.name);
    if (node.name_space) {
      w->Key("namespace");
      WriteString(w, *node.name_space);
    }
    if (!node.doc.empty()) {
      w->Key("doc");
      WriteString(w, node.doc);
    }
  }
  switch (node.type) {
    case Type::kRecord:
      w->Key("fields");
      w->StartArray();
      for (const Field& f : node.fields) {
        w->StartObject();
        w->Key("name");
        WriteString(w, f.name);
        w->Key("type");
        WriteNode(f.type, w);
        if (!f.doc.empty()) {
          w->Key("doc");
          WriteString(w, f.doc);
        }
        if (f.default_value) {
          w->Key("default");
          internal::WriteJson(*f.default_value, w);
        }
        WriteAttributes(f.attributes, w);
        w->EndObject();
      }
      w->EndArray();
      break;
    case Type::kEnum:
      w->Key("symbols");
      w->StartArray();
      for (const std::string& s : node.symbols) WriteString(w, s);
      w->EndArray();
      break;
    case Type::kFixed:
      w->Key("size");
      w->Int64(node.fixed_size);
      break;
    case Type::kArray:
      w->Key("items");
      WriteNode(node.children.at(0), w);
      break;
    case Type::kMap:
      w->Key("values");
      WriteNode(node.children.at(0), w);
      break;
    default:
      break;
  }
  WriteAttributes(node.attributes, w);
  w->EndObject();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Schema

Result<std::shared_ptr<const Schema>> Schema::Make(Node root) {
  std::shared_ptr<Schema> schema(new Schema());
  schema->root_ = std::move(root);
  Resolver resolver(&schema->named_);
  ARROW_RETURN_NOT_OK(resolver.Visit(&schema->root_, "", 0));
  return schema;
}

Result<std::shared_ptr<const Schema>> Schema::Parse(std::string_view json) {
  rapidjson::Document doc;
  Status st = internal::ParseJsonDocument(json, &doc);
  if (!st.ok()) return Status::Invalid("Invalid Avro schema: ", st.message());
  auto node = ParseNode(doc, 0);
  if (!node.ok()) return Status::Invalid("Invalid Avro schema: ", node.status().message());
  auto schema = Make(std::move(node).ValueUnsafe());
  if (!schema.ok()) return Status::Invalid("Invalid Avro schema: ", schema.status().message());
  return schema;
}

std::string Schema::ToJson() const {
  rapidjson::StringBuffer buffer;
  internal::JsonWriter writer(buffer);
  WriteNode(root_, &writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

const Node* Schema::FindNamed(std::string_view full_name) const {
  auto it = named_.find(std::string(full_name));
  return it == named_.end() ? nullptr : it->second;
}

const Node& Schema::Resolve(const Node& node) const {
  if (!node.is_reference) return node;
  const Node* target = FindNamed(node.full_name);
  return target != nullptr ? *target : node;
}

}  // namespace floe::avro
