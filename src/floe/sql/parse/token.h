#pragma once

// Tokens of floe's SQL dialect (Spark SQL plus the Trino forms floe accepts).

#include <cstdint>
#include <string>
#include <string_view>

namespace floe::sql {

// Where something starts in the SQL text. Line and column are 1-based; the column counts
// characters (UTF-8 code points), so a caret printed under it lines up. Positions never take
// part in AST equality: a re-parsed AST compares equal to the original.
struct SourcePos {
  int32_t line = 0;
  int32_t column = 0;
  int32_t offset = -1;  // byte offset into the text; -1 when the node was built by hand

  bool valid() const { return offset >= 0; }
  friend bool operator==(const SourcePos&, const SourcePos&) { return true; }
};

enum class TokenKind {
  kEnd,
  kWord,          // unquoted identifier or keyword; keywords are recognised by the parser
  kQuotedIdent,   // `backquoted`
  kDoubleQuoted,  // "double quoted": an identifier in name positions, else a string
  kString,        // 'single quoted' (also R'raw')
  kBinaryString,  // X'0A1B'
  kNumber,
  kParameter,  // $1, $2, ...: a statement parameter; text is the number
  // punctuation and operators
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kDot,
  kColon,  // only inside STRUCT<a: T>
  kSemicolon,
  kEq,          // = or ==
  kNullSafeEq,  // <=>
  kNe,          // != or <>
  kLt,
  kLe,
  kGt,
  kGe,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kConcat,       // ||
  kDoubleColon,  // ::
  kArrow,        // =>
  kTilde,
  kBangTilde,  // !~ (PostgreSQL's regex non-match)
  kAmpersand,
  kPipe,
  kCaret,
};

// What a number token denotes, from its form and suffix (as Spark reads them).
enum class NumberKind {
  kInteger,   // 42: int, or bigint/decimal when it does not fit (the binder decides)
  kBigInt,    // 42L
  kSmallInt,  // 42S
  kTinyInt,   // 42Y
  kDecimal,   // 1.5, .5, 1., 1.5BD, 1BD
  kDouble,    // 1.5e3, 1e3, 1.5D
  kFloat,     // 1.5F
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  // kWord: as written; quoted forms and strings: the decoded value; numbers: the digits
  // without suffix ("1.5e3", "10" for 10L).
  std::string text;
  // The token exactly as it appears in the source.
  std::string_view raw;
  SourcePos pos;
  NumberKind number_kind = NumberKind::kInteger;

  bool Is(TokenKind k) const { return kind == k; }
};

const char* TokenKindName(TokenKind kind);

}  // namespace floe::sql
