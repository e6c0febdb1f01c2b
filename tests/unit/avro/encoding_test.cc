#include <cmath>
#include <limits>
#include <string>

#include "floe/avro/decoder.h"
#include "floe/avro/encoder.h"
#include "avro_test_util.h"

namespace floe::avro {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out += ' ';
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string LongBytes(int64_t v) {
  Encoder e;
  e.WriteLong(v);
  return Hex(e.buffer());
}

TEST(EncoderTest, ZigZagVarintLongs) {
  EXPECT_EQ(LongBytes(0), "00");
  EXPECT_EQ(LongBytes(-1), "01");
  EXPECT_EQ(LongBytes(1), "02");
  EXPECT_EQ(LongBytes(-2), "03");
  EXPECT_EQ(LongBytes(2), "04");
  EXPECT_EQ(LongBytes(-64), "7f");
  EXPECT_EQ(LongBytes(64), "80 01");
  EXPECT_EQ(LongBytes(8192), "80 80 01");
  EXPECT_EQ(LongBytes(std::numeric_limits<int64_t>::max()), "fe ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(LongBytes(std::numeric_limits<int64_t>::min()), "ff ff ff ff ff ff ff ff ff 01");
}

TEST(EncoderTest, OtherPrimitives) {
  Encoder e;
  e.WriteString("foo");
  EXPECT_EQ(Hex(e.buffer()), "06 66 6f 6f");
  e.Clear();
  e.WriteBool(true);
  e.WriteBool(false);
  EXPECT_EQ(Hex(e.buffer()), "01 00");
  e.Clear();
  e.WriteInt(-3);
  EXPECT_EQ(Hex(e.buffer()), "05");
  e.Clear();
  e.WriteFloat(1.0f);
  EXPECT_EQ(Hex(e.buffer()), "00 00 80 3f");
  e.Clear();
  e.WriteDouble(1.0);
  EXPECT_EQ(Hex(e.buffer()), "00 00 00 00 00 00 f0 3f");
  e.Clear();
  e.WriteBytes(std::string("\x00\xff", 2));
  EXPECT_EQ(Hex(e.buffer()), "04 00 ff");
  e.Clear();
  e.WriteFixed("ab");
  EXPECT_EQ(Hex(e.buffer()), "61 62");
  e.Clear();
  e.WriteString("");
  EXPECT_EQ(Hex(e.buffer()), "00");
}

TEST(DecoderTest, RoundTripsPrimitives) {
  Encoder e;
  const int64_t longs[] = {0,     1,          -1,        63,        64,       -65,
                           1 << 20, -(1LL << 40), INT64_MAX, INT64_MIN, INT32_MAX, INT32_MIN};
  for (int64_t v : longs) e.WriteLong(v);
  e.WriteInt(INT32_MIN);
  e.WriteBool(true);
  e.WriteFloat(-2.5f);
  e.WriteDouble(std::numeric_limits<double>::quiet_NaN());
  e.WriteString("héllo");
  e.WriteFixed("xyz");

  Decoder d(e.buffer());
  for (int64_t v : longs) {
    int64_t got;
    ASSERT_OK(d.ReadLong(&got));
    EXPECT_EQ(got, v);
  }
  int32_t i;
  ASSERT_OK(d.ReadInt(&i));
  EXPECT_EQ(i, INT32_MIN);
  bool b;
  ASSERT_OK(d.ReadBool(&b));
  EXPECT_TRUE(b);
  float f;
  ASSERT_OK(d.ReadFloat(&f));
  EXPECT_EQ(f, -2.5f);
  double dbl;
  ASSERT_OK(d.ReadDouble(&dbl));
  EXPECT_TRUE(std::isnan(dbl));
  std::string s;
  ASSERT_OK(d.ReadString(&s));
  EXPECT_EQ(s, "héllo");
  ASSERT_OK(d.ReadFixed(3, &s));
  EXPECT_EQ(s, "xyz");
  EXPECT_TRUE(d.AtEnd());
}

TEST(DecoderTest, RejectsTruncationAndAbsurdLengths) {
  int64_t v;
  std::string s;
  {
    Decoder d(std::string_view("\x80\x80", 2));  // varint with no last byte
    ASSERT_RAISES_WITH_MESSAGE("truncated", d.ReadLong(&v));
  }
  {
    Decoder d(std::string_view("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10));
    ASSERT_RAISES_WITH_MESSAGE("overflows", d.ReadLong(&v));
  }
  {
    Decoder d(std::string_view("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x01", 11));
    ASSERT_RAISES_WITH_MESSAGE("overflows", d.ReadLong(&v));
  }
  {
    Decoder d(std::string_view("\x08" "ab", 3));  // length 4, two bytes left
    ASSERT_RAISES_WITH_MESSAGE("exceeds the 2 remaining bytes", d.ReadString(&s));
  }
  {
    Decoder d(std::string_view("\x03", 1));  // length -2
    ASSERT_RAISES_WITH_MESSAGE("negative", d.ReadString(&s));
  }
  {
    // A length near 2^63 must not allocate.
    Decoder d(std::string_view("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10));
    ASSERT_RAISES_WITH_MESSAGE("exceeds", d.ReadBytes(&s));
  }
  {
    Encoder e;
    e.WriteLong(int64_t{1} << 40);
    Decoder d(e.buffer());
    int32_t i;
    ASSERT_RAISES_WITH_MESSAGE("int out of range", d.ReadInt(&i));
  }
  {
    Decoder d(std::string_view("\x02", 1));
    bool b;
    ASSERT_RAISES_WITH_MESSAGE("boolean byte is 2", d.ReadBool(&b));
  }
  {
    Decoder d(std::string_view("\x00\x00\x80", 3));
    double dbl;
    ASSERT_RAISES_WITH_MESSAGE("truncated", d.ReadDouble(&dbl));
    float f;
    ASSERT_RAISES_WITH_MESSAGE("truncated", Decoder(std::string_view("\x00", 1)).ReadFloat(&f));
  }
  {
    Decoder d(std::string_view("ab", 2));
    ASSERT_RAISES_WITH_MESSAGE("truncated", d.ReadFixed(3, &s));
  }
  {
    Decoder d(std::string_view("", 0));
    ASSERT_RAISES_WITH_MESSAGE("truncated", d.ReadLong(&v));
  }
}

TEST(DecoderTest, BlockCounts) {
  Encoder e;
  e.WriteBlockCount(-2);  // two items, then their byte size
  e.WriteLong(2);
  e.WriteLong(7);
  e.WriteLong(8);
  Decoder d(e.buffer());
  int64_t count;
  ASSERT_OK(d.ReadBlockCount(&count));
  EXPECT_EQ(count, 2);
  EXPECT_EQ(d.remaining(), 2u);

  Encoder bad;
  bad.WriteBlockCount(-1);
  bad.WriteLong(100);  // byte size beyond the input
  Decoder d2(bad.buffer());
  ASSERT_RAISES_WITH_MESSAGE("block size 100", d2.ReadBlockCount(&count));

  Encoder negative;
  negative.WriteBlockCount(-1);
  negative.WriteLong(-5);
  Decoder d3(negative.buffer());
  ASSERT_RAISES_WITH_MESSAGE("block size -5", d3.ReadBlockCount(&count));
}

}  // namespace
}  // namespace floe::avro
