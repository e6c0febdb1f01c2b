#pragma once

// Short spellings of namespaces and table names for the catalog tests.

#include <initializer_list>
#include <string>

#include "floe/catalog/table_identifier.h"

namespace floe::testing {

inline Namespace Ns(std::initializer_list<std::string> levels) { return Namespace(levels); }

inline TableIdentifier Tbl(const std::string& dotted) {
  return TableIdentifier::Parse(dotted).ValueOrDie();
}

}  // namespace floe::testing
