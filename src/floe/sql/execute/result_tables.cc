#include "floe/sql/execute/result_tables.h"

#include <arrow/api.h>

namespace floe::sql {

StatementResult Message(std::string text) {
  StatementResult r;
  r.message = std::move(text);
  return r;
}

StatementResult Rows(std::shared_ptr<arrow::Table> rows) {
  StatementResult r;
  r.rows = std::move(rows);
  return r;
}

// A table of strings from rows of cells.
std::shared_ptr<arrow::Table> StringTable(const std::vector<std::string>& names,
                                          const std::vector<std::vector<std::optional<std::string>>>& rows) {
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < names.size(); ++c) {
    arrow::StringBuilder b;
    for (const auto& row : rows) {
      if (row[c]) {
        (void)b.Append(*row[c]);
      } else {
        (void)b.AppendNull();
      }
    }
    fields.push_back(arrow::field(names[c], arrow::utf8()));
    arrays.push_back(b.Finish().ValueOrDie());
  }
  return arrow::Table::Make(arrow::schema(fields), arrays);
}

}  // namespace floe::sql
