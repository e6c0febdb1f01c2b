#include "floe/sql/parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>

#include "floe/sql/keywords.h"
#include "floe/sql/lexer.h"
#include "floe/sql/parse_error.h"

namespace floe::sql {

namespace {

bool EqualsUpper(std::string_view word, std::string_view upper) {
  if (word.size() != upper.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(word[i])) != upper[i]) return false;
  }
  return true;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Leaves the depth it added when a parse function returns.
class DepthScope {
 public:
  explicit DepthScope(int* depth) : depth_(depth) {}
  ~DepthScope() { *depth_ -= added_; }
  DepthScope(const DepthScope&) = delete;
  DepthScope& operator=(const DepthScope&) = delete;
  void Add() {
    ++*depth_;
    ++added_;
  }

 private:
  int* depth_;
  int added_ = 0;
};

Expr MakeExpr(Expr::Node node, SourcePos pos) {
  Expr e;
  e.node = std::move(node);
  e.pos = pos;
  return e;
}

class Parser {
 public:
  Parser(std::string_view sql, const std::vector<Token>& tokens, size_t begin, size_t end)
      : sql_(sql), tokens_(tokens), i_(begin), end_(end) {}

  Result<Statement> ParseWholeStatement() {
    ARROW_ASSIGN_OR_RAISE(Statement s, ParseStatementBody());
    if (!AtEnd()) return ErrorHere();
    return s;
  }

  Result<Expr> ParseWholeExpression() {
    ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
    if (!AtEnd()) return ErrorHere();
    return e;
  }

  Result<DataType> ParseWholeDataType() {
    ARROW_ASSIGN_OR_RAISE(DataType t, ParseType());
    if (!AtEnd()) return ErrorHere();
    return t;
  }

 private:
  // --- token access

  const Token& Tok(size_t k) const { return tokens_[std::min(k, end_)]; }
  const Token& Cur() const { return Tok(i_); }
  const Token& Ahead(size_t n) const { return Tok(i_ + n); }
  bool AtEnd() const { return i_ >= end_; }
  void Bump() {
    if (i_ < end_) ++i_;
  }

  bool IsWord(const Token& t, std::string_view upper) const {
    return t.kind == TokenKind::kWord && EqualsUpper(t.text, upper);
  }
  bool Peek(std::string_view upper, size_t n = 0) const { return IsWord(Ahead(n), upper); }
  bool PeekKind(TokenKind kind, size_t n = 0) const { return Ahead(n).kind == kind; }
  bool Accept(std::string_view upper) {
    if (!Peek(upper)) return false;
    Bump();
    return true;
  }
  bool AcceptKind(TokenKind kind) {
    if (!PeekKind(kind)) return false;
    Bump();
    return true;
  }
  Status Expect(std::string_view upper) {
    if (Accept(upper)) return Status::OK();
    return ErrorHere(StrCat("expected ", upper));
  }
  Status ExpectKind(TokenKind kind) {
    if (AcceptKind(kind)) return Status::OK();
    return ErrorHere(StrCat("expected ", TokenKindName(kind)));
  }

  // --- errors

  Status ErrorHere(std::string_view hint = {}) const {
    const Token& t = Cur();
    std::string message;
    if (t.kind == TokenKind::kEnd) {
      message = "Syntax error at end of input";
    } else {
      std::string_view raw = t.raw;
      std::string shown(raw.substr(0, 40));
      if (raw.size() > 40) shown += "...";
      message = StrCat("Syntax error at or near '", shown, "'");
    }
    if (!hint.empty()) message += StrCat(": ", hint);
    return ErrorAt(sql_, t.pos, message);
  }

  Status Deeper(DepthScope* scope) {
    scope->Add();
    if (depth_ > kMaxParseDepth) {
      return ErrorAt(sql_, Cur().pos,
                     StrCat("SQL nested too deeply (more than ", kMaxParseDepth, " levels)"));
    }
    return Status::OK();
  }

  // --- names

  static bool IsNameToken(const Token& t) {
    return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedIdent;
  }

  // A bare word that can stand as an identifier here (not a reserved keyword).
  bool IsPlainIdentifier(const Token& t) const {
    if (t.kind == TokenKind::kQuotedIdent) return true;
    return t.kind == TokenKind::kWord && !IsReservedWord(t.text);
  }

  Identifier MakeIdent(const Token& t) const {
    Identifier id;
    id.name = t.text;
    id.quoted = t.kind != TokenKind::kWord;
    id.pos = t.pos;
    return id;
  }

  // An identifier: a non-reserved word or `quoted`; "double quoted" too where
  // `allow_double_quoted` (name positions), any word where `any_word` (after a dot).
  Result<Identifier> ParseIdent(bool allow_double_quoted = true, bool any_word = false) {
    const Token& t = Cur();
    if (IsPlainIdentifier(t) || (any_word && t.kind == TokenKind::kWord) ||
        (allow_double_quoted && t.kind == TokenKind::kDoubleQuoted)) {
      if (t.kind == TokenKind::kDoubleQuoted && t.text.empty()) {
        return ErrorHere("empty identifier");
      }
      Identifier id = MakeIdent(t);
      Bump();
      return id;
    }
    return ErrorHere("expected an identifier");
  }

  Result<ObjectName> ParseObjectName() {
    ObjectName name;
    name.pos = Cur().pos;
    ARROW_ASSIGN_OR_RAISE(Identifier first, ParseIdent(true));
    name.parts.push_back(std::move(first));
    while (PeekKind(TokenKind::kDot)) {
      Bump();
      ARROW_ASSIGN_OR_RAISE(Identifier part, ParseIdent(true, true));
      name.parts.push_back(std::move(part));
    }
    return name;
  }

  // a.b.c for columns (nested fields); same rules as object names.
  Result<std::vector<Identifier>> ParseColumnPath() {
    ARROW_ASSIGN_OR_RAISE(ObjectName name, ParseObjectName());
    return std::move(name.parts);
  }

  Result<std::vector<Identifier>> ParseIdentList() {
    std::vector<Identifier> out;
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
    do {
      ARROW_ASSIGN_OR_RAISE(Identifier id, ParseIdent(true));
      out.push_back(std::move(id));
    } while (AcceptKind(TokenKind::kComma));
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return out;
  }

  // --- literals used by statements

  Result<std::string> ParseStringLiteral(std::string_view what = "a string") {
    const Token& t = Cur();
    if (t.kind != TokenKind::kString && t.kind != TokenKind::kDoubleQuoted) {
      return ErrorHere(StrCat("expected ", what));
    }
    std::string out;
    while (PeekKind(TokenKind::kString) || PeekKind(TokenKind::kDoubleQuoted)) {
      out += StringValue(Cur());
      Bump();
    }
    return out;
  }

  // A double-quoted token read as a string has backslash escapes, as in Spark.
  static std::string StringValue(const Token& t) {
    if (t.kind == TokenKind::kDoubleQuoted) {
      return DecodeStringBody(t.raw.substr(1, t.raw.size() - 2), '"');
    }
    return t.text;
  }

  Result<int64_t> ParseInt64(std::string_view what) {
    bool negative = false;
    SourcePos pos = Cur().pos;
    if (PeekKind(TokenKind::kMinus) && PeekKind(TokenKind::kNumber, 1)) {
      negative = true;
      Bump();
    }
    const Token& t = Cur();
    if (t.kind != TokenKind::kNumber || t.number_kind != NumberKind::kInteger) {
      return ErrorHere(StrCat("expected ", what));
    }
    std::string text = negative ? "-" + t.text : t.text;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return ErrorAt(sql_, pos, StrCat("Number ", text, " is out of range for ", what));
    }
    Bump();
    return value;
  }

  Result<int32_t> ParseInt32(std::string_view what) {
    SourcePos pos = Cur().pos;
    ARROW_ASSIGN_OR_RAISE(int64_t v, ParseInt64(what));
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return ErrorAt(sql_, pos, StrCat("Number ", v, " is out of range for ", what));
    }
    return static_cast<int32_t>(v);
  }

  // Property keys: 'string' or dotted words (a.b.c). Values: string, number, boolean.
  Result<std::string> ParsePropertyKey() {
    if (PeekKind(TokenKind::kString) || PeekKind(TokenKind::kDoubleQuoted)) {
      return ParseStringLiteral();
    }
    std::string key;
    do {
      const Token& t = Cur();
      if (!IsNameToken(t)) return ErrorHere("expected a property key");
      if (!key.empty()) key += '.';
      key += t.text;
      Bump();
    } while (AcceptKind(TokenKind::kDot));
    return key;
  }

  Result<std::string> ParsePropertyValue() {
    const Token& t = Cur();
    if (t.kind == TokenKind::kString || t.kind == TokenKind::kDoubleQuoted) {
      return ParseStringLiteral();
    }
    bool negative = false;
    if (PeekKind(TokenKind::kMinus) && PeekKind(TokenKind::kNumber, 1)) {
      negative = true;
      Bump();
    }
    if (PeekKind(TokenKind::kNumber)) {
      std::string v = (negative ? "-" : "") + std::string(Cur().raw);
      Bump();
      return v;
    }
    if (Peek("TRUE") || Peek("FALSE")) {
      std::string v = Peek("TRUE") ? "true" : "false";
      Bump();
      return v;
    }
    return ErrorHere("expected a property value");
  }

  Result<std::vector<Property>> ParseProperties() {
    std::vector<Property> out;
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
    if (AcceptKind(TokenKind::kRParen)) return out;
    do {
      Property p;
      ARROW_ASSIGN_OR_RAISE(p.key, ParsePropertyKey());
      AcceptKind(TokenKind::kEq);
      ARROW_ASSIGN_OR_RAISE(p.value, ParsePropertyValue());
      out.push_back(std::move(p));
    } while (AcceptKind(TokenKind::kComma));
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return out;
  }

  Result<std::vector<std::string>> ParsePropertyKeys() {
    std::vector<std::string> out;
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
    do {
      ARROW_ASSIGN_OR_RAISE(std::string key, ParsePropertyKey());
      out.push_back(std::move(key));
    } while (AcceptKind(TokenKind::kComma));
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return out;
  }

  // --- data types

  Result<DataType> ParseType() {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    DataType type;
    type.pos = Cur().pos;
    if (!PeekKind(TokenKind::kWord)) return ErrorHere("expected a data type");
    std::string name = Upper(Cur().text);
    Bump();
    auto paren_int = [&](std::string_view what) -> Result<int32_t> {
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
      ARROW_ASSIGN_OR_RAISE(int32_t v, ParseInt32(what));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      return v;
    };
    if (name == "BOOLEAN" || name == "BOOL") {
      type.kind = TypeKind::kBoolean;
    } else if (name == "TINYINT" || name == "BYTE") {
      type.kind = TypeKind::kTinyInt;
    } else if (name == "SMALLINT" || name == "SHORT") {
      type.kind = TypeKind::kSmallInt;
    } else if (name == "INT" || name == "INTEGER") {
      type.kind = TypeKind::kInt;
    } else if (name == "BIGINT" || name == "LONG") {
      type.kind = TypeKind::kBigInt;
    } else if (name == "FLOAT" || name == "REAL") {
      type.kind = TypeKind::kFloat;
    } else if (name == "DOUBLE") {
      type.kind = TypeKind::kDouble;
      Accept("PRECISION");
    } else if (name == "DECIMAL" || name == "DEC" || name == "NUMERIC") {
      type.kind = TypeKind::kDecimal;
      if (AcceptKind(TokenKind::kLParen)) {
        ARROW_ASSIGN_OR_RAISE(type.precision, ParseInt32("decimal precision"));
        if (AcceptKind(TokenKind::kComma)) {
          ARROW_ASSIGN_OR_RAISE(type.scale, ParseInt32("decimal scale"));
        }
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      }
    } else if (name == "STRING" || name == "TEXT") {
      type.kind = TypeKind::kString;
    } else if (name == "VARCHAR") {
      type.kind = TypeKind::kVarchar;
      if (PeekKind(TokenKind::kLParen)) {
        ARROW_ASSIGN_OR_RAISE(type.length, paren_int("varchar length"));
      }
    } else if (name == "CHAR" || name == "CHARACTER") {
      type.kind = TypeKind::kChar;
      if (PeekKind(TokenKind::kLParen)) {
        ARROW_ASSIGN_OR_RAISE(type.length, paren_int("char length"));
      }
    } else if (name == "BINARY" || name == "VARBINARY") {
      type.kind = TypeKind::kBinary;
    } else if (name == "DATE") {
      type.kind = TypeKind::kDate;
    } else if (name == "TIMESTAMP") {
      type.kind = TypeKind::kTimestamp;
      if (Peek("WITH") && Peek("TIME", 1) && Peek("ZONE", 2)) {
        i_ += 3;
        type.kind = TypeKind::kTimestampLtz;
      } else if (Peek("WITHOUT") && Peek("TIME", 1) && Peek("ZONE", 2)) {
        i_ += 3;
        type.kind = TypeKind::kTimestampNtz;
      }
    } else if (name == "TIMESTAMP_NTZ") {
      type.kind = TypeKind::kTimestampNtz;
    } else if (name == "TIMESTAMP_LTZ" || name == "TIMESTAMPTZ") {
      type.kind = TypeKind::kTimestampLtz;
    } else if (name == "ARRAY") {
      type.kind = TypeKind::kArray;
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLt));
      ARROW_ASSIGN_OR_RAISE(DataType element, ParseType());
      type.children.push_back(std::move(element));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kGt));
    } else if (name == "MAP") {
      type.kind = TypeKind::kMap;
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLt));
      ARROW_ASSIGN_OR_RAISE(DataType key, ParseType());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kComma));
      ARROW_ASSIGN_OR_RAISE(DataType value, ParseType());
      type.children.push_back(std::move(key));
      type.children.push_back(std::move(value));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kGt));
    } else if (name == "STRUCT") {
      type.kind = TypeKind::kStruct;
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLt));
      if (!AcceptKind(TokenKind::kGt)) {
        do {
          StructField field;
          ARROW_ASSIGN_OR_RAISE(field.name, ParseIdent(true, true));
          AcceptKind(TokenKind::kColon);  // Spark writes `name: type`, Hive `name type`
          ARROW_ASSIGN_OR_RAISE(field.type, ParseType());
          while (true) {
            if (Peek("NOT") && Peek("NULL", 1)) {
              i_ += 2;
              field.not_null = true;
            } else if (Accept("COMMENT")) {
              ARROW_ASSIGN_OR_RAISE(std::string c, ParseStringLiteral());
              field.comment = std::move(c);
            } else {
              break;
            }
          }
          type.fields.push_back(std::move(field));
        } while (AcceptKind(TokenKind::kComma));
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kGt));
      }
    } else {
      --i_;
      return ErrorHere("unknown data type");
    }
    return type;
  }

  // --- expressions

  Result<Expr> ParseExpr() {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    return ParseOr();
  }

  Result<Expr> MakeBinary(BinaryOp op, Expr left, Expr right, SourcePos pos) {
    Binary b;
    b.op = op;
    b.left = std::move(left);
    b.right = std::move(right);
    return MakeExpr(std::move(b), pos);
  }

  Result<Expr> ParseOr() {
    DepthScope scope(&depth_);
    ARROW_ASSIGN_OR_RAISE(Expr left, ParseAnd());
    while (PeekKind(TokenKind::kWord) && Peek("OR")) {
      SourcePos pos = Cur().pos;
      Bump();
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      ARROW_ASSIGN_OR_RAISE(Expr right, ParseAnd());
      ARROW_ASSIGN_OR_RAISE(left, MakeBinary(BinaryOp::kOr, std::move(left), std::move(right), pos));
    }
    return left;
  }

  Result<Expr> ParseAnd() {
    DepthScope scope(&depth_);
    ARROW_ASSIGN_OR_RAISE(Expr left, ParseNot());
    while (Peek("AND")) {
      SourcePos pos = Cur().pos;
      Bump();
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      ARROW_ASSIGN_OR_RAISE(Expr right, ParseNot());
      ARROW_ASSIGN_OR_RAISE(left,
                            MakeBinary(BinaryOp::kAnd, std::move(left), std::move(right), pos));
    }
    return left;
  }

  Result<Expr> ParseNot() {
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

  Result<Expr> ParsePredicate() {
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

  static std::optional<BinaryOp> ComparisonOp(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEq: return BinaryOp::kEq;
      case TokenKind::kNullSafeEq: return BinaryOp::kNullSafeEq;
      case TokenKind::kNe: return BinaryOp::kNe;
      case TokenKind::kLt: return BinaryOp::kLt;
      case TokenKind::kLe: return BinaryOp::kLe;
      case TokenKind::kGt: return BinaryOp::kGt;
      case TokenKind::kGe: return BinaryOp::kGe;
      default: return std::nullopt;
    }
  }

  // One left-associative level: `next` parses the operands, `op_of` names the operator.
  template <typename Next, typename OpOf>
  Result<Expr> ParseLeftAssoc(Next next, OpOf op_of) {
    DepthScope scope(&depth_);
    ARROW_ASSIGN_OR_RAISE(Expr left, (this->*next)());
    while (true) {
      std::optional<BinaryOp> op = op_of(Cur());
      if (!op) return left;
      SourcePos pos = Cur().pos;
      Bump();
      ARROW_RETURN_NOT_OK(Deeper(&scope));
      ARROW_ASSIGN_OR_RAISE(Expr right, (this->*next)());
      ARROW_ASSIGN_OR_RAISE(left, MakeBinary(*op, std::move(left), std::move(right), pos));
    }
  }

  Result<Expr> ParseComparison() {
    return ParseLeftAssoc(&Parser::ParseBitOr, [](const Token& t) { return ComparisonOp(t); });
  }
  Result<Expr> ParseBitOr() {
    return ParseLeftAssoc(&Parser::ParseBitXor, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.kind == TokenKind::kPipe) return BinaryOp::kBitOr;
      return std::nullopt;
    });
  }
  Result<Expr> ParseBitXor() {
    return ParseLeftAssoc(&Parser::ParseBitAnd, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.kind == TokenKind::kCaret) return BinaryOp::kBitXor;
      return std::nullopt;
    });
  }
  Result<Expr> ParseBitAnd() {
    return ParseLeftAssoc(&Parser::ParseAdditive, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.kind == TokenKind::kAmpersand) return BinaryOp::kBitAnd;
      return std::nullopt;
    });
  }
  Result<Expr> ParseAdditive() {
    return ParseLeftAssoc(&Parser::ParseMultiplicative,
                          [](const Token& t) -> std::optional<BinaryOp> {
                            if (t.kind == TokenKind::kPlus) return BinaryOp::kAdd;
                            if (t.kind == TokenKind::kMinus) return BinaryOp::kSubtract;
                            if (t.kind == TokenKind::kConcat) return BinaryOp::kConcat;
                            return std::nullopt;
                          });
  }
  Result<Expr> ParseMultiplicative() {
    return ParseLeftAssoc(&Parser::ParseUnary, [](const Token& t) -> std::optional<BinaryOp> {
      if (t.kind == TokenKind::kStar) return BinaryOp::kMultiply;
      if (t.kind == TokenKind::kSlash) return BinaryOp::kDivide;
      if (t.kind == TokenKind::kPercent) return BinaryOp::kModulo;
      if (t.kind == TokenKind::kWord && EqualsUpper(t.text, "DIV")) return BinaryOp::kIntDivide;
      return std::nullopt;
    });
  }

  static bool IsNumericLiteral(const Expr& e) {
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

  Result<Expr> ParseUnary() {
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

  Result<Expr> ParseNumber(bool negative, SourcePos pos) {
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
    int64_t lo = 0;
    int64_t hi = 0;
    const char* type_name = nullptr;
    if (lit.kind == LiteralKind::kBigInt) {
      lo = std::numeric_limits<int64_t>::min();
      hi = std::numeric_limits<int64_t>::max();
      type_name = "BIGINT";
    } else if (lit.kind == LiteralKind::kSmallInt) {
      lo = -32768;
      hi = 32767;
      type_name = "SMALLINT";
    } else if (lit.kind == LiteralKind::kTinyInt) {
      lo = -128;
      hi = 127;
      type_name = "TINYINT";
    }
    if (type_name) {
      int64_t v = 0;
      auto [ptr, ec] =
          std::from_chars(lit.value.data(), lit.value.data() + lit.value.size(), v);
      if (ec != std::errc() || ptr != lit.value.data() + lit.value.size() || v < lo || v > hi) {
        return ErrorAt(sql_, pos,
                       StrCat("Numeric literal ", lit.value, " is out of range for ", type_name));
      }
    }
    Bump();
    return MakeExpr(std::move(lit), pos);
  }

  Result<Expr> ParsePostfix() {
    ARROW_ASSIGN_OR_RAISE(Expr base, ParsePrimary());
    return ParsePostfixOn(std::move(base));
  }

  Result<Expr> ParsePostfixOn(Expr base) {
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

  // Whether a query starts at token k (after an opening parenthesis, say).
  bool StartsQuery(size_t k) const {
    const Token& t = Tok(k);
    return IsWord(t, "SELECT") || IsWord(t, "WITH") || IsWord(t, "VALUES");
  }

  // Like StartsQuery, looking through any number of further '('.
  bool StartsQueryThroughParens(size_t k) const {
    while (Tok(k).kind == TokenKind::kLParen && k < end_) ++k;
    return StartsQuery(k);
  }

  Result<Expr> ParsePrimary() {
    const Token& t = Cur();
    SourcePos pos = t.pos;
    switch (t.kind) {
      case TokenKind::kNumber:
        return ParseNumber(false, pos);
      case TokenKind::kString:
      case TokenKind::kDoubleQuoted: {
        Literal lit;
        lit.kind = LiteralKind::kString;
        ARROW_ASSIGN_OR_RAISE(lit.value, ParseStringLiteral());
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
          size_t save = i_;
          Result<Query> q = ParseQuery();
          if (q.ok() && AcceptKind(TokenKind::kRParen)) {
            ScalarSubquery s;
            s.query = std::move(q).ValueUnsafe();
            return MakeExpr(std::move(s), pos);
          }
          i_ = save;
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
    if ((Peek("CURRENT_DATE") || Peek("CURRENT_TIMESTAMP")) && !PeekKind(TokenKind::kLParen, 1)) {
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

  // a, t.a, t.*, ns.f(x)
  Result<Expr> ParseNameExpr() {
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

  Result<Expr> ParseFunctionCall(ObjectName name) {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    SourcePos pos = name.pos;
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
    FunctionCall call;
    call.name = std::move(name);
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
      } while (AcceptKind(TokenKind::kComma));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    }
    if ((Peek("OVER") || Peek("FILTER")) && PeekKind(TokenKind::kLParen, 1)) {
      return ErrorAt(sql_, Cur().pos,
                     StrCat(Upper(Cur().text), " clauses of functions are not supported"));
    }
    return MakeExpr(std::move(call), pos);
  }

  Result<Expr> ParseCase() {
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

  static std::optional<std::string> IntervalUnit(const Token& t) {
    if (t.kind != TokenKind::kWord) return std::nullopt;
    std::string u = Upper(t.text);
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

  // After INTERVAL: (value unit [TO unit])+ or a single 'string' without unit.
  Result<IntervalLiteral> ParseIntervalBody() {
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

  // --- queries

  Result<Query> ParseQuery() {
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

  Result<std::vector<OrderItem>> ParseOrderItems() {
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

  static int SetOpLevel(SetOpKind kind) { return kind == SetOpKind::kIntersect ? 2 : 1; }

  Result<Query> ParseSetExpr(int level = 1) {
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

  Result<Query> ParseQueryTerm() {
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

  Result<Values> ParseValues() {
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

  Result<Select> ParseSelect() {
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
    if (Accept("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      select.where = std::move(e);
    }
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

  Result<SelectItem> ParseSelectItem() {
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

  // --- relations

  // Words that end a relation rather than name its alias (beyond the reserved ones).
  bool CanBeImplicitAlias(const Token& t) const {
    if (!IsPlainIdentifier(t)) return false;
    if (t.kind == TokenKind::kQuotedIdent) return true;
    static constexpr std::array<std::string_view, 8> kStops = {
        "SET", "WINDOW", "QUALIFY", "LATERAL", "PIVOT", "UNPIVOT", "TABLESAMPLE", "WHEN"};
    for (std::string_view stop : kStops) {
      if (EqualsUpper(t.text, stop)) return false;
    }
    return !StartsTimeTravel();
  }

  Result<std::optional<TableAlias>> ParseOptionalAlias() {
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

  // For DML targets: [AS] alias, no column list.
  Result<std::optional<Identifier>> ParseOptionalSimpleAlias() {
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

  static bool IsTimeTravelWord(const Token& t) {
    return t.kind == TokenKind::kWord &&
           (EqualsUpper(t.text, "VERSION") || EqualsUpper(t.text, "SYSTEM_VERSION") ||
            EqualsUpper(t.text, "TIMESTAMP") || EqualsUpper(t.text, "SYSTEM_TIME"));
  }

  bool StartsTimeTravel() const {
    size_t k = Peek("FOR") ? 1 : 0;
    return IsTimeTravelWord(Ahead(k)) && Peek("AS", k + 1) && Peek("OF", k + 2);
  }

  Result<std::optional<TimeTravel>> ParseOptionalTimeTravel() {
    if (!StartsTimeTravel()) return std::optional<TimeTravel>();
    TimeTravel tt;
    tt.pos = Cur().pos;
    tt.for_prefix = Accept("FOR");
    std::string word = Upper(Cur().text);
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

  Result<Relation> ParseRelation() {
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

  Result<Relation> ParseRelationPrimary() {
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
      Bump();
      TableFunctionRef fn;
      fn.name = std::move(name);
      if (!AcceptKind(TokenKind::kRParen)) {
        do {
          ARROW_ASSIGN_OR_RAISE(Expr arg, ParseExpr());
          fn.args.push_back(std::move(arg));
        } while (AcceptKind(TokenKind::kComma));
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      }
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

  // --- statements

  Result<Statement> ParseStatementBody() {
    DepthScope scope(&depth_);
    ARROW_RETURN_NOT_OK(Deeper(&scope));
    Statement s;
    s.pos = Cur().pos;
    const Token& t = Cur();
    if (StartsQuery(i_) || t.kind == TokenKind::kLParen) {
      ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
      s.node = std::move(q);
      return s;
    }
    if (t.kind != TokenKind::kWord) return ErrorHere("expected a statement");
    std::string word = Upper(t.text);
    if (word == "EXPLAIN") {
      Bump();
      Explain e;
      if (Accept("EXTENDED")) {
        e.mode = ExplainMode::kExtended;
      } else if (Accept("FORMATTED")) {
        e.mode = ExplainMode::kFormatted;
      } else if (Accept("CODEGEN")) {
        e.mode = ExplainMode::kCodegen;
      } else if (Accept("COST")) {
        e.mode = ExplainMode::kCost;
      }
      ARROW_ASSIGN_OR_RAISE(Statement inner, ParseStatementBody());
      e.statement = std::move(inner);
      s.node = std::move(e);
      return s;
    }
    if (word == "CREATE") return ParseCreate(std::move(s));
    if (word == "REPLACE" && Peek("TABLE", 1)) {
      Bump();
      return ParseCreateTable(std::move(s), CreateMode::kReplace);
    }
    if (word == "DROP") return ParseDrop(std::move(s));
    if (word == "SHOW") return ParseShow(std::move(s));
    if (word == "USE") {
      Bump();
      if ((Peek("NAMESPACE") || Peek("DATABASE") || Peek("SCHEMA")) &&
          (IsNameToken(Ahead(1)) || PeekKind(TokenKind::kDoubleQuoted, 1))) {
        Bump();
      }
      Use use;
      ARROW_ASSIGN_OR_RAISE(use.name, ParseObjectName());
      s.node = std::move(use);
      return s;
    }
    if (word == "ALTER") return ParseAlter(std::move(s));
    if (word == "DESCRIBE" || word == "DESC") {
      Bump();
      Describe d;
      Accept("TABLE");
      if (Accept("EXTENDED") || Accept("FORMATTED")) d.extended = true;
      ARROW_ASSIGN_OR_RAISE(d.name, ParseObjectName());
      s.node = std::move(d);
      return s;
    }
    if (word == "INSERT") return ParseInsert(std::move(s));
    if (word == "DELETE") return ParseDelete(std::move(s));
    if (word == "UPDATE") return ParseUpdate(std::move(s));
    if (word == "MERGE") return ParseMerge(std::move(s));
    if (word == "CALL") {
      Bump();
      Call call;
      ARROW_ASSIGN_OR_RAISE(call.procedure, ParseObjectName());
      ARROW_ASSIGN_OR_RAISE(call.args, ParseCallArguments());
      s.node = std::move(call);
      return s;
    }
    if (word == "SET") return ParseSet(std::move(s));
    if (word == "RESET") {
      Bump();
      Reset r;
      std::string_view rest = Trim(RawRest());
      if (!rest.empty()) r.key = UnquoteRaw(rest);
      i_ = end_;
      s.node = std::move(r);
      return s;
    }
    return ErrorHere("expected a statement");
  }

  // The raw text from the current token to the end of the statement.
  std::string_view RawRest() const {
    int32_t begin = Cur().pos.offset;
    int32_t end = Tok(end_).pos.offset;
    return sql_.substr(begin, end - begin);
  }

  // A value written as one quoted token loses its quotes.
  static std::string UnquoteRaw(std::string_view text) {
    if (text.size() >= 2 && ((text.front() == '\'' && text.back() == '\'') ||
                             (text.front() == '"' && text.back() == '"'))) {
      auto tokens = Lex(text);
      if (tokens.ok() && tokens->size() == 2) return DecodeStringBody(text.substr(1, text.size() - 2), text.front());
    }
    if (text.size() >= 2 && text.front() == '`' && text.back() == '`') {
      auto tokens = Lex(text);
      if (tokens.ok() && tokens->size() == 2) return (*tokens)[0].text;
    }
    return std::string(text);
  }

  Result<Statement> ParseSet(Statement s) {
    Bump();  // SET
    if (Peek("TIME") && Peek("ZONE", 1)) {
      i_ += 2;
      SetTimeZone tz;
      if (Accept("LOCAL")) {
        tz.kind = TimeZoneKind::kLocal;
      } else if (Accept("INTERVAL")) {
        tz.kind = TimeZoneKind::kInterval;
        ARROW_ASSIGN_OR_RAISE(tz.interval, ParseIntervalBody());
      } else if (PeekKind(TokenKind::kString) || PeekKind(TokenKind::kDoubleQuoted)) {
        tz.kind = TimeZoneKind::kName;
        ARROW_ASSIGN_OR_RAISE(tz.zone, ParseStringLiteral());
      } else {
        return ErrorHere("expected LOCAL, a time zone string or INTERVAL");
      }
      s.node = std::move(tz);
      return s;
    }
    SetConfig set;
    size_t eq = i_;
    while (eq < end_ && Tok(eq).kind != TokenKind::kEq) ++eq;
    if (AtEnd()) {
      // SET alone lists every setting.
    } else if (eq >= end_) {
      set.key = UnquoteRaw(Trim(RawRest()));
    } else {
      int32_t begin = Cur().pos.offset;
      int32_t eq_offset = Tok(eq).pos.offset;
      std::string_view key = Trim(sql_.substr(begin, eq_offset - begin));
      if (key.empty()) return ErrorHere("expected a configuration key");
      set.key = UnquoteRaw(key);
      int32_t value_begin = eq_offset + static_cast<int32_t>(Tok(eq).raw.size());
      int32_t end = Tok(end_).pos.offset;
      set.value = UnquoteRaw(Trim(sql_.substr(value_begin, end - value_begin)));
    }
    i_ = end_;
    s.node = std::move(set);
    return s;
  }

  Result<std::vector<CallArgument>> ParseCallArguments() {
    std::vector<CallArgument> args;
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
    if (AcceptKind(TokenKind::kRParen)) return args;
    bool named = false;
    bool positional = false;
    do {
      CallArgument arg;
      SourcePos pos = Cur().pos;
      if ((IsNameToken(Cur()) || PeekKind(TokenKind::kDoubleQuoted)) &&
          PeekKind(TokenKind::kArrow, 1)) {
        arg.name = MakeIdent(Cur());
        i_ += 2;
        named = true;
      } else {
        positional = true;
      }
      if (named && positional) {
        return ErrorAt(sql_, pos, "Named and positional arguments cannot be mixed");
      }
      ARROW_ASSIGN_OR_RAISE(arg.value, ParseExpr());
      args.push_back(std::move(arg));
    } while (AcceptKind(TokenKind::kComma));
    ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    return args;
  }

  bool AcceptIfNotExists() {
    if (Peek("IF") && Peek("NOT", 1) && Peek("EXISTS", 2)) {
      i_ += 3;
      return true;
    }
    return false;
  }
  bool AcceptIfExists() {
    if (Peek("IF") && Peek("EXISTS", 1)) {
      i_ += 2;
      return true;
    }
    return false;
  }
  bool AcceptNamespaceWord() {
    return Accept("NAMESPACE") || Accept("DATABASE") || Accept("SCHEMA");
  }

  Result<Statement> ParseCreate(Statement s) {
    Bump();  // CREATE
    if (Peek("OR") && Peek("REPLACE", 1)) {
      i_ += 2;
      if (!Peek("TABLE")) return ErrorHere("expected TABLE");
      return ParseCreateTable(std::move(s), CreateMode::kCreateOrReplace);
    }
    if (Peek("TABLE")) return ParseCreateTable(std::move(s), CreateMode::kCreate);
    if (AcceptNamespaceWord()) {
      CreateNamespace c;
      c.if_not_exists = AcceptIfNotExists();
      ARROW_ASSIGN_OR_RAISE(c.name, ParseObjectName());
      while (true) {
        if (Accept("COMMENT")) {
          ARROW_ASSIGN_OR_RAISE(std::string v, ParseStringLiteral());
          c.comment = std::move(v);
        } else if (Accept("LOCATION")) {
          ARROW_ASSIGN_OR_RAISE(std::string v, ParseStringLiteral());
          c.location = std::move(v);
        } else if (Peek("WITH") && (Peek("DBPROPERTIES", 1) || Peek("PROPERTIES", 1))) {
          i_ += 2;
          ARROW_ASSIGN_OR_RAISE(c.properties, ParseProperties());
        } else {
          break;
        }
      }
      s.node = std::move(c);
      return s;
    }
    return ErrorHere("expected TABLE or NAMESPACE");
  }

  Result<ColumnDef> ParseColumnDef() {
    ColumnDef col;
    ARROW_ASSIGN_OR_RAISE(col.name, ParseIdent(true));
    ARROW_ASSIGN_OR_RAISE(col.type, ParseType());
    while (true) {
      if (Peek("NOT") && Peek("NULL", 1)) {
        i_ += 2;
        col.not_null = true;
      } else if (Accept("COMMENT")) {
        ARROW_ASSIGN_OR_RAISE(std::string c, ParseStringLiteral());
        col.comment = std::move(c);
      } else {
        return col;
      }
    }
  }

  Result<PartitionField> ParsePartitionField() {
    PartitionField field;
    field.pos = Cur().pos;
    if (PeekKind(TokenKind::kWord) && PeekKind(TokenKind::kLParen, 1)) {
      std::string name = Upper(Cur().text);
      if (name == "YEARS" || name == "YEAR") {
        field.transform = TransformKind::kYear;
      } else if (name == "MONTHS" || name == "MONTH") {
        field.transform = TransformKind::kMonth;
      } else if (name == "DAYS" || name == "DAY" || name == "DATE") {
        field.transform = TransformKind::kDay;
      } else if (name == "HOURS" || name == "HOUR" || name == "DATE_HOUR") {
        field.transform = TransformKind::kHour;
      } else if (name == "BUCKET") {
        field.transform = TransformKind::kBucket;
      } else if (name == "TRUNCATE") {
        field.transform = TransformKind::kTruncate;
      } else {
        return ErrorAt(sql_, field.pos,
                       StrCat("Unsupported partition transform '", Cur().text, "'"));
      }
      i_ += 2;
      if (field.transform == TransformKind::kBucket ||
          field.transform == TransformKind::kTruncate) {
        std::string_view what =
            field.transform == TransformKind::kBucket ? "a bucket count" : "a truncate width";
        // Iceberg writes bucket(16, id) and truncate(10, s); truncate(s, 10) is accepted too.
        if (PeekKind(TokenKind::kNumber)) {
          ARROW_ASSIGN_OR_RAISE(field.param, ParseInt32(what));
          ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kComma));
          ARROW_ASSIGN_OR_RAISE(field.column, ParseColumnPath());
        } else {
          ARROW_ASSIGN_OR_RAISE(field.column, ParseColumnPath());
          ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kComma));
          ARROW_ASSIGN_OR_RAISE(field.param, ParseInt32(what));
        }
        if (field.param <= 0) {
          return ErrorAt(sql_, field.pos, StrCat("Expected a positive ", what.substr(2)));
        }
      } else {
        ARROW_ASSIGN_OR_RAISE(field.column, ParseColumnPath());
      }
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      return field;
    }
    ARROW_ASSIGN_OR_RAISE(field.column, ParseColumnPath());
    return field;
  }

  Result<Statement> ParseCreateTable(Statement s, CreateMode mode) {
    ARROW_RETURN_NOT_OK(Expect("TABLE"));
    CreateTable c;
    c.mode = mode;
    if (mode == CreateMode::kCreate) c.if_not_exists = AcceptIfNotExists();
    ARROW_ASSIGN_OR_RAISE(c.name, ParseObjectName());
    if (PeekKind(TokenKind::kLParen) && !StartsQueryThroughParens(i_)) {
      Bump();
      do {
        ARROW_ASSIGN_OR_RAISE(ColumnDef col, ParseColumnDef());
        c.columns.push_back(std::move(col));
      } while (AcceptKind(TokenKind::kComma));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    }
    if (Accept("USING")) {
      ARROW_ASSIGN_OR_RAISE(Identifier provider, ParseIdent(true));
      c.provider = provider.name;
    }
    while (true) {
      if (Peek("PARTITIONED") && Peek("BY", 1)) {
        i_ += 2;
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
        do {
          ARROW_ASSIGN_OR_RAISE(PartitionField f, ParsePartitionField());
          c.partitioned_by.push_back(std::move(f));
        } while (AcceptKind(TokenKind::kComma));
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      } else if (Accept("LOCATION")) {
        ARROW_ASSIGN_OR_RAISE(std::string v, ParseStringLiteral());
        c.location = std::move(v);
      } else if (Accept("COMMENT")) {
        ARROW_ASSIGN_OR_RAISE(std::string v, ParseStringLiteral());
        c.comment = std::move(v);
      } else if (Accept("TBLPROPERTIES")) {
        ARROW_ASSIGN_OR_RAISE(std::vector<Property> props, ParseProperties());
        for (Property& p : props) c.properties.push_back(std::move(p));
      } else {
        break;
      }
    }
    bool as = Accept("AS");
    if (as || StartsQueryThroughParens(i_)) {
      ARROW_ASSIGN_OR_RAISE(Query q, ParseQuery());
      c.as_query = std::move(q);
    }
    s.node = std::move(c);
    return s;
  }

  Result<Statement> ParseDrop(Statement s) {
    Bump();  // DROP
    if (Accept("TABLE")) {
      DropTable d;
      d.if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(d.name, ParseObjectName());
      d.purge = Accept("PURGE");
      s.node = std::move(d);
      return s;
    }
    if (AcceptNamespaceWord()) {
      DropNamespace d;
      d.if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(d.name, ParseObjectName());
      if (Accept("CASCADE")) {
        d.cascade = true;
      } else {
        Accept("RESTRICT");
      }
      s.node = std::move(d);
      return s;
    }
    return ErrorHere("expected TABLE or NAMESPACE");
  }

  Result<std::pair<std::optional<ObjectName>, std::optional<std::string>>> ParseInAndPattern() {
    std::optional<ObjectName> in;
    std::optional<std::string> pattern;
    if (Accept("IN") || Accept("FROM")) {
      ARROW_ASSIGN_OR_RAISE(ObjectName name, ParseObjectName());
      in = std::move(name);
    }
    bool like = Accept("LIKE");
    if (like || PeekKind(TokenKind::kString)) {
      ARROW_ASSIGN_OR_RAISE(std::string p, ParseStringLiteral("a pattern"));
      pattern = std::move(p);
    }
    return std::make_pair(std::move(in), std::move(pattern));
  }

  Result<Statement> ParseShow(Statement s) {
    Bump();  // SHOW
    if (Accept("NAMESPACES") || Accept("DATABASES") || Accept("SCHEMAS")) {
      ShowNamespaces show;
      ARROW_ASSIGN_OR_RAISE(auto in_pattern, ParseInAndPattern());
      show.in = std::move(in_pattern.first);
      show.pattern = std::move(in_pattern.second);
      s.node = std::move(show);
      return s;
    }
    if (Accept("TABLES")) {
      ShowTables show;
      ARROW_ASSIGN_OR_RAISE(auto in_pattern, ParseInAndPattern());
      show.in = std::move(in_pattern.first);
      show.pattern = std::move(in_pattern.second);
      s.node = std::move(show);
      return s;
    }
    if (Peek("CREATE") && Peek("TABLE", 1)) {
      i_ += 2;
      ShowCreateTable show;
      ARROW_ASSIGN_OR_RAISE(show.name, ParseObjectName());
      s.node = std::move(show);
      return s;
    }
    if (Accept("TBLPROPERTIES")) {
      ShowTblProperties show;
      ARROW_ASSIGN_OR_RAISE(show.name, ParseObjectName());
      if (AcceptKind(TokenKind::kLParen)) {
        ARROW_ASSIGN_OR_RAISE(std::string key, ParsePropertyKey());
        show.key = std::move(key);
        ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      }
      s.node = std::move(show);
      return s;
    }
    return ErrorHere("expected NAMESPACES, TABLES, CREATE TABLE or TBLPROPERTIES");
  }

  Result<ColumnPosition> ParseColumnPosition() {
    ColumnPosition pos;
    if (Accept("FIRST")) {
      pos.first = true;
      return pos;
    }
    ARROW_RETURN_NOT_OK(Expect("AFTER"));
    ARROW_ASSIGN_OR_RAISE(pos.after, ParseColumnPath());
    return pos;
  }

  Result<AddColumn> ParseAddColumn() {
    AddColumn col;
    ARROW_ASSIGN_OR_RAISE(col.name, ParseColumnPath());
    ARROW_ASSIGN_OR_RAISE(col.type, ParseType());
    while (true) {
      if (Peek("NOT") && Peek("NULL", 1)) {
        i_ += 2;
        col.not_null = true;
      } else if (Accept("COMMENT")) {
        ARROW_ASSIGN_OR_RAISE(std::string c, ParseStringLiteral());
        col.comment = std::move(c);
      } else if (Peek("FIRST") || Peek("AFTER")) {
        ARROW_ASSIGN_OR_RAISE(ColumnPosition p, ParseColumnPosition());
        col.position = std::move(p);
      } else {
        return col;
      }
    }
  }

  Result<RefDuration> ParseDuration() {
    RefDuration d;
    ARROW_ASSIGN_OR_RAISE(d.amount, ParseInt64("a duration"));
    if (Accept("DAYS") || Accept("DAY")) {
      d.unit = TimeUnit::kDays;
    } else if (Accept("HOURS") || Accept("HOUR")) {
      d.unit = TimeUnit::kHours;
    } else if (Accept("MINUTES") || Accept("MINUTE")) {
      d.unit = TimeUnit::kMinutes;
    } else {
      return ErrorHere("expected DAYS, HOURS or MINUTES");
    }
    return d;
  }

  Result<CreateRef> ParseCreateRef(bool create, bool replace) {
    CreateRef ref;
    ref.create = create;
    ref.replace = replace;
    if (Accept("TAG")) {
      ref.kind = RefKind::kTag;
    } else if (Accept("BRANCH")) {
      ref.kind = RefKind::kBranch;
    } else {
      return ErrorHere("expected TAG or BRANCH");
    }
    if (create && !replace) ref.if_not_exists = AcceptIfNotExists();
    ARROW_ASSIGN_OR_RAISE(ref.name, ParseIdent(true));
    if (Peek("AS") && Peek("OF", 1) && Peek("VERSION", 2)) {
      i_ += 3;
      ARROW_ASSIGN_OR_RAISE(int64_t v, ParseInt64("a snapshot id"));
      ref.as_of_version = v;
    }
    if (Accept("RETAIN")) {
      ARROW_ASSIGN_OR_RAISE(RefDuration d, ParseDuration());
      ref.retain = d;
    }
    if (ref.kind == RefKind::kBranch && Peek("WITH") && Peek("SNAPSHOT", 1) &&
        Peek("RETENTION", 2)) {
      i_ += 3;
      if (PeekKind(TokenKind::kNumber) && Peek("SNAPSHOTS", 1)) {
        ARROW_ASSIGN_OR_RAISE(int64_t n, ParseInt64("a snapshot count"));
        ref.min_snapshots_to_keep = n;
        Bump();  // SNAPSHOTS
      }
      if (PeekKind(TokenKind::kNumber)) {
        ARROW_ASSIGN_OR_RAISE(RefDuration d, ParseDuration());
        ref.max_snapshot_age = d;
      }
      if (!ref.min_snapshots_to_keep && !ref.max_snapshot_age) {
        return ErrorHere("expected a snapshot count or age");
      }
    }
    return ref;
  }

  Result<Statement> ParseAlter(Statement s) {
    Bump();  // ALTER
    ARROW_RETURN_NOT_OK(Expect("TABLE"));
    AlterTable alter;
    ARROW_ASSIGN_OR_RAISE(alter.name, ParseObjectName());
    if (Peek("SET") && Peek("TBLPROPERTIES", 1)) {
      i_ += 2;
      SetProperties a;
      ARROW_ASSIGN_OR_RAISE(a.properties, ParseProperties());
      alter.action = std::move(a);
    } else if (Peek("UNSET") && Peek("TBLPROPERTIES", 1)) {
      i_ += 2;
      UnsetProperties a;
      a.if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(a.keys, ParsePropertyKeys());
      alter.action = std::move(a);
    } else if (Peek("ADD") && (Peek("COLUMN", 1) || Peek("COLUMNS", 1))) {
      i_ += 2;
      AddColumns a;
      bool parens = AcceptKind(TokenKind::kLParen);
      do {
        ARROW_ASSIGN_OR_RAISE(AddColumn col, ParseAddColumn());
        a.columns.push_back(std::move(col));
      } while (AcceptKind(TokenKind::kComma));
      if (parens) ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      alter.action = std::move(a);
    } else if (Peek("ADD") && Peek("PARTITION", 1) && Peek("FIELD", 2)) {
      i_ += 3;
      AddPartitionField a;
      ARROW_ASSIGN_OR_RAISE(a.field, ParsePartitionField());
      if (Accept("AS")) {
        ARROW_ASSIGN_OR_RAISE(Identifier as, ParseIdent(true));
        a.as = std::move(as);
      }
      alter.action = std::move(a);
    } else if (Peek("DROP") && Peek("PARTITION", 1) && Peek("FIELD", 2)) {
      i_ += 3;
      DropPartitionField a;
      ARROW_ASSIGN_OR_RAISE(a.field, ParsePartitionField());
      alter.action = std::move(a);
    } else if (Peek("RENAME") && Peek("COLUMN", 1)) {
      i_ += 2;
      RenameColumn a;
      ARROW_ASSIGN_OR_RAISE(a.column, ParseColumnPath());
      ARROW_RETURN_NOT_OK(Expect("TO"));
      ARROW_ASSIGN_OR_RAISE(a.new_name, ParseIdent(true));
      alter.action = std::move(a);
    } else if (Peek("RENAME") && Peek("TO", 1)) {
      i_ += 2;
      RenameTable a;
      ARROW_ASSIGN_OR_RAISE(a.new_name, ParseObjectName());
      alter.action = std::move(a);
    } else if (Peek("DROP") && (Peek("COLUMN", 1) || Peek("COLUMNS", 1))) {
      i_ += 2;
      DropColumns a;
      a.if_exists = AcceptIfExists();
      bool parens = AcceptKind(TokenKind::kLParen);
      do {
        ARROW_ASSIGN_OR_RAISE(std::vector<Identifier> col, ParseColumnPath());
        a.columns.push_back(std::move(col));
      } while (AcceptKind(TokenKind::kComma));
      if (parens) ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
      alter.action = std::move(a);
    } else if (Peek("DROP") && (Peek("TAG", 1) || Peek("BRANCH", 1))) {
      Bump();
      DropRef a;
      a.kind = Peek("TAG") ? RefKind::kTag : RefKind::kBranch;
      Bump();
      a.if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(a.name, ParseIdent(true));
      alter.action = std::move(a);
    } else if (Peek("ALTER") || Peek("CHANGE")) {
      Bump();
      Accept("COLUMN");
      AlterColumn a;
      ARROW_ASSIGN_OR_RAISE(a.column, ParseColumnPath());
      if (Accept("TYPE")) {
        a.action = AlterColumnAction::kType;
        ARROW_ASSIGN_OR_RAISE(a.type, ParseType());
      } else if (Peek("SET") && Peek("NOT", 1) && Peek("NULL", 2)) {
        i_ += 3;
        a.action = AlterColumnAction::kSetNotNull;
      } else if (Peek("DROP") && Peek("NOT", 1) && Peek("NULL", 2)) {
        i_ += 3;
        a.action = AlterColumnAction::kDropNotNull;
      } else if (Accept("COMMENT")) {
        a.action = AlterColumnAction::kComment;
        ARROW_ASSIGN_OR_RAISE(a.comment, ParseStringLiteral());
      } else if (Peek("FIRST") || Peek("AFTER")) {
        a.action = AlterColumnAction::kPosition;
        ARROW_ASSIGN_OR_RAISE(a.position, ParseColumnPosition());
      } else {
        return ErrorHere("expected TYPE, SET NOT NULL, DROP NOT NULL, COMMENT, FIRST or AFTER");
      }
      alter.action = std::move(a);
    } else if (Peek("CREATE") && Peek("OR", 1) && Peek("REPLACE", 2)) {
      i_ += 3;
      ARROW_ASSIGN_OR_RAISE(CreateRef a, ParseCreateRef(true, true));
      alter.action = std::move(a);
    } else if (Accept("CREATE")) {
      ARROW_ASSIGN_OR_RAISE(CreateRef a, ParseCreateRef(true, false));
      alter.action = std::move(a);
    } else if (Accept("REPLACE")) {
      ARROW_ASSIGN_OR_RAISE(CreateRef a, ParseCreateRef(false, true));
      alter.action = std::move(a);
    } else if (Accept("EXECUTE")) {
      ExecuteProcedure a;
      ARROW_ASSIGN_OR_RAISE(a.procedure, ParseIdent(true));
      if (PeekKind(TokenKind::kLParen)) {
        ARROW_ASSIGN_OR_RAISE(a.args, ParseCallArguments());
      }
      alter.action = std::move(a);
    } else {
      return ErrorHere("expected an ALTER TABLE action");
    }
    s.node = std::move(alter);
    return s;
  }

  Result<Statement> ParseInsert(Statement s) {
    Bump();  // INSERT
    Insert insert;
    if (Accept("OVERWRITE")) {
      insert.overwrite = true;
    } else {
      ARROW_RETURN_NOT_OK(Expect("INTO"));
    }
    Accept("TABLE");
    ARROW_ASSIGN_OR_RAISE(insert.table, ParseObjectName());
    if (Peek("PARTITION") && PeekKind(TokenKind::kLParen, 1)) {
      i_ += 2;
      do {
        PartitionValue pv;
        ARROW_ASSIGN_OR_RAISE(pv.column, ParseIdent(true));
        if (AcceptKind(TokenKind::kEq)) {
          ARROW_ASSIGN_OR_RAISE(Expr v, ParseExpr());
          pv.value = std::move(v);
        }
        insert.partition.push_back(std::move(pv));
      } while (AcceptKind(TokenKind::kComma));
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
    }
    if (PeekKind(TokenKind::kLParen) && !StartsQueryThroughParens(i_)) {
      ARROW_ASSIGN_OR_RAISE(insert.columns, ParseIdentList());
    }
    if (!StartsQueryThroughParens(i_)) return ErrorHere("expected SELECT or VALUES");
    ARROW_ASSIGN_OR_RAISE(insert.query, ParseQuery());
    s.node = std::move(insert);
    return s;
  }

  Result<Statement> ParseDelete(Statement s) {
    Bump();  // DELETE
    ARROW_RETURN_NOT_OK(Expect("FROM"));
    Delete d;
    ARROW_ASSIGN_OR_RAISE(d.table, ParseObjectName());
    ARROW_ASSIGN_OR_RAISE(d.alias, ParseOptionalSimpleAlias());
    if (Accept("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      d.where = std::move(e);
    }
    s.node = std::move(d);
    return s;
  }

  Result<std::vector<Assignment>> ParseAssignments() {
    std::vector<Assignment> out;
    do {
      Assignment a;
      ARROW_ASSIGN_OR_RAISE(a.target, ParseColumnPath());
      ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kEq));
      ARROW_ASSIGN_OR_RAISE(a.value, ParseExpr());
      out.push_back(std::move(a));
    } while (AcceptKind(TokenKind::kComma));
    return out;
  }

  Result<Statement> ParseUpdate(Statement s) {
    Bump();  // UPDATE
    Update u;
    ARROW_ASSIGN_OR_RAISE(u.table, ParseObjectName());
    ARROW_ASSIGN_OR_RAISE(u.alias, ParseOptionalSimpleAlias());
    ARROW_RETURN_NOT_OK(Expect("SET"));
    ARROW_ASSIGN_OR_RAISE(u.assignments, ParseAssignments());
    if (Accept("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(Expr e, ParseExpr());
      u.where = std::move(e);
    }
    s.node = std::move(u);
    return s;
  }

  Result<Statement> ParseMerge(Statement s) {
    Bump();  // MERGE
    ARROW_RETURN_NOT_OK(Expect("INTO"));
    Merge m;
    ARROW_ASSIGN_OR_RAISE(m.target, ParseObjectName());
    ARROW_ASSIGN_OR_RAISE(m.target_alias, ParseOptionalSimpleAlias());
    ARROW_RETURN_NOT_OK(Expect("USING"));
    ARROW_ASSIGN_OR_RAISE(m.source, ParseRelationPrimary());
    ARROW_RETURN_NOT_OK(Expect("ON"));
    ARROW_ASSIGN_OR_RAISE(m.on, ParseExpr());
    if (!Peek("WHEN")) return ErrorHere("expected WHEN");
    while (Accept("WHEN")) {
      MergeClause clause;
      if (Accept("MATCHED")) {
        clause.match = MergeMatch::kMatched;
      } else {
        ARROW_RETURN_NOT_OK(Expect("NOT"));
        ARROW_RETURN_NOT_OK(Expect("MATCHED"));
        clause.match = MergeMatch::kNotMatched;
        if (Accept("BY")) {
          if (Accept("SOURCE")) {
            clause.match = MergeMatch::kNotMatchedBySource;
          } else {
            ARROW_RETURN_NOT_OK(Expect("TARGET"));
          }
        }
      }
      if (Accept("AND")) {
        ARROW_ASSIGN_OR_RAISE(Expr cond, ParseExpr());
        clause.condition = std::move(cond);
      }
      ARROW_RETURN_NOT_OK(Expect("THEN"));
      bool insert_allowed = clause.match == MergeMatch::kNotMatched;
      if (!insert_allowed && Accept("UPDATE")) {
        ARROW_RETURN_NOT_OK(Expect("SET"));
        if (clause.match == MergeMatch::kMatched && PeekKind(TokenKind::kStar)) {
          Bump();
          clause.action = MergeActionKind::kUpdateStar;
        } else {
          clause.action = MergeActionKind::kUpdate;
          ARROW_ASSIGN_OR_RAISE(clause.assignments, ParseAssignments());
        }
      } else if (!insert_allowed && Accept("DELETE")) {
        clause.action = MergeActionKind::kDelete;
      } else if (insert_allowed && Accept("INSERT")) {
        if (AcceptKind(TokenKind::kStar)) {
          clause.action = MergeActionKind::kInsertStar;
        } else {
          clause.action = MergeActionKind::kInsert;
          if (PeekKind(TokenKind::kLParen)) {
            ARROW_ASSIGN_OR_RAISE(clause.insert_columns, ParseIdentList());
          }
          ARROW_RETURN_NOT_OK(Expect("VALUES"));
          ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
          do {
            ARROW_ASSIGN_OR_RAISE(Expr v, ParseExpr());
            clause.insert_values.push_back(std::move(v));
          } while (AcceptKind(TokenKind::kComma));
          ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
        }
      } else {
        return ErrorHere(insert_allowed ? "expected INSERT" : "expected UPDATE or DELETE");
      }
      m.clauses.push_back(std::move(clause));
    }
    s.node = std::move(m);
    return s;
  }

  std::string_view sql_;
  const std::vector<Token>& tokens_;
  size_t i_;
  size_t end_;
  int depth_ = 0;
};

// Token ranges [begin, end) of the statements; `end` indexes the ';' or the kEnd token.
std::vector<std::pair<size_t, size_t>> StatementRanges(const std::vector<Token>& tokens) {
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t begin = 0;
  for (size_t k = 0; k < tokens.size(); ++k) {
    if (tokens[k].kind == TokenKind::kSemicolon || tokens[k].kind == TokenKind::kEnd) {
      if (k > begin) ranges.emplace_back(begin, k);
      begin = k + 1;
    }
  }
  return ranges;
}

std::string SpanText(std::string_view sql, const std::vector<Token>& tokens, size_t begin,
                     size_t end) {
  int32_t from = tokens[begin].pos.offset;
  int32_t to = tokens[end - 1].pos.offset + static_cast<int32_t>(tokens[end - 1].raw.size());
  return std::string(sql.substr(from, to - from));
}

}  // namespace

Result<Statement> ParseStatement(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  size_t end = tokens.size() - 1;
  // One optional trailing ';'.
  if (end > 0 && tokens[end - 1].kind == TokenKind::kSemicolon) --end;
  if (end == 0) return ErrorAt(sql, tokens[0].pos, "Syntax error at end of input: expected a statement");
  return Parser(sql, tokens, 0, end).ParseWholeStatement();
}

Result<std::vector<ScriptStatement>> ParseScript(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  std::vector<ScriptStatement> out;
  for (auto [begin, end] : StatementRanges(tokens)) {
    ScriptStatement s;
    ARROW_ASSIGN_OR_RAISE(s.statement, Parser(sql, tokens, begin, end).ParseWholeStatement());
    s.text = SpanText(sql, tokens, begin, end);
    s.pos = tokens[begin].pos;
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<StatementSpan>> SplitStatements(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  std::vector<StatementSpan> out;
  for (auto [begin, end] : StatementRanges(tokens)) {
    out.push_back(StatementSpan{SpanText(sql, tokens, begin, end), tokens[begin].pos});
  }
  return out;
}

Result<Expr> ParseExpression(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  return Parser(sql, tokens, 0, tokens.size() - 1).ParseWholeExpression();
}

Result<DataType> ParseDataType(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  return Parser(sql, tokens, 0, tokens.size() - 1).ParseWholeDataType();
}

}  // namespace floe::sql
