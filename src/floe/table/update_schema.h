#pragma once

// Schema evolution (what ALTER TABLE does to columns): add, drop, rename, widen a type, drop
// NOT NULL, comment, move, for top-level columns and fields nested in structs (a path
// point.x; list elements and map values as l.element.x, m.value.x). Changes apply in the
// order given, as one new schema in one commit; names are matched case-insensitively, as
// Spark does. Field ids are never reused: added columns (and the fields nested in their
// types) get ids after the table's last-column-id.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/table/table.h"

namespace floe::table {

// A column by its path from the top level: {"point", "x"}.
struct ColumnPath {
  std::vector<std::string> parts;

  ColumnPath(std::string name) : parts{std::move(name)} {}  // NOLINT: a top-level column
  ColumnPath(const char* name) : parts{name} {}              // NOLINT
  ColumnPath(std::vector<std::string> p) : parts(std::move(p)) {}  // NOLINT

  std::string Dotted() const;  // point.x, as Iceberg names fields
  std::string Quoted() const;  // `point`.`x`, as Spark names them
};

// Where a column goes among its siblings.
struct ColumnPosition {
  bool first = false;
  std::string after;  // a sibling, when not first
};

// Which change failed, and on which of the names it carries (for callers that point at it).
struct SchemaChangeError {
  enum class Part { kColumn, kNewName, kAfter, kTable };
  size_t change = 0;
  Part part = Part::kColumn;
};

// `type` with fresh ids for the fields nested in it, after `*last_id` (which it advances),
// each field before those inside it.
spec::TypePtr AssignFreshIds(const spec::TypePtr& type, int32_t* last_id);

class UpdateSchema {
 public:
  explicit UpdateSchema(Table& table) : table_(table) {}

  // Nested ids in `type` are placeholders; they are assigned depth first, each field's id
  // before those inside it. A nested name adds to the struct its parent path names (to
  // the element or value struct when that is a list or map). Only optional columns can be added:
  // `Incompatible change: cannot add required column: <name>`; an existing name:
  // `[FIELDS_ALREADY_EXISTS] Cannot add column, because `<name>` already exists in <table>.`
  UpdateSchema& AddColumn(ColumnPath name, spec::TypePtr type, std::optional<std::string> doc = {},
                          std::optional<ColumnPosition> position = {}, bool required = false);
  UpdateSchema& RenameColumn(ColumnPath name, std::string new_name);
  // Columns a partition field of the default spec uses (or structs holding one) cannot be dropped
  // (`Cannot delete field <id>: <name> as it is used by the partition spec`), nor the last
  // column (`Cannot drop all columns of a table`).
  UpdateSchema& DeleteColumn(ColumnPath name, bool if_exists = false);
  // int -> long, float -> double, decimal(p, s) -> decimal(p', s) with p' >= p:
  // `Cannot change column type: <name>: <from> -> <to>`.
  UpdateSchema& UpdateColumnType(ColumnPath name, spec::TypePtr type);
  UpdateSchema& MakeColumnOptional(ColumnPath name);
  // Only a column that is already required passes:
  // `Cannot change column nullability: <name>: optional -> required`.
  UpdateSchema& RequireColumn(ColumnPath name);
  UpdateSchema& UpdateColumnDoc(ColumnPath name, std::optional<std::string> doc);
  UpdateSchema& MoveColumn(ColumnPath name, ColumnPosition position);

  // The schema the changes make of `base`'s current schema (its id is not yet assigned),
  // and the last column id it uses. On failure `error` (when given) says which change and
  // which of its names failed. An unknown column:
  // `[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `<name>`
  // cannot be resolved.`
  struct Applied {
    std::vector<spec::NestedField> fields;
    std::vector<int32_t> identifier_field_ids;
    int32_t last_column_id = 0;
  };
  Result<Applied> Apply(const spec::TableMetadata& base, SchemaChangeError* error = nullptr) const;

  // Applies the changes to the table's current schema and commits the result as the new
  // current schema (an earlier schema of the same structure is made current again instead).
  Status Commit(SchemaChangeError* error = nullptr);

 private:
  enum class Kind { kAdd, kRename, kDelete, kType, kOptional, kRequire, kDoc, kMove };
  struct Change {
    Kind kind;
    ColumnPath name;
    std::string new_name;
    spec::TypePtr type;
    std::optional<std::string> doc;
    std::optional<ColumnPosition> position;
    bool flag = false;  // kAdd: required; kDelete: if_exists
  };

  Table& table_;
  std::vector<Change> changes_;
};

}  // namespace floe::table
