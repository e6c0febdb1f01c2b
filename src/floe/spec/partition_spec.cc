#include "floe/spec/partition_spec.h"

#include <algorithm>

namespace floe::spec {

namespace {

// java.net.URLEncoder with UTF-8: letters, digits and ".-*_" stay, space becomes '+', every
// other byte is %XX (upper-case hex).
std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      out.push_back(ch);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace

bool PartitionSpec::is_unpartitioned() const {
  return std::all_of(fields_.begin(), fields_.end(), [](const PartitionField& f) {
    return f.transform.kind() == TransformKind::kVoid;
  });
}

int32_t PartitionSpec::LastAssignedFieldId() const {
  int32_t last = kFirstPartitionFieldId - 1;
  for (const auto& f : fields_) last = std::max(last, f.field_id);
  return last;
}

Result<TypePtr> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<NestedField> fields;
  fields.reserve(fields_.size());
  for (const auto& f : fields_) {
    const NestedField* source = schema.FindFieldById(f.source_id);
    TypePtr result;
    if (source == nullptr) {
      // A void field may outlive its dropped source column (v1 partition evolution).
      if (f.transform.kind() != TransformKind::kVoid) {
        return ValidationError("Cannot find source column for partition field ", f.name, ": ",
                               f.source_id);
      }
      result = Type::Int();
    } else {
      auto r = f.transform.ResultType(source->type);
      if (!r.ok()) {
        return ValidationError("Invalid partition field ", f.name, ": ", r.status().message());
      }
      result = *r;
    }
    fields.push_back(Optional(f.field_id, f.name, std::move(result)));
  }
  return Type::Struct(std::move(fields));
}

std::string PartitionSpec::PartitionPath(const std::vector<Literal>& values) const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out.push_back('/');
    const Literal null_value;
    const Literal& v = i < values.size() ? values[i] : null_value;
    out += UrlEncode(fields_[i].name);
    out.push_back('=');
    out += UrlEncode(fields_[i].transform.ToHumanString(v));
  }
  return out;
}

bool PartitionSpec::CompatibleWith(const PartitionSpec& other) const {
  if (fields_.size() != other.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& a = fields_[i];
    const auto& b = other.fields_[i];
    if (a.source_id != b.source_id || a.name != b.name ||
        a.transform.ToString() != b.transform.ToString()) {
      return false;
    }
  }
  return true;
}

}  // namespace floe::spec
