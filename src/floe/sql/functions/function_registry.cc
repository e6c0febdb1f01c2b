#include "floe/sql/functions/function_registry.h"

#include <algorithm>
#include <map>
#include <set>

#include "floe/sql/bind/suggest.h"
#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

std::string ReplaceName(const std::string& text, const std::string& name) {
  std::string out;
  const std::string placeholder = "_FUNC_";
  size_t i = 0;
  while (true) {
    size_t at = text.find(placeholder, i);
    if (at == std::string::npos) break;
    out += text.substr(i, at - i) + name;
    i = at + placeholder.size();
  }
  return out + text.substr(i);
}

template <typename Entry>
std::map<std::string, const Entry*> IndexByName(const std::vector<Entry>& entries) {
  std::map<std::string, const Entry*> index;
  for (const auto& e : entries) {
    for (const auto& n : e.names) index.emplace(n, &e);
  }
  return index;
}

template <typename Entry>
const Entry* Find(const std::map<std::string, const Entry*>& index, const std::string& name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

}  // namespace

std::string FunctionDoc::Usage(const std::string& name) const { return ReplaceName(usage, name); }

std::string FunctionDoc::Extended(const std::string& name) const {
  std::string out = arguments.empty() ? "" : "\n    Arguments:\n" + arguments + "\n  ";
  if (!examples.empty()) {
    out += "\n    Examples:\n";
    for (const auto& ex : examples) {
      out += "      > " + ex.sql + "\n";
      size_t start = 0;
      while (start <= ex.result.size()) {
        size_t end = ex.result.find('\n', start);
        if (end == std::string::npos) end = ex.result.size();
        out += "       " + ex.result.substr(start, end - start) + "\n";
        start = end + 1;
      }
    }
    out += "  ";
  }
  if (out.empty()) out = "\n    No example/argument for _FUNC_.\n";
  if (!since.empty()) out += "\n    Since: " + since + "\n";
  return ReplaceName(out, name);
}

const Literal* CallBinder::StringLiteralArg(size_t i) const {
  if (i >= call.args.size()) return nullptr;
  const Literal* lit = call.args[i].As<Literal>();
  return lit && lit->kind == LiteralKind::kString ? lit : nullptr;
}

Status CallBinder::WrongArgCount(size_t lo, size_t hi) const {
  std::string wanted = hi == Arity::kAny ? StrCat("> ", lo - 1)
                       : lo == hi        ? std::to_string(lo)
                                         : StrCat(lo, "-", hi);
  return Error(expr.pos, StrCat("[WRONG_NUM_ARGS] The `", name, "` requires ", wanted,
                                " parameters but the actual number is ", args.size(), "."));
}

const std::vector<ScalarFunction>& ScalarFunctions() {
  static const std::vector<ScalarFunction> kAll = [] {
    std::vector<ScalarFunction> all;
    functions::AddStringFunctions(&all);
    functions::AddMathFunctions(&all);
    functions::AddDatetimeFunctions(&all);
    functions::AddConditionalFunctions(&all);
    functions::AddCollectionFunctions(&all);
    functions::AddPgFunctions(&all);
    return all;
  }();
  return kAll;
}

const std::vector<AggregateFunction>& AggregateFunctions() {
  static const std::vector<AggregateFunction> kAll = [] {
    std::vector<AggregateFunction> all;
    functions::AddAggregateFunctions(&all);
    return all;
  }();
  return kAll;
}

const std::vector<TableFunction>& TableFunctions() {
  static const std::vector<TableFunction> kAll = [] {
    std::vector<TableFunction> all;
    functions::AddTableFunctions(&all);
    return all;
  }();
  return kAll;
}

const ScalarFunction* FindScalarFunction(const std::string& lower_name) {
  static const auto kIndex = IndexByName(ScalarFunctions());
  return Find(kIndex, lower_name);
}

const AggregateFunction* FindAggregateFunction(const std::string& lower_name) {
  static const auto kIndex = IndexByName(AggregateFunctions());
  return Find(kIndex, lower_name);
}

const TableFunction* FindTableFunction(const std::string& lower_name) {
  static const auto kIndex = IndexByName(TableFunctions());
  return Find(kIndex, lower_name);
}

std::vector<std::string> AllFunctionNames() {
  std::set<std::string> names;
  for (const auto& f : ScalarFunctions()) names.insert(f.names.begin(), f.names.end());
  for (const auto& f : AggregateFunctions()) names.insert(f.names.begin(), f.names.end());
  for (const auto& f : TableFunctions()) names.insert(f.names.begin(), f.names.end());
  return {names.begin(), names.end()};
}

const FunctionDoc* FindFunctionDoc(const std::string& lower_name) {
  if (const auto* f = FindScalarFunction(lower_name)) return &f->doc;
  if (const auto* f = FindAggregateFunction(lower_name)) return &f->doc;
  if (const auto* f = FindTableFunction(lower_name)) return &f->doc;
  return nullptr;
}

Result<BoundExpr> BindScalarFunction(const ScalarFunction& fn, CallBinder& binder) {
  if (binder.args.size() < fn.arity.min || binder.args.size() > fn.arity.max) {
    return binder.WrongArgCount(fn.arity.min, fn.arity.max);
  }
  ARROW_ASSIGN_OR_RAISE(binder.result_type, fn.return_type(binder));
  return fn.impl(binder);
}

std::string UnresolvedRoutineMessage(const std::string& name) {
  std::string message = StrCat("[UNRESOLVED_ROUTINE] Cannot resolve routine `", name,
                               "` on search path [`system`.`builtin`, `system`.`session`].");
  // The closest name within half the name's length, the first in order on a tie.
  std::string lower = Lower(name);
  size_t best = std::max<size_t>(1, lower.size() / 2) + 1;
  std::string suggestion;
  for (const auto& candidate : AllFunctionNames()) {
    size_t d = EditDistance(lower, candidate);
    if (d < best) {
      best = d;
      suggestion = candidate;
    }
  }
  if (!suggestion.empty()) message += " Did you mean `" + suggestion + "`?";
  return message;
}

std::string SparkTypeName(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::NA: return "void";
    case arrow::Type::BOOL: return "boolean";
    case arrow::Type::INT8: return "tinyint";
    case arrow::Type::INT16: return "smallint";
    case arrow::Type::INT32: return "int";
    case arrow::Type::INT64: return "bigint";
    case arrow::Type::FLOAT: return "float";
    case arrow::Type::DOUBLE: return "double";
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: return "string";
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY: return "binary";
    case arrow::Type::DATE32: return "date";
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).timezone().empty() ? "timestamp_ntz" : "timestamp";
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return StrCat("decimal(", d.precision(), ",", d.scale(), ")");
    }
    case arrow::Type::LIST:
      return "array<" + SparkTypeName(*static_cast<const arrow::ListType&>(type).value_type()) + ">";
    case arrow::Type::MAP: {
      const auto& m = static_cast<const arrow::MapType&>(type);
      return "map<" + SparkTypeName(*m.key_type()) + "," + SparkTypeName(*m.item_type()) + ">";
    }
    case arrow::Type::STRUCT: {
      std::string out = "struct<";
      for (int i = 0; i < type.num_fields(); ++i) {
        out += (i ? "," : "") + type.field(i)->name() + ":" + SparkTypeName(*type.field(i)->type());
      }
      return out + ">";
    }
    default: return type.ToString();
  }
}

}  // namespace floe::sql
