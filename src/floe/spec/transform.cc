#include "floe/spec/transform.h"

#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "floe/util/floor_div.h"
#include "floe/util/time_units.h"

namespace floe::spec {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Java's String.format("%0Nd", v).
std::string ZeroPad(int64_t v, int width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  int w = v < 0 ? width - 1 : width;
  if (static_cast<int>(digits.size()) < w) digits.insert(0, w - digits.size(), '0');
  return v < 0 ? "-" + digits : digits;
}

struct Civil {
  int64_t year;
  unsigned month;
  unsigned day;
};

Civil CivilFromDays(int64_t days) {
  using namespace std::chrono;
  year_month_day ymd{sys_days{std::chrono::days{days}}};
  return {static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day())};
}

uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t Load32(const char* p) {
  return static_cast<uint32_t>(static_cast<uint8_t>(p[0])) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 8) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[2])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[3])) << 24);
}

int32_t HashLong(int64_t v) {
  char buf[8];
  uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>((u >> (8 * i)) & 0xFF);
  return Murmur3Hash32(std::string_view(buf, 8));
}

// doubleToLongBits with NaN and -0.0 canonicalized (Appendix B, note 5).
int64_t CanonicalDoubleBits(double v) {
  if (std::isnan(v)) return 0x7ff8000000000000LL;
  if (v == 0.0) v = 0.0;
  return std::bit_cast<int64_t>(v);
}

// Minimal big-endian two's complement bytes, as Java's BigInteger.toByteArray.
std::string DecimalBytes(const arrow::Decimal128& d) {
  uint8_t be[16];
  uint64_t hi = static_cast<uint64_t>(d.high_bits());
  uint64_t lo = d.low_bits();
  for (int i = 0; i < 8; ++i) {
    be[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    be[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  int start = 0;
  while (start < 15 && ((be[start] == 0x00 && (be[start + 1] & 0x80) == 0) ||
                        (be[start] == 0xFF && (be[start + 1] & 0x80) != 0))) {
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(be + start), 16 - start);
}

// Byte length of the first `max_code_points` UTF-8 code points of `s`.
size_t Utf8PrefixLength(std::string_view s, int32_t max_code_points) {
  int32_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<uint8_t>(s[i]) & 0xC0) != 0x80) {
      if (seen == max_code_points) return i;
      ++seen;
    }
  }
  return s.size();
}

std::optional<int32_t> AsInt32(const Literal& v) {
  if (auto* p = std::get_if<int32_t>(&v.value())) return *p;
  return std::nullopt;
}

std::optional<int64_t> AsInt64(const Literal& v) {
  if (auto* p = std::get_if<int64_t>(&v.value())) return *p;
  return std::nullopt;
}

}  // namespace

int32_t Murmur3Hash32(std::string_view bytes) {
  constexpr uint32_t c1 = 0xcc9e2d51;
  constexpr uint32_t c2 = 0x1b873593;
  uint32_t h = 0;  // seed 0
  const size_t blocks = bytes.size() / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k = Load32(bytes.data() + 4 * i);
    k *= c1;
    k = Rotl32(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl32(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  const char* tail = bytes.data() + 4 * blocks;
  uint32_t k = 0;
  switch (bytes.size() & 3) {
    case 3:
      k ^= static_cast<uint32_t>(static_cast<uint8_t>(tail[2])) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(static_cast<uint8_t>(tail[1])) << 8;
      [[fallthrough]];
    case 1:
      k ^= static_cast<uint32_t>(static_cast<uint8_t>(tail[0]));
      k *= c1;
      k = Rotl32(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(bytes.size());
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

Result<int32_t> BucketHash(const Literal& value) {
  if (value.is_null() || !value.type()) {
    return ValidationError("Cannot hash a null value for bucketing");
  }
  const auto& v = value.value();
  switch (value.type()->id()) {
    case TypeId::kBoolean:
      // Appendix B: hashInt(0) / hashInt(1); ints are hashed as longs.
      if (auto* b = std::get_if<bool>(&v)) return HashLong(*b ? 1 : 0);
      break;
    case TypeId::kInt:
    case TypeId::kDate:
      if (auto i = AsInt32(value)) return HashLong(*i);
      break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (auto l = AsInt64(value)) return HashLong(*l);
      break;
    case TypeId::kFloat:
      if (auto* f = std::get_if<float>(&v)) {
        return HashLong(CanonicalDoubleBits(static_cast<double>(*f)));
      }
      break;
    case TypeId::kDouble:
      if (auto* d = std::get_if<double>(&v)) return HashLong(CanonicalDoubleBits(*d));
      break;
    case TypeId::kDecimal:
      if (auto* d = std::get_if<arrow::Decimal128>(&v)) return Murmur3Hash32(DecimalBytes(*d));
      break;
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      if (auto* s = std::get_if<std::string>(&v)) return Murmur3Hash32(*s);
      break;
    default:
      return ValidationError("Cannot hash a value of type ", value.type()->ToString());
  }
  return ValidationError("Literal of type ", value.type()->ToString(),
                         " holds a value of the wrong physical kind");
}

Result<Transform> Transform::Parse(std::string_view text) {
  // "name[123]" as Java's HAS_WIDTH pattern; only bucket and truncate take a width.
  size_t open = text.find('[');
  if (open != std::string_view::npos && open > 0 && text.size() > open + 2 && text.back() == ']') {
    std::string_view name = text.substr(0, open);
    std::string_view digits = text.substr(open + 1, text.size() - open - 2);
    bool well_formed = true;
    for (char c : name) well_formed = well_formed && IsWordChar(c);
    for (char c : digits) well_formed = well_formed && c >= '0' && c <= '9';
    bool bucket = EqualsIgnoreCase(name, "bucket");
    bool truncate = EqualsIgnoreCase(name, "truncate");
    if (well_formed && (bucket || truncate)) {
      int32_t n = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      if (ec != std::errc() || ptr != digits.data() + digits.size()) {
        return ValidationError("Invalid transform parameter: ", text);
      }
      if (n <= 0) {
        return bucket ? ValidationError("Invalid number of buckets: ", n, " (must be > 0)")
                      : ValidationError("Invalid truncate width: ", n, " (must be > 0)");
      }
      return bucket ? Bucket(n) : Truncate(n);
    }
  }
  static const std::pair<const char*, TransformKind> kNames[] = {
      {"identity", TransformKind::kIdentity}, {"year", TransformKind::kYear},
      {"month", TransformKind::kMonth},       {"day", TransformKind::kDay},
      {"hour", TransformKind::kHour},         {"void", TransformKind::kVoid},
  };
  for (const auto& [name, kind] : kNames) {
    if (EqualsIgnoreCase(text, name)) return Transform(kind);
  }
  Transform unknown(TransformKind::kUnknown);
  unknown.unknown_ = std::string(text);
  return unknown;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return "bucket[" + std::to_string(param_) + "]";
    case TransformKind::kTruncate:
      return "truncate[" + std::to_string(param_) + "]";
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
    case TransformKind::kUnknown:
      return unknown_;
  }
  return unknown_;
}

bool Transform::CanTransform(const Type& source) const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return source.is_primitive();
    case TransformKind::kBucket:
      switch (source.id()) {
        case TypeId::kInt:
        case TypeId::kLong:
        case TypeId::kDecimal:
        case TypeId::kDate:
        case TypeId::kTime:
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
        case TypeId::kString:
        case TypeId::kUuid:
        case TypeId::kFixed:
        case TypeId::kBinary:
          return true;
        default:
          return false;
      }
    case TransformKind::kTruncate:
      switch (source.id()) {
        case TypeId::kInt:
        case TypeId::kLong:
        case TypeId::kDecimal:
        case TypeId::kString:
        case TypeId::kBinary:
          return true;
        default:
          return false;
      }
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return source.id() == TypeId::kDate || source.id() == TypeId::kTimestamp ||
             source.id() == TypeId::kTimestampTz;
    case TransformKind::kHour:
      return source.id() == TypeId::kTimestamp || source.id() == TypeId::kTimestampTz;
    case TransformKind::kVoid:
    case TransformKind::kUnknown:
      return true;
  }
  return false;
}

Result<TypePtr> Transform::ResultType(const TypePtr& source) const {
  if (!source) return ValidationError("Cannot find source type for transform: ", ToString());
  if (!CanTransform(*source)) {
    return ValidationError("Invalid source type ", source->ToString(),
                           " for transform: ", ToString());
  }
  switch (kind_) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
    case TransformKind::kVoid:
      return source;
    case TransformKind::kBucket:
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kHour:
      return Type::Int();
    case TransformKind::kDay:
      // The spec's table says `int`; Java, PyIceberg and iceberg-rust all report `date`, and
      // Java writes the manifest partition field as an Avro int with logicalType date. The
      // stored value (days since 1970-01-01) is the same either way, so we follow Java so
      // that partition types, manifest schemas and metadata tables match what Spark writes.
      return Type::Date();
    case TransformKind::kUnknown:
      return Type::String();  // as Java's UnknownTransform: the real type is not known
  }
  return ValidationError("Unknown transform: ", ToString());
}

Result<Literal> Transform::Apply(const Literal& value) const {
  ARROW_ASSIGN_OR_RAISE(TypePtr result_type, ResultType(value.type()));
  if (value.is_null() || kind_ == TransformKind::kVoid) return Literal::Null(result_type);
  const TypeId source = value.type()->id();
  auto wrong_kind = [&]() {
    return ValidationError("Literal of type ", value.type()->ToString(),
                           " holds a value of the wrong physical kind");
  };
  switch (kind_) {
    case TransformKind::kIdentity:
      return value;
    case TransformKind::kBucket: {
      ARROW_ASSIGN_OR_RAISE(int32_t hash, BucketHash(value));
      return Literal::Int((hash & std::numeric_limits<int32_t>::max()) % param_);
    }
    case TransformKind::kTruncate: {
      const auto& v = value.value();
      switch (source) {
        case TypeId::kInt: {
          auto i = AsInt32(value);
          if (!i) return wrong_kind();
          int64_t x = *i;
          int64_t w = param_;
          // C++20 narrowing is modular, matching Java's int overflow near INT_MIN.
          return Literal(value.type(), static_cast<int32_t>(x - (((x % w) + w) % w)));
        }
        case TypeId::kLong: {
          auto l = AsInt64(value);
          if (!l) return wrong_kind();
          int64_t w = param_;
          int64_t rem = ((*l % w) + w) % w;
          return Literal(value.type(), static_cast<int64_t>(static_cast<uint64_t>(*l) -
                                                            static_cast<uint64_t>(rem)));
        }
        case TypeId::kDecimal: {
          auto* d = std::get_if<arrow::Decimal128>(&v);
          if (!d) return wrong_kind();
          // The width applies to the unscaled value (spec note 2).
          arrow::Decimal128 w(param_);
          arrow::Decimal128 rem = ((*d % w) + w) % w;
          return Literal(value.type(), arrow::Decimal128(*d - rem));
        }
        case TypeId::kString: {
          auto* s = std::get_if<std::string>(&v);
          if (!s) return wrong_kind();
          return Literal(value.type(), s->substr(0, Utf8PrefixLength(*s, param_)));
        }
        case TypeId::kBinary: {
          auto* s = std::get_if<std::string>(&v);
          if (!s) return wrong_kind();
          return Literal(value.type(), s->substr(0, static_cast<size_t>(param_)));
        }
        default:
          return wrong_kind();
      }
    }
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
    case TransformKind::kHour: {
      int64_t days = 0;
      int64_t hours = 0;
      if (source == TypeId::kDate) {
        auto i = AsInt32(value);
        if (!i) return wrong_kind();
        days = *i;
      } else {
        auto micros = AsInt64(value);
        if (!micros) return wrong_kind();
        // Floor division so that instants before 1970 land in the earlier period.
        days = FloorDiv(*micros, kMicrosPerDay);
        hours = FloorDiv(*micros, kMicrosPerHour);
      }
      if (kind_ == TransformKind::kDay) return Literal::Date(static_cast<int32_t>(days));
      if (kind_ == TransformKind::kHour) return Literal::Int(static_cast<int32_t>(hours));
      Civil c = CivilFromDays(days);
      if (kind_ == TransformKind::kYear) return Literal::Int(static_cast<int32_t>(c.year - 1970));
      return Literal::Int(static_cast<int32_t>((c.year - 1970) * 12 + (c.month - 1)));
    }
    case TransformKind::kUnknown:
      return ValidationError("Cannot apply unknown transform: ", unknown_);
    case TransformKind::kVoid:
      break;
  }
  return Literal::Null(result_type);
}

std::string Transform::ToHumanString(const Literal& transformed) const {
  if (transformed.is_null()) return "null";
  auto ordinal = AsInt32(transformed);
  switch (kind_) {
    case TransformKind::kYear:
      if (ordinal) return ZeroPad(1970 + int64_t{*ordinal}, 4);
      break;
    case TransformKind::kMonth:
      if (ordinal) {
        return ZeroPad(1970 + FloorDiv(*ordinal, 12), 4) + "-" +
               ZeroPad(1 + FloorMod(*ordinal, 12), 2);
      }
      break;
    case TransformKind::kDay:
      if (ordinal) {
        Civil c = CivilFromDays(*ordinal);
        return ZeroPad(c.year, 4) + "-" + ZeroPad(c.month, 2) + "-" + ZeroPad(c.day, 2);
      }
      break;
    case TransformKind::kHour:
      if (ordinal) {
        int64_t hours = *ordinal;
        Civil c = CivilFromDays(FloorDiv(hours, 24));
        return ZeroPad(c.year, 4) + "-" + ZeroPad(c.month, 2) + "-" + ZeroPad(c.day, 2) + "-" +
               ZeroPad(FloorMod(hours, 24), 2);
      }
      break;
    default:
      break;
  }
  return transformed.ToString();
}

}  // namespace floe::spec
