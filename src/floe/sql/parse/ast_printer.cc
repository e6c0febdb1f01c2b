// ToSql: the AST back to canonical SQL that the parser reads into an equal tree.
//
// Longer than most files on purpose: one printer with an overload per node of ast.h, in the
// same order, so that each construct's printing sits beside its siblings' (the round-trip
// tests check them all together).

#include <cctype>
#include <string>

#include "floe/sql/parse/ast.h"
#include "floe/sql/parse/keywords.h"

namespace floe::sql {

std::string DoubleQuoteString(const std::string& value);

namespace {

bool IsSimpleName(const std::string& name) {
  if (name.empty()) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

bool EqualsUpper(const std::string& word, std::string_view upper) {
  if (word.size() != upper.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(word[i])) != upper[i]) return false;
  }
  return true;
}

// Words that start an expression form of their own when bare.
bool IsExpressionWord(const std::string& name) {
  return EqualsUpper(name, "CURRENT_DATE") || EqualsUpper(name, "CURRENT_TIMESTAMP") ||
         EqualsUpper(name, "INTERVAL");
}

std::string JoinStrings(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string Path(const std::vector<Identifier>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += '.';
    out += QuoteIdentifier(parts[i].name);
  }
  return out;
}

std::string IdentList(const std::vector<Identifier>& ids) {
  std::string out = "(";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ", ";
    out += QuoteIdentifier(ids[i].name);
  }
  return out + ")";
}

// Precedence levels, loosest first; see Parser for the grammar they mirror.
constexpr int kLevelOr = 1;
constexpr int kLevelAnd = 2;
constexpr int kLevelNot = 3;
constexpr int kLevelPredicate = 4;
constexpr int kLevelComparison = 5;
constexpr int kLevelBitOr = 6;
constexpr int kLevelBitXor = 7;
constexpr int kLevelBitAnd = 8;
constexpr int kLevelAdditive = 9;
constexpr int kLevelMultiplicative = 10;
constexpr int kLevelUnary = 11;
constexpr int kLevelPostfix = 12;
constexpr int kLevelPrimary = 13;

int BinaryLevel(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return kLevelOr;
    case BinaryOp::kAnd: return kLevelAnd;
    case BinaryOp::kIsDistinctFrom: return kLevelPredicate;
    case BinaryOp::kEq:
    case BinaryOp::kNullSafeEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: return kLevelComparison;
    case BinaryOp::kBitOr: return kLevelBitOr;
    case BinaryOp::kBitXor: return kLevelBitXor;
    case BinaryOp::kBitAnd: return kLevelBitAnd;
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kConcat: return kLevelAdditive;
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kModulo:
    case BinaryOp::kIntDivide: return kLevelMultiplicative;
  }
  return kLevelPrimary;
}

int Level(const Expr& e) {
  if (const auto* b = e.As<Binary>()) return BinaryLevel(b->op);
  if (const auto* u = e.As<Unary>()) return u->op == UnaryOp::kNot ? kLevelNot : kLevelUnary;
  if (e.Is<IsNull>() || e.Is<IsBool>() || e.Is<Between>() || e.Is<InList>() ||
      e.Is<InSubquery>() || e.Is<Like>()) {
    return kLevelPredicate;
  }
  if (const auto* lit = e.As<Literal>()) {
    if (!lit->value.empty() && lit->value[0] == '-' && lit->kind != LiteralKind::kString &&
        lit->kind != LiteralKind::kDate && lit->kind != LiteralKind::kTimestamp &&
        lit->kind != LiteralKind::kTimestampNtz && lit->kind != LiteralKind::kTimestampLtz) {
      return kLevelUnary;
    }
  }
  if (e.Is<Subscript>() || e.Is<FieldAccess>()) return kLevelPostfix;
  return kLevelPrimary;
}

bool HasClauses(const Query& q) {
  return !q.with.empty() || !q.order_by.empty() || q.limit || q.offset;
}

class Printer {
 public:
  std::string Expression(const Expr& e) {
    return std::visit([&](const auto& node) { return Node(node, e); }, e.node);
  }

  // `e` as an operand that must bind at least as tightly as `min_level`.
  std::string Operand(const Expr& e, int min_level) {
    std::string s = Expression(e);
    if (Level(e) < min_level) return "(" + s + ")";
    return s;
  }

  std::string Node(const ParameterRef& p, const Expr&) { return "$" + std::to_string(p.index); }

  std::string Node(const Literal& lit, const Expr&) {
    const std::string& v = lit.value;
    bool has_exp = v.find_first_of("eE") != std::string::npos;
    switch (lit.kind) {
      case LiteralKind::kNull: return "NULL";
      case LiteralKind::kBoolean: return v == "true" ? "TRUE" : "FALSE";
      case LiteralKind::kInteger: return v;
      case LiteralKind::kBigInt: return v + "L";
      case LiteralKind::kSmallInt: return v + "S";
      case LiteralKind::kTinyInt: return v + "Y";
      case LiteralKind::kDecimal:
        return v.find('.') != std::string::npos && !has_exp ? v : v + "BD";
      case LiteralKind::kDouble: return has_exp ? v : v + "D";
      case LiteralKind::kFloat: return v + "F";
      case LiteralKind::kString: return lit.double_quoted ? DoubleQuoteString(v) : QuoteString(v);
      case LiteralKind::kBinary: return "X'" + v + "'";
      case LiteralKind::kDate: return "DATE " + QuoteString(v);
      case LiteralKind::kTimestamp: return "TIMESTAMP " + QuoteString(v);
      case LiteralKind::kTimestampNtz: return "TIMESTAMP_NTZ " + QuoteString(v);
      case LiteralKind::kTimestampLtz: return "TIMESTAMP_LTZ " + QuoteString(v);
    }
    return v;
  }

  std::string Interval(const IntervalLiteral& interval) {
    std::string out = "INTERVAL";
    for (const IntervalField& f : interval.fields) {
      out += ' ';
      out += f.is_string ? QuoteString(f.value) : f.value;
      if (!f.unit.empty()) out += " " + f.unit;
      if (!f.to_unit.empty()) out += " TO " + f.to_unit;
    }
    return out;
  }

  std::string Node(const IntervalLiteral& interval, const Expr&) { return Interval(interval); }

  std::string Node(const ColumnRef& ref, const Expr&) { return Path(ref.parts); }

  std::string Node(const Star& star, const Expr&) {
    if (star.qualifier.empty()) return "*";
    return Path(star.qualifier) + ".*";
  }

  std::string Node(const Unary& u, const Expr&) {
    switch (u.op) {
      case UnaryOp::kNot: return "NOT " + Operand(*u.operand, kLevelNot);
      case UnaryOp::kMinus:
      case UnaryOp::kPlus:
      case UnaryOp::kBitNot: {
        std::string sign = u.op == UnaryOp::kMinus ? "-" : u.op == UnaryOp::kPlus ? "+" : "~";
        std::string operand = Operand(*u.operand, kLevelUnary);
        // "-5[0]" would read the minus into the number; "--x" would start a comment.
        if (!operand.empty() && (std::isdigit(static_cast<unsigned char>(operand[0])) ||
                                 operand[0] == '.')) {
          operand = "(" + operand + ")";
        }
        if (!operand.empty() && (operand[0] == '-' || operand[0] == '+')) {
          return sign + " " + operand;
        }
        return sign + operand;
      }
    }
    return "";
  }

  std::string Node(const Binary& b, const Expr&) {
    int level = BinaryLevel(b.op);
    int left_min = level;
    int right_min = level + 1;
    if (b.op == BinaryOp::kIsDistinctFrom) {
      left_min = kLevelComparison;
      right_min = kLevelComparison;
    }
    return Operand(*b.left, left_min) + " " + BinaryOpName(b.op) + " " +
           Operand(*b.right, right_min);
  }

  std::string Node(const IsNull& n, const Expr&) {
    return Operand(*n.operand, kLevelComparison) + (n.negated ? " IS NOT NULL" : " IS NULL");
  }

  std::string Node(const IsBool& n, const Expr&) {
    std::string value = !n.value ? "UNKNOWN" : *n.value ? "TRUE" : "FALSE";
    return Operand(*n.operand, kLevelComparison) + (n.negated ? " IS NOT " : " IS ") + value;
  }

  std::string Node(const Between& b, const Expr&) {
    return Operand(*b.operand, kLevelComparison) + (b.negated ? " NOT BETWEEN " : " BETWEEN ") +
           Operand(*b.low, kLevelBitOr) + " AND " + Operand(*b.high, kLevelBitOr);
  }

  std::string Node(const InList& in, const Expr&) {
    std::vector<std::string> items;
    for (const Expr& e : in.list) items.push_back(Expression(e));
    return Operand(*in.operand, kLevelComparison) + (in.negated ? " NOT IN (" : " IN (") +
           JoinStrings(items, ", ") + ")";
  }

  std::string Node(const InSubquery& in, const Expr&) {
    return Operand(*in.operand, kLevelComparison) + (in.negated ? " NOT IN (" : " IN (") +
           QueryText(*in.query) + ")";
  }

  std::string Node(const Like& like, const Expr&) {
    const char* op = like.kind == LikeKind::kLike    ? "LIKE"
                     : like.kind == LikeKind::kILike ? "ILIKE"
                                                     : "RLIKE";
    std::string out = Operand(*like.operand, kLevelComparison) + (like.negated ? " NOT " : " ") +
                      op + " " + Operand(*like.pattern, kLevelBitOr);
    if (like.escape) out += " ESCAPE " + Expression(*like.escape);
    return out;
  }

  std::string Node(const Exists& e, const Expr&) { return "EXISTS (" + QueryText(*e.query) + ")"; }

  std::string Node(const ScalarSubquery& s, const Expr&) { return "(" + QueryText(*s.query) + ")"; }

  std::string Node(const Case& c, const Expr&) {
    std::string out = "CASE";
    if (c.operand) out += " " + Expression(*c.operand);
    for (const WhenClause& w : c.whens) {
      out += " WHEN " + Expression(w.condition) + " THEN " + Expression(w.result);
    }
    if (c.else_result) out += " ELSE " + Expression(*c.else_result);
    return out + " END";
  }

  std::string Node(const Cast& c, const Expr&) {
    return std::string(c.is_try ? "TRY_CAST(" : "CAST(") + Expression(*c.operand) + " AS " +
           ToSql(c.type) + ")";
  }

  std::string Node(const FunctionCall& f, const Expr&) {
    std::string name;
    for (size_t i = 0; i < f.name.parts.size(); ++i) {
      const std::string& part = f.name.parts[i].name;
      if (i > 0) name += '.';
      // Any simple word followed by '(' is a function name, reserved or not, except the
      // words that open an expression form of their own.
      bool bare = IsSimpleName(part) &&
                  (i > 0 || !IsReservedWord(part) || EqualsUpper(part, "LEFT") ||
                   EqualsUpper(part, "RIGHT"));
      name += bare ? part : QuoteIdentifier(part);
    }
    std::string out;
    if (f.star) {
      out = name + "(*)";
    } else {
      std::vector<std::string> args;
      for (const Expr& a : f.args) args.push_back(Expression(a));
      std::string order = f.order_by.empty() ? "" : " ORDER BY " + OrderItems(f.order_by);
      out = name + "(" + (f.distinct ? "DISTINCT " : "") + JoinStrings(args, ", ") + order + ")";
    }
    if (f.ignore_nulls) out += " IGNORE NULLS";
    if (f.over) out += " OVER (" + Window(*f.over) + ")";
    return out;
  }

  std::string OrderItems(const std::vector<OrderItem>& order_by) {
    std::vector<std::string> items;
    for (const OrderItem& item : order_by) {
      std::string s = Expression(item.expr);
      if (!item.ascending) s += " DESC";
      if (item.nulls == NullsOrder::kFirst) s += " NULLS FIRST";
      if (item.nulls == NullsOrder::kLast) s += " NULLS LAST";
      items.push_back(std::move(s));
    }
    return JoinStrings(items, ", ");
  }

  std::string Bound(const FrameBound& b) {
    switch (b.kind) {
      case FrameBoundKind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
      case FrameBoundKind::kPreceding: return Expression(*b.offset) + " PRECEDING";
      case FrameBoundKind::kCurrentRow: return "CURRENT ROW";
      case FrameBoundKind::kFollowing: return Expression(*b.offset) + " FOLLOWING";
      case FrameBoundKind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
    }
    return "";
  }

  std::string Window(const WindowSpec& w) {
    std::vector<std::string> parts;
    if (!w.partition_by.empty()) {
      std::vector<std::string> keys;
      for (const Expr& e : w.partition_by) keys.push_back(Expression(e));
      parts.push_back("PARTITION BY " + JoinStrings(keys, ", "));
    }
    if (!w.order_by.empty()) parts.push_back("ORDER BY " + OrderItems(w.order_by));
    if (w.frame) {
      parts.push_back(std::string(w.frame->unit == FrameUnit::kRows ? "ROWS" : "RANGE") + " BETWEEN " +
                      Bound(w.frame->start) + " AND " + Bound(w.frame->end));
    }
    return JoinStrings(parts, " ");
  }

  std::string Node(const Subscript& s, const Expr&) {
    return Operand(*s.base, kLevelPostfix) + "[" + Expression(*s.index) + "]";
  }

  std::string Node(const FieldAccess& f, const Expr&) {
    std::string base = Operand(*f.base, kLevelPostfix);
    // A plain name followed by .field would read back as one longer name.
    // So would a number ("1.a" is one bad token).
    if (f.base->Is<ColumnRef>() || f.base->Is<Star>() ||
        (f.base->Is<Literal>() && Level(*f.base) == kLevelPrimary)) {
      base = "(" + base + ")";
    }
    return base + "." + QuoteIdentifier(f.field.name);
  }

  // --- queries

  std::string QueryText(const Query& q) {
    std::string out;
    if (!q.with.empty()) {
      out += "WITH ";
      for (size_t i = 0; i < q.with.size(); ++i) {
        const Cte& cte = q.with[i];
        if (i > 0) out += ", ";
        out += QuoteIdentifier(cte.name.name);
        if (!cte.columns.empty()) out += " " + IdentList(cte.columns);
        out += " AS (" + QueryText(*cte.query) + ")";
      }
      out += " ";
    }
    out += std::visit([&](const auto& body) { return Body(body); }, q.body);
    if (!q.order_by.empty()) out += " ORDER BY " + OrderItems(q.order_by);
    if (q.limit) out += " LIMIT " + Expression(*q.limit);
    if (q.offset) out += " OFFSET " + Expression(*q.offset);
    return out;
  }

  std::string Body(const Box<Query>& inner) { return "(" + QueryText(*inner) + ")"; }

  std::string Body(const Values& values) {
    std::vector<std::string> rows;
    for (const auto& row : values.rows) {
      std::vector<std::string> items;
      for (const Expr& e : row) items.push_back(Expression(e));
      rows.push_back("(" + JoinStrings(items, ", ") + ")");
    }
    return "VALUES " + JoinStrings(rows, ", ");
  }

  static int SetLevel(SetOpKind kind) { return kind == SetOpKind::kIntersect ? 2 : 1; }

  std::string SetOperand(const Query& q, int min_level) {
    std::string s = QueryText(q);
    bool parens = HasClauses(q);
    if (const auto* op = q.As<SetOperation>()) parens = parens || SetLevel(op->kind) < min_level;
    return parens ? "(" + s + ")" : s;
  }

  std::string Body(const SetOperation& op) {
    const char* name = op.kind == SetOpKind::kUnion       ? "UNION"
                       : op.kind == SetOpKind::kIntersect ? "INTERSECT"
                                                          : "EXCEPT";
    int level = SetLevel(op.kind);
    return SetOperand(*op.left, level) + " " + name + (op.all ? " ALL " : " ") +
           SetOperand(*op.right, level + 1);
  }

  std::string Body(const Select& s) {
    std::string out = "SELECT ";
    if (s.distinct) out += "DISTINCT ";
    std::vector<std::string> items;
    for (const SelectItem& item : s.items) {
      std::string text = Expression(item.expr);
      if (item.alias) text += " AS " + QuoteIdentifier(item.alias->name);
      items.push_back(std::move(text));
    }
    out += JoinStrings(items, ", ");
    if (!s.from.empty()) {
      std::vector<std::string> rels;
      for (const Relation& r : s.from) rels.push_back(RelationText(r));
      out += " FROM " + JoinStrings(rels, ", ");
    }
    if (s.where) out += " WHERE " + Expression(*s.where);
    if (!s.group_by.empty()) {
      std::vector<std::string> keys;
      for (const Expr& e : s.group_by) keys.push_back(Expression(e));
      out += " GROUP BY " + JoinStrings(keys, ", ");
    }
    if (s.having) out += " HAVING " + Expression(*s.having);
    return out;
  }

  // --- relations

  static std::string Alias(const std::optional<TableAlias>& alias) {
    if (!alias) return "";
    std::string out = " AS " + QuoteIdentifier(alias->name.name);
    if (!alias->columns.empty()) out += IdentList(alias->columns);
    return out;
  }

  std::string TimeTravelText(const TimeTravel& tt) {
    std::string out = tt.for_prefix ? "FOR " : "";
    if (tt.kind == TimeTravelKind::kVersion) {
      out += tt.system ? "SYSTEM_VERSION" : "VERSION";
    } else {
      out += tt.system ? "SYSTEM_TIME" : "TIMESTAMP";
    }
    return out + " AS OF " + Operand(tt.value, kLevelBitOr);
  }

  std::string RelationText(const Relation& r) {
    return std::visit([&](const auto& node) { return Rel(node); }, r.node);
  }

  std::string Rel(const TableRef& t) {
    std::string out = ToSql(t.name);
    if (t.time_travel) out += " " + TimeTravelText(*t.time_travel);
    return out + Alias(t.alias);
  }

  std::string Rel(const SubqueryRef& s) { return "(" + QueryText(*s.query) + ")" + Alias(s.alias); }

  std::string Rel(const TableFunctionRef& f) {
    return ToSql(f.name) + CallArgs(f.args) + Alias(f.alias);
  }

  std::string Rel(const Join& j) {
    const char* kind = "JOIN";
    switch (j.kind) {
      case JoinKind::kInner: kind = "JOIN"; break;
      case JoinKind::kLeft: kind = "LEFT JOIN"; break;
      case JoinKind::kRight: kind = "RIGHT JOIN"; break;
      case JoinKind::kFull: kind = "FULL OUTER JOIN"; break;
      case JoinKind::kCross: kind = "CROSS JOIN"; break;
      case JoinKind::kLeftSemi: kind = "LEFT SEMI JOIN"; break;
      case JoinKind::kLeftAnti: kind = "LEFT ANTI JOIN"; break;
    }
    std::string right = RelationText(*j.right);
    if (j.right->As<Join>()) right = "(" + right + ")";
    std::string out = RelationText(*j.left) + (j.natural ? " NATURAL " : " ") + kind + " " + right;
    if (j.on) out += " ON " + Expression(*j.on);
    if (!j.using_columns.empty()) out += " USING " + IdentList(j.using_columns);
    return out;
  }

  // --- statements

  static std::string Properties(const std::vector<Property>& props) {
    std::vector<std::string> items;
    for (const Property& p : props) items.push_back(QuoteString(p.key) + " = " + QuoteString(p.value));
    return "(" + JoinStrings(items, ", ") + ")";
  }

  static std::string Comment(const std::optional<std::string>& c) {
    return c ? " COMMENT " + QuoteString(*c) : "";
  }

  static std::string Partition(const PartitionField& f) {
    std::string col = Path(f.column);
    switch (f.transform) {
      case TransformKind::kIdentity: return col;
      case TransformKind::kYear: return "years(" + col + ")";
      case TransformKind::kMonth: return "months(" + col + ")";
      case TransformKind::kDay: return "days(" + col + ")";
      case TransformKind::kHour: return "hours(" + col + ")";
      case TransformKind::kBucket: return "bucket(" + std::to_string(f.param) + ", " + col + ")";
      case TransformKind::kTruncate:
        return "truncate(" + std::to_string(f.param) + ", " + col + ")";
    }
    return col;
  }

  static std::string Duration(const RefDuration& d) {
    const char* unit = d.unit == TimeUnit::kDays ? "DAYS" : d.unit == TimeUnit::kHours ? "HOURS" : "MINUTES";
    return std::to_string(d.amount) + " " + unit;
  }

  static std::string Position(const ColumnPosition& p) {
    return p.first ? "FIRST" : "AFTER " + Path(p.after);
  }

  std::string CallArgs(const std::vector<CallArgument>& args) {
    std::vector<std::string> items;
    for (const CallArgument& a : args) {
      std::string s = a.name ? QuoteIdentifier(a.name->name) + " => " : "";
      items.push_back(s + Expression(a.value));
    }
    return "(" + JoinStrings(items, ", ") + ")";
  }

  // Raw SET keys and values: bare when they are plain, else quoted.
  static std::string RawKey(const std::string& key) {
    bool plain = !key.empty();
    for (char c : key) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) {
        plain = false;
      }
    }
    if (plain) return key;
    std::string out = "`";
    for (char c : key) {
      out += c;
      if (c == '`') out += '`';
    }
    return out + "`";
  }
  static std::string RawValue(const std::string& value) {
    bool plain = !value.empty();
    for (char c : value) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
            c == ':' || c == '+' || c == '@' || c == ',')) {
        plain = false;
      }
    }
    return plain ? value : QuoteString(value);
  }

  std::string Stmt(const Query& q) { return QueryText(q); }

  std::string Stmt(const Explain& e) {
    const char* mode = "";
    switch (e.mode) {
      case ExplainMode::kDefault: break;
      case ExplainMode::kExtended: mode = "EXTENDED "; break;
      case ExplainMode::kFormatted: mode = "FORMATTED "; break;
      case ExplainMode::kCodegen: mode = "CODEGEN "; break;
      case ExplainMode::kCost: mode = "COST "; break;
    }
    return std::string("EXPLAIN ") + mode + StatementText(*e.statement);
  }

  std::string Stmt(const CreateNamespace& c) {
    std::string out = "CREATE NAMESPACE ";
    if (c.if_not_exists) out += "IF NOT EXISTS ";
    out += ToSql(c.name) + Comment(c.comment);
    if (c.location) out += " LOCATION " + QuoteString(*c.location);
    if (!c.properties.empty()) out += " WITH DBPROPERTIES " + Properties(c.properties);
    return out;
  }

  std::string Stmt(const DropNamespace& d) {
    return std::string("DROP NAMESPACE ") + (d.if_exists ? "IF EXISTS " : "") + ToSql(d.name) +
           (d.cascade ? " CASCADE" : "");
  }

  static std::string InPattern(const std::optional<ObjectName>& in,
                               const std::optional<std::string>& pattern) {
    std::string out;
    if (in) out += " IN " + ToSql(*in);
    if (pattern) out += " LIKE " + QuoteString(*pattern);
    return out;
  }

  std::string Stmt(const ShowNamespaces& s) { return "SHOW NAMESPACES" + InPattern(s.in, s.pattern); }
  std::string Stmt(const ShowTables& s) { return "SHOW TABLES" + InPattern(s.in, s.pattern); }
  std::string Stmt(const ShowProcedures& s) { return "SHOW PROCEDURES" + InPattern(s.in, s.pattern); }
  std::string Stmt(const ShowDroppedTables& s) {
    return "SHOW DROPPED TABLES" + InPattern(s.in, s.pattern);
  }
  std::string Stmt(const Use& u) { return "USE " + ToSql(u.name); }

  std::string Stmt(const CreateTable& c) {
    std::string out;
    switch (c.mode) {
      case CreateMode::kCreate: out = "CREATE TABLE "; break;
      case CreateMode::kCreateOrReplace: out = "CREATE OR REPLACE TABLE "; break;
      case CreateMode::kReplace: out = "REPLACE TABLE "; break;
    }
    if (c.if_not_exists) out += "IF NOT EXISTS ";
    out += ToSql(c.name);
    if (!c.columns.empty()) {
      std::vector<std::string> cols;
      for (const ColumnDef& col : c.columns) {
        cols.push_back(QuoteIdentifier(col.name.name) + " " + ToSql(col.type) +
                       (col.not_null ? " NOT NULL" : "") + Comment(col.comment));
      }
      out += " (" + JoinStrings(cols, ", ") + ")";
    }
    if (c.provider) out += " USING " + QuoteIdentifier(*c.provider);
    if (!c.partitioned_by.empty()) {
      std::vector<std::string> fields;
      for (const PartitionField& f : c.partitioned_by) fields.push_back(Partition(f));
      out += " PARTITIONED BY (" + JoinStrings(fields, ", ") + ")";
    }
    if (c.location) out += " LOCATION " + QuoteString(*c.location);
    out += Comment(c.comment);
    if (!c.properties.empty()) out += " TBLPROPERTIES " + Properties(c.properties);
    if (c.as_query) out += " AS " + QueryText(*c.as_query);
    return out;
  }

  std::string Stmt(const DropTable& d) {
    return std::string("DROP TABLE ") + (d.if_exists ? "IF EXISTS " : "") + ToSql(d.name) +
           (d.purge ? " PURGE" : "");
  }

  std::string Stmt(const UndropTable& u) { return "UNDROP TABLE " + ToSql(u.name); }
  std::string Stmt(const CreateCatalogTag& c) {
    std::string out = "CREATE CATALOG TAG " + QuoteIdentifier(c.name.name);
    if (c.in) out += " IN NAMESPACE " + ToSql(*c.in);
    if (c.retain) out += " RETAIN " + Duration(*c.retain);
    return out;
  }
  std::string Stmt(const DropCatalogTag& d) { return "DROP CATALOG TAG " + QuoteIdentifier(d.name.name); }
  std::string Stmt(const ShowCatalogTags&) { return "SHOW CATALOG TAGS"; }

  std::string Action(const SetProperties& a) { return "SET TBLPROPERTIES " + Properties(a.properties); }
  std::string Action(const UnsetProperties& a) {
    std::vector<std::string> keys;
    for (const std::string& k : a.keys) keys.push_back(QuoteString(k));
    return std::string("UNSET TBLPROPERTIES ") + (a.if_exists ? "IF EXISTS " : "") + "(" +
           JoinStrings(keys, ", ") + ")";
  }
  std::string Action(const AddColumns& a) {
    std::vector<std::string> cols;
    for (const AddColumn& c : a.columns) {
      std::string s = Path(c.name) + " " + ToSql(c.type) + (c.not_null ? " NOT NULL" : "") +
                      Comment(c.comment);
      if (c.position) s += " " + Position(*c.position);
      cols.push_back(std::move(s));
    }
    return "ADD COLUMNS (" + JoinStrings(cols, ", ") + ")";
  }
  std::string Action(const RenameColumn& a) {
    return "RENAME COLUMN " + Path(a.column) + " TO " + QuoteIdentifier(a.new_name.name);
  }
  std::string Action(const DropColumns& a) {
    std::vector<std::string> cols;
    for (const auto& c : a.columns) cols.push_back(Path(c));
    return std::string("DROP COLUMNS ") + (a.if_exists ? "IF EXISTS " : "") + "(" +
           JoinStrings(cols, ", ") + ")";
  }
  std::string Action(const AlterColumn& a) {
    std::string out = "ALTER COLUMN " + Path(a.column) + " ";
    switch (a.action) {
      case AlterColumnAction::kType: return out + "TYPE " + ToSql(a.type);
      case AlterColumnAction::kSetNotNull: return out + "SET NOT NULL";
      case AlterColumnAction::kDropNotNull: return out + "DROP NOT NULL";
      case AlterColumnAction::kComment: return out + "COMMENT " + QuoteString(a.comment);
      case AlterColumnAction::kPosition: return out + Position(a.position);
    }
    return out;
  }
  std::string Action(const RenameTable& a) { return "RENAME TO " + ToSql(a.new_name); }
  std::string Action(const CreateRef& a) {
    std::string out = a.create && a.replace ? "CREATE OR REPLACE " : a.create ? "CREATE " : "REPLACE ";
    out += a.kind == RefKind::kTag ? "TAG " : "BRANCH ";
    if (a.if_not_exists) out += "IF NOT EXISTS ";
    out += QuoteIdentifier(a.name.name);
    if (a.as_of_version) out += " AS OF VERSION " + std::to_string(*a.as_of_version);
    if (a.retain) out += " RETAIN " + Duration(*a.retain);
    if (a.min_snapshots_to_keep || a.max_snapshot_age) {
      out += " WITH SNAPSHOT RETENTION";
      if (a.min_snapshots_to_keep) out += " " + std::to_string(*a.min_snapshots_to_keep) + " SNAPSHOTS";
      if (a.max_snapshot_age) out += " " + Duration(*a.max_snapshot_age);
    }
    return out;
  }
  std::string Action(const DropRef& a) {
    return std::string("DROP ") + (a.kind == RefKind::kTag ? "TAG " : "BRANCH ") +
           (a.if_exists ? "IF EXISTS " : "") + QuoteIdentifier(a.name.name);
  }
  std::string Action(const SetProtection& a) {
    std::string out = a.unset ? "UNSET PROTECTION " : "SET PROTECTION ";
    if (a.if_exists) out += "IF EXISTS ";
    out += a.kind == RefKind::kTag ? "ON TAG " : "ON BRANCH ";
    out += QuoteIdentifier(a.name.name);
    if (a.allow_fast_forward) out += " ALLOW FAST_FORWARD";
    if (a.allow_cherry_pick) out += " ALLOW CHERRYPICK";
    if (a.allow_rollback) out += " ALLOW ROLLBACK";
    return out;
  }
  std::string Action(const ExecuteProcedure& a) {
    return "EXECUTE " + QuoteIdentifier(a.procedure.name) + CallArgs(a.args);
  }
  std::string Action(const AddPartitionField& a) {
    std::string out = "ADD PARTITION FIELD " + Partition(a.field);
    if (a.as) out += " AS " + QuoteIdentifier(a.as->name);
    return out;
  }
  std::string Action(const DropPartitionField& a) { return "DROP PARTITION FIELD " + Partition(a.field); }
  std::string Action(const ReplacePartitionField& a) {
    std::string out = "REPLACE PARTITION FIELD " + Partition(a.from) + " WITH " + Partition(a.to);
    if (a.as) out += " AS " + QuoteIdentifier(a.as->name);
    return out;
  }

  std::string Stmt(const AlterTable& a) {
    return "ALTER TABLE " + ToSql(a.name) + " " +
           std::visit([&](const auto& action) { return Action(action); }, a.action);
  }

  std::string Stmt(const Describe& d) {
    return std::string("DESCRIBE TABLE ") + (d.extended ? "EXTENDED " : "") + ToSql(d.name);
  }
  std::string Stmt(const DescribeFunction& d) {
    return std::string("DESCRIBE FUNCTION ") + (d.extended ? "EXTENDED " : "") + ToSql(d.name);
  }
  std::string Stmt(const ShowFunctions& s) {
    const char* scope = s.scope == FunctionScope::kUser ? "USER " : s.scope == FunctionScope::kSystem ? "SYSTEM " : "";
    return std::string("SHOW ") + scope + "FUNCTIONS" + (s.pattern ? " LIKE " + QuoteString(*s.pattern) : "");
  }
  std::string Stmt(const ShowCreateTable& s) { return "SHOW CREATE TABLE " + ToSql(s.name); }
  std::string Stmt(const ShowTblProperties& s) {
    std::string out = "SHOW TBLPROPERTIES " + ToSql(s.name);
    if (s.key) out += " (" + QuoteString(*s.key) + ")";
    return out;
  }

  std::string Stmt(const Insert& i) {
    std::string out = i.overwrite ? "INSERT OVERWRITE TABLE " : "INSERT INTO TABLE ";
    out += ToSql(i.table);
    if (!i.partition.empty()) {
      std::vector<std::string> items;
      for (const PartitionValue& p : i.partition) {
        std::string s = QuoteIdentifier(p.column.name);
        if (p.value) s += " = " + Expression(*p.value);
        items.push_back(std::move(s));
      }
      out += " PARTITION (" + JoinStrings(items, ", ") + ")";
    }
    if (!i.columns.empty()) out += " " + IdentList(i.columns);
    return out + " " + QueryText(i.query);
  }

  static std::string SimpleAlias(const std::optional<Identifier>& alias) {
    return alias ? " AS " + QuoteIdentifier(alias->name) : "";
  }

  std::string Assignments(const std::vector<Assignment>& assignments) {
    std::vector<std::string> items;
    for (const Assignment& a : assignments) items.push_back(Path(a.target) + " = " + Expression(a.value));
    return JoinStrings(items, ", ");
  }

  std::string Stmt(const Delete& d) {
    std::string out = "DELETE FROM " + ToSql(d.table) + SimpleAlias(d.alias);
    if (d.where) out += " WHERE " + Expression(*d.where);
    return out;
  }

  std::string Stmt(const Update& u) {
    std::string out = "UPDATE " + ToSql(u.table) + SimpleAlias(u.alias) + " SET " + Assignments(u.assignments);
    if (u.where) out += " WHERE " + Expression(*u.where);
    return out;
  }

  std::string Stmt(const Merge& m) {
    std::string out = "MERGE INTO " + ToSql(m.target) + SimpleAlias(m.target_alias) + " USING ";
    std::string source = RelationText(m.source);
    if (m.source.As<Join>()) source = "(" + source + ")";
    out += source + " ON " + Expression(m.on);
    for (const MergeClause& c : m.clauses) {
      switch (c.match) {
        case MergeMatch::kMatched: out += " WHEN MATCHED"; break;
        case MergeMatch::kNotMatched: out += " WHEN NOT MATCHED"; break;
        case MergeMatch::kNotMatchedBySource: out += " WHEN NOT MATCHED BY SOURCE"; break;
      }
      if (c.condition) out += " AND " + Expression(*c.condition);
      out += " THEN ";
      switch (c.action) {
        case MergeActionKind::kUpdate: out += "UPDATE SET " + Assignments(c.assignments); break;
        case MergeActionKind::kUpdateStar: out += "UPDATE SET *"; break;
        case MergeActionKind::kDelete: out += "DELETE"; break;
        case MergeActionKind::kInsertStar: out += "INSERT *"; break;
        case MergeActionKind::kInsert: {
          out += "INSERT ";
          if (!c.insert_columns.empty()) out += IdentList(c.insert_columns) + " ";
          std::vector<std::string> values;
          for (const Expr& e : c.insert_values) values.push_back(Expression(e));
          out += "VALUES (" + JoinStrings(values, ", ") + ")";
          break;
        }
      }
    }
    return out;
  }

  std::string Stmt(const Call& c) { return "CALL " + ToSql(c.procedure) + CallArgs(c.args); }

  std::string Stmt(const SetConfig& s) {
    if (!s.key) return "SET";
    std::string out = "SET " + RawKey(*s.key);
    if (s.value) out += " = " + RawValue(*s.value);
    return out;
  }

  std::string Stmt(const SetTimeZone& s) {
    switch (s.kind) {
      case TimeZoneKind::kLocal: return "SET TIME ZONE LOCAL";
      case TimeZoneKind::kName: return "SET TIME ZONE " + QuoteString(s.zone);
      case TimeZoneKind::kInterval: return "SET TIME ZONE " + Interval(s.interval);
    }
    return "";
  }

  std::string Stmt(const Reset& r) { return r.key ? "RESET " + RawKey(*r.key) : "RESET"; }

  std::string Stmt(const TransactionControl& t) { return t.text; }

  std::string StatementText(const Statement& s) {
    return std::visit([&](const auto& node) { return Stmt(node); }, s.node);
  }
};

}  // namespace

std::string QuoteIdentifier(const std::string& name) {
  if (IsSimpleName(name) && !IsReservedWord(name) && !IsExpressionWord(name)) return name;
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

namespace {

// `value` between `quote`s, escaped as the lexer reads such a string back.
std::string QuoteStringWith(const std::string& value, char quote) {
  std::string out(1, quote);
  for (char c : value) {
    if (c == quote) {
      out += '\\';
      out += c;
      continue;
    }
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\0': out += "\\0"; break;
      default: out += c;
    }
  }
  return out + quote;
}

}  // namespace

std::string DoubleQuoteString(const std::string& value) { return QuoteStringWith(value, '"'); }

std::string QuoteString(const std::string& value) { return QuoteStringWith(value, '\''); }

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return "OR";
    case BinaryOp::kAnd: return "AND";
    case BinaryOp::kEq: return "=";
    case BinaryOp::kNullSafeEq: return "<=>";
    case BinaryOp::kIsDistinctFrom: return "IS DISTINCT FROM";
    case BinaryOp::kNe: return "<>";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLe: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGe: return ">=";
    case BinaryOp::kBitOr: return "|";
    case BinaryOp::kBitXor: return "^";
    case BinaryOp::kBitAnd: return "&";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSubtract: return "-";
    case BinaryOp::kConcat: return "||";
    case BinaryOp::kMultiply: return "*";
    case BinaryOp::kDivide: return "/";
    case BinaryOp::kModulo: return "%";
    case BinaryOp::kIntDivide: return "DIV";
  }
  return "?";
}

const char* TypeKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean: return "BOOLEAN";
    case TypeKind::kTinyInt: return "TINYINT";
    case TypeKind::kSmallInt: return "SMALLINT";
    case TypeKind::kInt: return "INT";
    case TypeKind::kBigInt: return "BIGINT";
    case TypeKind::kFloat: return "FLOAT";
    case TypeKind::kDouble: return "DOUBLE";
    case TypeKind::kDecimal: return "DECIMAL";
    case TypeKind::kString: return "STRING";
    case TypeKind::kVarchar: return "VARCHAR";
    case TypeKind::kChar: return "CHAR";
    case TypeKind::kBinary: return "BINARY";
    case TypeKind::kDate: return "DATE";
    case TypeKind::kTimestamp: return "TIMESTAMP";
    case TypeKind::kTimestampNtz: return "TIMESTAMP_NTZ";
    case TypeKind::kTimestampLtz: return "TIMESTAMP_LTZ";
    case TypeKind::kArray: return "ARRAY";
    case TypeKind::kMap: return "MAP";
    case TypeKind::kStruct: return "STRUCT";
  }
  return "?";
}

std::string ToSql(const DataType& type) {
  std::string out = TypeKindName(type.kind);
  switch (type.kind) {
    case TypeKind::kDecimal:
      if (type.precision >= 0) {
        out += "(" + std::to_string(type.precision);
        if (type.scale >= 0) out += ", " + std::to_string(type.scale);
        out += ")";
      }
      break;
    case TypeKind::kVarchar:
    case TypeKind::kChar:
      if (type.length >= 0) out += "(" + std::to_string(type.length) + ")";
      break;
    case TypeKind::kArray:
      out += "<" + ToSql(type.children.at(0)) + ">";
      break;
    case TypeKind::kMap:
      out += "<" + ToSql(type.children.at(0)) + ", " + ToSql(type.children.at(1)) + ">";
      break;
    case TypeKind::kStruct: {
      std::vector<std::string> fields;
      for (const StructField& f : type.fields) {
        std::string s = QuoteIdentifier(f.name.name) + ": " + ToSql(f.type);
        if (f.not_null) s += " NOT NULL";
        if (f.comment) s += " COMMENT " + QuoteString(*f.comment);
        fields.push_back(std::move(s));
      }
      out += "<" + JoinStrings(fields, ", ") + ">";
      break;
    }
    default:
      break;
  }
  return out;
}

std::string ToSql(const ObjectName& name) { return Path(name.parts); }
std::string ToSql(const Expr& expr) { return Printer().Expression(expr); }
std::string ToSql(const Query& query) { return Printer().QueryText(query); }
std::string ToSql(const Relation& relation) { return Printer().RelationText(relation); }
std::string ToSql(const Statement& statement) { return Printer().StatementText(statement); }

}  // namespace floe::sql
