#include "floe/sql/parse/parser_internal.h"

namespace floe::sql::parsing {

Result<Query> Parser::ParseQuery() {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  SourcePos pos = Cur().pos;
  std::vector<Cte> with;
  if (Accept("WITH")) {
    if (Peek("RECURSIVE")) return ErrorHere("recursive queries are not supported");
    do {
      Cte cte;
      ARROW_ASSIGN_OR_RAISE(cte.name, ParseIdent(true));
      if (PeekKind(TokenKind::kLParen)) {
        ARROW_ASSIGN_OR_RAISE(cte.columns, ParseIdentList());
      }
      ARROW_RETURN_NOT_OK(Expect("AS"));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
      ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      cte.query = std::move(q);
      with.push_back(std::move(cte));
    } while (AcceptKind(TokenKind::kComma));
  }
  ARROW_ASSIGN_OR_RAISE(Query body, ParseSetExpr());
  std::vector<OrderItem> order_by;
  ExprBox limit;
  ExprBox offset;
  if (Peek("ORDER") && Peek("BY", 1)) {
    i_ += 2;
    ARROW_ASSIGN_OR_RAISE(order_by, ParseOrderItems());
  }
  for (int k = 0; k < 2; ++k) {
    if (!limit && Accept("LIMIT")) {
      if (Accept("ALL")) continue;
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      limit = std::move(e);
    } else if (!offset && Accept("OFFSET")) {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      offset = std::move(e);
      if (Peek("ROWS") || Peek("ROW")) Bump();
    }
  }
  bool has_clauses = !order_by.empty() || limit || offset;
  bool body_has_clauses =
      !body.with.empty() || !body.order_by.empty() || body.limit || body.offset;
  if ((has_clauses || !with.empty()) && body_has_clauses) {
    Query outer;
    outer.body = Box<Query>(std::move(body));
    body = std::move(outer);
  }
  if (!with.empty()) body.with = std::move(with);
  if (!order_by.empty()) body.order_by = std::move(order_by);
  if (limit) body.limit = std::move(limit);
  if (offset) body.offset = std::move(offset);
  body.pos = pos;
  return body;
}

Result<std::vector<OrderItem>> Parser::ParseOrderItems() {
  std::vector<OrderItem> items;
  do {
    OrderItem item;
    ARROW_ASSIGN_OR_RAISE(item.expr, ParseExpr());
    if (Accept("DESC")) {
      item.ascending = false;
    } else {
      Accept("ASC");
    }
    if (Accept("NULLS")) {
      if (Accept("FIRST")) {
        item.nulls = NullsOrder::kFirst;
      } else if (Accept("LAST")) {
        item.nulls = NullsOrder::kLast;
      } else {
        return ErrorHere("expected FIRST or LAST");
      }
    }
    items.push_back(std::move(item));
  } while (AcceptKind(TokenKind::kComma));
  return items;
}

Result<Query> Parser::ParseSetExpr(int level) {
  DepthScope scope(&depth_);
  ARROW_ASSIGN_OR_RAISE(Query left, level == 1 ? ParseSetExpr(2) : ParseQueryTerm());
  while (true) {
    std::optional<SetOpKind> kind;
    if (level == 1 && Peek("UNION")) kind = SetOpKind::kUnion;
    if (level == 1 && (Peek("EXCEPT") || Peek("MINUS"))) kind = SetOpKind::kExcept;
    if (level == 2 && Peek("INTERSECT")) kind = SetOpKind::kIntersect;
    if (!kind) return left;
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    SourcePos pos = Cur().pos;
    Bump();
    SetOperation op;
    op.kind = *kind;
    if (Accept("ALL")) {
      op.all = true;
    } else {
      Accept("DISTINCT");
    }
    ARROW_ASSIGN_OR_RAISE(Query right, level == 1 ? ParseSetExpr(2) : ParseQueryTerm());
    op.left = std::move(left);
    op.right = std::move(right);
    Query q;
    q.body = std::move(op);
    q.pos = pos;
    left = std::move(q);
  }
}

Result<Query> Parser::ParseQueryTerm() {
  SourcePos pos = Cur().pos;
  if (Peek("SELECT")) {
    ARROW_ASSIGN_OR_RAISE(Select select, ParseSelect());
    Query q;
    q.body = std::move(select);
    q.pos = pos;
    return q;
  }
  if (Peek("VALUES")) {
    ARROW_ASSIGN_OR_RAISE(Values values, ParseValues());
    Query q;
    q.body = std::move(values);
    q.pos = pos;
    return q;
  }
  if (PeekKind(TokenKind::kLParen)) {
    Bump();
    ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return q;
  }
  return ErrorHere("expected SELECT, VALUES or '('");
}

Result<Values> Parser::ParseValues() {
  ARROW_RETURN_NOT_OK(Expect("VALUES"));
  Values values;
  do {
    std::vector<Expr> row;
    if (PeekKind(TokenKind::kLParen) && !StartsQuery(i_ + 1)) {
      DepthScope scope(&depth_);
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      Bump();
      do {
        ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
        row.push_back(std::move(e));
      } while (AcceptKind(TokenKind::kComma));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    } else {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      row.push_back(std::move(e));
    }
    values.rows.push_back(std::move(row));
  } while (AcceptKind(TokenKind::kComma));
  return values;
}

Result<ExprBox> Parser::ParseOptionalWhere() {
  if (!Accept("WHERE")) return ExprBox();
  ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
  return ExprBox(std::move(e));
}

Result<Select> Parser::ParseSelect() {
  ARROW_RETURN_NOT_OK(Expect("SELECT"));
  Select select;
  if (Accept("DISTINCT")) {
    select.distinct = true;
  } else {
    Accept("ALL");
  }
  do {
    ARROW_ASSIGN_OR_RAISE(SelectItem item, ParseSelectItem());
    select.items.push_back(std::move(item));
  } while (AcceptKind(TokenKind::kComma));
  if (Accept("FROM")) {
    do {
      ARROW_ASSIGN_OR_RAISE(Relation r, ParseRelation());
      select.from.push_back(std::move(r));
    } while (AcceptKind(TokenKind::kComma));
  }
  ARROW_ASSIGN_OR_RAISE(select.where, ParseOptionalWhere());
  if (Peek("GROUP") && Peek("BY", 1)) {
    i_ += 2;
    do {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      select.group_by.push_back(std::move(e));
    } while (AcceptKind(TokenKind::kComma));
  }
  if (Accept("HAVING")) {
    ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
    select.having = std::move(e);
  }
  return select;
}

Result<SelectItem> Parser::ParseSelectItem() {
  SelectItem item;
  if (PeekKind(TokenKind::kStar)) {
    item.expr = MakeExpr(Star{}, Cur().pos);
    Bump();
    return item;
  }
  ARROW_ASSIGN_OR_RAISE(item.expr, ParseExpr());
  if (item.expr.Is<Star>()) return item;
  if (Accept("AS")) {
    ARROW_ASSIGN_OR_RAISE(Identifier alias, ParseIdent(true));
    item.alias = std::move(alias);
  } else if (IsPlainIdentifier(Cur())) {
    item.alias = MakeIdent(Cur());
    Bump();
  }
  return item;
}

bool Parser::CanBeImplicitAlias(const Token& t) const {
  if (!IsPlainIdentifier(t)) return false;
  if (t.kind == TokenKind::kQuotedIdent) return true;
  static constexpr std::array<std::string_view, 8> kStops = {
      "SET", "WINDOW", "QUALIFY", "LATERAL", "PIVOT", "UNPIVOT", "TABLESAMPLE", "WHEN"};
  for (std::string_view stop : kStops) {
    if (EqualsUpper(t.text, stop)) return false;
  }
  return !StartsTimeTravel();
}

Result<std::optional<TableAlias>> Parser::ParseOptionalAlias() {
  std::optional<TableAlias> alias;
  if (Accept("AS")) {
    TableAlias a;
    ARROW_ASSIGN_OR_RAISE(a.name, ParseIdent(true));
    alias = std::move(a);
  } else if (CanBeImplicitAlias(Cur())) {
    TableAlias a;
    a.name = MakeIdent(Cur());
    Bump();
    alias = std::move(a);
  }
  if (alias && PeekKind(TokenKind::kLParen)) {
    ARROW_ASSIGN_OR_RAISE(alias->columns, ParseIdentList());
  }
  return alias;
}

Result<std::optional<Identifier>> Parser::ParseOptionalSimpleAlias() {
  if (Accept("AS")) {
    ARROW_ASSIGN_OR_RAISE(Identifier id, ParseIdent(true));
    return std::optional<Identifier>(std::move(id));
  }
  if (CanBeImplicitAlias(Cur())) {
    Identifier id = MakeIdent(Cur());
    Bump();
    return std::optional<Identifier>(std::move(id));
  }
  return std::optional<Identifier>();
}

bool Parser::IsTimeTravelWord(const Token& t) {
  return t.kind == TokenKind::kWord &&
         (EqualsUpper(t.text, "VERSION") || EqualsUpper(t.text, "SYSTEM_VERSION") ||
          EqualsUpper(t.text, "TIMESTAMP") || EqualsUpper(t.text, "SYSTEM_TIME"));
}

bool Parser::StartsTimeTravel() const {
  size_t k = Peek("FOR") ? 1 : 0;
  return IsTimeTravelWord(Ahead(k)) && Peek("AS", k + 1) && Peek("OF", k + 2);
}

Result<std::optional<TimeTravel>> Parser::ParseOptionalTimeTravel() {
  if (!StartsTimeTravel()) return std::optional<TimeTravel>();
  TimeTravel tt;
  tt.pos = Cur().pos;
  tt.for_prefix = Accept("FOR");
  std::string word = AsciiUpper(Cur().text);
  tt.kind = (word == "VERSION" || word == "SYSTEM_VERSION") ? TimeTravelKind::kVersion
                                                            : TimeTravelKind::kTimestamp;
  tt.system = word == "SYSTEM_VERSION" || word == "SYSTEM_TIME";
  i_ += 3;  // word AS OF
  if (AtEnd()) {
    return ErrorHere(tt.kind == TimeTravelKind::kVersion ? "expected a version"
                                                         : "expected a timestamp");
  }
  ARROW_ASSIGN_OR_RAISE(tt.value, ParseBitOr());
  return std::optional<TimeTravel>(std::move(tt));
}

Result<Relation> Parser::ParseRelation() {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  ARROW_ASSIGN_OR_RAISE(Relation left, ParseRelationPrimary());
  while (true) {
    SourcePos pos = Cur().pos;
    size_t save = i_;
    bool natural = Accept("NATURAL");
    std::optional<JoinKind> kind;
    if (Peek("JOIN")) {
      kind = JoinKind::kInner;
      i_ += 1;
    } else if (Peek("INNER") && Peek("JOIN", 1)) {
      kind = JoinKind::kInner;
      i_ += 2;
    } else if (Peek("CROSS") && Peek("JOIN", 1)) {
      kind = JoinKind::kCross;
      i_ += 2;
    } else if (Peek("LEFT") || Peek("RIGHT") || Peek("FULL")) {
      JoinKind k = Peek("LEFT") ? JoinKind::kLeft : Peek("RIGHT") ? JoinKind::kRight : JoinKind::kFull;
      Bump();
      if (k == JoinKind::kLeft && Accept("SEMI")) {
        k = JoinKind::kLeftSemi;
      } else if (k == JoinKind::kLeft && Accept("ANTI")) {
        k = JoinKind::kLeftAnti;
      } else {
        Accept("OUTER");
      }
      ARROW_RETURN_NOT_OK(Expect("JOIN"));
      kind = k;
    } else if ((Peek("SEMI") || Peek("ANTI")) && Peek("JOIN", 1)) {
      kind = Peek("SEMI") ? JoinKind::kLeftSemi : JoinKind::kLeftAnti;
      i_ += 2;
    }
    if (!kind) {
      i_ = save;
      if (natural) return ErrorHere("expected JOIN");
      return left;
    }
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    ARROW_ASSIGN_OR_RAISE(Relation right, ParseRelationPrimary());
    Join join;
    join.kind = *kind;
    join.natural = natural;
    if (Accept("ON")) {
      ARROW_ASSIGN_OR_RAISE(Expr on, ParseExpr());
      join.on = std::move(on);
    } else if (Accept("USING")) {
      ARROW_ASSIGN_OR_RAISE(join.using_columns, ParseIdentList());
    }
    join.left = std::move(left);
    join.right = std::move(right);
    Relation r;
    r.node = std::move(join);
    r.pos = pos;
    left = std::move(r);
  }
}

Result<Relation> Parser::ParseRelationPrimary() {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  Relation rel;
  rel.pos = Cur().pos;
  if (PeekKind(TokenKind::kLParen)) {
    if (StartsQueryThroughParens(i_)) {
      Bump();
      SubqueryRef sub;
      ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      sub.query = std::move(q);
      ARROW_ASSIGN_OR_RAISE(sub.alias, ParseOptionalAlias());
      rel.node = std::move(sub);
      return rel;
    }
    Bump();
    ARROW_ASSIGN_OR_RAISE(Relation inner, ParseRelation());
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return inner;
  }
  if (Peek("VALUES")) {
    SourcePos pos = Cur().pos;
    ARROW_ASSIGN_OR_RAISE(Values values, ParseValues());
    SubqueryRef sub;
    Query q;
    q.body = std::move(values);
    q.pos = pos;
    sub.query = std::move(q);
    ARROW_ASSIGN_OR_RAISE(sub.alias, ParseOptionalAlias());
    rel.node = std::move(sub);
    return rel;
  }
  ARROW_ASSIGN_OR_RAISE(ObjectName name, ParseObjectName());
  if (PeekKind(TokenKind::kLParen)) {
    TableFunctionRef fn;
    fn.name = std::move(name);
    ARROW_ASSIGN_OR_RAISE(fn.args, ParseCallArguments());
    ARROW_ASSIGN_OR_RAISE(fn.alias, ParseOptionalAlias());
    rel.node = std::move(fn);
    return rel;
  }
  TableRef table;
  table.name = std::move(name);
  ARROW_ASSIGN_OR_RAISE(table.time_travel, ParseOptionalTimeTravel());
  ARROW_ASSIGN_OR_RAISE(table.alias, ParseOptionalAlias());
  rel.node = std::move(table);
  return rel;
}

}  // namespace floe::sql::parsing
