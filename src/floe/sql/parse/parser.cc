#include "floe/sql/parse/parser.h"

#include "floe/sql/parse/parser_internal.h"

namespace floe::sql {

using parsing::Parser;

namespace {

// Token ranges [begin, end) of the statements; `end` indexes the ';' or the kEnd token.
// Token ranges [begin, end) of the statements the splitter finds; every span starts and
// ends on a token boundary because the splitter follows the lexer's quoting rules.
std::vector<std::pair<size_t, size_t>> StatementRanges(std::string_view sql,
                                                       const std::vector<Token>& tokens) {
  std::vector<std::pair<size_t, size_t>> ranges;
  size_t k = 0;
  for (const StatementSpan& span : SplitStatements(sql)) {
    int32_t from = span.pos.offset;
    int32_t to = from + static_cast<int32_t>(span.text.size());
    while (k < tokens.size() && tokens[k].kind != TokenKind::kEnd && tokens[k].pos.offset < from) {
      ++k;
    }
    size_t begin = k;
    while (k < tokens.size() && tokens[k].kind != TokenKind::kEnd && tokens[k].pos.offset < to) {
      ++k;
    }
    if (k > begin) ranges.emplace_back(begin, k);
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

namespace {

Result<Statement> ParseOne(std::string_view sql, const ParameterValues* parameters) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  size_t end = tokens.size() - 1;
  // One optional trailing ';'.
  if (end > 0 && tokens[end - 1].kind == TokenKind::kSemicolon) --end;
  if (end == 0) return ErrorAt(sql, tokens[0].pos, "Syntax error at end of input: expected a statement");
  Parser parser(sql, tokens, 0, end);
  parser.SetParameters(parameters);
  return parser.ParseWholeStatement();
}

}  // namespace

Result<Statement> ParseStatement(std::string_view sql) { return ParseOne(sql, nullptr); }

Result<Statement> ParseStatement(std::string_view sql, const ParameterValues& parameters) {
  return ParseOne(sql, &parameters);
}

Result<std::vector<ScriptStatement>> ParseScript(std::string_view sql) {
  ARROW_ASSIGN_OR_RAISE(std::vector<Token> tokens, Lex(sql));
  std::vector<ScriptStatement> out;
  for (auto [begin, end] : StatementRanges(sql, tokens)) {
    ScriptStatement s;
    ARROW_ASSIGN_OR_RAISE(s.statement, Parser(sql, tokens, begin, end).ParseWholeStatement());
    s.text = SpanText(sql, tokens, begin, end);
    s.pos = tokens[begin].pos;
    out.push_back(std::move(s));
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
