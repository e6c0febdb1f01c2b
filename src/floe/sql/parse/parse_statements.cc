#include "floe/sql/parse/parser_internal.h"

namespace floe::sql::parsing {

Result<Statement> Parser::ParseStatementBody() {
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
  std::string word = AsciiUpper(t.text);
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
  if (word == "UNDROP") {
    Bump();
    ARROW_RETURN_NOT_OK(Expect("TABLE"));
    UndropTable u;
    ARROW_ASSIGN_OR_RAISE(u.name, ParseObjectName());
    s.node = std::move(u);
    return s;
  }
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
    // FUNCTION followed by a name (or EXTENDED and a name); otherwise a table named `function`.
    if (Peek("FUNCTION") && (IsNameToken(Ahead(1)) || PeekKind(TokenKind::kString, 1) ||
                             PeekKind(TokenKind::kDoubleQuoted, 1))) {
      Bump();
      DescribeFunction d;
      if (Peek("EXTENDED") && (IsNameToken(Ahead(1)) || PeekKind(TokenKind::kString, 1) ||
                               PeekKind(TokenKind::kDoubleQuoted, 1))) {
        Bump();
        d.extended = true;
      }
      if (PeekKind(TokenKind::kString)) {
        d.name.pos = Ahead(0).pos;
        ARROW_ASSIGN_OR_RAISE(std::string text, ParseStringLiteral("a function name"));
        d.name.parts.push_back(Identifier{text, false, d.name.pos});
      } else {
        ARROW_ASSIGN_OR_RAISE(d.name, ParseObjectName());
      }
      s.node = std::move(d);
      return s;
    }
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
  if (word == "SET" && (Peek("TRANSACTION", 1) || (Peek("SESSION", 1) && Peek("CHARACTERISTICS", 2)))) {
    return ParseTransactionControl(std::move(s), TransactionControlKind::kSetTransaction);
  }
  if (word == "SET") return ParseSet(std::move(s));
  if (word == "BEGIN" || (word == "START" && Peek("TRANSACTION", 1))) {
    return ParseTransactionControl(std::move(s), TransactionControlKind::kBegin);
  }
  if (word == "COMMIT" || word == "END") return ParseTransactionControl(std::move(s), TransactionControlKind::kCommit);
  if (word == "ROLLBACK" && (Peek("TO", 1) || ((Peek("WORK", 1) || Peek("TRANSACTION", 1)) && Peek("TO", 2)))) {
    return ParseTransactionControl(std::move(s), TransactionControlKind::kRollbackToSavepoint);
  }
  if (word == "ROLLBACK" || word == "ABORT") {
    return ParseTransactionControl(std::move(s), TransactionControlKind::kRollback);
  }
  if (word == "SAVEPOINT") return ParseTransactionControl(std::move(s), TransactionControlKind::kSavepoint);
  if (word == "RELEASE") return ParseTransactionControl(std::move(s), TransactionControlKind::kRelease);
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

std::string_view Parser::RawRest() const {
  int32_t begin = Cur().pos.offset;
  int32_t end = Tok(end_).pos.offset;
  return sql_.substr(begin, end - begin);
}

std::string Parser::UnquoteRaw(std::string_view text) {
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

Result<Statement> Parser::ParseTransactionControl(Statement s, TransactionControlKind kind) {
  TransactionControl t;
  t.kind = kind;
  t.text = std::string(Trim(RawRest()));
  // A savepoint's name, folded as PostgreSQL folds it.
  auto savepoint_name = [&]() -> Result<std::string> {
    if (!IsNameToken(Cur()) && !PeekKind(TokenKind::kDoubleQuoted)) {
      return ErrorHere("expected a savepoint name");
    }
    std::string name = Cur().text;
    if (Cur().kind == TokenKind::kWord) {
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    Bump();
    return name;
  };
  if (kind == TransactionControlKind::kSavepoint) {
    Bump();
    ARROW_ASSIGN_OR_RAISE(t.savepoint, savepoint_name());
  } else if (kind == TransactionControlKind::kRelease) {
    Bump();
    Accept("SAVEPOINT");
    ARROW_ASSIGN_OR_RAISE(t.savepoint, savepoint_name());
  } else if (kind == TransactionControlKind::kRollbackToSavepoint) {
    Bump();
    if (!Accept("WORK")) Accept("TRANSACTION");
    ARROW_RETURN_NOT_OK(Expect("TO"));
    Accept("SAVEPOINT");
    ARROW_ASSIGN_OR_RAISE(t.savepoint, savepoint_name());
  } else if (kind == TransactionControlKind::kCommit) {
    Bump();
    if (!Accept("WORK")) Accept("TRANSACTION");
    if (Accept("TAG")) {
      ARROW_ASSIGN_OR_RAISE(CreateCatalogTag tag, ParseCatalogTag());
      t.tag = std::move(tag);
    } else if (Accept("AND")) {  // AND NO CHAIN; AND CHAIN is not supported
      ARROW_RETURN_NOT_OK(Expect("NO"));
      ARROW_RETURN_NOT_OK(Expect("CHAIN"));
    }
  } else {
    i_ = end_;
  }
  s.node = std::move(t);
  return s;
}

Result<Statement> Parser::ParseSet(Statement s) {
  Bump();  // SET
  // PostgreSQL's SET [SESSION | LOCAL] name TO value (also with '='): SESSION and LOCAL are
  // dropped, floe's settings last for the session.
  if ((Peek("SESSION") || Peek("LOCAL")) && IsNameToken(Ahead(1)) &&
      (PeekKind(TokenKind::kEq, 2) || Peek("TO", 2))) {
    Bump();
  }
  if (IsNameToken(Cur()) && Peek("TO", 1) && !PeekKind(TokenKind::kEnd, 2)) {
    SetConfig set;
    set.key = Cur().text;
    i_ += 2;
    set.value = UnquoteRaw(Trim(RawRest()));
    i_ = end_;
    s.node = std::move(set);
    return s;
  }
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

Result<std::vector<CallArgument>> Parser::ParseCallArguments() {
  std::vector<CallArgument> args;
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kLParen));
  if (AcceptKind(TokenKind::kRParen)) return args;
  bool named = false;
  do {
    CallArgument arg;
    SourcePos pos = Cur().pos;
    if ((IsNameToken(Cur()) || PeekKind(TokenKind::kDoubleQuoted)) &&
        PeekKind(TokenKind::kArrow, 1)) {
      arg.name = MakeIdent(Cur());
      i_ += 2;
      named = true;
    }
    if (named && !arg.name) {
      return ErrorAt(sql_, pos, "A positional argument cannot follow a named argument");
    }
    ARROW_ASSIGN_OR_RAISE(arg.value, ParseExpr());
    args.push_back(std::move(arg));
  } while (AcceptKind(TokenKind::kComma));
  ARROW_RETURN_NOT_OK(ExpectKind(TokenKind::kRParen));
  return args;
}

bool Parser::AcceptIfNotExists() {
  if (Peek("IF") && Peek("NOT", 1) && Peek("EXISTS", 2)) {
    i_ += 3;
    return true;
  }
  return false;
}

bool Parser::AcceptIfExists() {
  if (Peek("IF") && Peek("EXISTS", 1)) {
    i_ += 2;
    return true;
  }
  return false;
}

bool Parser::AcceptNamespaceWord() {
  return Accept("NAMESPACE") || Accept("DATABASE") || Accept("SCHEMA");
}

// name [IN [NAMESPACE] ns] [RETAIN n unit]: the tag CREATE CATALOG TAG and COMMIT TAG make.
Result<CreateCatalogTag> Parser::ParseCatalogTag() {
  CreateCatalogTag c;
  ARROW_ASSIGN_OR_RAISE(c.name, ParseIdent(true));
  if (Accept("IN")) {
    AcceptNamespaceWord();
    ARROW_ASSIGN_OR_RAISE(ObjectName ns, ParseObjectName());
    c.in = std::move(ns);
  }
  if (Accept("RETAIN")) {
    ARROW_ASSIGN_OR_RAISE(RefDuration d, ParseDuration());
    c.retain = d;
  }
  return c;
}

Result<Statement> Parser::ParseCreate(Statement s) {
  Bump();  // CREATE
  if (Peek("CATALOG") && Peek("TAG", 1)) {
    i_ += 2;
    ARROW_ASSIGN_OR_RAISE(CreateCatalogTag c, ParseCatalogTag());
    s.node = std::move(c);
    return s;
  }
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

Result<ColumnDef> Parser::ParseColumnDef() {
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

Result<PartitionField> Parser::ParsePartitionField() {
  PartitionField field;
  field.pos = Cur().pos;
  if (PeekKind(TokenKind::kWord) && PeekKind(TokenKind::kLParen, 1)) {
    std::string name = AsciiUpper(Cur().text);
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

Result<Statement> Parser::ParseCreateTable(Statement s, CreateMode mode) {
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

Result<Statement> Parser::ParseDrop(Statement s) {
  Bump();  // DROP
  if (Peek("CATALOG") && Peek("TAG", 1)) {
    i_ += 2;
    DropCatalogTag d;
    ARROW_ASSIGN_OR_RAISE(d.name, ParseIdent(true));
    s.node = std::move(d);
    return s;
  }
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

Result<std::pair<std::optional<ObjectName>, std::optional<std::string>>> Parser::ParseInAndPattern() {
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

namespace {

// SHOW parameter as PostgreSQL answers it: a query of current_setting(parameter), in one
// column named `column`.
Statement ShowParameterQuery(Statement s, const std::string& parameter, Identifier column,
                             SourcePos pos) {
  FunctionCall call;
  call.name.parts.push_back(Identifier{"current_setting", false, pos});
  call.name.pos = pos;
  call.args.push_back(MakeExpr(Literal{LiteralKind::kString, parameter}, pos));
  Select select;
  select.items.push_back(SelectItem{MakeExpr(std::move(call), pos), std::move(column)});
  Query q;
  q.body = std::move(select);
  q.pos = pos;
  s.node = std::move(q);
  return s;
}

}  // namespace

Result<Statement> Parser::ParseShow(Statement s) {
  Bump();  // SHOW
  SourcePos pos = Cur().pos;
  // PostgreSQL's SHOW parameter: a query of its value, in one column named after it.
  if (IsNameToken(Cur()) && PeekKind(TokenKind::kEnd, 1) && !Peek("NAMESPACES") && !Peek("DATABASES") &&
      !Peek("SCHEMAS") && !Peek("PROCEDURES") && !Peek("TABLES") && !Peek("FUNCTIONS") && !Peek("TBLPROPERTIES")) {
    Identifier name = MakeIdent(Cur());
    Bump();
    std::string parameter = name.name;
    return ShowParameterQuery(std::move(s), parameter, std::move(name), pos);
  }
  // The SQL standard's spellings of two parameters (SQLAlchemy asks the first on connect).
  if (Peek("TRANSACTION") && Peek("ISOLATION", 1) && Peek("LEVEL", 2) && PeekKind(TokenKind::kEnd, 3)) {
    i_ += 3;
    return ShowParameterQuery(std::move(s), "transaction_isolation",
                              Identifier{"transaction_isolation", false, pos}, pos);
  }
  if (Peek("TIME") && Peek("ZONE", 1) && PeekKind(TokenKind::kEnd, 2)) {
    i_ += 2;
    return ShowParameterQuery(std::move(s), "TimeZone", Identifier{"TimeZone", false, pos}, pos);
  }
  if (Accept("NAMESPACES") || Accept("DATABASES") || Accept("SCHEMAS")) return ParseShowInPattern<ShowNamespaces>(std::move(s));
  if (Accept("PROCEDURES")) return ParseShowInPattern<ShowProcedures>(std::move(s));
  if (Accept("TABLES")) return ParseShowInPattern<ShowTables>(std::move(s));
  if (Peek("CATALOG") && Peek("TAGS", 1)) {
    i_ += 2;
    s.node = ShowCatalogTags{};
    return s;
  }
  if (Peek("DROPPED") && Peek("TABLES", 1)) {
    i_ += 2;
    return ParseShowInPattern<ShowDroppedTables>(std::move(s));
  }
  if (Peek("FUNCTIONS") || ((Peek("USER") || Peek("SYSTEM") || Peek("ALL")) && Peek("FUNCTIONS", 1))) {
    ShowFunctions show;
    if (Accept("USER")) {
      show.scope = FunctionScope::kUser;
    } else if (Accept("SYSTEM")) {
      show.scope = FunctionScope::kSystem;
    } else {
      Accept("ALL");
    }
    Bump();  // FUNCTIONS
    if (Accept("LIKE") || PeekKind(TokenKind::kString)) {
      ARROW_ASSIGN_OR_RAISE(std::string p, ParseStringLiteral("a pattern"));
      show.pattern = std::move(p);
    }
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
  return ErrorHere(
      "expected NAMESPACES, TABLES, DROPPED TABLES, PROCEDURES, FUNCTIONS, CREATE TABLE or "
      "TBLPROPERTIES");
}

Result<ColumnPosition> Parser::ParseColumnPosition() {
  ColumnPosition pos;
  if (Accept("FIRST")) {
    pos.first = true;
    return pos;
  }
  ARROW_RETURN_NOT_OK(Expect("AFTER"));
  ARROW_ASSIGN_OR_RAISE(pos.after, ParseColumnPath());
  return pos;
}

Result<AddColumn> Parser::ParseAddColumn() {
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

Result<RefDuration> Parser::ParseDuration() {
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

Result<CreateRef> Parser::ParseCreateRef(bool create, bool replace) {
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

Result<Statement> Parser::ParseAlter(Statement s) {
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
  } else if (Peek("REPLACE") && Peek("PARTITION", 1) && Peek("FIELD", 2)) {
    i_ += 3;
    ReplacePartitionField a;
    ARROW_ASSIGN_OR_RAISE(a.from, ParsePartitionField());
    ARROW_RETURN_NOT_OK(Expect("WITH"));
    ARROW_ASSIGN_OR_RAISE(a.to, ParsePartitionField());
    if (Accept("AS")) {
      ARROW_ASSIGN_OR_RAISE(Identifier as, ParseIdent(true));
      a.as = std::move(as);
    }
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
  } else if ((Peek("SET") || Peek("UNSET")) && Peek("PROTECTION", 1)) {
    SetProtection a;
    a.unset = Peek("UNSET");
    i_ += 2;
    if (a.unset) a.if_exists = AcceptIfExists();
    ARROW_RETURN_NOT_OK(Expect("ON"));
    if (Accept("BRANCH")) {
      a.kind = RefKind::kBranch;
    } else if (Accept("TAG")) {
      a.kind = RefKind::kTag;
    } else {
      return ErrorHere("expected BRANCH or TAG");
    }
    ARROW_ASSIGN_OR_RAISE(a.name, ParseIdent(true));
    while (!a.unset && Accept("ALLOW")) {
      if (a.kind == RefKind::kTag) return ErrorHere("a locked tag allows nothing; ALLOW is for branches");
      if (Accept("FAST_FORWARD")) {
        a.allow_fast_forward = true;
      } else if (Accept("CHERRYPICK")) {
        a.allow_cherry_pick = true;
      } else if (Accept("ROLLBACK")) {
        a.allow_rollback = true;
      } else {
        return ErrorHere("expected FAST_FORWARD, CHERRYPICK or ROLLBACK");
      }
    }
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

Result<Statement> Parser::ParseInsert(Statement s) {
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

Result<Statement> Parser::ParseDelete(Statement s) {
  Bump();  // DELETE
  ARROW_RETURN_NOT_OK(Expect("FROM"));
  Delete d;
  ARROW_ASSIGN_OR_RAISE(d.table, ParseObjectName());
  ARROW_ASSIGN_OR_RAISE(d.alias, ParseOptionalSimpleAlias());
  ARROW_ASSIGN_OR_RAISE(d.where, ParseOptionalWhere());
  s.node = std::move(d);
  return s;
}

Result<std::vector<Assignment>> Parser::ParseAssignments() {
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

Result<Statement> Parser::ParseUpdate(Statement s) {
  Bump();  // UPDATE
  Update u;
  ARROW_ASSIGN_OR_RAISE(u.table, ParseObjectName());
  ARROW_ASSIGN_OR_RAISE(u.alias, ParseOptionalSimpleAlias());
  ARROW_RETURN_NOT_OK(Expect("SET"));
  ARROW_ASSIGN_OR_RAISE(u.assignments, ParseAssignments());
  ARROW_ASSIGN_OR_RAISE(u.where, ParseOptionalWhere());
  s.node = std::move(u);
  return s;
}

Result<Statement> Parser::ParseMerge(Statement s) {
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

}  // namespace floe::sql::parsing
