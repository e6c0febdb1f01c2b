#include "floe/sql/plan/table_changes_function.h"

#include <sstream>

#include <arrow/scalar.h>
#include <arrow/table.h>

#include "floe/scan/table_changes.h"
#include "floe/sql/plan/spill/spill_space.h"
#include "floe/table/time_travel.h"
#include "floe/util/ascii.h"
#include "floe/util/byte_size.h"
#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"
#include "floe/util/time_zone.h"

namespace floe::sql {

namespace {

constexpr const char* kParameters[] = {
    "table", "from", "to", "mode", "compute_updates", "identifier_columns"};

// One end of the range: a snapshot id, or none (the table's start or current snapshot), with
// the instant it was given as, when it was one.
struct Point {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> timestamp_ms;
  bool head = true;  // NULL or a branch: the current state of a line of history
};

Result<Point> ResolveChangePoint(const table::Table& table, const arrow::Scalar& value,
                                 bool is_from, const std::string& time_zone) {
  Point point;
  if (!value.is_valid) return point;
  point.head = false;
  const auto& md = *table.metadata();
  auto at_time = [&](int64_t ms) -> Result<Point> {
    point.timestamp_ms = ms;
    std::optional<int64_t> id = table::NullableSnapshotIdAsOfTime(md, ms);
    // Before the first snapshot the table was as created: empty.
    if (!id && !is_from) {
      ARROW_ASSIGN_OR_RAISE(id, table::SnapshotIdAsOfTime(md, ms));
    }
    point.snapshot_id = id;
    return point;
  };
  if (arrow::is_integer(value.type->id())) {
    ARROW_ASSIGN_OR_RAISE(auto cast, value.CastTo(arrow::int64()));
    point.snapshot_id = static_cast<const arrow::Int64Scalar&>(*cast).value;
    return point;
  }
  if (value.type->id() == arrow::Type::TIMESTAMP) {
    const auto& ts = static_cast<const arrow::TimestampScalar&>(value);
    const auto& type = static_cast<const arrow::TimestampType&>(*ts.type);
    int64_t micros = ts.value;
    if (type.unit() == arrow::TimeUnit::SECOND) micros *= 1000000;
    if (type.unit() == arrow::TimeUnit::MILLI) micros *= 1000;
    if (type.unit() == arrow::TimeUnit::NANO) micros /= 1000;
    return at_time(micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000));
  }
  if (value.type->id() == arrow::Type::STRING) {
    const std::string text = value.ToString();
    auto ref = md.refs.find(text);
    if (ref != md.refs.end()) {
      point.snapshot_id = ref->second.snapshot_id;
      point.head = ref->second.is_branch();
      return point;
    }
    if (auto id = ParseInt64(text)) {
      point.snapshot_id = *id;
      return point;
    }
    ARROW_ASSIGN_OR_RAISE(TimeZone zone, TimeZone::Make(time_zone));
    auto ms = ParseTimestampMillis(text, zone);
    if (ms.ok()) return at_time(*ms);
    return ValidationError("Cannot resolve '", text, "' in table ", table.name(),
                           ": it is not a branch or tag, a snapshot id or a timestamp");
  }
  return Status::Invalid("The ", is_from ? "from" : "to", " argument of ", kTableChangesFunction,
                         " must be a snapshot id, a timestamp, a branch or tag name or NULL, not ",
                         value.type->ToString(), " ", value.ToString());
}

Result<std::vector<std::string>> StringList(const arrow::Scalar& value, const char* name) {
  std::vector<std::string> out;
  if (!value.is_valid) return out;
  if (value.type->id() == arrow::Type::STRING) return std::vector<std::string>{value.ToString()};
  if (value.type->id() == arrow::Type::LIST) {
    const auto& items = *static_cast<const arrow::ListScalar&>(value).value;
    if (items.type_id() == arrow::Type::STRING || items.type_id() == arrow::Type::NA) {
      for (int64_t i = 0; i < items.length(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto item, items.GetScalar(i));
        if (!item->is_valid)
          return Status::Invalid("The ", name, " argument of ", kTableChangesFunction,
                                 " cannot hold NULL");
        out.push_back(item->ToString());
      }
      return out;
    }
  }
  return Status::Invalid("The ", name, " argument of ", kTableChangesFunction,
                         " must be an array of column names, not ", value.type->ToString());
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatchReader>> TableChanges(
    SessionState& session,
    const std::function<Result<std::shared_ptr<table::Table>>(const ObjectName&)>& load_table,
    const std::vector<TableFunctionArgument>& args) {
  constexpr size_t kCount = std::size(kParameters);
  std::shared_ptr<arrow::Scalar> bound[kCount];
  size_t position = 0;
  for (const auto& a : args) {
    size_t index = kCount;
    if (a.name) {
      for (size_t i = 0; i < kCount; ++i) {
        if (*a.name == kParameters[i]) index = i;
      }
      if (index == kCount) {
        return Status::Invalid(kTableChangesFunction, " has no parameter `", *a.name,
                               "`; its parameters are table, from, to, mode, compute_updates "
                               "and identifier_columns");
      }
    } else {
      index = position++;
      if (index >= kCount)
        return Status::Invalid(kTableChangesFunction, " takes at most ", kCount, " arguments");
    }
    if (bound[index]) {
      return Status::Invalid("The ", kParameters[index], " argument of ", kTableChangesFunction,
                             " is given twice");
    }
    bound[index] = a.value;
  }
  if (!bound[0] || !bound[0]->is_valid || bound[0]->type->id() != arrow::Type::STRING ||
      bound[0]->ToString().empty()) {
    return Status::Invalid(kTableChangesFunction,
                           " needs the table's name as its first argument, e.g. "
                           "table_changes('db.t', from, to)");
  }
  ObjectName name;
  std::stringstream parts(bound[0]->ToString());
  for (std::string part; std::getline(parts, part, '.');)
    name.parts.push_back(Identifier{part, false, {}});
  ARROW_ASSIGN_OR_RAISE(auto table, load_table(name));

  scan::TableChangesOptions options;
  Point from, to;
  if (bound[1]) {
    ARROW_ASSIGN_OR_RAISE(from, ResolveChangePoint(*table, *bound[1], true, session.TimeZone()));
  }
  if (bound[2]) {
    ARROW_ASSIGN_OR_RAISE(to, ResolveChangePoint(*table, *bound[2], false, session.TimeZone()));
  }
  if (from.timestamp_ms && to.timestamp_ms && *from.timestamp_ms > *to.timestamp_ms) {
    return Status::Invalid(
        "Cannot set start-timestamp to be greater than end-timestamp for changelogs");
  }
  options.from_exclusive = from.snapshot_id;
  options.to_inclusive = to.snapshot_id;
  options.to_is_head = to.head;
  if (bound[3] && bound[3]->is_valid) {
    const std::string mode = AsciiLower(bound[3]->ToString());
    if (bound[3]->type->id() != arrow::Type::STRING || (mode != "all" && mode != "net")) {
      return Status::Invalid("Invalid mode '", bound[3]->ToString(), "' for ",
                             kTableChangesFunction, ": expected 'all' or 'net'");
    }
    options.net = mode == "net";
  }
  if (bound[5]) {
    ARROW_ASSIGN_OR_RAISE(options.identifier_columns, StringList(*bound[5], "identifier_columns"));
  }
  if (bound[4] && bound[4]->is_valid) {
    if (bound[4]->type->id() != arrow::Type::BOOL) {
      return Status::Invalid("The compute_updates argument of ", kTableChangesFunction,
                             " must be a BOOLEAN, not ", bound[4]->type->ToString());
    }
    options.compute_updates = static_cast<const arrow::BooleanScalar&>(*bound[4]).value;
  }
  const std::string budget = session.Setting(kChangesMemoryBudgetKey, "");
  if (!budget.empty()) {
    ARROW_ASSIGN_OR_RAISE(options.memory_budget_bytes, ParseByteSize(budget));
  }
  // The statement's temp directory unless the changes have one of their own.
  options.spill_directory =
      session.Setting(kChangesSpillDirKey, session.Setting(kTempDirectoryKey, DefaultTempDirectory()));
  return scan::ReadTableChanges(table, options);
}

}  // namespace floe::sql
