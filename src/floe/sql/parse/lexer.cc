#include "floe/sql/parse/lexer.h"

#include <cctype>

#include "floe/sql/parse/parse_error.h"

namespace floe::sql {

const char* TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEnd: return "end of input";
    case TokenKind::kWord: return "word";
    case TokenKind::kQuotedIdent: return "quoted identifier";
    case TokenKind::kDoubleQuoted: return "double-quoted text";
    case TokenKind::kString: return "string";
    case TokenKind::kBinaryString: return "binary string";
    case TokenKind::kNumber: return "number";
    case TokenKind::kParameter: return "parameter";
    case TokenKind::kLParen: return "'('";
    case TokenKind::kRParen: return "')'";
    case TokenKind::kLBracket: return "'['";
    case TokenKind::kRBracket: return "']'";
    case TokenKind::kComma: return "','";
    case TokenKind::kDot: return "'.'";
    case TokenKind::kColon: return "':'";
    case TokenKind::kSemicolon: return "';'";
    case TokenKind::kEq: return "'='";
    case TokenKind::kNullSafeEq: return "'<=>'";
    case TokenKind::kNe: return "'<>'";
    case TokenKind::kLt: return "'<'";
    case TokenKind::kLe: return "'<='";
    case TokenKind::kGt: return "'>'";
    case TokenKind::kGe: return "'>='";
    case TokenKind::kPlus: return "'+'";
    case TokenKind::kMinus: return "'-'";
    case TokenKind::kStar: return "'*'";
    case TokenKind::kSlash: return "'/'";
    case TokenKind::kPercent: return "'%'";
    case TokenKind::kConcat: return "'||'";
    case TokenKind::kDoubleColon: return "'::'";
    case TokenKind::kArrow: return "'=>'";
    case TokenKind::kTilde: return "'~'";
    case TokenKind::kBangTilde: return "'!~'";
    case TokenKind::kAmpersand: return "'&'";
    case TokenKind::kPipe: return "'|'";
    case TokenKind::kCaret: return "'^'";
  }
  return "token";
}

namespace {

bool IsWordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsWordChar(char c) {
  return IsWordStart(c) || std::isdigit(static_cast<unsigned char>(c));
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      ARROW_RETURN_NOT_OK(SkipSpaceAndComments());
      Token token;
      token.pos = Here();
      if (i_ >= sql_.size()) {
        token.kind = TokenKind::kEnd;
        tokens.push_back(std::move(token));
        return tokens;
      }
      size_t start = i_;
      ARROW_RETURN_NOT_OK(Next(&token));
      token.raw = sql_.substr(start, i_ - start);
      tokens.push_back(std::move(token));
    }
  }

 private:
  SourcePos Here() const {
    SourcePos pos;
    pos.line = line_;
    pos.column = column_;
    pos.offset = static_cast<int32_t>(i_);
    return pos;
  }

  // Moves over n bytes, keeping line and column.
  void Advance(size_t n = 1) {
    for (size_t k = 0; k < n && i_ < sql_.size(); ++k, ++i_) {
      char c = sql_[i_];
      if (c == '\n') {
        ++line_;
        column_ = 1;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++column_;
      }
    }
  }

  char Peek(size_t ahead = 0) const {
    return i_ + ahead < sql_.size() ? sql_[i_ + ahead] : '\0';
  }

  Status SkipSpaceAndComments() {
    while (i_ < sql_.size()) {
      char c = sql_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
      } else if (c == '-' && Peek(1) == '-') {
        while (i_ < sql_.size() && sql_[i_] != '\n') Advance();
      } else if (c == '/' && Peek(1) == '*') {
        SourcePos start = Here();
        Advance(2);
        int depth = 1;
        while (depth > 0) {
          if (i_ >= sql_.size()) return ErrorAt(sql_, start, "Unterminated comment");
          if (sql_[i_] == '*' && Peek(1) == '/') {
            --depth;
            Advance(2);
          } else if (sql_[i_] == '/' && Peek(1) == '*') {
            ++depth;
            Advance(2);
          } else {
            Advance();
          }
        }
      } else {
        break;
      }
    }
    return Status::OK();
  }

  Status Next(Token* token) {
    char c = sql_[i_];
    // R'raw' and X'hex' before plain words.
    if ((c == 'r' || c == 'R') && (Peek(1) == '\'' || Peek(1) == '"')) {
      SourcePos start = Here();
      Advance();
      std::string_view body;
      ARROW_RETURN_NOT_OK(QuotedBody(Peek(), start, "string literal", &body));
      token->kind = TokenKind::kString;
      token->text = std::string(body);
      return Status::OK();
    }
    // PostgreSQL's E'...' escape strings: floe's strings already read backslash escapes.
    if ((c == 'e' || c == 'E') && Peek(1) == '\'') {
      Advance();
      SourcePos start = Here();
      std::string_view body;
      ARROW_RETURN_NOT_OK(QuotedBody('\'', start, "string literal", &body));
      token->kind = TokenKind::kString;
      token->text = DecodeStringBody(body, '\'');
      return Status::OK();
    }
    if ((c == 'x' || c == 'X') && Peek(1) == '\'') {
      SourcePos start = Here();
      Advance();
      std::string_view body;
      ARROW_RETURN_NOT_OK(QuotedBody('\'', start, "string literal", &body));
      for (char h : body) {
        if (!std::isxdigit(static_cast<unsigned char>(h))) {
          return ErrorAt(sql_, start, StrCat("Invalid binary literal X'", body, "'"));
        }
      }
      token->kind = TokenKind::kBinaryString;
      token->text = std::string(body);
      return Status::OK();
    }
    if (IsWordStart(c)) {
      size_t start = i_;
      while (i_ < sql_.size() && IsWordChar(sql_[i_])) Advance();
      token->kind = TokenKind::kWord;
      token->text = std::string(sql_.substr(start, i_ - start));
      return Status::OK();
    }
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return Number(token);
    if (c == '$' && IsDigit(Peek(1))) return Parameter(token);
    switch (c) {
      case '\'': {
        SourcePos start = Here();
        std::string_view body;
        ARROW_RETURN_NOT_OK(QuotedBody('\'', start, "string literal", &body));
        token->kind = TokenKind::kString;
        token->text = DecodeStringBody(body, '\'');
        return Status::OK();
      }
      case '"': {
        SourcePos start = Here();
        std::string_view body;
        ARROW_RETURN_NOT_OK(QuotedBody('"', start, "quoted text", &body));
        token->kind = TokenKind::kDoubleQuoted;
        token->text = Undouble(body, '"');
        return Status::OK();
      }
      case '`': {
        SourcePos start = Here();
        std::string_view body;
        ARROW_RETURN_NOT_OK(QuotedBody('`', start, "quoted identifier", &body));
        token->kind = TokenKind::kQuotedIdent;
        token->text = Undouble(body, '`');
        if (token->text.empty()) return ErrorAt(sql_, start, "Empty quoted identifier");
        return Status::OK();
      }
      default:
        break;
    }
    return Operator(token);
  }

  static std::string Undouble(std::string_view body, char quote) {
    std::string out;
    out.reserve(body.size());
    for (size_t k = 0; k < body.size(); ++k) {
      out += body[k];
      if (body[k] == quote) ++k;  // the lexer only lets doubled quotes through
    }
    return out;
  }

  // Moves over a quoted run starting at the opening quote; `body` is what lies between the
  // quotes, escapes undecoded. Backquotes have no backslash escapes.
  Status QuotedBody(char quote, SourcePos start, std::string_view what, std::string_view* body) {
    Advance();  // opening quote
    size_t begin = i_;
    while (true) {
      if (i_ >= sql_.size()) return ErrorAt(sql_, start, StrCat("Unterminated ", what));
      char c = sql_[i_];
      if (c == '\\' && quote != '`') {
        Advance(2);
      } else if (c == quote) {
        if (Peek(1) == quote) {
          Advance(2);
        } else {
          *body = sql_.substr(begin, i_ - begin);
          Advance();
          return Status::OK();
        }
      } else {
        Advance();
      }
    }
  }

  Status Number(Token* token) {
    SourcePos start = Here();
    size_t begin = i_;
    bool has_dot = false;
    bool has_exp = false;
    while (IsDigit(Peek())) Advance();
    if (Peek() == '.') {
      has_dot = true;
      Advance();
      while (IsDigit(Peek())) Advance();
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      has_exp = true;
      Advance(2);
      while (IsDigit(Peek())) Advance();
    }
    token->kind = TokenKind::kNumber;
    token->text = std::string(sql_.substr(begin, i_ - begin));
    if (has_exp) {
      token->number_kind = NumberKind::kDouble;
    } else if (has_dot) {
      token->number_kind = NumberKind::kDecimal;
    } else {
      token->number_kind = NumberKind::kInteger;
    }
    // Suffixes, then nothing word-like may follow.
    char s = static_cast<char>(std::toupper(static_cast<unsigned char>(Peek())));
    char s2 = static_cast<char>(std::toupper(static_cast<unsigned char>(Peek(1))));
    size_t suffix = 0;
    if (s == 'B' && s2 == 'D') {
      token->number_kind = NumberKind::kDecimal;
      suffix = 2;
    } else if (s == 'D') {
      token->number_kind = NumberKind::kDouble;
      suffix = 1;
    } else if (s == 'F') {
      token->number_kind = NumberKind::kFloat;
      suffix = 1;
    } else if (!has_dot && !has_exp && (s == 'L' || s == 'S' || s == 'Y')) {
      token->number_kind = s == 'L'   ? NumberKind::kBigInt
                           : s == 'S' ? NumberKind::kSmallInt
                                      : NumberKind::kTinyInt;
      suffix = 1;
    }
    if (suffix > 0 && !IsWordChar(Peek(suffix))) Advance(suffix);
    if (IsWordChar(Peek()) || (Peek() == '.' && IsDigit(Peek(1)))) {
      size_t end = i_;
      while (end < sql_.size() && (IsWordChar(sql_[end]) || sql_[end] == '.')) ++end;
      return ErrorAt(sql_, start,
                     StrCat("Invalid number '", sql_.substr(begin, end - begin), "'"));
    }
    return Status::OK();
  }

  // $n, n >= 1 (PostgreSQL's placeholders); nothing word-like may follow the digits.
  Status Parameter(Token* token) {
    SourcePos start = Here();
    size_t begin = i_;
    Advance();
    while (IsDigit(Peek())) Advance();
    std::string_view digits = sql_.substr(begin + 1, i_ - begin - 1);
    if (IsWordChar(Peek()) || digits.size() > 5 || digits.find_first_not_of('0') == std::string_view::npos) {
      size_t end = i_;
      while (end < sql_.size() && IsWordChar(sql_[end])) ++end;
      return ErrorAt(sql_, start, StrCat("Invalid parameter '", sql_.substr(begin, end - begin), "'"));
    }
    token->kind = TokenKind::kParameter;
    token->text = std::string(digits.substr(digits.find_first_not_of('0')));
    return Status::OK();
  }

  Status Operator(Token* token) {
    SourcePos start = Here();
    char c = sql_[i_];
    char n = Peek(1);
    auto set = [&](TokenKind kind, size_t len) {
      token->kind = kind;
      token->text = std::string(sql_.substr(i_, len));
      Advance(len);
      return Status::OK();
    };
    switch (c) {
      case '(': return set(TokenKind::kLParen, 1);
      case ')': return set(TokenKind::kRParen, 1);
      case '[': return set(TokenKind::kLBracket, 1);
      case ']': return set(TokenKind::kRBracket, 1);
      case ',': return set(TokenKind::kComma, 1);
      case '.': return set(TokenKind::kDot, 1);
      case ';': return set(TokenKind::kSemicolon, 1);
      case '+': return set(TokenKind::kPlus, 1);
      case '-': return set(TokenKind::kMinus, 1);
      case '*': return set(TokenKind::kStar, 1);
      case '/': return set(TokenKind::kSlash, 1);
      case '%': return set(TokenKind::kPercent, 1);
      case '~': return set(TokenKind::kTilde, 1);
      case '&': return set(TokenKind::kAmpersand, 1);
      case '^': return set(TokenKind::kCaret, 1);
      case '|': return n == '|' ? set(TokenKind::kConcat, 2) : set(TokenKind::kPipe, 1);
      case ':':
        if (n == ':') return set(TokenKind::kDoubleColon, 2);
        return set(TokenKind::kColon, 1);
      case '=':
        if (n == '>') return set(TokenKind::kArrow, 2);
        if (n == '=') return set(TokenKind::kEq, 2);
        return set(TokenKind::kEq, 1);
      case '!':
        if (n == '=') return set(TokenKind::kNe, 2);
        if (n == '~') return set(TokenKind::kBangTilde, 2);
        break;
      case '<':
        if (n == '=' && Peek(2) == '>') return set(TokenKind::kNullSafeEq, 3);
        if (n == '=') return set(TokenKind::kLe, 2);
        if (n == '>') return set(TokenKind::kNe, 2);
        return set(TokenKind::kLt, 1);
      case '>':
        if (n == '=') return set(TokenKind::kGe, 2);
        return set(TokenKind::kGt, 1);
      default:
        break;
    }
    size_t len = 1;
    while (i_ + len < sql_.size() &&
           (static_cast<unsigned char>(sql_[i_ + len]) & 0xC0) == 0x80) {
      ++len;
    }
    return ErrorAt(sql_, start, StrCat("Unexpected character '", sql_.substr(i_, len), "'"));
  }

  std::string_view sql_;
  size_t i_ = 0;
  int32_t line_ = 1;
  int32_t column_ = 1;
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string DecodeStringBody(std::string_view body, char quote) {
  std::string out;
  out.reserve(body.size());
  for (size_t k = 0; k < body.size(); ++k) {
    char c = body[k];
    if (c == quote && k + 1 < body.size() && body[k + 1] == quote) {
      out += quote;
      ++k;
      continue;
    }
    if (c != '\\' || k + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++k];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'Z': out += '\x1A'; break;
      case '%': out += "\\%"; break;
      case '_': out += "\\_"; break;
      case 'u': {
        uint32_t cp = 0;
        bool ok = k + 4 < body.size();
        for (size_t h = 1; ok && h <= 4; ++h) {
          int v = HexValue(body[k + h]);
          ok = v >= 0;
          cp = cp * 16 + static_cast<uint32_t>(v);
        }
        if (ok) {
          AppendUtf8(&out, cp);
          k += 4;
        } else {
          out += 'u';
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7' && k + 2 < body.size() && body[k + 1] >= '0' &&
            body[k + 1] <= '7' && body[k + 2] >= '0' && body[k + 2] <= '7') {
          int v = (e - '0') * 64 + (body[k + 1] - '0') * 8 + (body[k + 2] - '0');
          AppendUtf8(&out, static_cast<uint32_t>(v));
          k += 2;
        } else if (e == '0') {
          out += '\0';
        } else {
          out += e;
        }
    }
  }
  return out;
}

Result<std::vector<Token>> Lex(std::string_view sql) { return Lexer(sql).Run(); }

}  // namespace floe::sql
