#include "floe/catalog/table_identifier.h"

#include <set>
#include <unordered_set>

#include "floe_test.h"

namespace floe {
namespace {

TEST(NamespaceTest, ParseAndPrint) {
  ASSERT_OK_AND_ASSIGN(auto ns, Namespace::Parse("a.b.c"));
  EXPECT_EQ(ns.levels, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(ns.ToString(), "a.b.c");
  ASSERT_OK_AND_ASSIGN(auto root, Namespace::Parse(""));
  EXPECT_TRUE(root.empty());
  EXPECT_EQ(root.ToString(), "");
  ASSERT_RAISES_WITH_MESSAGE("Invalid namespace: 'a..b'", Namespace::Parse("a..b"));
  ASSERT_RAISES_WITH_MESSAGE("Invalid namespace: '.a'", Namespace::Parse(".a"));
}

TEST(NamespaceTest, ValidateRejectsDotsInLevels) {
  EXPECT_OK(Namespace({"a", "b"}).Validate());
  ASSERT_RAISES_WITH_MESSAGE("Invalid namespace level 'x.y': it contains '.'",
                             Namespace({"x.y"}).Validate());
  ASSERT_RAISES_WITH_MESSAGE("empty level", Namespace({"a", ""}).Validate());
}

TEST(NamespaceTest, PrefixEqualityOrderingHashing) {
  Namespace a({"a"}), ab({"a", "b"}), b({"b"});
  EXPECT_TRUE(ab.HasPrefix(a));
  EXPECT_TRUE(ab.HasPrefix(ab));
  EXPECT_TRUE(ab.HasPrefix(Namespace()));
  EXPECT_FALSE(a.HasPrefix(ab));
  EXPECT_FALSE(b.HasPrefix(a));
  EXPECT_EQ(ab, Namespace({"a", "b"}));
  EXPECT_NE(a, b);
  EXPECT_LT(a, ab);
  EXPECT_LT(ab, b);
  std::unordered_set<Namespace> set{a, ab, Namespace({"a", "b"})};
  EXPECT_EQ(set.size(), 2u);
  // Levels are hashed separately, so ["a.b"] and ["a", "b"] stay distinct.
  EXPECT_NE(Namespace({"ab"}), ab);
}

TEST(TableIdentifierTest, ParseAndPrint) {
  ASSERT_OK_AND_ASSIGN(auto t, TableIdentifier::Parse("a.b.t"));
  EXPECT_EQ(t.ns, Namespace({"a", "b"}));
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(t.ToString(), "a.b.t");
  ASSERT_OK_AND_ASSIGN(auto bare, TableIdentifier::Parse("t"));
  EXPECT_TRUE(bare.ns.empty());
  EXPECT_EQ(bare.ToString(), "t");
  ASSERT_RAISES_WITH_MESSAGE("Invalid table identifier: 'a.'", TableIdentifier::Parse("a."));
  ASSERT_RAISES_WITH_MESSAGE("Invalid table identifier: ''", TableIdentifier::Parse(""));
  std::ostringstream out;
  out << t;
  EXPECT_EQ(out.str(), "a.b.t");
}

TEST(TableIdentifierTest, EqualityOrderingHashing) {
  TableIdentifier x(Namespace({"db"}), "x"), y(Namespace({"db"}), "y"), x2(Namespace({"db2"}), "x");
  EXPECT_EQ(x, TableIdentifier(Namespace({"db"}), "x"));
  EXPECT_NE(x, x2);
  EXPECT_LT(x, y);
  EXPECT_LT(y, x2);  // namespace first
  std::set<TableIdentifier> ordered{x2, y, x};
  EXPECT_EQ(ordered.begin()->ToString(), "db.x");
  std::unordered_set<TableIdentifier> hashed{x, y, x2, x};
  EXPECT_EQ(hashed.size(), 3u);
}

TEST(NewNameTest, EachRuleHasItsOwnMessage) {
  EXPECT_EQ(CheckNewName("table", "a\\b").message(),
            "Invalid table name 'a\\b': a name must not contain '\\'");
  EXPECT_EQ(CheckNewName("namespace", "..").message(),
            "Invalid namespace name '..': a name must not be '.' or '..'");
  EXPECT_EQ(CheckNewName("table", ".").message(),
            "Invalid table name '.': a name must not be '.' or '..'");
  EXPECT_EQ(CheckNewName("table", "").message(),
            "Invalid table name '': a name must not be empty");
  EXPECT_EQ(CheckNewName("table", std::string("a\0b", 3)).message(),
            "Invalid table name 'a\\x00b': a name must not contain NUL or other control "
            "characters");
  EXPECT_EQ(CheckNewName("table", "tab\there").message(),
            "Invalid table name 'tab\\x09here': a name must not contain NUL or other control "
            "characters");
  EXPECT_EQ(CheckNewName("table", "del\x7f").message(),
            "Invalid table name 'del\\x7f': a name must not contain NUL or other control "
            "characters");
  EXPECT_EQ(KindOf(CheckNewName("table", "..")), ErrorKind::kValidation);
  // What stays valid: dots, spaces, non-ASCII, names that merely contain "..", slashes (each
  // name is one directory, see LocationSegment).
  for (const char* ok : {"t", "a.b", "my table", "caf\xc3\xa9", "a..b", "...", "x-1_y$", "tab/le",
                         "../../x", "/"}) {
    EXPECT_OK(CheckNewName("table", ok));
  }
}

// A name is one directory whatever it holds, and two names never share one.
TEST(NewNameTest, LocationSegmentsEscapeSlashes) {
  EXPECT_EQ(LocationSegment("events"), "events");
  EXPECT_EQ(LocationSegment("a.b c"), "a.b c");
  EXPECT_EQ(LocationSegment("tab/le"), "tab~sle");
  EXPECT_EQ(LocationSegment("../../x"), "..~s..~sx");
  EXPECT_EQ(LocationSegment("/"), "~s");
  EXPECT_EQ(LocationSegment("tab~sle"), "tab~~sle");
  EXPECT_EQ(LocationSegment("~"), "~~");
  std::set<std::string> segments;
  for (const char* name : {"a/b", "a~sb", "a~/b", "a/~b", "a~~sb", "a//b", "a~s~sb", "ab"}) {
    std::string segment = LocationSegment(name);
    EXPECT_EQ(segment.find('/'), std::string::npos) << name;
    EXPECT_TRUE(segments.insert(segment).second) << name << " -> " << segment;
  }
}

TEST(NewNameTest, IdentifiersCheckEveryPart) {
  EXPECT_OK(TableIdentifier(Namespace({"a", "b"}), "t.v1").ValidateNew());
  EXPECT_OK(TableIdentifier(Namespace({"new/db"}), "tab/le").ValidateNew());
  EXPECT_EQ(TableIdentifier(Namespace({"a", ".."}), "t").ValidateNew().message(),
            "Invalid namespace name '..': a name must not be '.' or '..'");
  EXPECT_EQ(Namespace({"a", ""}).ValidateNew().message(),
            "Invalid namespace name '': a name must not be empty");
  // The old rule still holds: a namespace level cannot contain '.'.
  ASSERT_RAISES_WITH_MESSAGE("Invalid namespace level 'x.y': it contains '.'",
                             Namespace({"x.y"}).ValidateNew());
}

}  // namespace
}  // namespace floe
