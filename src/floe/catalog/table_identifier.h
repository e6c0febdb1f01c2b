#pragma once

// Namespaces and table identifiers as Iceberg names them: "a.b" is the two-level namespace
// [a, b], "a.b.t" the table t in it. The dotted form is also how the JDBC catalog stores a
// namespace, so a level may not itself contain a dot.

#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe {

// The parts of `text` between its dots, empty ones kept ("" is one empty part): how names are
// split without the checks of Parse, such as a namespace as the catalog database stores it.
std::vector<std::string> SplitDots(std::string_view text);

struct Namespace {
  std::vector<std::string> levels;

  Namespace() = default;
  explicit Namespace(std::vector<std::string> l) : levels(std::move(l)) {}

  // "" is the empty (root) namespace; empty levels ("a..b", ".a") are rejected.
  static Result<Namespace> Parse(std::string_view dotted);

  bool empty() const { return levels.empty(); }
  size_t size() const { return levels.size(); }
  std::string ToString() const;
  // Levels must be non-empty and free of '.'; the error names the namespace.
  Status Validate() const;
  // Validate() plus the rules for a name that becomes a directory (CheckNewName), for
  // namespaces being created or receiving a table.
  Status ValidateNew() const;
  // True if this namespace starts with all of `prefix`'s levels (a namespace is its own
  // ancestor).
  bool HasPrefix(const Namespace& prefix) const;

  auto operator<=>(const Namespace&) const = default;
  bool operator==(const Namespace&) const = default;
};

struct TableIdentifier {
  Namespace ns;
  std::string name;

  TableIdentifier() = default;
  TableIdentifier(Namespace n, std::string table) : ns(std::move(n)), name(std::move(table)) {}

  // The last dotted part is the table name: "a.b.t" -> ([a, b], t); "t" -> ([], t).
  static Result<TableIdentifier> Parse(std::string_view dotted);

  std::string ToString() const;
  Status Validate() const;
  // Validate() plus CheckNewName for the table name and every namespace level: for tables
  // being created or renamed.
  Status ValidateNew() const;

  auto operator<=>(const TableIdentifier&) const = default;
  bool operator==(const TableIdentifier&) const = default;
};

// The rules for a new table or namespace name, which becomes a directory of the warehouse:
// not empty, not "." or "..", no backslash, NUL or other control characters. `kind` is
// "table" or "namespace"; the error quotes the name (control characters escaped) and the rule,
// e.g. "Invalid table name '..': a name must not be '.' or '..'".
Status CheckNewName(std::string_view kind, std::string_view name);

// The directory a table name or namespace level becomes: the name itself, unless it holds '/'
// (a separator to every file system and object store) or '~' (the escape). Then '~' is
// written "~~" and '/' "~s", so "tab/le" lives in "tab~sle": no two names share a directory
// and no name reaches into another's.
std::string LocationSegment(std::string_view name);

std::ostream& operator<<(std::ostream& out, const Namespace& ns);
std::ostream& operator<<(std::ostream& out, const TableIdentifier& ident);

}  // namespace floe

template <>
struct std::hash<floe::Namespace> {
  size_t operator()(const floe::Namespace& ns) const noexcept;
};

template <>
struct std::hash<floe::TableIdentifier> {
  size_t operator()(const floe::TableIdentifier& ident) const noexcept;
};
