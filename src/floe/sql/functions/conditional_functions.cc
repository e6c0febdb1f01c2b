// Conditional and null-handling functions, and typeof.

#include "floe/sql/functions/function_helpers.h"

namespace floe::sql::functions {

namespace {

Result<TypePtr> CoalesceType(CallBinder& b) {
  TypePtr type = arrow::null();
  for (const auto& a : b.args) {
    type = b.CommonType(type, a.type);
    if (!type) return b.Error(b.expr.pos, "[DATATYPE_MISMATCH] coalesce arguments have incompatible types");
  }
  return type;
}

Result<BoundExpr> Coalesce(CallBinder& b) {
  std::vector<cp::Expression> xs;
  for (const auto& a : b.args) xs.push_back(b.CastTo(a.expr, a.type, b.result_type));
  return b.Make(cp::call("coalesce", xs));
}

ScalarFunction CoalesceEntry(std::vector<std::string> names, FunctionDoc doc) {
  return {std::move(names), {1, Arity::kAny}, CoalesceType, Coalesce, std::move(doc)};
}

Result<TypePtr> NullIfType(CallBinder& b) {
  BoundExpr x = b.args[0], y = b.args[1];
  ARROW_RETURN_NOT_OK(b.Unify(&x, &y, 0, 1));
  return x.type;
}

Result<BoundExpr> NullIf(CallBinder& b) {
  BoundExpr x = b.args[0], y = b.args[1];
  ARROW_RETURN_NOT_OK(b.Unify(&x, &y, 0, 1));
  return b.Make(cp::call("if_else", {cp::equal(x.expr, y.expr), Null(x.type), x.expr}));
}

Result<TypePtr> IfType(CallBinder& b) {
  TypePtr type = b.CommonType(b.args[1].type, b.args[2].type);
  if (!type) return b.Error(b.expr.pos, "[DATATYPE_MISMATCH] if branches have incompatible types");
  return type;
}

Result<BoundExpr> If(CallBinder& b) {
  ARROW_ASSIGN_OR_RAISE(auto cond, b.Coerce(b.args[0], arrow::boolean()));
  auto when_null = cp::call("coalesce", {cond.expr, cp::literal(false)});  // a NULL condition picks the else branch
  return b.Make(cp::call("if_else", {when_null, b.CastTo(b.args[1].expr, b.args[1].type, b.result_type),
                                       b.CastTo(b.args[2].expr, b.args[2].type, b.result_type)}));
}

ScalarFunction IfEntry(std::vector<std::string> names) {
  return {std::move(names), {3, 3}, IfType, If,
          Doc("If", "_FUNC_(expr1, expr2, expr3) - If `expr1` evaluates to true, then returns `expr2`; otherwise returns `expr3`.",
              {{"SELECT _FUNC_(1 < 2, 'a', 'b');", "a"}}, "1.0.0")};
}

}  // namespace

void AddConditionalFunctions(std::vector<ScalarFunction>* out) {
  out->push_back(CoalesceEntry({"coalesce"},
                               Doc("Coalesce", "_FUNC_(expr1, expr2, ...) - Returns the first non-null argument if exists. Otherwise, null.",
                                   {{"SELECT _FUNC_(NULL, 1, NULL);", "1"}}, "1.0.0")));
  out->push_back(CoalesceEntry({"nvl"}, Doc("Nvl", "_FUNC_(expr1, expr2) - Returns `expr2` if `expr1` is null, or `expr1` otherwise.",
                                            {{"SELECT _FUNC_(NULL, array('2'));", "[\"2\"]"}}, "2.0.0")));
  out->push_back(CoalesceEntry({"ifnull"}, Doc("Nvl", "_FUNC_(expr1, expr2) - Returns `expr2` if `expr1` is null, or `expr1` otherwise.",
                                               {{"SELECT _FUNC_(NULL, array('2'));", "[\"2\"]"}}, "2.0.0")));
  out->push_back({{"nullif"}, {2, 2}, NullIfType, NullIf,
                  Doc("NullIf", "_FUNC_(expr1, expr2) - Returns null if `expr1` equals to `expr2`, or `expr1` otherwise.",
                      {{"SELECT _FUNC_(2, 2);", "NULL"}}, "2.0.0")});
  out->push_back(IfEntry({"if"}));
  out->push_back(IfEntry({"iff"}));
  out->push_back({{"typeof"}, {1, 1}, Fixed(arrow::utf8()),
                  [](CallBinder& b) -> Result<BoundExpr> {
                    return b.Make(cp::literal(arrow::StringScalar(SparkTypeName(*b.args[0].type))));
                  },
                  Doc("TypeOf", "_FUNC_(expr) - Return DDL-formatted type string for the data type of the input.",
                      {{"SELECT _FUNC_(1);", "int"}, {"SELECT _FUNC_(array(1));", "array<int>"}}, "3.0.0")});
}

}  // namespace floe::sql::functions
