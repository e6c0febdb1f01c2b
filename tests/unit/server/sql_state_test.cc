#include "floe/server/sql_state.h"

#include "floe_test.h"

namespace floe::server {
namespace {

TEST(SqlState, SyntaxErrorPositionCountsCharacters) {
  Status st = ValidationError(
      "Syntax error at or near 'FORM' (line 1, column 10)\nSELECT * FORM t\n         ^");
  PgError e = ErrorFromStatus(st, "SELECT * FORM t");
  EXPECT_EQ(e.code, "42601");
  EXPECT_EQ(e.message, "Syntax error at or near 'FORM'");
  EXPECT_EQ(e.position, 10);
  // On the second line, after a multi-byte character, in the second statement of a query.
  Status st2 = ValidationError("Syntax error at or near 'x' (line 2, column 3)\n...\n  ^");
  PgError e2 = ErrorFromStatus(st2, "SELECT 'é'\n, x", 9);
  EXPECT_EQ(e2.position, 9 + 11 + 3);
}

TEST(SqlState, ErrorClassesAndKinds) {
  EXPECT_EQ(ErrorFromStatus(NotFound("[TABLE_OR_VIEW_NOT_FOUND] The table or view `a` cannot be "
                                     "found. (line 1, column 15)"),
                            "SELECT * FROM a")
                .code,
            "42P01");
  EXPECT_EQ(
      ErrorFromStatus(ValidationError("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column ..."), "").code,
      "42703");
  EXPECT_EQ(
      ErrorFromStatus(NotFound("[SCHEMA_NOT_FOUND] The schema `x` cannot be found."), "").code,
      "3F000");
  EXPECT_EQ(ErrorFromStatus(NotFound("Namespace does not exist: x"), "").code, "3F000");
  EXPECT_EQ(ErrorFromStatus(NotFound("Table does not exist: db.t"), "").code, "42P01");
  EXPECT_EQ(ErrorFromStatus(AlreadyExists("Table already exists: db.t"), "").code, "42P07");
  EXPECT_EQ(ErrorFromStatus(CommitConflict("changed"), "").code, "40001");
  EXPECT_EQ(ErrorFromStatus(Status::Cancelled("canceling statement due to user request"), "").code,
            "57014");
  EXPECT_EQ(ErrorFromStatus(Status::IOError("disk"), "").code, "XX000");
  PgError detail = ErrorFromStatus(Status::IOError("first\nsecond"), "");
  EXPECT_EQ(detail.message, "first");
  EXPECT_EQ(detail.detail, "second");
}

TEST(SqlState, ErrorResponseFields) {
  PgError e;
  e.code = "42601";
  e.message = "bad";
  e.position = 3;
  std::string out;
  AppendErrorResponse(e, &out);
  EXPECT_EQ(out, std::string("E\0\0\0\x22SERROR\0VERROR\0C42601\0Mbad\0P3\0\0", 35));
}

}  // namespace
}  // namespace floe::server
