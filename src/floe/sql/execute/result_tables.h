#pragma once

// Building statement results: a message, or rows.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/sql/session.h"

namespace floe::sql {

StatementResult Message(std::string text);
StatementResult Rows(std::shared_ptr<arrow::Table> rows);

// A table of strings from rows of cells (nullopt is NULL).
std::shared_ptr<arrow::Table> StringTable(const std::vector<std::string>& names,
                                          const std::vector<std::vector<std::optional<std::string>>>& rows);

}  // namespace floe::sql
