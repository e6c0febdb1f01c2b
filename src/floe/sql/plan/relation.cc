#include "floe/sql/plan/relation.h"

#include "floe/sql/plan/flow_gate.h"

#include "floe/util/ascii.h"
#include "floe/util/memory_limit.h"

#include <arrow/acero/options.h>
#include <arrow/table.h>

namespace floe::sql {

std::string Lower(std::string s) { return AsciiLower(s); }

std::shared_ptr<arrow::Schema> Rel::schema() const {
  arrow::FieldVector fields;
  for (const auto& c : columns) fields.push_back(arrow::field(c.name, c.type, c.nullable));
  return arrow::schema(std::move(fields));
}

arrow::acero::QueryOptions StatementPlanOptions(bool use_threads) {
  arrow::acero::QueryOptions options;
  options.use_threads = use_threads;
  options.memory_pool = StatementMemoryPool();
  return options;
}

Result<std::shared_ptr<arrow::Table>> Execute(const Rel& rel) {
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::acero::DeclarationToTable(rel.decl, StatementPlanOptions(true)));
  // Acero names columns by position; give them the SQL names.
  std::vector<std::string> names;
  for (const auto& c : rel.columns) names.push_back(c.name);
  if (table->num_columns() != static_cast<int>(names.size())) {
    return Status::Invalid("internal: plan produced ", table->num_columns(), " columns, expected ",
                           names.size());
  }
  ARROW_ASSIGN_OR_RAISE(table, table->RenameColumns(names));
  return table->CombineChunks(StatementMemoryPool());
}

namespace {

std::vector<Column> ColumnsOf(const arrow::Schema& schema, const std::vector<std::string>& qualifier) {
  std::vector<Column> columns;
  for (const auto& f : schema.fields()) {
    Column c;
    c.name = f->name();
    if (!qualifier.empty()) c.qualifiers.push_back(qualifier);
    c.type = f->type();
    c.nullable = f->nullable();
    columns.push_back(std::move(c));
  }
  return columns;
}

}  // namespace

Rel RelFromTable(std::shared_ptr<arrow::Table> table, std::vector<std::string> qualifier) {
  Rel rel;
  rel.columns = ColumnsOf(*table->schema(), qualifier);
  rel.decl = arrow::acero::Declaration("table_source", arrow::acero::TableSourceNodeOptions(std::move(table)));
  return rel;
}

Rel RelFromReader(std::shared_ptr<arrow::RecordBatchReader> reader, std::vector<std::string> qualifier) {
  Rel rel = RelFromSchema(*reader->schema(), {}, std::move(qualifier));
  rel.decl = GatedSource(std::move(reader));
  return rel;
}

Rel RelFromSchema(const arrow::Schema& schema, arrow::acero::Declaration source, std::vector<std::string> qualifier) {
  Rel rel;
  rel.columns = ColumnsOf(schema, qualifier);
  rel.decl = std::move(source);
  return rel;
}

arrow::acero::Declaration Project(arrow::acero::Declaration input, std::vector<arrow::compute::Expression> exprs,
                                  std::vector<std::string> names) {
  return arrow::acero::Declaration::Sequence(
      {std::move(input), {"project", arrow::acero::ProjectNodeOptions(std::move(exprs), std::move(names))}});
}

}  // namespace floe::sql
