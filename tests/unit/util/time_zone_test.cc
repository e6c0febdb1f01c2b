#include "floe/util/time_zone.h"

#include "floe_test.h"

namespace floe {
namespace {

// 2024-01-15T10:30:00Z
constexpr int64_t kJan15_1030Z = 1705314600000;

TimeZone Zone(const char* name) { return TimeZone::Make(name).ValueOrDie(); }

TEST(TimeZoneTest, ParsesSparkForms) {
  auto utc = TimeZone::Utc();
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 10:30:00", utc).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15T10:30:00", utc).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15T10:30:00.123", utc).ValueOrDie(), kJan15_1030Z + 123);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 10:30", utc).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-1-5 1:02:03", utc).ValueOrDie(), 1704416523000);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15", utc).ValueOrDie(), kJan15_1030Z - 37800000);
  EXPECT_EQ(ParseTimestampMillis("  2024-01-15 10:30:00  ", utc).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMicros("2024-01-15 10:30:00.1234567", utc).ValueOrDie(),
            kJan15_1030Z * 1000 + 123456);
}

TEST(TimeZoneTest, SessionZoneAppliesWithoutOffset) {
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 13:30:00", Zone("Europe/Moscow")).ValueOrDie(),
            kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 05:30:00", Zone("America/New_York")).ValueOrDie(),
            kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 13:30:00", Zone("+03:00")).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 13:30:00", Zone("UTC+3")).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 07:30:00", Zone("GMT-03:00")).ValueOrDie(),
            kJan15_1030Z);
  // Summer time in New York: UTC-4.
  EXPECT_EQ(ParseTimestampMillis("2024-07-01 06:30:00", Zone("America/New_York")).ValueOrDie(),
            ParseTimestampMillis("2024-07-01 10:30:00", TimeZone::Utc()).ValueOrDie());
}

TEST(TimeZoneTest, ExplicitOffsetWins) {
  auto moscow = Zone("Europe/Moscow");
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 10:30:00Z", moscow).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15T10:30:00+00:00", moscow).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15T13:30:00+03:00", TimeZone::Utc()).ValueOrDie(),
            kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 05:30:00-0500", moscow).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 10:30:00 UTC", moscow).ValueOrDie(), kJan15_1030Z);
  EXPECT_EQ(ParseTimestampMillis("2024-01-15 05:30:00 America/New_York", moscow).ValueOrDie(),
            kJan15_1030Z);
}

TEST(TimeZoneTest, DstGapsAndOverlapsAsJavaTime) {
  auto ny = Zone("America/New_York");
  // 2024-03-10 02:30 does not exist in New York: moved forward by the gap -> 03:30 EDT.
  EXPECT_EQ(ParseTimestampMillis("2024-03-10 02:30:00", ny).ValueOrDie(),
            ParseTimestampMillis("2024-03-10 07:30:00Z", ny).ValueOrDie());
  // 2024-11-03 01:30 happens twice: the earlier offset (EDT, -04:00) wins.
  EXPECT_EQ(ParseTimestampMillis("2024-11-03 01:30:00", ny).ValueOrDie(),
            ParseTimestampMillis("2024-11-03 05:30:00Z", ny).ValueOrDie());
}

TEST(TimeZoneTest, ErrorsNameTheInput) {
  auto utc = TimeZone::Utc();
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse timestamp 'yesterday'",
                             ParseTimestampMillis("yesterday", utc));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse timestamp '2024-02-30 10:00:00': no such date",
                             ParseTimestampMillis("2024-02-30 10:00:00", utc));
  ASSERT_RAISES_WITH_MESSAGE("Cannot parse timestamp '2024-01-15 25:00:00'",
                             ParseTimestampMillis("2024-01-15 25:00:00", utc));
  ASSERT_RAISES_WITH_MESSAGE("unknown time zone or trailing text 'Mars/Olympus'",
                             ParseTimestampMillis("2024-01-15 10:00:00 Mars/Olympus", utc));
  ASSERT_RAISES_WITH_MESSAGE("Unknown time zone: 'Europe/Atlantis'",
                             TimeZone::Make("Europe/Atlantis"));
  ASSERT_RAISES_WITH_MESSAGE("Unknown time zone: '+25:00'", TimeZone::Make("+25:00"));
  ASSERT_RAISES_WITH_MESSAGE("Unknown time zone: ''", TimeZone::Make(""));
}

TEST(TimeZoneTest, Formats) {
  EXPECT_EQ(FormatMillis(kJan15_1030Z, TimeZone::Utc()), "2024-01-15 10:30:00");
  EXPECT_EQ(FormatMillis(kJan15_1030Z + 120, TimeZone::Utc()), "2024-01-15 10:30:00.12");
  EXPECT_EQ(FormatMillis(kJan15_1030Z, Zone("Europe/Moscow")), "2024-01-15 13:30:00");
  EXPECT_EQ(FormatMillis(kJan15_1030Z, Zone("-05:00")), "2024-01-15 05:30:00");
  EXPECT_EQ(FormatMillisIso(kJan15_1030Z), "2024-01-15T10:30:00+00:00");
  EXPECT_EQ(FormatMillisIso(kJan15_1030Z + 120), "2024-01-15T10:30:00.120+00:00");
  EXPECT_EQ(FormatMillisIso(-1), "1969-12-31T23:59:59.999+00:00");
  EXPECT_EQ(Zone("+03:00").name(), "+03:00");
  EXPECT_EQ(Zone("UTC+3").name(), "+03:00");
  EXPECT_EQ(Zone("Z").name(), "UTC");
}

}  // namespace
}  // namespace floe
