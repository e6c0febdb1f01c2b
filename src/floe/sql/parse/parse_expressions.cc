#include "floe/sql/parse/parser_internal.h"

#include <map>

namespace floe::sql::parsing {

Result<Expr> Parser::ParseExpr() {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  return ParseOr();
}

Result<Expr> Parser::MakeBinary(BinaryOp op, Expr left, Expr right, SourcePos pos) {
  Binary b;
  b.op = op;
  b.left = std::move(left);
  b.right = std::move(right);
  return MakeExpr(std::move(b), pos);
}

Result<Expr> Parser::ParseOr() {
  DepthScope scope(&depth_);
  ARROW_ASSIGN_OR_RAISE(Expr left, ParseAnd());
  int links = 0;
  while (Peek("OR")) {
    SourcePos pos = Cur().pos;
    Bump();
    ARROW_RETURN_NOT_OK(DeeperInChain(&scope, &links));
    ARROW_ASSIGN_OR_RAISE(Expr right, ParseAnd());
    ARROW_ASSIGN_OR_RAISE(left, MakeBinary(BinaryOp::kOr, std::move(left), std::move(right), pos));
  }
  return left;
}

Result<Expr> Parser::ParseAnd() {
  DepthScope scope(&depth_);
  ARROW_ASSIGN_OR_RAISE(Expr left, ParseNot());
  int links = 0;
  while (Peek("AND")) {
    SourcePos pos = Cur().pos;
    Bump();
    ARROW_RETURN_NOT_OK(DeeperInChain(&scope, &links));
    ARROW_ASSIGN_OR_RAISE(Expr right, ParseNot());
    ARROW_ASSIGN_OR_RAISE(left,
                          MakeBinary(BinaryOp::kAnd, std::move(left), std::move(right), pos));
  }
  return left;
}

Result<Expr> Parser::ParseNot() {
  if (Peek("NOT")) {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    SourcePos pos = Cur().pos;
    Bump();
    ARROW_ASSIGN_OR_RAISE(Expr operand, ParseNot());
    Unary u;
    u.op = UnaryOp::kNot;
    u.operand = std::move(operand);
    return MakeExpr(std::move(u), pos);
  }
  return ParsePredicate();
}

Result<Expr> Parser::ParsePredicate() {
  ARROW_ASSIGN_OR_RAISE(Expr left, ParseComparison());
  SourcePos pos = left.pos;
  if (Peek("IS")) {
    Bump();
    bool negated = Accept("NOT");
    if (Accept("NULL")) {
      IsNull n;
      n.operand = std::move(left);
      n.negated = negated;
      return MakeExpr(std::move(n), pos);
    }
    if (Peek("TRUE") || Peek("FALSE") || Peek("UNKNOWN")) {
      IsBool b;
      if (!Peek("UNKNOWN")) b.value = Peek("TRUE");
      Bump();
      b.operand = std::move(left);
      b.negated = negated;
      return MakeExpr(std::move(b), pos);
    }
    if (Accept("DISTINCT")) {
      ARROW_RETURN_NOT_OK(Expect("FROM"));
      ARROW_ASSIGN_OR_RAISE(Expr right, ParseComparison());
      return MakeBinary(negated ? BinaryOp::kNullSafeEq : BinaryOp::kIsDistinctFrom,
                        std::move(left), std::move(right), pos);
    }
    return ErrorHere("expected NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM");
  }
  bool negated = false;
  if (Peek("NOT") && (Peek("BETWEEN", 1) || Peek("IN", 1) || Peek("LIKE", 1) ||
                      Peek("ILIKE", 1) || Peek("RLIKE", 1) || Peek("REGEXP", 1))) {
    negated = true;
    Bump();
  }
  if (Accept("BETWEEN")) {
    Between b;
    b.negated = negated;
    ARROW_ASSIGN_OR_RAISE(Expr low, ParseBitOr());
    ARROW_RETURN_NOT_OK(Expect("AND"));
    ARROW_ASSIGN_OR_RAISE(Expr high, ParseBitOr());
    b.operand = std::move(left);
    b.low = std::move(low);
    b.high = std::move(high);
    return MakeExpr(std::move(b), pos);
  }
  if (Accept("IN")) {
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
    if (StartsQuery(i_)) {
      ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      InSubquery in;
      in.operand = std::move(left);
      in.query = std::move(q);
      in.negated = negated;
      return MakeExpr(std::move(in), pos);
    }
    InList in;
    in.operand = std::move(left);
    in.negated = negated;
    do {
      ARROW_ASSIGN_OR_RAISE(Expr item, ParseExpr());
      in.list.push_back(std::move(item));
    } while (AcceptKind(TokenKind::kComma));
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return MakeExpr(std::move(in), pos);
  }
  if (!negated) {
    // PostgreSQL's regex matches: ~ ~* !~ !~*, also as OPERATOR(pg_catalog.~).
    size_t save = i_;
    std::string op;
    if (Peek("OPERATOR") && PeekKind(TokenKind::kLParen, 1)) {
      i_ += 2;
      if (IsNameToken(Cur()) && PeekKind(TokenKind::kDot, 1)) i_ += 2;
      while (!PeekKind(TokenKind::kRParen) && !PeekKind(TokenKind::kEnd)) {
        op += std::string(Cur().raw);
        Bump();
      }
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    } else if (PeekKind(TokenKind::kTilde) || PeekKind(TokenKind::kBangTilde)) {
      op = PeekKind(TokenKind::kTilde) ? "~" : "!~";
      Bump();
      if (PeekKind(TokenKind::kStar)) {
        op += "*";
        Bump();
      }
    }
    if (!op.empty()) {
      SourcePos op_pos = Tok(save).pos;
      static const std::map<std::string, BinaryOp> kComparisons = {
          {"=", BinaryOp::kEq}, {"<>", BinaryOp::kNe}, {"!=", BinaryOp::kNe}, {"<", BinaryOp::kLt},
          {"<=", BinaryOp::kLe}, {">", BinaryOp::kGt}, {">=", BinaryOp::kGe}};
      if (auto it = kComparisons.find(op); it != kComparisons.end()) {
        ARROW_ASSIGN_OR_RAISE(Expr right, ParseComparison());
        return MakeBinary(it->second, std::move(left), std::move(right), op_pos);
      }
      bool like_family = op.find("~~") != std::string::npos;
      bool not_op = op[0] == '!';
      bool insensitive = op.back() == '*';
      std::string base = op.substr(not_op ? 1 : 0, op.size() - (not_op ? 1 : 0) - (insensitive ? 1 : 0));
      if (base != "~" && base != "~~") return ErrorAt(sql_, op_pos, StrCat("operator does not exist: ", op));
      ARROW_ASSIGN_OR_RAISE(Expr pattern, ParseBitOr());
      Like like;
      like.negated = not_op;
      like.operand = std::move(left);
      if (like_family) {
        like.kind = insensitive ? LikeKind::kILike : LikeKind::kLike;
      } else {
        like.kind = LikeKind::kRLike;
        Literal* text = std::get_if<Literal>(&pattern.node);
        if (insensitive && text && text->kind == LiteralKind::kString) {
          // RE2's (?i) flag: ~* matches without regard to case.
          text->value = "(?i)" + text->value;
        } else if (insensitive) {
          FunctionCall concat;
          concat.name.parts.push_back(Identifier{"concat", false, op_pos});
          concat.name.pos = op_pos;
          concat.args.push_back(MakeExpr(Literal{LiteralKind::kString, "(?i)"}, op_pos));
          concat.args.push_back(std::move(pattern));
          pattern = MakeExpr(std::move(concat), op_pos);
        }
      }
      like.pattern = std::move(pattern);
      return MakeExpr(std::move(like), pos);
    }
  }
  if (Peek("LIKE") || Peek("ILIKE") || Peek("RLIKE") || Peek("REGEXP")) {
    Like like;
    like.kind = Peek("LIKE") ? LikeKind::kLike : Peek("ILIKE") ? LikeKind::kILike : LikeKind::kRLike;
    Bump();
    like.negated = negated;
    ARROW_ASSIGN_OR_RAISE(Expr pattern, ParseBitOr());
    like.operand = std::move(left);
    like.pattern = std::move(pattern);
    if (like.kind != LikeKind::kRLike && Accept("ESCAPE")) {
      SourcePos epos = Cur().pos;
      ARROW_ASSIGN_OR_RAISE(std::string esc, ParseStringLiteral("an escape character"));
      Literal lit;
      lit.kind = LiteralKind::kString;
      lit.value = std::move(esc);
      like.escape = MakeExpr(std::move(lit), epos);
    }
    return MakeExpr(std::move(like), pos);
  }
  if (negated) return ErrorHere();
  return left;
}

int Parser::BinaryPrecedence(const Token& t, BinaryOp* op) {
  switch (t.kind) {
    case TokenKind::kEq: *op = BinaryOp::kEq; return 1;
    case TokenKind::kNullSafeEq: *op = BinaryOp::kNullSafeEq; return 1;
    case TokenKind::kNe: *op = BinaryOp::kNe; return 1;
    case TokenKind::kLt: *op = BinaryOp::kLt; return 1;
    case TokenKind::kLe: *op = BinaryOp::kLe; return 1;
    case TokenKind::kGt: *op = BinaryOp::kGt; return 1;
    case TokenKind::kGe: *op = BinaryOp::kGe; return 1;
    case TokenKind::kPipe: *op = BinaryOp::kBitOr; return 2;
    case TokenKind::kCaret: *op = BinaryOp::kBitXor; return 3;
    case TokenKind::kAmpersand: *op = BinaryOp::kBitAnd; return 4;
    case TokenKind::kPlus: *op = BinaryOp::kAdd; return 5;
    case TokenKind::kMinus: *op = BinaryOp::kSubtract; return 5;
    case TokenKind::kConcat: *op = BinaryOp::kConcat; return 5;
    case TokenKind::kStar: *op = BinaryOp::kMultiply; return 6;
    case TokenKind::kSlash: *op = BinaryOp::kDivide; return 6;
    case TokenKind::kPercent: *op = BinaryOp::kModulo; return 6;
    case TokenKind::kWord:
      if (EqualsUpper(t.text, "DIV")) {
        *op = BinaryOp::kIntDivide;
        return 6;
      }
      return 0;
    default:
      return 0;
  }
}

Result<Expr> Parser::ParseBinary(int min_precedence) {
  DepthScope scope(&depth_);
  ARROW_ASSIGN_OR_RAISE(Expr left, ParseUnary());
  int links = 0;
  while (true) {
    BinaryOp op = BinaryOp::kEq;
    int precedence = BinaryPrecedence(Cur(), &op);
    if (precedence == 0 || precedence < min_precedence) return left;
    SourcePos pos = Cur().pos;
    Bump();
    ARROW_RETURN_NOT_OK(DeeperInChain(&scope, &links));
    if (precedence == 1 && (Peek("ANY") || Peek("SOME") || Peek("ALL")) && PeekKind(TokenKind::kLParen, 1)) {
      ARROW_ASSIGN_OR_RAISE(left, ParseQuantified(op, std::move(left), pos));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(Expr right, ParseBinary(precedence + 1));
    ARROW_ASSIGN_OR_RAISE(left, MakeBinary(op, std::move(left), std::move(right), pos));
  }
}

Result<Expr> Parser::ParseQuantified(BinaryOp op, Expr left, SourcePos pos) {
  bool all = Peek("ALL");
  i_ += 2;  // ANY|SOME|ALL (
  // x = ANY (...) is x IN (...); x <> ALL (...) is x NOT IN (...). Other pairs have no
  // form here.
  bool in = op == BinaryOp::kEq && !all;
  bool not_in = op == BinaryOp::kNe && all;
  if (!in && !not_in) {
    return ErrorAt(sql_, pos, StrCat(BinaryOpName(op), all ? " ALL" : " ANY", " is not supported; use = ANY or <> ALL"));
  }
  if (StartsQuery(i_)) {
    ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    InSubquery sub;
    sub.operand = std::move(left);
    sub.query = std::move(q);
    sub.negated = not_in;
    return MakeExpr(std::move(sub), pos);
  }
  ARROW_ASSIGN_OR_RAISE(Expr array, ParseExpr());
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  FunctionCall call;
  call.name.parts.push_back(Identifier{"array_contains", false, pos});
  call.name.pos = pos;
  call.args.push_back(std::move(array));
  call.args.push_back(std::move(left));
  Expr contains = MakeExpr(std::move(call), pos);
  if (!not_in) return contains;
  Unary u;
  u.op = UnaryOp::kNot;
  u.operand = std::move(contains);
  return MakeExpr(std::move(u), pos);
}

bool Parser::IsNumericLiteral(const Expr& e) {
  const Literal* lit = e.As<Literal>();
  if (!lit) return false;
  switch (lit->kind) {
    case LiteralKind::kInteger:
    case LiteralKind::kBigInt:
    case LiteralKind::kSmallInt:
    case LiteralKind::kTinyInt:
    case LiteralKind::kDecimal:
    case LiteralKind::kDouble:
    case LiteralKind::kFloat:
      return true;
    default:
      return false;
  }
}

Result<Expr> Parser::ParseUnary() {
  std::optional<UnaryOp> op;
  if (PeekKind(TokenKind::kMinus)) op = UnaryOp::kMinus;
  if (PeekKind(TokenKind::kPlus)) op = UnaryOp::kPlus;
  if (PeekKind(TokenKind::kTilde)) op = UnaryOp::kBitNot;
  if (!op) return ParsePostfix();
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  SourcePos pos = Cur().pos;
  Bump();
  // A minus directly before a number is part of the literal (as Spark reads -128Y), so
  // range checks see the signed value.
  if (*op == UnaryOp::kMinus && PeekKind(TokenKind::kNumber)) {
    ARROW_ASSIGN_OR_RAISE(Expr lit, ParseNumber(/*negative=*/true, pos));
    return ParsePostfixOn(std::move(lit));
  }
  ARROW_ASSIGN_OR_RAISE(Expr operand, ParseUnary());
  if (*op == UnaryOp::kMinus && IsNumericLiteral(operand)) {
    // -(5) and - -5: fold again so printing and re-parsing agree.
    Literal lit = *operand.As<Literal>();
    if (!lit.value.empty() && lit.value[0] == '-') {
      lit.value.erase(0, 1);
    } else {
      lit.value.insert(0, "-");
    }
    return MakeExpr(std::move(lit), pos);
  }
  Unary u;
  u.op = *op;
  u.operand = std::move(operand);
  return MakeExpr(std::move(u), pos);
}

Status Parser::CheckLiteralRange(const Literal& lit, SourcePos pos) {
  auto out_of_range = [&](std::string_view type, std::string_view min, std::string_view max) {
    return ErrorAt(sql_, pos,
                   StrCat("[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal ", lit.value,
                          " is outside the valid range for ", type, " with minimum value of ", min,
                          " and maximum value of ", max, ". Please adjust the value accordingly."));
  };
  auto check_integer = [&](int64_t lo, int64_t hi, std::string_view type) -> Status {
    std::optional<int64_t> v = floe::ParseInt64(lit.value);
    if (!v || *v < lo || *v > hi) return out_of_range(type, std::to_string(lo), std::to_string(hi));
    return Status::OK();
  };
  switch (lit.kind) {
    case LiteralKind::kBigInt:
      return check_integer(INT64_MIN, INT64_MAX, "bigint");
    case LiteralKind::kSmallInt:
      return check_integer(INT16_MIN, INT16_MAX, "smallint");
    case LiteralKind::kTinyInt:
      return check_integer(INT8_MIN, INT8_MAX, "tinyint");
    case LiteralKind::kDouble: {
      double d = 0;
      if (ParseDouble(lit.value, &d) != FloatParse::kOk) {
        return out_of_range("double", "-1.7976931348623157E+308", "1.7976931348623157E+308");
      }
      return Status::OK();
    }
    case LiteralKind::kFloat: {
      float f = 0;
      if (ParseFloat(lit.value, &f) != FloatParse::kOk) {
        return out_of_range("float", "-3.4028234663852886E+38", "3.4028234663852886E+38");
      }
      return Status::OK();
    }
    default:
      return Status::OK();
  }
}

Result<Expr> Parser::ParseNumber(bool negative, SourcePos pos) {
  const Token& t = Cur();
  Literal lit;
  lit.value = negative ? "-" + t.text : t.text;
  switch (t.number_kind) {
    case NumberKind::kInteger: lit.kind = LiteralKind::kInteger; break;
    case NumberKind::kBigInt: lit.kind = LiteralKind::kBigInt; break;
    case NumberKind::kSmallInt: lit.kind = LiteralKind::kSmallInt; break;
    case NumberKind::kTinyInt: lit.kind = LiteralKind::kTinyInt; break;
    case NumberKind::kDecimal: lit.kind = LiteralKind::kDecimal; break;
    case NumberKind::kDouble: lit.kind = LiteralKind::kDouble; break;
    case NumberKind::kFloat: lit.kind = LiteralKind::kFloat; break;
  }
  ARROW_RETURN_NOT_OK(CheckLiteralRange(lit, pos));
  Bump();
  return MakeExpr(std::move(lit), pos);
}

Result<Expr> Parser::ParsePostfix() {
  ARROW_ASSIGN_OR_RAISE(Expr base, ParsePrimary());
  return ParsePostfixOn(std::move(base));
}

Result<Expr> Parser::ParsePostfixOn(Expr base) {
  DepthScope scope(&depth_);
  while (true) {
    if (PeekKind(TokenKind::kLBracket)) {
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      Bump();
      ARROW_ASSIGN_OR_RAISE(Expr index, ParseExpr());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRBracket));
      Subscript s;
      SourcePos pos = base.pos;
      s.base = std::move(base);
      s.index = std::move(index);
      base = MakeExpr(std::move(s), pos);
    } else if (PeekKind(TokenKind::kDot)) {
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      Bump();
      ARROW_ASSIGN_OR_RAISE(Identifier field, ParseIdent(true, true));
      FieldAccess f;
      SourcePos pos = base.pos;
      f.base = std::move(base);
      f.field = std::move(field);
      base = MakeExpr(std::move(f), pos);
    } else if (Peek("COLLATE") && (IsNameToken(Ahead(1)) || PeekKind(TokenKind::kDoubleQuoted, 1))) {
      // PostgreSQL's COLLATE name: floe compares text by code point whatever the collation.
      i_ += 2;
      while (PeekKind(TokenKind::kDot) && (PeekKind(TokenKind::kWord, 1) || PeekKind(TokenKind::kDoubleQuoted, 1))) {
        i_ += 2;
      }
    } else if (PeekKind(TokenKind::kDoubleColon) && PeekPgObjectTypeAt(i_ + 1)) {
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      Bump();
      std::string fn = *PeekPgObjectTypeAt(i_);
      i_ += Peek("PG_CATALOG") ? 3 : 1;
      // x::regtype[]: an array of them, read by regtype_array(x).
      if (fn == "regtype" && PeekKind(TokenKind::kLBracket) && PeekKind(TokenKind::kRBracket, 1)) {
        i_ += 2;
        fn = "regtype_array";
      }
      FunctionCall call;
      SourcePos pos = base.pos;
      call.name.parts.push_back(Identifier{fn, false, pos});
      call.name.pos = pos;
      call.args.push_back(std::move(base));
      base = MakeExpr(std::move(call), pos);
    } else if (PeekKind(TokenKind::kDoubleColon)) {
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      Bump();
      ARROW_ASSIGN_OR_RAISE(DataType type, ParseType());
      Cast c;
      SourcePos pos = base.pos;
      c.operand = std::move(base);
      c.type = std::move(type);
      base = MakeExpr(std::move(c), pos);
    } else {
      return base;
    }
  }
}

std::optional<std::string> Parser::PeekPgObjectTypeAt(size_t k) const {
  if (IsWord(Tok(k), "PG_CATALOG") && Tok(k + 1).kind == TokenKind::kDot) k += 2;
  for (const char* name : {"regclass", "regtype", "regnamespace", "regproc", "regrole"}) {
    if (IsWord(Tok(k), AsciiUpper(name))) return std::string(name);
  }
  return std::nullopt;
}

Result<Expr> Parser::ParseArrayConstructor(SourcePos pos) {
  FunctionCall call;
  call.name.pos = pos;
  if (AcceptKind(TokenKind::kLBracket)) {
    call.name.parts.push_back(Identifier{"array", false, pos});
    if (!AcceptKind(TokenKind::kRBracket)) {
      do {
        ARROW_ASSIGN_OR_RAISE(Expr item, ParseExpr());
        call.args.push_back(std::move(item));
      } while (AcceptKind(TokenKind::kComma));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRBracket));
    }
    return MakeExpr(std::move(call), pos);
  }
  // ARRAY(query): the query's one column as an array.
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
  ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  call.name.parts.push_back(Identifier{kArrayOfQueryFunction, false, pos});
  ScalarSubquery sub;
  sub.query = std::move(q);
  call.args.push_back(MakeExpr(std::move(sub), pos));
  return MakeExpr(std::move(call), pos);
}

bool Parser::StartsQuery(size_t k) const {
  const Token& t = Tok(k);
  return IsWord(t, "SELECT") || IsWord(t, "WITH") || IsWord(t, "VALUES");
}

bool Parser::StartsQueryThroughParens(size_t k) const {
  for (int n = 0; Tok(k).kind == TokenKind::kLParen && k < end_ && n < kMaxParseDepth; ++n) ++k;
  return StartsQuery(k);
}

Result<Expr> Parser::ParsePrimary() {
  const Token& t = Cur();
  SourcePos pos = t.pos;
  switch (t.kind) {
    case TokenKind::kNumber:
      return ParseNumber(false, pos);
    case TokenKind::kParameter: {
      int32_t index = std::stoi(t.text);  // the lexer allows at most 5 digits
      Bump();
      if (parameters_ && static_cast<size_t>(index) <= parameters_->values.size()) {
        Expr value = parameters_->values[index - 1];
        value.pos = pos;
        return value;
      }
      if (parameters_ && !parameters_->allow_missing) {
        return ErrorAt(sql_, pos, StrCat("Parameter $", index, " was not given a value (the statement was given ",
                                         parameters_->values.size(), ")"));
      }
      return MakeExpr(ParameterRef{index}, pos);
    }
    case TokenKind::kString:
    case TokenKind::kDoubleQuoted: {
      Literal lit;
      lit.kind = LiteralKind::kString;
      const size_t first = i_;
      ARROW_ASSIGN_OR_RAISE(lit.value, ParseStringLiteral());
      lit.double_quoted = t.kind == TokenKind::kDoubleQuoted && i_ == first + 1;
      return MakeExpr(std::move(lit), pos);
    }
    case TokenKind::kBinaryString: {
      Literal lit;
      lit.kind = LiteralKind::kBinary;
      lit.value = t.text;
      Bump();
      return MakeExpr(std::move(lit), pos);
    }
    case TokenKind::kLParen: {
      DepthScope scope(&depth_);
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      Bump();
      if (StartsQuery(i_)) {
        ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
        ScalarSubquery s;
        s.query = std::move(q);
        return MakeExpr(std::move(s), pos);
      }
      if (StartsQueryThroughParens(i_)) {
        // ((SELECT 1) UNION (SELECT 2)) is a subquery, ((SELECT 1) + 1) is not: try the
        // query first and fall back to an expression.
        // Each position is tried as a query once: nested parentheses would otherwise retry
        // every inner attempt at every level, exponentially.
        size_t save = i_;
        if (!failed_query_starts_.count(save)) {
          Result<Query> q = ParseQuery();
          if (q.ok() && AcceptKind(TokenKind::kRParen)) {
            ScalarSubquery s;
            s.query = std::move(q).ValueUnsafe();
            return MakeExpr(std::move(s), pos);
          }
          failed_query_starts_.insert(save);
          i_ = save;
        }
      }
      ARROW_ASSIGN_OR_RAISE(Expr inner, ParseExpr());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      return inner;
    }
    case TokenKind::kQuotedIdent:
      return ParseNameExpr();
    case TokenKind::kWord:
      break;
    default:
      return ErrorHere("expected an expression");
  }
  // Words.
  if (Peek("NULL")) {
    Bump();
    return MakeExpr(Literal{LiteralKind::kNull, ""}, pos);
  }
  if (Peek("TRUE") || Peek("FALSE")) {
    Literal lit{LiteralKind::kBoolean, Peek("TRUE") ? "true" : "false"};
    Bump();
    return MakeExpr(std::move(lit), pos);
  }
  if (Peek("CASE")) return ParseCase();
  if ((Peek("CAST") || Peek("TRY_CAST")) && PeekKind(TokenKind::kLParen, 1)) {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    Cast c;
    c.is_try = Peek("TRY_CAST");
    i_ += 2;
    ARROW_ASSIGN_OR_RAISE(Expr operand, ParseExpr());
    ARROW_RETURN_NOT_OK(Expect("AS"));
    if (std::optional<std::string> fn = PeekPgObjectTypeAt(i_)) {
      // CAST(x AS regclass) is x::regclass.
      i_ += Peek("PG_CATALOG") ? 3 : 1;
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      FunctionCall call;
      call.name.parts.push_back(Identifier{*fn, false, pos});
      call.name.pos = pos;
      call.args.push_back(std::move(operand));
      return MakeExpr(std::move(call), pos);
    }
    ARROW_ASSIGN_OR_RAISE(c.type, ParseType());
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    c.operand = std::move(operand);
    return MakeExpr(std::move(c), pos);
  }
  if (Peek("EXISTS") && PeekKind(TokenKind::kLParen, 1)) {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    i_ += 2;
    ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    Exists e;
    e.query = std::move(q);
    return MakeExpr(std::move(e), pos);
  }
  if (PeekKind(TokenKind::kString, 1) &&
      (Peek("DATE") || Peek("TIMESTAMP") || Peek("TIMESTAMP_NTZ") || Peek("TIMESTAMP_LTZ"))) {
    Literal lit;
    lit.kind = Peek("DATE")            ? LiteralKind::kDate
               : Peek("TIMESTAMP")     ? LiteralKind::kTimestamp
               : Peek("TIMESTAMP_NTZ") ? LiteralKind::kTimestampNtz
                                       : LiteralKind::kTimestampLtz;
    Bump();
    ARROW_ASSIGN_OR_RAISE(lit.value, ParseStringLiteral());
    return MakeExpr(std::move(lit), pos);
  }
  if (Peek("INTERVAL") && (PeekKind(TokenKind::kString, 1) || PeekKind(TokenKind::kNumber, 1) ||
                           PeekKind(TokenKind::kMinus, 1) || PeekKind(TokenKind::kPlus, 1))) {
    Bump();
    ARROW_ASSIGN_OR_RAISE(IntervalLiteral interval, ParseIntervalBody());
    return MakeExpr(std::move(interval), pos);
  }
  if (Peek("ARRAY") && (PeekKind(TokenKind::kLBracket, 1) ||
                        (PeekKind(TokenKind::kLParen, 1) && StartsQuery(i_ + 2)))) {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    Bump();
    return ParseArrayConstructor(pos);
  }
  if ((Peek("CURRENT_DATE") || Peek("CURRENT_TIMESTAMP") || Peek("CURRENT_USER") || Peek("SESSION_USER") ||
       Peek("CURRENT_SCHEMA") || Peek("CURRENT_CATALOG")) &&
      !PeekKind(TokenKind::kLParen, 1)) {
    FunctionCall call;
    call.name.parts.push_back(MakeIdent(t));
    call.name.pos = pos;
    Bump();
    return MakeExpr(std::move(call), pos);
  }
  if (PeekKind(TokenKind::kLParen, 1) &&
      (!IsReservedWord(t.text) || Peek("LEFT") || Peek("RIGHT"))) {
    ObjectName name;
    name.pos = pos;
    name.parts.push_back(MakeIdent(t));
    Bump();
    return ParseFunctionCall(std::move(name));
  }
  if (IsReservedWord(t.text)) return ErrorHere("expected an expression");
  return ParseNameExpr();
}

Result<Expr> Parser::ParseNameExpr() {
  SourcePos pos = Cur().pos;
  std::vector<Identifier> parts;
  ARROW_ASSIGN_OR_RAISE(Identifier first, ParseIdent(false));
  parts.push_back(std::move(first));
  while (PeekKind(TokenKind::kDot)) {
    if (PeekKind(TokenKind::kStar, 1)) {
      i_ += 2;
      Star s;
      s.qualifier = std::move(parts);
      return MakeExpr(std::move(s), pos);
    }
    const Token& next = Ahead(1);
    if (next.kind != TokenKind::kWord && next.kind != TokenKind::kQuotedIdent &&
        next.kind != TokenKind::kDoubleQuoted) {
      break;
    }
    Bump();
    parts.push_back(MakeIdent(Cur()));
    Bump();
  }
  if (PeekKind(TokenKind::kLParen)) {
    ObjectName name;
    name.pos = pos;
    name.parts = std::move(parts);
    return ParseFunctionCall(std::move(name));
  }
  ColumnRef ref;
  ref.parts = std::move(parts);
  return MakeExpr(std::move(ref), pos);
}

Result<Expr> Parser::ParseFunctionCall(ObjectName name) {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  SourcePos pos = name.pos;
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
  FunctionCall call;
  call.name = std::move(name);
  const std::string fn = call.name.parts.size() == 1 ? AsciiUpper(call.name.parts[0].name) : "";
  if (fn == "TRIM" && (Peek("BOTH") || Peek("LEADING") || Peek("TRAILING") || Peek("FROM"))) {
    return ParseTrimFrom(std::move(call), pos);
  }
  if (PeekKind(TokenKind::kStar) && PeekKind(TokenKind::kRParen, 1)) {
    i_ += 2;
    call.star = true;
  } else if (!AcceptKind(TokenKind::kRParen)) {
    if (Accept("DISTINCT")) {
      call.distinct = true;
    } else {
      Accept("ALL");
    }
    do {
      ARROW_ASSIGN_OR_RAISE(Expr arg, ParseExpr());
      call.args.push_back(std::move(arg));
      // The SQL standard's substring(str FROM pos [FOR len]) and substring(str FOR len), as
      // Spark reads them: substring(str, pos[, len]).
      if ((fn == "SUBSTRING" || fn == "SUBSTR") && call.args.size() == 1 && (Peek("FROM") || Peek("FOR"))) {
        if (Accept("FROM")) {
          ARROW_ASSIGN_OR_RAISE(Expr from, ParseExpr());
          call.args.push_back(std::move(from));
        } else {
          call.args.push_back(MakeExpr(Literal{LiteralKind::kInteger, "1"}, Cur().pos));
        }
        if (Accept("FOR")) {
          ARROW_ASSIGN_OR_RAISE(Expr length, ParseExpr());
          call.args.push_back(std::move(length));
        }
        break;
      }
    } while (AcceptKind(TokenKind::kComma));
    if (Peek("ORDER") && Peek("BY", 1)) {
      i_ += 2;
      ARROW_ASSIGN_OR_RAISE(call.order_by, ParseOrderItems());
    }
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  }
  if (!call.order_by.empty() && Peek("OVER")) {
    return ErrorAt(sql_, Cur().pos, "ORDER BY inside the arguments of a window function is not supported");
  }
  if ((Peek("IGNORE") || Peek("RESPECT")) && Peek("NULLS", 1)) {
    call.ignore_nulls = Peek("IGNORE");
    i_ += 2;
  }
  if (Peek("OVER") && PeekKind(TokenKind::kLParen, 1)) {
    Bump();
    ARROW_ASSIGN_OR_RAISE(WindowSpec spec, ParseWindowSpec());
    call.over = std::move(spec);
  } else if (Peek("FILTER") && PeekKind(TokenKind::kLParen, 1)) {
    return ErrorAt(sql_, Cur().pos, "FILTER clauses of functions are not supported");
  }
  return MakeExpr(std::move(call), pos);
}

// The SQL standard's trim([BOTH | LEADING | TRAILING] [chars] FROM str), after `trim(`: the
// spaces form is trim/ltrim/rtrim(str), BOTH chars is btrim(str, chars).
Result<Expr> Parser::ParseTrimFrom(FunctionCall call, SourcePos pos) {
  std::string side = "BOTH";
  if (Peek("BOTH") || Peek("LEADING") || Peek("TRAILING")) {
    side = AsciiUpper(Cur().text);
    Bump();
  }
  std::optional<Expr> chars;
  if (!Peek("FROM")) {
    ARROW_ASSIGN_OR_RAISE(Expr c, ParseExpr());
    chars = std::move(c);
  }
  ARROW_RETURN_NOT_OK(Expect("FROM"));
  ARROW_ASSIGN_OR_RAISE(Expr str, ParseExpr());
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  std::string name = side == "LEADING" ? "ltrim" : side == "TRAILING" ? "rtrim" : "trim";
  if (chars) {
    if (side != "BOTH") return ErrorAt(sql_, pos, "TRIM(LEADING | TRAILING characters FROM ...) is not supported");
    name = "btrim";
  }
  call.name.parts[0].name = name;
  call.args.push_back(std::move(str));
  if (chars) call.args.push_back(std::move(*chars));
  return MakeExpr(std::move(call), pos);
}

Result<WindowSpec> Parser::ParseWindowSpec() {
  WindowSpec spec;
  spec.pos = Cur().pos;
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
  if (Peek("PARTITION") && Peek("BY", 1)) {
    i_ += 2;
    do {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      spec.partition_by.push_back(std::move(e));
    } while (AcceptKind(TokenKind::kComma));
  }
  if (Peek("ORDER") && Peek("BY", 1)) {
    i_ += 2;
    ARROW_ASSIGN_OR_RAISE(spec.order_by, ParseOrderItems());
  }
  if (Peek("ROWS") || Peek("RANGE")) {
    WindowFrame frame;
    frame.pos = Cur().pos;
    frame.unit = Peek("ROWS") ? FrameUnit::kRows : FrameUnit::kRange;
    Bump();
    if (Accept("BETWEEN")) {
      ARROW_ASSIGN_OR_RAISE(frame.start, ParseFrameBound());
      ARROW_RETURN_NOT_OK(Expect("AND"));
      ARROW_ASSIGN_OR_RAISE(frame.end, ParseFrameBound());
    } else {
      ARROW_ASSIGN_OR_RAISE(frame.start, ParseFrameBound());
      frame.end.kind = FrameBoundKind::kCurrentRow;
    }
    spec.frame = std::move(frame);
  }
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  return spec;
}

Result<FrameBound> Parser::ParseFrameBound() {
  FrameBound bound;
  if (Accept("UNBOUNDED")) {
    if (Accept("PRECEDING")) {
      bound.kind = FrameBoundKind::kUnboundedPreceding;
    } else if (Accept("FOLLOWING")) {
      bound.kind = FrameBoundKind::kUnboundedFollowing;
    } else {
      return ErrorHere("expected PRECEDING or FOLLOWING");
    }
    return bound;
  }
  if (Peek("CURRENT") && Peek("ROW", 1)) {
    i_ += 2;
    bound.kind = FrameBoundKind::kCurrentRow;
    return bound;
  }
  ARROW_ASSIGN_OR_RAISE(Expr offset, ParseExpr());
  bound.offset = std::move(offset);
  if (Accept("PRECEDING")) {
    bound.kind = FrameBoundKind::kPreceding;
  } else if (Accept("FOLLOWING")) {
    bound.kind = FrameBoundKind::kFollowing;
  } else {
    return ErrorHere("expected PRECEDING or FOLLOWING");
  }
  return bound;
}

Result<Expr> Parser::ParseCase() {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  SourcePos pos = Cur().pos;
  Bump();  // CASE
  Case c;
  if (!Peek("WHEN")) {
    ARROW_ASSIGN_OR_RAISE(Expr operand, ParseExpr());
    c.operand = std::move(operand);
  }
  if (!Peek("WHEN")) return ErrorHere("expected WHEN");
  while (Accept("WHEN")) {
    ARROW_ASSIGN_OR_RAISE(Expr cond, ParseExpr());
    ARROW_RETURN_NOT_OK(Expect("THEN"));
    ARROW_ASSIGN_OR_RAISE(Expr result, ParseExpr());
    c.whens.push_back(WhenClause{std::move(cond), std::move(result)});
  }
  if (Accept("ELSE")) {
    ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
    c.else_result = std::move(e);
  }
  ARROW_RETURN_NOT_OK(Expect("END"));
  return MakeExpr(std::move(c), pos);
}

std::optional<std::string> Parser::IntervalUnit(const Token& t) {
  if (t.kind != TokenKind::kWord) return std::nullopt;
  std::string u = AsciiUpper(t.text);
  static constexpr std::array<std::string_view, 9> kUnits = {
      "YEAR", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"};
  for (std::string_view unit : kUnits) {
    if (u == unit || (u.size() == unit.size() + 1 && u.back() == 'S' &&
                      std::string_view(u).substr(0, unit.size()) == unit)) {
      return std::string(unit);
    }
  }
  return std::nullopt;
}

Result<IntervalLiteral> Parser::ParseIntervalBody() {
  IntervalLiteral interval;
  while (true) {
    size_t save = i_;
    IntervalField field;
    bool negative = false;
    if (PeekKind(TokenKind::kMinus) || PeekKind(TokenKind::kPlus)) {
      negative = PeekKind(TokenKind::kMinus);
      Bump();
    }
    if (PeekKind(TokenKind::kString)) {
      field.is_string = true;
      field.value = (negative ? "-" : "") + Cur().text;
    } else if (PeekKind(TokenKind::kNumber)) {
      field.value = (negative ? "-" : "") + std::string(Cur().raw);
    } else {
      i_ = save;
      break;
    }
    Bump();
    std::optional<std::string> unit = IntervalUnit(Cur());
    if (!unit) {
      if (interval.fields.empty() && field.is_string) {
        interval.fields.push_back(std::move(field));
        return interval;
      }
      if (interval.fields.empty()) return ErrorHere("expected an interval unit");
      i_ = save;
      break;
    }
    Bump();
    field.unit = *unit;
    if (Peek("TO")) {
      std::optional<std::string> to = IntervalUnit(Ahead(1));
      if (!to) {
        Bump();
        return ErrorHere("expected an interval unit");
      }
      i_ += 2;
      field.to_unit = *to;
    }
    interval.fields.push_back(std::move(field));
  }
  if (interval.fields.empty()) return ErrorHere("expected an interval value");
  return interval;
}

}  // namespace floe::sql::parsing
