#include "floe/catalog/table_identifier.h"

namespace floe {

std::vector<std::string> SplitDots(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    parts.emplace_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

namespace {

// Control characters would be invisible (or cut the message) if printed raw.
std::string Printable(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

size_t HashCombine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace

Result<Namespace> Namespace::Parse(std::string_view dotted) {
  if (dotted.empty()) return Namespace();
  Namespace ns(SplitDots(dotted));
  for (const auto& level : ns.levels) {
    if (level.empty()) return ValidationError("Invalid namespace: '", dotted, "'");
  }
  return ns;
}

std::string Namespace::ToString() const {
  std::string out;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (i > 0) out += '.';
    out += levels[i];
  }
  return out;
}

Status Namespace::Validate() const {
  for (const auto& level : levels) {
    if (level.empty()) return ValidationError("Invalid namespace ", ToString(), ": empty level");
    if (level.find('.') != std::string::npos) {
      return ValidationError("Invalid namespace level '", level, "': it contains '.'");
    }
  }
  return Status::OK();
}

Status CheckNewName(std::string_view kind, std::string_view name) {
  const char* rule = nullptr;
  if (name.empty()) {
    rule = "a name must not be empty";
  } else if (name == "." || name == "..") {
    rule = "a name must not be '.' or '..'";
  } else if (name.find('\\') != std::string_view::npos) {
    rule = "a name must not contain '\\'";
  } else {
    for (char c : name) {
      auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) {
        rule = "a name must not contain NUL or other control characters";
        break;
      }
    }
  }
  if (rule == nullptr) return Status::OK();
  return ValidationError("Invalid ", kind, " name '", Printable(name), "': ", rule);
}

std::string LocationSegment(std::string_view name) {
  if (name.find_first_of("/~") == std::string_view::npos) return std::string(name);
  std::string out;
  out.reserve(name.size() + 4);
  for (char c : name) {
    if (c == '~') {
      out += "~~";
    } else if (c == '/') {
      out += "~s";
    } else {
      out += c;
    }
  }
  return out;
}

Status Namespace::ValidateNew() const {
  for (const auto& level : levels) ARROW_RETURN_NOT_OK(CheckNewName("namespace", level));
  return Validate();
}

bool Namespace::HasPrefix(const Namespace& prefix) const {
  if (prefix.levels.size() > levels.size()) return false;
  for (size_t i = 0; i < prefix.levels.size(); ++i) {
    if (levels[i] != prefix.levels[i]) return false;
  }
  return true;
}

Result<TableIdentifier> TableIdentifier::Parse(std::string_view dotted) {
  auto parts = SplitDots(dotted);
  for (const auto& part : parts) {
    if (part.empty()) return ValidationError("Invalid table identifier: '", dotted, "'");
  }
  std::string name = std::move(parts.back());
  parts.pop_back();
  return TableIdentifier(Namespace(std::move(parts)), std::move(name));
}

std::string TableIdentifier::ToString() const {
  if (ns.empty()) return name;
  return StrCat(ns.ToString(), ".", name);
}

Status TableIdentifier::Validate() const {
  if (name.empty()) return ValidationError("Invalid table identifier ", ToString(), ": empty name");
  return ns.Validate();
}

Status TableIdentifier::ValidateNew() const {
  ARROW_RETURN_NOT_OK(ns.ValidateNew());
  ARROW_RETURN_NOT_OK(CheckNewName("table", name));
  return Validate();
}

std::ostream& operator<<(std::ostream& out, const Namespace& ns) { return out << ns.ToString(); }
std::ostream& operator<<(std::ostream& out, const TableIdentifier& ident) {
  return out << ident.ToString();
}

}  // namespace floe

size_t std::hash<floe::Namespace>::operator()(const floe::Namespace& ns) const noexcept {
  size_t seed = ns.levels.size();
  for (const auto& level : ns.levels) {
    seed = floe::HashCombine(seed, std::hash<std::string>()(level));
  }
  return seed;
}

size_t std::hash<floe::TableIdentifier>::operator()(
    const floe::TableIdentifier& ident) const noexcept {
  return floe::HashCombine(std::hash<floe::Namespace>()(ident.ns),
                           std::hash<std::string>()(ident.name));
}
