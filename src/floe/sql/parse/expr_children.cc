#include "floe/sql/parse/expr_children.h"

#include <type_traits>
#include <variant>

namespace floe::sql {

void ForEachChild(const Expr& e, const std::function<void(const Expr&)>& fn) {
  std::visit(
      [&](const auto& node) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, Unary> || std::is_same_v<T, IsNull> ||
                      std::is_same_v<T, IsBool> || std::is_same_v<T, Cast> ||
                      std::is_same_v<T, InSubquery>) {
          fn(*node.operand);
        } else if constexpr (std::is_same_v<T, Binary>) {
          fn(*node.left);
          fn(*node.right);
        } else if constexpr (std::is_same_v<T, Between>) {
          fn(*node.operand);
          fn(*node.low);
          fn(*node.high);
        } else if constexpr (std::is_same_v<T, InList>) {
          fn(*node.operand);
          for (const auto& x : node.list) fn(x);
        } else if constexpr (std::is_same_v<T, Like>) {
          fn(*node.operand);
          fn(*node.pattern);
        } else if constexpr (std::is_same_v<T, Case>) {
          if (node.operand) fn(*node.operand);
          for (const auto& w : node.whens) {
            fn(w.condition);
            fn(w.result);
          }
          if (node.else_result) fn(*node.else_result);
        } else if constexpr (std::is_same_v<T, FunctionCall>) {
          for (const auto& x : node.args) fn(x);
          for (const auto& o : node.order_by) fn(o.expr);
          if (node.over) {
            for (const auto& x : node.over->partition_by) fn(x);
            for (const auto& o : node.over->order_by) fn(o.expr);
          }
        } else if constexpr (std::is_same_v<T, Subscript>) {
          fn(*node.base);
          fn(*node.index);
        } else if constexpr (std::is_same_v<T, FieldAccess>) {
          fn(*node.base);
        }
      },
      e.node);
}

}  // namespace floe::sql
