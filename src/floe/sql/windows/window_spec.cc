#include "floe/sql/windows/window_spec.h"

#include <set>

#include "floe/sql/bind/expression_binder.h"
#include "floe/sql/bind/expression_binder_internal.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

using binding::JoinStrings;

namespace {

std::string LowerName(const FunctionCall& call) {
  std::string n = call.name.parts.back().name;
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

std::string BoundText(const FrameBound& b) {
  switch (b.kind) {
    case FrameBoundKind::kUnboundedPreceding:
      return "UNBOUNDED PRECEDING";
    case FrameBoundKind::kPreceding:
      return GeneratedName(*b.offset) + " PRECEDING";
    case FrameBoundKind::kCurrentRow:
      return "CURRENT ROW";
    case FrameBoundKind::kFollowing:
      return GeneratedName(*b.offset) + " FOLLOWING";
    case FrameBoundKind::kUnboundedFollowing:
      return "UNBOUNDED FOLLOWING";
  }
  return "";
}

}  // namespace

bool IsWindowOnlyFunction(const std::string& n) {
  static const std::set<std::string> names{
      "row_number", "rank", "dense_rank",  "percent_rank", "cume_dist", "ntile",
      "lag",        "lead", "first_value", "last_value",   "nth_value"};
  return names.count(n) > 0;
}

bool IsRankingFunction(const std::string& n) {
  return n == "row_number" || n == "rank" || n == "dense_rank" || n == "percent_rank" ||
         n == "cume_dist" || n == "ntile" || n == "lag" || n == "lead";
}

WindowFrame EffectiveFrame(const FunctionCall& call) {
  if (call.over && call.over->frame) return *call.over->frame;
  WindowFrame frame;
  frame.start.kind = FrameBoundKind::kUnboundedPreceding;
  const bool ordered = call.over && !call.over->order_by.empty();
  if (IsRankingFunction(LowerName(call))) {
    frame.unit = FrameUnit::kRows;
    frame.end.kind = FrameBoundKind::kCurrentRow;
  } else if (ordered) {
    frame.unit = FrameUnit::kRange;
    frame.end.kind = FrameBoundKind::kCurrentRow;
  } else {
    frame.unit = FrameUnit::kRows;
    frame.end.kind = FrameBoundKind::kUnboundedFollowing;
  }
  return frame;
}

std::string WindowText(const FunctionCall& call) {
  std::vector<std::string> parts;
  if (!call.over) return "";
  const WindowSpec& w = *call.over;
  if (!w.partition_by.empty()) {
    std::vector<std::string> keys;
    for (const Expr& e : w.partition_by) keys.push_back(GeneratedName(e));
    parts.push_back("PARTITION BY " + JoinStrings(keys, ", "));
  }
  if (!w.order_by.empty()) {
    std::vector<std::string> keys;
    for (const OrderItem& o : w.order_by) {
      const bool nulls_first =
          o.nulls == NullsOrder::kFirst || (o.nulls == NullsOrder::kDefault && o.ascending);
      keys.push_back(StrCat(GeneratedName(o.expr), o.ascending ? " ASC" : " DESC",
                            nulls_first ? " NULLS FIRST" : " NULLS LAST"));
    }
    parts.push_back("ORDER BY " + JoinStrings(keys, ", "));
  }
  const WindowFrame frame = EffectiveFrame(call);
  parts.push_back(StrCat(frame.unit == FrameUnit::kRows ? "ROWS" : "RANGE", " BETWEEN ",
                         BoundText(frame.start), " AND ", BoundText(frame.end)));
  return JoinStrings(parts, " ");
}

}  // namespace floe::sql
