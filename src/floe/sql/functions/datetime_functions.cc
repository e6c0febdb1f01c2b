// Date and time functions: parts, the statement's clock, conversions, truncation and day
// arithmetic. Timestamps are read as wall-clock time in the session time zone.

#include <map>

#include "floe/sql/functions/function_helpers.h"
#include "floe/util/str_cat.h"

namespace floe::sql::functions {

namespace {

// A part of a date or timestamp as INT (year, month, ...).
ScalarImpl TimePart(const char* arrow_function) {
  return [arrow_function](CallBinder& b) -> Result<BoundExpr> {
    cp::Expression input = b.args[0].expr;
    if (IsTimestamp(*b.args[0].type)) input = b.Local(b.args[0]);
    if (IsString(*b.args[0].type)) {
      input = cp::call("cast", {input}, cp::CastOptions::Safe(arrow::timestamp(arrow::TimeUnit::MICRO)));
    }
    return b.Make(cp::call("cast", {cp::call(arrow_function, {input})}, cp::CastOptions::Unsafe(arrow::int32())));
  };
}

ScalarFunction Part(std::vector<std::string> names, const char* arrow_function, FunctionDoc doc) {
  return {std::move(names), {1, 1}, Fixed(arrow::int32()), TimePart(arrow_function), std::move(doc)};
}

Result<BoundExpr> DayOfWeek(CallBinder& b) {
  // Arrow counts Monday = 0; Spark's dayofweek has Sunday = 1.
  cp::Expression input = IsTimestamp(*b.args[0].type) ? b.Local(b.args[0]) : b.args[0].expr;
  auto day = cp::call("day_of_week", {input}, cp::DayOfWeekOptions(false, 7));
  return b.Make(cp::call("add", {cp::call("cast", {day}, cp::CastOptions::Unsafe(arrow::int32())), cp::literal(0)}));
}

Result<BoundExpr> Now(CallBinder& b) {
  return BoundExpr{cp::literal(arrow::TimestampScalar(b.ctx.now_micros, b.result_type)), b.result_type,
                   b.name == "now" ? "now()" : "current_timestamp()"};
}

Result<BoundExpr> Today(CallBinder& b) {
  auto type = UtcTimestamp();
  BoundExpr now{cp::literal(arrow::TimestampScalar(b.ctx.now_micros, type)), type, ""};
  return BoundExpr{cp::call("cast", {b.Local(now)}, cp::CastOptions::Unsafe(arrow::date32())), arrow::date32(),
                   "current_date()"};
}

Result<BoundExpr> ToDate(CallBinder& b) {
  if (const Literal* s = b.StringLiteralArg(0)) {
    ARROW_ASSIGN_OR_RAISE(int32_t days, ParseDateDays(s->value.substr(0, 10)));
    return b.Make(cp::literal(arrow::Date32Scalar(days)));
  }
  if (IsTimestamp(*b.args[0].type)) {
    return b.Make(cp::call("cast", {b.Local(b.args[0])}, cp::CastOptions::Unsafe(arrow::date32())));
  }
  return b.Make(cp::call("cast", {b.args[0].expr}, cp::CastOptions::Safe(arrow::date32())));
}

Result<BoundExpr> ToTimestamp(CallBinder& b) {
  if (const Literal* s = b.StringLiteralArg(0)) {
    ARROW_ASSIGN_OR_RAISE(int64_t micros, ParseTimestampMicros(s->value, b.ctx.time_zone));
    return b.Make(cp::literal(arrow::TimestampScalar(micros, b.result_type)));
  }
  return b.Make(b.CastTo(b.args[0].expr, b.args[0].type, b.result_type));
}

// timestamp_seconds/millis/micros: a count since the epoch scaled to microseconds.
ScalarImpl FromEpoch(int64_t factor) {
  return [factor](CallBinder& b) -> Result<BoundExpr> {
    auto micros = cp::call("multiply", {b.CastTo(b.args[0].expr, b.args[0].type, arrow::int64()), cp::literal(factor)});
    return b.Make(cp::call("cast", {micros}, cp::CastOptions::Unsafe(b.result_type)));
  };
}

// unix_seconds/millis/micros/unix_timestamp: the instant as a count since the epoch.
ScalarImpl ToEpoch(int64_t divisor) {
  return [divisor](CallBinder& b) -> Result<BoundExpr> {
    cp::Expression micros;
    if (b.args.empty()) {
      micros = cp::literal(b.ctx.now_micros);
    } else {
      BoundExpr ts = b.args[0];
      if (const Literal* s = b.StringLiteralArg(0)) {
        ARROW_ASSIGN_OR_RAISE(int64_t m, ParseTimestampMicros(s->value, b.ctx.time_zone));
        ts = BoundExpr{cp::literal(m), arrow::int64(), ""};
      }
      micros = ts.type->id() == arrow::Type::INT64 ? ts.expr
                                                   : cp::call("cast", {ts.expr}, cp::CastOptions::Unsafe(arrow::int64()));
    }
    // Floor division, so instants before 1970 round down as Spark's do.
    auto shifted = cp::call("subtract", {micros, cp::call("if_else", {cp::less(micros, cp::literal(int64_t{0})),
                                                                       cp::literal(divisor - 1), cp::literal(int64_t{0})})});
    return b.Make(cp::call("divide", {shifted, cp::literal(divisor)}));
  };
}

Result<BoundExpr> FromUnixtime(CallBinder& b) {
  auto micros = cp::call("multiply", {b.CastTo(b.args[0].expr, b.args[0].type, arrow::int64()), cp::literal(int64_t{1000000})});
  auto type = UtcTimestamp();
  BoundExpr ts{cp::call("cast", {micros}, cp::CastOptions::Unsafe(type)), type, ""};
  return b.Make(cp::call("strftime", {b.Local(ts)}, cp::StrftimeOptions("%Y-%m-%d %H:%M:%S")));
}

// date_trunc(unit, ts) and trunc(date, unit).
size_t TruncValueArgument(const CallBinder& b) { return b.name == "date_trunc" ? 1 : 0; }

Result<BoundExpr> Truncate(CallBinder& b) {
  size_t value_arg = TruncValueArgument(b);
  size_t unit_arg = 1 - value_arg;
  const Literal* unit = b.StringLiteralArg(unit_arg);
  if (!unit) return b.Error(b.call.args[unit_arg].pos, "the truncation unit must be a string literal");
  static const std::map<std::string, cp::CalendarUnit> kUnits = {
      {"year", cp::CalendarUnit::YEAR},       {"yyyy", cp::CalendarUnit::YEAR},   {"yy", cp::CalendarUnit::YEAR},
      {"quarter", cp::CalendarUnit::QUARTER}, {"month", cp::CalendarUnit::MONTH}, {"mon", cp::CalendarUnit::MONTH},
      {"mm", cp::CalendarUnit::MONTH},        {"week", cp::CalendarUnit::WEEK},   {"day", cp::CalendarUnit::DAY},
      {"dd", cp::CalendarUnit::DAY},          {"hour", cp::CalendarUnit::HOUR},   {"minute", cp::CalendarUnit::MINUTE},
      {"second", cp::CalendarUnit::SECOND}};
  const BoundExpr& v = b.args[value_arg];
  auto it = kUnits.find(Lower(unit->value));
  if (it == kUnits.end()) return b.Make(Null(v.type));
  cp::RoundTemporalOptions options(1, it->second);
  options.week_starts_monday = true;
  if (IsTimestamp(*v.type)) {
    const auto& tt = static_cast<const arrow::TimestampType&>(*v.type);
    auto zoned_type = tt.timezone().empty() ? v.type : arrow::timestamp(tt.unit(), b.ctx.time_zone);
    auto zoned = tt.timezone().empty() ? v.expr : cp::call("cast", {v.expr}, cp::CastOptions::Unsafe(zoned_type));
    return b.Make(b.CastTo(cp::call("floor_temporal", {zoned}, options), zoned_type, v.type));
  }
  return b.Make(cp::call("floor_temporal", {v.expr}, options));
}

Result<BoundExpr> DateDiff(CallBinder& b) {
  auto end = b.CastTo(b.args[0].expr, b.args[0].type, arrow::date32());
  auto start = b.CastTo(b.args[1].expr, b.args[1].type, arrow::date32());
  return b.Make(cp::call("cast", {cp::call("days_between", {start, end})}, cp::CastOptions::Unsafe(arrow::int32())));
}

Result<BoundExpr> DateAddSub(CallBinder& b) {
  // The count is INT at most; the sum wraps as Spark's int addition does.
  const BoundExpr& count = b.args[1];
  auto id = count.type->id();
  if (id != arrow::Type::INT32 && id != arrow::Type::INT16 && id != arrow::Type::INT8 && id != arrow::Type::NA &&
      !IsString(*count.type)) {
    return b.Error(b.expr.pos, StrCat("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"", b.column_name,
                                      "\" due to data type mismatch: Parameter 2 requires the (\"INT\" or \"SMALLINT\" or "
                                      "\"TINYINT\") type, however \"", count.name, "\" has the type \"",
                                      b.SqlTypeName(*count.type), "\"."));
  }
  auto as_int = cp::call("cast", {b.CastTo(b.args[0].expr, b.args[0].type, arrow::date32())},
                         cp::CastOptions::Unsafe(arrow::int32()));
  auto n = b.CastTo(count.expr, count.type, arrow::int32());
  auto sum = cp::call(b.name == "date_add" ? "add" : "subtract", {as_int, n});
  return b.Make(cp::call("cast", {sum}, cp::CastOptions::Unsafe(arrow::date32())));
}

}  // namespace

void AddDatetimeFunctions(std::vector<ScalarFunction>* out) {
  out->push_back(Part({"year"}, "year",
                      Doc("Year", "_FUNC_(date) - Returns the year component of the date/timestamp.",
                          {{"SELECT _FUNC_('2016-07-30');", "2016"}}, "1.5.0")));
  out->push_back(Part({"month"}, "month",
                      Doc("Month", "_FUNC_(date) - Returns the month component of the date/timestamp.",
                          {{"SELECT _FUNC_('2016-07-30');", "7"}}, "1.5.0")));
  out->push_back(Part({"day", "dayofmonth"}, "day",
                      Doc("DayOfMonth", "_FUNC_(date) - Returns the day of month of the date/timestamp.",
                          {{"SELECT _FUNC_('2009-07-30');", "30"}}, "1.5.0")));
  out->push_back(Part({"hour"}, "hour",
                      Doc("Hour", "_FUNC_(timestamp) - Returns the hour component of the string/timestamp.",
                          {{"SELECT _FUNC_('2009-07-30 12:58:59');", "12"}}, "1.5.0")));
  out->push_back(Part({"minute"}, "minute",
                      Doc("Minute", "_FUNC_(timestamp) - Returns the minute component of the string/timestamp.",
                          {{"SELECT _FUNC_('2009-07-30 12:58:59');", "58"}}, "1.5.0")));
  out->push_back(Part({"second"}, "second",
                      Doc("Second", "_FUNC_(timestamp) - Returns the second component of the string/timestamp.",
                          {{"SELECT _FUNC_('2009-07-30 12:58:59');", "59"}}, "1.5.0")));
  out->push_back(Part({"quarter"}, "quarter",
                      Doc("Quarter", "_FUNC_(date) - Returns the quarter of the year for date, in the range 1 to 4.",
                          {{"SELECT _FUNC_('2016-08-31');", "3"}}, "1.5.0")));
  out->push_back({{"dayofweek"}, {1, 1}, Fixed(arrow::int32()), DayOfWeek,
                  Doc("DayOfWeek",
                      "_FUNC_(date) - Returns the day of the week for date/timestamp (1 = Sunday, 2 = Monday, ..., "
                      "7 = Saturday).",
                      {{"SELECT _FUNC_('2009-07-30');", "5"}}, "2.3.0")});
  // The statement's clock takes any arguments, as floe always has.
  out->push_back({{"current_timestamp"}, {0, Arity::kAny}, Fixed(UtcTimestamp()), Now,
                  Doc("CurrentTimestamp",
                      "_FUNC_() - Returns the current timestamp at the start of query evaluation. All calls of "
                      "current_timestamp within the same query return the same value.",
                      {}, "1.5.0")});
  out->push_back({{"now"}, {0, Arity::kAny}, Fixed(UtcTimestamp()), Now,
                  Doc("Now", "_FUNC_() - Returns the current timestamp at the start of query evaluation.", {},
                      "1.6.0")});
  out->push_back({{"localtimestamp"}, {0, Arity::kAny}, Fixed(UtcTimestamp()), Now,
                  Doc("LocalTimestamp",
                      "_FUNC_() - Returns the current timestamp without time zone at the start of query evaluation.",
                      {}, "3.4.0")});
  out->push_back({{"current_date"}, {0, Arity::kAny}, Fixed(arrow::date32()), Today,
                  Doc("CurrentDate",
                      "_FUNC_() - Returns the current date at the start of query evaluation. All calls of "
                      "current_date within the same query return the same value.",
                      {}, "1.5.0")});
  out->push_back({{"curdate"}, {0, Arity::kAny}, Fixed(arrow::date32()), Today,
                  Doc("CurDateExpressionBuilder", "_FUNC_() - Returns the current date at the start of query evaluation.",
                      {}, "3.4.0")});
  out->push_back({{"to_date"}, {1, 1}, Fixed(arrow::date32()), ToDate,
                  Doc("ParseToDate", "_FUNC_(date_str) - Parses the `date_str` expression to a date.",
                      {{"SELECT _FUNC_('2009-07-30 04:17:52');", "2009-07-30"}}, "1.5.0")});
  out->push_back({{"date"}, {1, 1}, Fixed(arrow::date32()), ToDate,
                  Doc("Cast", "_FUNC_(expr) - Casts the value `expr` to the target data type `_FUNC_`.", {}, "2.0.1")});
  out->push_back({{"to_timestamp"}, {1, 1}, Fixed(UtcTimestamp()), ToTimestamp,
                  Doc("ParseToTimestamp", "_FUNC_(timestamp_str) - Parses the `timestamp_str` expression to a timestamp.",
                      {{"SELECT _FUNC_('2016-12-31 00:12:00');", "2016-12-31 00:12:00"}}, "2.2.0")});
  out->push_back({{"timestamp"}, {1, 1}, Fixed(UtcTimestamp()), ToTimestamp,
                  Doc("Cast", "_FUNC_(expr) - Casts the value `expr` to the target data type `_FUNC_`.", {}, "2.0.1")});
  out->push_back({{"timestamp_seconds"}, {1, 1}, Fixed(UtcTimestamp()), FromEpoch(1000000),
                  Doc("SecondsToTimestamp", "_FUNC_(seconds) - Creates timestamp from the number of seconds since UTC epoch.",
                      {{"SELECT _FUNC_(1230219000);", "2008-12-25 15:30:00"}}, "3.1.0")});
  out->push_back({{"timestamp_millis"}, {1, 1}, Fixed(UtcTimestamp()), FromEpoch(1000),
                  Doc("MillisToTimestamp",
                      "_FUNC_(milliseconds) - Creates timestamp from the number of milliseconds since UTC epoch.",
                      {{"SELECT _FUNC_(1230219000123);", "2008-12-25 15:30:00.123"}}, "3.1.0")});
  out->push_back({{"timestamp_micros"}, {1, 1}, Fixed(UtcTimestamp()), FromEpoch(1),
                  Doc("MicrosToTimestamp",
                      "_FUNC_(microseconds) - Creates timestamp from the number of microseconds since UTC epoch.",
                      {{"SELECT _FUNC_(1230219000123123);", "2008-12-25 15:30:00.123123"}}, "3.1.0")});
  out->push_back({{"unix_seconds"}, {0, 1}, Fixed(arrow::int64()), ToEpoch(1000000),
                  Doc("UnixSeconds", "_FUNC_(timestamp) - Returns the number of seconds since 1970-01-01 00:00:00 UTC.",
                      {{"SELECT _FUNC_(TIMESTAMP('1970-01-01 00:00:01Z'));", "1"}}, "3.1.0")});
  out->push_back({{"unix_millis"}, {0, 1}, Fixed(arrow::int64()), ToEpoch(1000),
                  Doc("UnixMillis",
                      "_FUNC_(timestamp) - Returns the number of milliseconds since 1970-01-01 00:00:00 UTC.",
                      {{"SELECT _FUNC_(TIMESTAMP('1970-01-01 00:00:01Z'));", "1000"}}, "3.1.0")});
  out->push_back({{"unix_micros"}, {0, 1}, Fixed(arrow::int64()), ToEpoch(1),
                  Doc("UnixMicros",
                      "_FUNC_(timestamp) - Returns the number of microseconds since 1970-01-01 00:00:00 UTC.",
                      {{"SELECT _FUNC_(TIMESTAMP('1970-01-01 00:00:01Z'));", "1000000"}}, "3.1.0")});
  out->push_back({{"unix_timestamp"}, {0, 1}, Fixed(arrow::int64()), ToEpoch(1000000),
                  Doc("UnixTimestamp", "_FUNC_([timeExp]) - Returns the UNIX timestamp of current or specified time.",
                      {{"SELECT _FUNC_('2016-04-08 00:00:00');", "1460073600"}}, "1.5.0")});
  out->push_back({{"from_unixtime"}, {1, 2}, Fixed(arrow::utf8()), FromUnixtime,
                  Doc("FromUnixTime",
                      "_FUNC_(unix_time) - Returns `unix_time` as a timestamp string (yyyy-MM-dd HH:mm:ss) in the "
                      "session time zone.",
                      {{"SELECT _FUNC_(0);", "1970-01-01 00:00:00"}}, "1.5.0")});
  out->push_back({{"date_trunc"}, {2, 2}, SameAsArgument(1), Truncate,
                  Doc("TruncTimestamp",
                      "_FUNC_(fmt, ts) - Returns timestamp `ts` truncated to the unit specified by the format model `fmt`.",
                      {{"SELECT _FUNC_('YEAR', '2015-03-05T09:32:05.359');", "2015-01-01 00:00:00"}}, "2.3.0")});
  out->push_back({{"trunc"}, {2, 2}, SameAsArgument(0), Truncate,
                  Doc("TruncDate",
                      "_FUNC_(date, fmt) - Returns `date` with the time portion of the day truncated to the unit "
                      "specified by the format model `fmt`.",
                      {{"SELECT _FUNC_('2019-08-04', 'week');", "2019-07-29"}}, "1.5.0")});
  out->push_back({{"datediff"}, {2, 2}, Fixed(arrow::int32()), DateDiff,
                  Doc("DateDiff", "_FUNC_(endDate, startDate) - Returns the number of days from `startDate` to `endDate`.",
                      {{"SELECT _FUNC_('2009-07-31', '2009-07-30');", "1"}}, "1.5.0")});
  out->push_back({{"date_add"}, {2, 2}, Fixed(arrow::date32()), DateAddSub,
                  Doc("DateAdd", "_FUNC_(start_date, num_days) - Returns the date that is `num_days` after `start_date`.",
                      {{"SELECT _FUNC_('2016-07-30', 1);", "2016-07-31"}}, "1.5.0")});
  out->push_back({{"date_sub"}, {2, 2}, Fixed(arrow::date32()), DateAddSub,
                  Doc("DateSub", "_FUNC_(start_date, num_days) - Returns the date that is `num_days` before `start_date`.",
                      {{"SELECT _FUNC_('2016-07-30', 1);", "2016-07-29"}}, "1.5.0")});
}

}  // namespace floe::sql::functions
