#pragma once

// The stored procedures `CALL <catalog>.system.<name>(...)` runs. Each is declared once, with
// its parameters and result columns; CALL's argument binding, its errors, SHOW PROCEDURES and
// the suggestions for a misspelt name all read these declarations. Adding a procedure is one
// entry in the file of its group (snapshot_procedures.cc, ...).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/type_fwd.h>

#include "floe/table/removed_file.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::sql {

// Parameter types, as Iceberg declares them (and names them in its errors).
enum class ProcedureArgType {
  kString,
  kInteger,
  kLong,
  kBoolean,
  kTimestamp,
  kLongArray,
  kStringArray,
  kStringMap
};

struct ProcedureParameter {
  std::string name;
  ProcedureArgType type;
  bool required;
};

// A CALL's arguments, bound to the procedure's parameters and converted to their types.
class ProcedureArgs {
 public:
  std::optional<std::string> String(const std::string& name) const;
  // kInteger and kLong parameters.
  std::optional<int64_t> Long(const std::string& name) const;
  std::optional<bool> Bool(const std::string& name) const;
  // Milliseconds since the epoch (snapshot-log times are millis).
  std::optional<int64_t> TimestampMillis(const std::string& name) const;
  std::optional<std::vector<int64_t>> LongArray(const std::string& name) const;
  std::optional<std::vector<std::string>> StringArray(const std::string& name) const;
  // Keys in the order the map literal gave them.
  std::optional<std::vector<std::pair<std::string, std::string>>> StringMap(const std::string& name) const;

  void SetString(const std::string& name, std::string value) { strings_.emplace_back(name, std::move(value)); }
  void SetLong(const std::string& name, int64_t value) { longs_.emplace_back(name, value); }
  void SetBool(const std::string& name, bool value) { bools_.emplace_back(name, value); }
  void SetLongArray(const std::string& name, std::vector<int64_t> value) {
    long_arrays_.emplace_back(name, std::move(value));
  }
  void SetStringArray(const std::string& name, std::vector<std::string> value) {
    string_arrays_.emplace_back(name, std::move(value));
  }
  void SetStringMap(const std::string& name, std::vector<std::pair<std::string, std::string>> value) {
    string_maps_.emplace_back(name, std::move(value));
  }

 private:
  std::vector<std::pair<std::string, std::string>> strings_;
  std::vector<std::pair<std::string, int64_t>> longs_;
  std::vector<std::pair<std::string, bool>> bools_;
  std::vector<std::pair<std::string, std::vector<int64_t>>> long_arrays_;
  std::vector<std::pair<std::string, std::vector<std::string>>> string_arrays_;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> string_maps_;
};

struct ExecContext;

struct ProcedureCall {
  std::shared_ptr<table::Table> table;  // the `table` argument, loaded (null: none)
  ProcedureArgs args;
  // The statement's session, for procedures that bind SQL text of their own (a `where`).
  ExecContext* ctx = nullptr;
};

struct Procedure {
  std::string name;
  std::string description;
  // In declaration order: positional arguments bind in this order. The first is `table`,
  // except in procedures of the whole catalog, which have none.
  std::vector<ProcedureParameter> parameters;
  std::shared_ptr<arrow::Schema> result_schema;
  // The procedure's rows, or its error (reported at the CALL).
  std::function<Result<std::shared_ptr<arrow::Table>>(const ProcedureCall&)> run;
  // The rows of a call with `dry_run => true`, when they differ from result_schema.
  std::shared_ptr<arrow::Schema> dry_run_schema = nullptr;
};

// Every procedure, sorted by name.
const std::vector<Procedure>& AllProcedures();
// nullptr when there is none of that name (case-insensitive).
const Procedure* FindProcedure(std::string_view name);
// The registered name closest to `name`, for "Did you mean".
std::string ClosestProcedureName(std::string_view name);
// "STRING", "INT", "BIGINT", "BOOLEAN", "TIMESTAMP", "ARRAY<BIGINT>", "MAP<STRING, STRING>".
std::string ProcedureArgTypeName(ProcedureArgType type);

// The rows of a maintenance procedure's dry run: each file a real run would remove, with
// its type, size and the snapshot that last reached it.
std::shared_ptr<arrow::Schema> RemovedFilesSchema();
Result<std::shared_ptr<arrow::Table>> RemovedFilesTable(const std::shared_ptr<arrow::Schema>& schema,
                                                        const std::vector<table::RemovedFile>& files);

// Each group file adds its procedures.
void AddSnapshotProcedures(std::vector<Procedure>* out);     // snapshot_procedures.cc
void AddExpiryProcedures(std::vector<Procedure>* out);       // expiry_procedures.cc
void AddCompactionProcedures(std::vector<Procedure>* out);   // compaction_procedures.cc
void AddOrphanFileProcedures(std::vector<Procedure>* out);   // orphan_file_procedures.cc
void AddChangelogProcedures(std::vector<Procedure>* out);    // changelog_procedures.cc
void AddCatalogTagProcedures(std::vector<Procedure>* out);   // catalog_tag_procedures.cc

}  // namespace floe::sql
