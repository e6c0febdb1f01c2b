#include "floe/spec/type.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "floe/util/ascii.h"

namespace floe::spec {

namespace {

bool FieldPtrEquals(const TypePtr& a, const TypePtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool ParseNonNegative(std::string_view s, int32_t* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && *out >= 0;
}

}  // namespace

bool NestedField::operator==(const NestedField& other) const {
  return id == other.id && name == other.name && required == other.required && doc == other.doc &&
         initial_default_json == other.initial_default_json &&
         write_default_json == other.write_default_json && FieldPtrEquals(type, other.type);
}

const NestedField* Type::FieldById(int32_t field_id) const {
  for (const auto& f : fields_) {
    if (f.id == field_id) return &f;
  }
  return nullptr;
}

const NestedField* Type::FieldByName(std::string_view name) const {
  for (const auto& f : fields_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string Type::ToString() const {
  switch (id_) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt:
      return "int";
    case TypeId::kLong:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampTz:
      return "timestamptz";
    case TypeId::kString:
      return "string";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kFixed:
      return "fixed[" + std::to_string(length_) + "]";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kUnsupported:
      return name_;
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) out += ", ";
        out += fields_[i].name + ": " + (fields_[i].type ? fields_[i].type->ToString() : "?");
      }
      return out + ">";
    }
    case TypeId::kList:
      return "list<" + (fields_[0].type ? fields_[0].type->ToString() : "?") + ">";
    case TypeId::kMap:
      return "map<" + (fields_[0].type ? fields_[0].type->ToString() : "?") + ", " +
             (fields_[1].type ? fields_[1].type->ToString() : "?") + ">";
  }
  return "unknown";
}

bool Type::Equals(const Type& other) const {
  if (this == &other) return true;
  return id_ == other.id_ && precision_ == other.precision_ && scale_ == other.scale_ &&
         length_ == other.length_ && name_ == other.name_ && fields_ == other.fields_;
}

#define FLOE_PRIMITIVE_FACTORY(Name, Id)                 \
  TypePtr Type::Name() {                                 \
    static const TypePtr instance(new Type(TypeId::Id)); \
    return instance;                                     \
  }

FLOE_PRIMITIVE_FACTORY(Boolean, kBoolean)
FLOE_PRIMITIVE_FACTORY(Int, kInt)
FLOE_PRIMITIVE_FACTORY(Long, kLong)
FLOE_PRIMITIVE_FACTORY(Float, kFloat)
FLOE_PRIMITIVE_FACTORY(Double, kDouble)
FLOE_PRIMITIVE_FACTORY(Date, kDate)
FLOE_PRIMITIVE_FACTORY(Time, kTime)
FLOE_PRIMITIVE_FACTORY(Timestamp, kTimestamp)
FLOE_PRIMITIVE_FACTORY(TimestampTz, kTimestampTz)
FLOE_PRIMITIVE_FACTORY(String, kString)
FLOE_PRIMITIVE_FACTORY(Uuid, kUuid)
FLOE_PRIMITIVE_FACTORY(Binary, kBinary)

#undef FLOE_PRIMITIVE_FACTORY

TypePtr Type::Unsupported(std::string name) {
  auto t = std::shared_ptr<Type>(new Type(TypeId::kUnsupported));
  t->name_ = std::move(name);
  return t;
}

TypePtr Type::Decimal(int32_t precision, int32_t scale) {
  auto t = std::shared_ptr<Type>(new Type(TypeId::kDecimal));
  t->precision_ = precision;
  t->scale_ = scale;
  return t;
}

TypePtr Type::Fixed(int32_t length) {
  auto t = std::shared_ptr<Type>(new Type(TypeId::kFixed));
  t->length_ = length;
  return t;
}

TypePtr Type::Struct(std::vector<NestedField> fields) {
  auto t = std::shared_ptr<Type>(new Type(TypeId::kStruct));
  t->fields_ = std::move(fields);
  return t;
}

TypePtr Type::List(int32_t element_id, TypePtr element, bool element_required) {
  auto t = std::shared_ptr<Type>(new Type(TypeId::kList));
  NestedField f;
  f.id = element_id;
  f.name = "element";
  f.type = std::move(element);
  f.required = element_required;
  t->fields_.push_back(std::move(f));
  return t;
}

TypePtr Type::Map(int32_t key_id, TypePtr key, int32_t value_id, TypePtr value,
                  bool value_required) {
  auto t = std::shared_ptr<Type>(new Type(TypeId::kMap));
  NestedField k;
  k.id = key_id;
  k.name = "key";
  k.type = std::move(key);
  k.required = true;  // map keys are always required (spec: "Nested Types")
  NestedField v;
  v.id = value_id;
  v.name = "value";
  v.type = std::move(value);
  v.required = value_required;
  t->fields_.push_back(std::move(k));
  t->fields_.push_back(std::move(v));
  return t;
}

Result<TypePtr> Type::ParsePrimitive(std::string_view name) {
  // Java accepts any case and spaces inside decimal(P, S) and fixed[L]; so do we.
  const std::string lower = AsciiLower(Trim(name));
  static const std::pair<const char*, TypePtr (*)()> kSimple[] = {
      {"boolean", &Type::Boolean},
      {"int", &Type::Int},
      {"long", &Type::Long},
      {"float", &Type::Float},
      {"double", &Type::Double},
      {"date", &Type::Date},
      {"time", &Type::Time},
      {"timestamp", &Type::Timestamp},
      {"timestamptz", &Type::TimestampTz},
      {"string", &Type::String},
      {"uuid", &Type::Uuid},
      {"binary", &Type::Binary},
  };
  for (const auto& [text, factory] : kSimple) {
    if (lower == text) return factory();
  }
  std::string_view s = lower;
  if (s.starts_with("fixed[") && s.ends_with("]")) {
    int32_t length = 0;
    if (ParseNonNegative(s.substr(6, s.size() - 7), &length)) return Fixed(length);
  }
  if (s.starts_with("decimal(") && s.ends_with(")")) {
    std::string_view inner = s.substr(8, s.size() - 9);
    size_t comma = inner.find(',');
    int32_t precision = 0;
    int32_t scale = 0;
    if (comma != std::string_view::npos && ParseNonNegative(inner.substr(0, comma), &precision) &&
        ParseNonNegative(inner.substr(comma + 1), &scale)) {
      if (precision > 38) {
        return ValidationError("Decimals with precision larger than 38 are not supported: ",
                               precision);
      }
      return Decimal(precision, scale);
    }
  }
  // Format v3's types floe does not read yet; a table with them stays readable elsewhere.
  for (const char* v3 : {"variant", "unknown", "timestamp_ns", "timestamptz_ns"}) {
    if (lower == v3) return Unsupported(lower);
  }
  if (s == "geometry" || s == "geography" || ((s.starts_with("geometry(") || s.starts_with("geography(")) && s.ends_with(")"))) {
    return Unsupported(std::string(Trim(name)));
  }
  return ValidationError("Cannot parse type string to primitive: ", name);
}

NestedField Required(int32_t id, std::string name, TypePtr type, std::string doc) {
  NestedField f;
  f.id = id;
  f.name = std::move(name);
  f.type = std::move(type);
  f.required = true;
  f.doc = std::move(doc);
  return f;
}

NestedField Optional(int32_t id, std::string name, TypePtr type, std::string doc) {
  NestedField f = Required(id, std::move(name), std::move(type), std::move(doc));
  f.required = false;
  return f;
}

}  // namespace floe::spec
