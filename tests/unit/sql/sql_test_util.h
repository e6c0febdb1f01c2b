#pragma once

// Helpers for the SQL parser tests.

#include <string>
#include <string_view>

#include "floe/sql/parse/ast.h"
#include "floe/sql/parse/parser.h"
#include "floe/sql/parse/statement_splitter.h"
#include "floe_test.h"

namespace floe::sql::testing {

// Parses `sql`, prints it, parses the print and checks that the two trees are equal and
// that printing is stable. Returns the first tree.
inline Result<Statement> RoundTrip(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(Statement first, ParseStatement(sql));
  std::string printed = ToSql(first);
  auto second = ParseStatement(printed);
  if (!second.ok()) {
    return Status::Invalid("printed SQL does not parse: ", printed, "\n",
                           second.status().message());
  }
  if (!(*second == first)) {
    return Status::Invalid("printed SQL parses to a different tree:\n  ", sql, "\n  ", printed,
                           "\n  ", ToSql(*second));
  }
  if (ToSql(*second) != printed) {
    return Status::Invalid("printing is not stable: ", printed, " vs ", ToSql(*second));
  }
  return first;
}

// The canonical SQL of a statement, after checking the round trip.
inline std::string Canonical(std::string_view sql) {
  auto s = RoundTrip(sql);
  if (!s.ok()) return "ERROR: " + s.status().ToString();
  return ToSql(*s);
}

// The canonical SQL of an expression (through a SELECT, so the round trip is checked too).
inline std::string CanonicalExpr(std::string_view expr) {
  auto s = RoundTrip("SELECT " + std::string(expr));
  if (!s.ok()) return "ERROR: " + s.status().ToString();
  const Query* q = s->As<Query>();
  const Select* select = q ? q->As<Select>() : nullptr;
  if (!select || select->items.size() != 1) return "ERROR: not one select item";
  return ToSql(select->items[0].expr);
}

// Fully parenthesized operator structure, for precedence tests.
inline std::string Tree(const Expr& e) {
  if (const auto* b = e.As<Binary>()) {
    return "(" + Tree(*b->left) + " " + BinaryOpName(b->op) + " " + Tree(*b->right) + ")";
  }
  if (const auto* u = e.As<Unary>()) {
    const char* op = u->op == UnaryOp::kNot     ? "NOT"
                     : u->op == UnaryOp::kMinus ? "-"
                     : u->op == UnaryOp::kPlus  ? "+"
                                                : "~";
    return std::string("(") + op + " " + Tree(*u->operand) + ")";
  }
  if (const auto* n = e.As<IsNull>()) {
    return "(" + Tree(*n->operand) + (n->negated ? " IS NOT NULL)" : " IS NULL)");
  }
  if (const auto* b = e.As<Between>()) {
    return "(" + Tree(*b->operand) + (b->negated ? " NOT BETWEEN " : " BETWEEN ") +
           Tree(*b->low) + " AND " + Tree(*b->high) + ")";
  }
  if (const auto* in = e.As<InList>()) {
    std::string out = "(" + Tree(*in->operand) + (in->negated ? " NOT IN [" : " IN [");
    for (size_t i = 0; i < in->list.size(); ++i) out += (i ? ", " : "") + Tree(in->list[i]);
    return out + "])";
  }
  if (const auto* like = e.As<Like>()) {
    return "(" + Tree(*like->operand) + (like->negated ? " NOT LIKE " : " LIKE ") +
           Tree(*like->pattern) + ")";
  }
  if (const auto* c = e.As<Cast>()) {
    return "CAST(" + Tree(*c->operand) + " AS " + ToSql(c->type) + ")";
  }
  if (const auto* s = e.As<Subscript>()) return Tree(*s->base) + "[" + Tree(*s->index) + "]";
  return ToSql(e);
}

inline std::string TreeOf(std::string_view expr) {
  auto e = ParseExpression(expr);
  if (!e.ok()) return "ERROR: " + e.status().message();
  // The round trip through the printer must keep the structure.
  std::string canonical = CanonicalExpr(expr);
  auto again = ParseExpression(canonical);
  if (!again.ok() || !(*again == *e)) return "ROUND TRIP BROKEN: " + canonical;
  return Tree(*e);
}

inline std::string ErrorText(std::string_view sql) {
  auto s = ParseStatement(sql);
  if (s.ok()) return "OK: " + ToSql(*s);
  return s.status().message();
}

}  // namespace floe::sql::testing
