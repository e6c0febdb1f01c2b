#include "floe/sql/parse/parser_internal.h"

#include <map>

namespace floe::sql::parsing {

bool Parser::IsNameToken(const Token& t) {
  return t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedIdent;
}

bool Parser::IsPlainIdentifier(const Token& t) const {
  if (t.kind == TokenKind::kQuotedIdent) return true;
  return t.kind == TokenKind::kWord && !IsReservedWord(t.text);
}

Identifier Parser::MakeIdent(const Token& t) const {
  Identifier id;
  id.name = t.text;
  id.quoted = t.kind != TokenKind::kWord;
  id.pos = t.pos;
  return id;
}

Result<Identifier> Parser::ParseIdent(bool allow_double_quoted, bool any_word) {
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

Result<ObjectName> Parser::ParseObjectName() {
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

Result<std::vector<Identifier>> Parser::ParseColumnPath() {
  ARROW_ASSIGN_OR_RAISE(ObjectName name, ParseObjectName());
  return std::move(name.parts);
}

Result<std::vector<Identifier>> Parser::ParseIdentList() {
  std::vector<Identifier> out;
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
  do {
    ARROW_ASSIGN_OR_RAISE(Identifier id, ParseIdent(true));
    out.push_back(std::move(id));
  } while (AcceptKind(TokenKind::kComma));
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  return out;
}

Result<std::string> Parser::ParseStringLiteral(std::string_view what) {
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

std::string Parser::StringValue(const Token& t) {
  if (t.kind == TokenKind::kDoubleQuoted) {
    return DecodeStringBody(t.raw.substr(1, t.raw.size() - 2), '"');
  }
  return t.text;
}

Result<int64_t> Parser::ParseInt64(std::string_view what) {
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

Result<int32_t> Parser::ParseInt32(std::string_view what) {
  SourcePos pos = Cur().pos;
  ARROW_ASSIGN_OR_RAISE(int64_t v, ParseInt64(what));
  if (v < 0 || v > std::numeric_limits<int32_t>::max()) {
    return ErrorAt(sql_, pos, StrCat("Number ", v, " is out of range for ", what));
  }
  return static_cast<int32_t>(v);
}

Result<std::string> Parser::ParsePropertyKey() {
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

Result<std::string> Parser::ParsePropertyValue() {
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

Result<std::vector<Property>> Parser::ParseProperties() {
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

Result<std::vector<std::string>> Parser::ParsePropertyKeys() {
  std::vector<std::string> out;
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
  do {
    ARROW_ASSIGN_OR_RAISE(std::string key, ParsePropertyKey());
    out.push_back(std::move(key));
  } while (AcceptKind(TokenKind::kComma));
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  return out;
}

Result<DataType> Parser::ParseType() {
  ARROW_ASSIGN_OR_RAISE(DataType type, ParseElementType());
  // PostgreSQL's array types: int2[], text[][].
  while (PeekKind(TokenKind::kLBracket) && PeekKind(TokenKind::kRBracket, 1)) {
    i_ += 2;
    DataType array;
    array.kind = TypeKind::kArray;
    array.pos = type.pos;
    array.children.push_back(std::move(type));
    type = std::move(array);
  }
  return type;
}

Result<DataType> Parser::ParseElementType() {
  DepthScope scope(&depth_);
  ARROW_RETURN_NOT_OK(Deeper(&scope));
  DataType type;
  type.pos = Cur().pos;
  // PostgreSQL's names: pg_catalog.int4, "char".
  if (Peek("PG_CATALOG") && PeekKind(TokenKind::kDot, 1)) i_ += 2;
  if (PeekKind(TokenKind::kDoubleQuoted) && Cur().text == "char") {
    Bump();
    type.kind = TypeKind::kString;
    return type;
  }
  if (!PeekKind(TokenKind::kWord)) return ErrorHere("expected a data type");
  std::string name = AsciiUpper(Cur().text);
  Bump();
  static const std::map<std::string, TypeKind> kPgNames = {
      {"INT2", TypeKind::kSmallInt}, {"INT4", TypeKind::kInt},      {"INT8", TypeKind::kBigInt},
      {"OID", TypeKind::kBigInt},    {"FLOAT4", TypeKind::kFloat},  {"FLOAT8", TypeKind::kDouble},
      {"NAME", TypeKind::kString},   {"BPCHAR", TypeKind::kString}};
  if (auto it = kPgNames.find(name); it != kPgNames.end()) {
    type.kind = it->second;
    return type;
  }
  if (name == "CHARACTER" && Peek("VARYING")) {
    Bump();
    name = "VARCHAR";
  }
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
    if (AcceptKind(TokenKind::kNe)) return type;  // STRUCT<>
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

}  // namespace floe::sql::parsing
