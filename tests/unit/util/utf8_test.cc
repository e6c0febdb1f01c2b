#include "floe/util/utf8.h"

#include "floe_test.h"

namespace floe {

TEST(Utf8Test, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii text longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("ünïcödé ✓ 𝄞 and more"));
}

TEST(Utf8Test, RejectsMalformedTextAtItsOffset) {
  size_t at = 0;
  EXPECT_FALSE(IsValidUtf8(std::string_view("abcdefghij\xff", 11), &at));
  EXPECT_EQ(at, 10u);
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf", &at));  // overlong '/'
  EXPECT_EQ(at, 0u);
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("ab\xe2\x9c"));  // cut short
}

}  // namespace floe
