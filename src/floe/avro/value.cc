#include "floe/avro/value.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace floe::avro {

const char* KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBool:
      return "boolean";
    case Value::Kind::kInt:
      return "int";
    case Value::Kind::kLong:
      return "long";
    case Value::Kind::kFloat:
      return "float";
    case Value::Kind::kDouble:
      return "double";
    case Value::Kind::kString:
      return "string";
    case Value::Kind::kBytes:
      return "bytes";
    case Value::Kind::kFixed:
      return "fixed";
    case Value::Kind::kEnum:
      return "enum";
    case Value::Kind::kArray:
      return "array";
    case Value::Kind::kMap:
      return "map";
    case Value::Kind::kRecord:
      return "record";
    case Value::Kind::kUnion:
      return "union";
  }
  return "unknown";
}

Value Value::Bool(bool v) {
  Value out;
  out.kind_ = Kind::kBool;
  out.scalar_.b = v;
  return out;
}

Value Value::Int(int32_t v) {
  Value out;
  out.kind_ = Kind::kInt;
  out.scalar_.i = v;
  return out;
}

Value Value::Long(int64_t v) {
  Value out;
  out.kind_ = Kind::kLong;
  out.scalar_.l = v;
  return out;
}

Value Value::Float(float v) {
  Value out;
  out.kind_ = Kind::kFloat;
  out.scalar_.f = v;
  return out;
}

Value Value::Double(double v) {
  Value out;
  out.kind_ = Kind::kDouble;
  out.scalar_.d = v;
  return out;
}

Value Value::String(std::string v) {
  Value out;
  out.kind_ = Kind::kString;
  out.bytes_ = std::move(v);
  return out;
}

Value Value::Bytes(std::string v) {
  Value out;
  out.kind_ = Kind::kBytes;
  out.bytes_ = std::move(v);
  return out;
}

Value Value::Fixed(std::string v) {
  Value out;
  out.kind_ = Kind::kFixed;
  out.bytes_ = std::move(v);
  return out;
}

Value Value::Enum(int32_t index) {
  Value out;
  out.kind_ = Kind::kEnum;
  out.index_ = index;
  return out;
}

Value Value::Array(std::vector<Value> items) {
  Value out;
  out.kind_ = Kind::kArray;
  out.children_ = std::move(items);
  return out;
}

Value Value::Map(std::vector<std::pair<std::string, Value>> entries) {
  Value out;
  out.kind_ = Kind::kMap;
  out.keys_.reserve(entries.size());
  out.children_.reserve(entries.size());
  for (auto& [k, v] : entries) {
    out.keys_.push_back(std::move(k));
    out.children_.push_back(std::move(v));
  }
  return out;
}

Value Value::Record(std::vector<Value> fields) {
  Value out;
  out.kind_ = Kind::kRecord;
  out.children_ = std::move(fields);
  return out;
}

Value Value::Union(int32_t branch, Value value) {
  Value out;
  out.kind_ = Kind::kUnion;
  out.index_ = branch;
  out.children_.push_back(std::move(value));
  return out;
}

bool Value::AsBool() const {
  const Value& v = Unwrapped();
  return v.kind_ == Kind::kBool && v.scalar_.b;
}

int32_t Value::AsInt32() const {
  const Value& v = Unwrapped();
  return v.kind_ == Kind::kInt ? v.scalar_.i : 0;
}

int64_t Value::AsInt64() const {
  const Value& v = Unwrapped();
  if (v.kind_ == Kind::kLong) return v.scalar_.l;
  if (v.kind_ == Kind::kInt) return v.scalar_.i;
  return 0;
}

float Value::AsFloat() const {
  const Value& v = Unwrapped();
  return v.kind_ == Kind::kFloat ? v.scalar_.f : 0.0f;
}

double Value::AsDouble() const {
  const Value& v = Unwrapped();
  switch (v.kind_) {
    case Kind::kDouble:
      return v.scalar_.d;
    case Kind::kFloat:
      return v.scalar_.f;
    case Kind::kLong:
      return static_cast<double>(v.scalar_.l);
    case Kind::kInt:
      return v.scalar_.i;
    default:
      return 0.0;
  }
}

std::string_view Value::AsString() const {
  const Value& v = Unwrapped();
  switch (v.kind_) {
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kFixed:
      return v.bytes_;
    default:
      return {};
  }
}

int32_t Value::AsEnum() const {
  const Value& v = Unwrapped();
  return v.kind_ == Kind::kEnum ? v.index_ : 0;
}

namespace {

Status WrongKind(const char* expected, Value::Kind actual) {
  return Status::TypeError("expected an Avro ", expected, " value, got ", KindName(actual));
}

}  // namespace

Result<bool> Value::GetBool() const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kBool) return WrongKind("boolean", v.kind_);
  return v.scalar_.b;
}

Result<int32_t> Value::GetInt32() const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kInt) return WrongKind("int", v.kind_);
  return v.scalar_.i;
}

Result<int64_t> Value::GetInt64() const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kLong && v.kind_ != Kind::kInt) return WrongKind("long", v.kind_);
  return v.AsInt64();
}

Result<double> Value::GetDouble() const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kDouble && v.kind_ != Kind::kFloat) return WrongKind("double", v.kind_);
  return v.AsDouble();
}

Result<std::string_view> Value::GetString() const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kString) return WrongKind("string", v.kind_);
  return std::string_view(v.bytes_);
}

Result<std::string_view> Value::GetBytes() const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kBytes && v.kind_ != Kind::kFixed) return WrongKind("bytes", v.kind_);
  return std::string_view(v.bytes_);
}

Result<const Value*> Value::GetField(size_t i) const {
  const Value& v = Unwrapped();
  if (v.kind_ != Kind::kRecord) return WrongKind("record", v.kind_);
  if (i >= v.children_.size()) {
    return Status::IndexError("Avro record has ", v.children_.size(), " fields, no field ", i);
  }
  return &v.children_[i];
}

namespace {

void AppendQuoted(std::ostringstream& out, std::string_view s, bool binary) {
  out << '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c < 0x20 || c >= 0x7f) {
      if (!binary && c >= 0x80) {
        out << c;
      } else {
        static const char* kHex = "0123456789abcdef";
        out << "\\x" << kHex[c >> 4] << kHex[c & 15];
      }
    } else {
      out << c;
    }
  }
  out << '"';
}

void Print(const Value& v, std::ostringstream& out) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      out << "null";
      break;
    case Value::Kind::kBool:
      out << (v.AsBool() ? "true" : "false");
      break;
    case Value::Kind::kInt:
    case Value::Kind::kLong:
      out << v.AsInt64();
      break;
    case Value::Kind::kFloat:
      out << v.AsFloat() << 'f';
      break;
    case Value::Kind::kDouble:
      out << v.AsDouble();
      break;
    case Value::Kind::kString:
      AppendQuoted(out, v.AsString(), false);
      break;
    case Value::Kind::kBytes:
    case Value::Kind::kFixed:
      out << (v.kind() == Value::Kind::kBytes ? "b" : "fixed");
      AppendQuoted(out, v.AsString(), true);
      break;
    case Value::Kind::kEnum:
      out << "enum(" << v.AsEnum() << ')';
      break;
    case Value::Kind::kArray:
    case Value::Kind::kRecord:
      out << (v.kind() == Value::Kind::kArray ? '[' : '{');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out << ", ";
        Print(v.item(i), out);
      }
      out << (v.kind() == Value::Kind::kArray ? ']' : '}');
      break;
    case Value::Kind::kMap:
      out << "map{";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out << ", ";
        AppendQuoted(out, v.key(i), false);
        out << ": ";
        Print(v.value(i), out);
      }
      out << '}';
      break;
    case Value::Kind::kUnion:
      out << "union(" << v.branch() << ", ";
      Print(v.branch_value(), out);
      out << ')';
      break;
  }
}

}  // namespace

std::string Value::ToString() const {
  std::ostringstream out;
  Print(*this, out);
  return out.str();
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return a.scalar_.b == b.scalar_.b;
    case Value::Kind::kInt:
      return a.scalar_.i == b.scalar_.i;
    case Value::Kind::kLong:
      return a.scalar_.l == b.scalar_.l;
    // Bitwise, so that NaN equals itself after a round trip.
    case Value::Kind::kFloat:
      return std::memcmp(&a.scalar_.f, &b.scalar_.f, sizeof(float)) == 0;
    case Value::Kind::kDouble:
      return std::memcmp(&a.scalar_.d, &b.scalar_.d, sizeof(double)) == 0;
    case Value::Kind::kString:
    case Value::Kind::kBytes:
    case Value::Kind::kFixed:
      return a.bytes_ == b.bytes_;
    case Value::Kind::kEnum:
      return a.index_ == b.index_;
    case Value::Kind::kArray:
    case Value::Kind::kRecord:
      return a.children_ == b.children_;
    case Value::Kind::kMap:
      return a.keys_ == b.keys_ && a.children_ == b.children_;
    case Value::Kind::kUnion:
      return a.index_ == b.index_ && a.children_ == b.children_;
  }
  return false;
}

}  // namespace floe::avro
