// Session::Impl::Describe: what a statement returns, known before it runs.

#include <arrow/api.h>

#include "floe/sql/bind/binder.h"
#include "floe/sql/execute/command_tags.h"
#include "floe/sql/execute/executors.h"
#include "floe/sql/procedures/procedure_registry.h"
#include "floe/sql/execute/result_tables.h"
#include "floe/sql/execute/statement_executor.h"
#include "floe/table/arrow_schema.h"
#include "floe/util/ascii.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

// Each `column = $n` of SET, and each $n standing as a whole VALUES item, takes the type of the
// column it is written to.
void NoteTarget(const Expr& e, const std::shared_ptr<arrow::DataType>& type,
                std::vector<std::shared_ptr<arrow::DataType>>* types) {
  const auto* p = e.As<ParameterRef>();
  if (!p || !type) return;
  if (types->size() < static_cast<size_t>(p->index)) types->resize(p->index);
  if (!(*types)[p->index - 1]) (*types)[p->index - 1] = type;
}

Result<std::shared_ptr<arrow::Schema>> TableArrowSchema(Binder& binder, ObjectName name) {
  auto table = binder.LoadTable(name);
  if (!table.ok() && name.parts.size() > 1) {
    name.parts.pop_back();  // t.branch_b
    table = binder.LoadTable(name);
  }
  ARROW_RETURN_NOT_OK(table.status());
  return table::ToArrowSchema(*(*table)->metadata()->current_schema());
}

std::shared_ptr<arrow::DataType> ColumnType(const arrow::Schema& schema, const std::string& name) {
  for (const auto& f : schema.fields()) {
    if (Lower(f->name()) == Lower(name)) return f->type();
  }
  return nullptr;
}

}  // namespace

Result<StatementShape> Session::Impl::Describe(const Statement& statement, const std::string& sql,
                                               int parameter_count) {
  StatementShape shape;
  shape.parameter_count = parameter_count;
  std::vector<std::shared_ptr<arrow::DataType>> types(parameter_count);
  Binder binder(state_, sql);
  binder.DescribeParameters(&types);
  shape.returns_rows = ReturnsRows(statement);
  if (const auto* q = statement.As<Query>()) {
    QueryPlanner planner = binder.Planner();
    ARROW_ASSIGN_OR_RAISE(Rel rel, planner.PlanQuery(*q));
    arrow::FieldVector fields;
    for (const auto& c : rel.columns) {
      fields.push_back(arrow::field(c.name, c.type, c.nullable));
    }
    shape.schema = arrow::schema(std::move(fields));
  } else if (const auto* insert = statement.As<Insert>()) {
    if (const auto* values = insert->query.As<Values>()) {
      ARROW_ASSIGN_OR_RAISE(auto schema, TableArrowSchema(binder, insert->table));
      std::vector<std::shared_ptr<arrow::DataType>> targets;
      if (insert->columns.empty()) {
        for (const auto& f : schema->fields()) targets.push_back(f->type());
      } else {
        for (const auto& c : insert->columns) targets.push_back(ColumnType(*schema, c.name));
      }
      for (const auto& row : values->rows) {
        for (size_t i = 0; i < row.size() && i < targets.size(); ++i)
          NoteTarget(row[i], targets[i], &types);
      }
    }
  } else if (const auto* update = statement.As<Update>()) {
    ARROW_ASSIGN_OR_RAISE(auto schema, TableArrowSchema(binder, update->table));
    for (const auto& a : update->assignments) {
      if (a.target.size() == 1) NoteTarget(a.value, ColumnType(*schema, a.target[0].name), &types);
    }
  } else if (const auto* call = statement.As<Call>()) {
    const Procedure* procedure = FindProcedure(call->procedure.parts.back().name);
    if (!procedure) return Status::Invalid("Procedure ", ToSql(call->procedure), " not found");
    shape.schema = procedure->result_schema;
    for (const auto& arg : call->args) {
      const Literal* value = arg.value.As<Literal>();
      if (procedure->dry_run_schema && arg.name && AsciiLower(arg.name->name) == "dry_run" && value &&
          value->kind == LiteralKind::kBoolean && value->value == "true") {
        shape.schema = procedure->dry_run_schema;
      }
    }
  } else if (statement.As<SetConfig>()) {
    shape.schema = StringTable({"key", "value"}, {})->schema();
  } else if (statement.As<CreateCatalogTag>() || statement.As<DropCatalogTag>()) {
    shape.schema = CatalogTagActionSchema();
  } else if (shape.returns_rows) {
    // SHOW, DESCRIBE and EXPLAIN change nothing; their columns are what they return.
    ARROW_ASSIGN_OR_RAISE(StatementResult result, Execute(statement, sql));
    if (result.rows) shape.schema = result.rows->schema();
  }
  types.resize(std::max<size_t>(types.size(), parameter_count));
  shape.parameter_types = std::move(types);
  return shape;
}

}  // namespace floe::sql
