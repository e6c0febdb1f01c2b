// floe's first example: create a table in the default catalog (./warehouse/catalog.db),
// append three batches of orders, print the snapshot history, then read the table as of
// its first snapshot.

#include <filesystem>
#include <iostream>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/scan/table_scan.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"
#include "floe/util/clock.h"

namespace {

using floe::Result;
using floe::Status;

Result<std::shared_ptr<arrow::Table>> Orders(int first_id, int count) {
  arrow::Int64Builder id;
  arrow::StringBuilder customer;
  arrow::Decimal128Builder amount(arrow::decimal128(10, 2));
  for (int i = 0; i < count; ++i) {
    ARROW_RETURN_NOT_OK(id.Append(first_id + i));
    ARROW_RETURN_NOT_OK(customer.Append("customer-" + std::to_string((first_id + i) % 7)));
    ARROW_RETURN_NOT_OK(amount.Append(arrow::Decimal128(1000 + 125 * (first_id + i))));
  }
  ARROW_ASSIGN_OR_RAISE(auto a, id.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, customer.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, amount.Finish());
  auto schema = arrow::schema({arrow::field("order_id", arrow::int64(), false),
                               arrow::field("customer", arrow::utf8()),
                               arrow::field("amount", arrow::decimal128(10, 2))});
  return arrow::Table::Make(schema, {a, b, c});
}

// Prints rows the way Spark's show() does.
void PrintRows(const arrow::Table& table) {
  std::vector<std::vector<std::string>> cells(1);
  for (const auto& f : table.schema()->fields()) cells[0].push_back(f->name());
  for (int64_t r = 0; r < table.num_rows(); ++r) {
    std::vector<std::string> row;
    for (int c = 0; c < table.num_columns(); ++c) {
      auto scalar = table.column(c)->GetScalar(r).ValueOrDie();
      row.push_back(scalar->is_valid ? scalar->ToString() : "NULL");
    }
    cells.push_back(std::move(row));
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string rule = "+";
  for (size_t w : width) rule += std::string(w, '-') + "+";
  std::cout << rule << "\n";
  for (size_t r = 0; r < cells.size(); ++r) {
    std::cout << "|";
    for (size_t c = 0; c < cells[r].size(); ++c) {
      std::cout << std::string(width[c] - cells[r][c].size(), ' ') << cells[r][c] << "|";
    }
    std::cout << "\n";
    if (r == 0) std::cout << rule << "\n";
  }
  std::cout << rule << "\n";
}

Status Run() {
  std::filesystem::path warehouse = std::filesystem::absolute("warehouse");
  std::filesystem::create_directories(warehouse);
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<floe::Catalog> catalog,
                        floe::SqlCatalog::Open((warehouse / "catalog.db").string(), "lakehouse",
                                               warehouse.string()));
  ARROW_ASSIGN_OR_RAISE(auto io, floe::FileIO::MakeLocal());
  floe::table::TableCatalog tables(catalog, io);

  floe::Namespace ns({"demo"});
  ARROW_ASSIGN_OR_RAISE(bool ns_exists, catalog->NamespaceExists(ns));
  if (!ns_exists) ARROW_RETURN_NOT_OK(catalog->CreateNamespace(ns, {}));
  floe::TableIdentifier ident(ns, "orders");
  ARROW_ASSIGN_OR_RAISE(bool exists, catalog->TableExists(ident));
  if (exists) ARROW_RETURN_NOT_OK(tables.DropTable(ident, /*purge=*/true));

  ARROW_ASSIGN_OR_RAISE(auto first, Orders(1, 3));
  ARROW_ASSIGN_OR_RAISE(auto schema, floe::table::SchemaFromArrow(*first->schema()));
  ARROW_ASSIGN_OR_RAISE(auto table, tables.CreateTable(ident, *schema));
  std::cout << "created lakehouse." << ident.ToString() << " at " << table->metadata()->location
            << "\n\n";

  ARROW_RETURN_NOT_OK(floe::table::AppendData(*table, *first).status());
  ARROW_ASSIGN_OR_RAISE(auto second, Orders(4, 2));
  ARROW_RETURN_NOT_OK(floe::table::AppendData(*table, *second).status());
  ARROW_ASSIGN_OR_RAISE(auto third, Orders(6, 4));
  ARROW_RETURN_NOT_OK(floe::table::AppendData(*table, *third).status());

  auto md = table->metadata();
  std::cout << "history (snapshot-log):\n";
  std::cout << "  made_current_at          snapshot_id           parent_id             operation  total-records\n";
  for (const auto& entry : md->snapshot_log) {
    const auto* snap = md->SnapshotById(entry.snapshot_id);
    std::string parent = snap->parent_snapshot_id ? std::to_string(*snap->parent_snapshot_id) : "null";
    std::cout << "  " << floe::FormatMillisUtc(entry.timestamp_ms) << "  " << snap->snapshot_id
              << "  " << parent << std::string(22 - std::min<size_t>(parent.size(), 21), ' ')
              << snap->operation << "     " << snap->summary.at("total-records") << "\n";
  }

  const int64_t first_snapshot = md->snapshot_log.front().snapshot_id;
  ARROW_ASSIGN_OR_RAISE(auto now, floe::scan::TableScan(table).ToArrowTable());
  ARROW_ASSIGN_OR_RAISE(auto then, floe::scan::TableScan(table).UseSnapshot(first_snapshot).ToArrowTable());
  std::cout << "\ncurrent snapshot " << *md->current_snapshot_id << ": " << now->num_rows() << " rows\n";
  std::cout << "as of first snapshot " << first_snapshot << ": " << then->num_rows() << " rows\n";
  ARROW_ASSIGN_OR_RAISE(auto sorted, arrow::compute::SortIndices(arrow::Datum(then), arrow::compute::SortOptions({arrow::compute::SortKey("order_id")})));
  ARROW_ASSIGN_OR_RAISE(auto ordered, arrow::compute::Take(then, sorted));
  PrintRows(*ordered.table());
  return Status::OK();
}

}  // namespace

int main() {
  Status st = Run();
  if (!st.ok()) {
    std::cerr << "error: " << st.message() << "\n";
    return 1;
  }
  return 0;
}
