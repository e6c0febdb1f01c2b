#pragma once

// A planned relation: an Acero declaration and the columns it produces, with the names and
// qualifiers SQL resolves against.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/acero/exec_plan.h>
#include <arrow/compute/expression.h>
#include <arrow/type_fwd.h>

#include "floe/util/status.h"

namespace floe::sql {

struct Column {
  std::string name;
  // Qualifiers that reach this column: the table alias, or the table name (and its
  // namespace parts, so `db.t.c` resolves). Lower-cased.
  std::vector<std::vector<std::string>> qualifiers;
  std::shared_ptr<arrow::DataType> type;
  bool nullable = true;
  bool hidden = false;  // not part of SELECT * (helper columns)
};

struct TableFacts;

struct Rel {
  arrow::acero::Declaration decl;
  std::vector<Column> columns;
  // Set only on the plain read of one table, for answers its metadata gives.
  std::shared_ptr<const TableFacts> facts;

  std::shared_ptr<arrow::Schema> schema() const;
};

std::string Lower(std::string s);

// Columns a statement adds to the queries it runs for itself (MERGE's row file, position and
// source marker) start with this; error messages never suggest them.
inline constexpr std::string_view kInternalColumnPrefix = "__floe_";

// Runs a relation to completion.
Result<std::shared_ptr<arrow::Table>> Execute(const Rel& rel);

// How every plan of a statement runs: its memory comes from the statement's pool
// (floe/util/memory_limit.h), so the statement's limits hold in every operator.
arrow::acero::QueryOptions StatementPlanOptions(bool use_threads);

// A relation over rows already in memory.
Rel RelFromTable(std::shared_ptr<arrow::Table> table, std::vector<std::string> qualifier = {});
// A relation read once from a stream (a table function's rows).
Rel RelFromReader(std::shared_ptr<arrow::RecordBatchReader> reader, std::vector<std::string> qualifier = {});
// A relation of `schema`'s columns produced by the plan `source`.
Rel RelFromSchema(const arrow::Schema& schema, arrow::acero::Declaration source, std::vector<std::string> qualifier = {});

// `input` followed by a projection node computing `exprs` as columns `names`.
arrow::acero::Declaration Project(arrow::acero::Declaration input, std::vector<arrow::compute::Expression> exprs,
                                  std::vector<std::string> names);

}  // namespace floe::sql
