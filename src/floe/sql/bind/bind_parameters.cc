#include "floe/sql/bind/expression_binder_internal.h"

namespace floe::sql::binding {

Result<BoundExpr> ExpressionBinder::PlanNode(const ParameterRef& p, const Expr& e) {
  const std::string name = "$" + std::to_string(p.index);
  if (!ctx_.parameter_types)
    return Error(e.pos, StrCat("Parameter ", name, " was not given a value"));
  // Described without its value: NULL adapts to whatever stands around it.
  auto& types = *ctx_.parameter_types;
  if (types.size() < static_cast<size_t>(p.index)) types.resize(p.index);
  return BoundExpr{cp::literal(arrow::MakeNullScalar(arrow::null())), arrow::null(), name};
}

void ExpressionBinder::NoteParameterType(const Binary& bin, const BoundExpr& l,
                                         const BoundExpr& r) {
  if (!ctx_.parameter_types) return;
  switch (bin.op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kIsDistinctFrom:
      break;
    default:
      return;
  }
  auto note = [&](const Expr& side, const BoundExpr& other) {
    const auto* p = side.As<ParameterRef>();
    if (!p || IsNullType(*other.type)) return;
    auto& types = *ctx_.parameter_types;
    if (types.size() < static_cast<size_t>(p->index)) types.resize(p->index);
    if (!types[p->index - 1]) types[p->index - 1] = other.type;
  };
  note(*bin.left, r);
  note(*bin.right, l);
}

}  // namespace floe::sql::binding
