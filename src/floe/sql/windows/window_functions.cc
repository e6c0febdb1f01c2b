#include "floe/sql/windows/window_functions.h"

#include <algorithm>
#include <cmath>
#include <deque>

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/decimal.h>

#include "floe/util/str_cat.h"

namespace floe::sql {

namespace {

namespace cp = arrow::compute;

// An id per row, equal for equal values (NULLs share -1): how partitions and peers are told
// apart once the rows are sorted.
Result<std::vector<int32_t>> ValueIds(const std::shared_ptr<arrow::Array>& values) {
  std::vector<int32_t> ids(static_cast<size_t>(values->length()), -1);
  if (values->type_id() == arrow::Type::NA) return ids;
  auto encoded = cp::DictionaryEncode(values);
  if (!encoded.ok()) {
    return Status::Invalid("Window partition and order keys of type ", values->type()->ToString(),
                           " are not supported");
  }
  auto dict = std::static_pointer_cast<arrow::DictionaryArray>(encoded->make_array());
  ARROW_ASSIGN_OR_RAISE(auto indices, arrow::compute::Cast(*dict->indices(), arrow::int32()));
  const auto& idx = static_cast<const arrow::Int32Array&>(*indices);
  for (int64_t i = 0; i < idx.length(); ++i) {
    if (idx.IsValid(i)) ids[static_cast<size_t>(i)] = idx.Value(i);
  }
  return ids;
}

Result<std::shared_ptr<arrow::Array>> Flag(const char* function,
                                           const std::shared_ptr<arrow::Array>& values) {
  ARROW_ASSIGN_OR_RAISE(auto flag, cp::CallFunction(function, {values}));
  ARROW_ASSIGN_OR_RAISE(auto as_int, cp::Cast(flag, arrow::int8()));
  return as_int.make_array();
}

// Row positions in window order: partition keys, then each ORDER BY key with its own NULLS
// FIRST/LAST and NaN above every number (Spark's order); a stable sort keeps ties in input order.
Result<std::vector<int64_t>> WindowOrder(
    int64_t n, const std::vector<std::shared_ptr<arrow::Array>>& partition_by,
    const std::vector<WindowOrderKey>& order_by) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  std::vector<cp::SortKey> keys;
  auto add = [&](std::shared_ptr<arrow::Array> a, cp::SortOrder o) {
    const std::string name = "k" + std::to_string(arrays.size());
    fields.push_back(arrow::field(name, a->type()));
    arrays.push_back(std::move(a));
    keys.emplace_back(name, o);
  };
  for (const auto& p : partition_by) {
    if (p->type_id() != arrow::Type::NA) add(p, cp::SortOrder::Ascending);
  }
  for (const auto& k : order_by) {
    if (k.values->type_id() == arrow::Type::NA) continue;
    ARROW_ASSIGN_OR_RAISE(auto is_null, Flag("is_null", k.values));
    add(is_null, k.nulls_first ? cp::SortOrder::Descending : cp::SortOrder::Ascending);
    const auto direction = k.ascending ? cp::SortOrder::Ascending : cp::SortOrder::Descending;
    if (arrow::is_floating(k.values->type_id())) {
      ARROW_ASSIGN_OR_RAISE(auto is_nan, Flag("is_nan", k.values));
      add(is_nan, direction);
    }
    add(k.values, direction);
  }
  if (keys.empty()) return order;
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields), n, arrays);
  ARROW_ASSIGN_OR_RAISE(auto sorted, cp::SortIndices(arrow::Datum(batch), cp::SortOptions(keys)));
  const auto& idx = static_cast<const arrow::UInt64Array&>(*sorted);
  for (int64_t i = 0; i < n; ++i)
    order[static_cast<size_t>(i)] = static_cast<int64_t>(idx.Value(i));
  return order;
}

// The rows as the window sees them: sorted positions, partitions and peer groups.
struct Layout {
  std::vector<int64_t> order;       // sorted position -> row
  std::vector<int64_t> part_start;  // per sorted position
  std::vector<int64_t> part_end;
  std::vector<int64_t> peer_start;
  std::vector<int64_t> peer_end;
};

Result<Layout> MakeLayout(int64_t n, const std::vector<std::shared_ptr<arrow::Array>>& partition_by,
                          const std::vector<WindowOrderKey>& order_by) {
  Layout l;
  ARROW_ASSIGN_OR_RAISE(l.order, WindowOrder(n, partition_by, order_by));
  std::vector<std::vector<int32_t>> part_ids, peer_ids;
  for (const auto& p : partition_by) {
    ARROW_ASSIGN_OR_RAISE(auto ids, ValueIds(p));
    part_ids.push_back(std::move(ids));
  }
  for (const auto& k : order_by) {
    ARROW_ASSIGN_OR_RAISE(auto ids, ValueIds(k.values));
    peer_ids.push_back(std::move(ids));
  }
  const size_t rows = static_cast<size_t>(n);
  l.part_start.resize(rows);
  l.part_end.resize(rows);
  l.peer_start.resize(rows);
  l.peer_end.resize(rows);
  auto differs = [&](const std::vector<std::vector<int32_t>>& ids, size_t p) {
    for (const auto& v : ids) {
      if (v[static_cast<size_t>(l.order[p])] != v[static_cast<size_t>(l.order[p - 1])]) return true;
    }
    return false;
  };
  size_t ps = 0, qs = 0;
  for (size_t p = 0; p <= rows; ++p) {
    const bool new_part = p == rows || (p > 0 && differs(part_ids, p));
    const bool new_peer = new_part || (p > 0 && differs(peer_ids, p));
    if (p > 0 && new_peer) {
      for (size_t q = qs; q < p; ++q) {
        l.peer_start[q] = static_cast<int64_t>(qs);
        l.peer_end[q] = static_cast<int64_t>(p);
      }
      qs = p;
    }
    if (p > 0 && new_part) {
      for (size_t q = ps; q < p; ++q) {
        l.part_start[q] = static_cast<int64_t>(ps);
        l.part_end[q] = static_cast<int64_t>(p);
      }
      ps = p;
    }
  }
  return l;
}

// The frame [lo, hi) of every sorted position; empty when lo >= hi.
Status FrameBounds(const Layout& l, const std::vector<WindowOrderKey>& order_by,
                   const WindowFrameSpec& frame, std::vector<int64_t>* lo,
                   std::vector<int64_t>* hi) {
  const size_t n = l.order.size();
  lo->resize(n);
  hi->resize(n);
  using Kind = WindowBound::Kind;
  const bool range_offsets =
      !frame.rows &&
      (frame.start.kind == Kind::kPreceding || frame.start.kind == Kind::kFollowing ||
       frame.end.kind == Kind::kPreceding || frame.end.kind == Kind::kFollowing);
  // RANGE offsets compare the one ORDER BY key as numbers, larger ahead when ascending.
  std::vector<double> key;
  std::vector<bool> valid;
  if (range_offsets) {
    if (order_by.size() != 1) {
      return Status::Invalid(
          "[DATATYPE_MISMATCH.RANGE_FRAME_MULTI_ORDER] A range window frame with value boundaries "
          "cannot be used in a "
          "window specification with multiple order by expressions");
    }
    const auto& values = order_by[0].values;
    std::shared_ptr<arrow::Array> numbers;
    if (values->type_id() == arrow::Type::DATE32) {
      ARROW_ASSIGN_OR_RAISE(auto days, cp::Cast(*values, arrow::int32()));
      ARROW_ASSIGN_OR_RAISE(numbers, cp::Cast(*days, arrow::float64()));
    } else if (arrow::is_numeric(values->type_id()) ||
               values->type_id() == arrow::Type::DECIMAL128) {
      ARROW_ASSIGN_OR_RAISE(numbers, cp::Cast(*values, arrow::float64()));
    } else {
      return Status::Invalid(
          "[DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE] A range window frame with value "
          "boundaries needs a numeric or date ORDER BY key, not ",
          values->type()->ToString());
    }
    const auto& d = static_cast<const arrow::DoubleArray&>(*numbers);
    key.resize(n);
    valid.resize(n);
    const double sign = order_by[0].ascending ? 1 : -1;
    for (size_t p = 0; p < n; ++p) {
      const int64_t row = l.order[p];
      valid[p] = d.IsValid(row);
      double v = valid[p] ? d.Value(row) : 0;
      if (std::isnan(v)) v = INFINITY;
      key[p] = sign * v;
    }
  }
  for (size_t p = 0; p < n; ++p) {
    const int64_t ps = l.part_start[p], pe = l.part_end[p], i = static_cast<int64_t>(p);
    auto resolve = [&](const WindowBound& b, bool is_start) -> int64_t {
      switch (b.kind) {
        case Kind::kUnboundedPreceding:
          return ps;
        case Kind::kUnboundedFollowing:
          return pe;
        case Kind::kCurrentRow:
          if (frame.rows) return is_start ? i : i + 1;
          return is_start ? l.peer_start[p] : l.peer_end[p];
        case Kind::kPreceding:
        case Kind::kFollowing: {
          const double off = b.kind == Kind::kPreceding ? -b.offset : b.offset;
          if (frame.rows) {
            const int64_t at = i + static_cast<int64_t>(off);
            return std::clamp<int64_t>(is_start ? at : at + 1, ps, pe);
          }
          // A NULL key's frame is its peers: the NULLs.
          if (!valid[p]) return is_start ? l.peer_start[p] : l.peer_end[p];
          int64_t a = ps, z = pe;  // the non-NULL keys of the partition
          while (a < z && !valid[static_cast<size_t>(a)]) ++a;
          while (z > a && !valid[static_cast<size_t>(z - 1)]) --z;
          const double target = key[p] + off;
          auto first = key.begin() + a, last = key.begin() + z;
          auto it = is_start ? std::lower_bound(first, last, target)
                             : std::upper_bound(first, last, target);
          return it - key.begin();
        }
      }
      return ps;
    };
    (*lo)[p] = resolve(frame.start, true);
    (*hi)[p] = resolve(frame.end, false);
  }
  return Status::OK();
}

// The values of `source` (sorted positions -> rows, -1 for NULL) gathered into input order.
Result<std::shared_ptr<arrow::Array>> Gather(const std::shared_ptr<arrow::Array>& values,
                                             const Layout& l,
                                             const std::vector<int64_t>& source_row) {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(static_cast<int64_t>(l.order.size())));
  std::vector<int64_t> by_row(l.order.size(), -1);
  for (size_t p = 0; p < l.order.size(); ++p)
    by_row[static_cast<size_t>(l.order[p])] = source_row[p];
  for (int64_t r : by_row) {
    if (r < 0) {
      indices.UnsafeAppendNull();
    } else {
      indices.UnsafeAppend(r);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto idx, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(*values, *idx));
  return taken;
}

// Per-sorted-position numbers to input order.
template <typename Builder, typename T>
Result<std::shared_ptr<arrow::Array>> Scatter(const Layout& l, const std::vector<T>& value,
                                              const std::vector<bool>* is_null,
                                              std::shared_ptr<arrow::DataType> type = nullptr) {
  std::vector<size_t> at(l.order.size());
  for (size_t p = 0; p < l.order.size(); ++p) at[static_cast<size_t>(l.order[p])] = p;
  std::unique_ptr<Builder> b;
  if constexpr (std::is_same_v<Builder, arrow::Decimal128Builder>) {
    b = std::make_unique<Builder>(type, arrow::default_memory_pool());
  } else {
    b = std::make_unique<Builder>();
  }
  ARROW_RETURN_NOT_OK(b->Reserve(static_cast<int64_t>(at.size())));
  for (size_t r = 0; r < at.size(); ++r) {
    if (is_null && (*is_null)[at[r]]) {
      ARROW_RETURN_NOT_OK(b->AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(b->Append(value[at[r]]));
    }
  }
  std::shared_ptr<arrow::Array> out;
  ARROW_RETURN_NOT_OK(b->Finish(&out));
  return out;
}

Result<std::shared_ptr<arrow::Array>> Ranking(const WindowCall& call, const Layout& l) {
  const size_t n = l.order.size();
  const std::string& f = call.function;
  if (f == "percent_rank" || f == "cume_dist") {
    std::vector<double> v(n);
    for (size_t p = 0; p < n; ++p) {
      const double size = static_cast<double>(l.part_end[p] - l.part_start[p]);
      if (f == "cume_dist") {
        v[p] = static_cast<double>(l.peer_end[p] - l.part_start[p]) / size;
      } else {
        v[p] =
            size <= 1 ? 0.0 : static_cast<double>(l.peer_start[p] - l.part_start[p]) / (size - 1);
      }
    }
    return Scatter<arrow::DoubleBuilder>(l, v, nullptr);
  }
  std::vector<int32_t> v(n);
  int32_t dense = 0;
  for (size_t p = 0; p < n; ++p) {
    const int64_t ps = l.part_start[p], i = static_cast<int64_t>(p);
    if (f == "row_number") {
      v[p] = static_cast<int32_t>(i - ps + 1);
    } else if (f == "rank") {
      v[p] = static_cast<int32_t>(l.peer_start[p] - ps + 1);
    } else if (f == "dense_rank") {
      if (i == ps) dense = 0;
      if (l.peer_start[p] == i) ++dense;
      v[p] = dense;
    } else {  // ntile: the first (size % buckets) buckets hold one row more
      const int64_t size = l.part_end[p] - ps, buckets = call.offset, row = i - ps;
      const int64_t base = size / buckets, extra = size % buckets;
      const int64_t big = extra * (base + 1);
      v[p] =
          static_cast<int32_t>(row < big ? row / (base + 1) + 1
                                         : (base == 0 ? row + 1 : extra + (row - big) / base + 1));
    }
  }
  return Scatter<arrow::Int32Builder>(l, v, nullptr);
}

Result<std::shared_ptr<arrow::Array>> Offset(const WindowCall& call, const Layout& l) {
  const size_t n = l.order.size();
  const int64_t step = call.function == "lag" ? -call.offset : call.offset;
  std::vector<int64_t> source(n, -1);
  std::vector<bool> outside(n, false);
  for (size_t p = 0; p < n; ++p) {
    const int64_t at = static_cast<int64_t>(p) + step;
    if (at >= l.part_start[p] && at < l.part_end[p]) {
      source[p] = l.order[static_cast<size_t>(at)];
    } else {
      outside[p] = true;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto taken, Gather(call.args[0], l, source));
  if (!call.default_value || !call.default_value->is_valid) return taken;
  ARROW_ASSIGN_OR_RAISE(auto mask,
                        Scatter<arrow::BooleanBuilder>(l, std::vector<bool>(outside), nullptr));
  // Cast as an array: scalar casts lack some pairs (int to decimal).
  ARROW_ASSIGN_OR_RAISE(auto one, arrow::MakeArrayFromScalar(*call.default_value, 1));
  if (taken->type_id() == arrow::Type::DECIMAL128 && arrow::is_integer(one->type_id())) {
    // Arrow casts an integer only to a decimal wide enough for any of its values.
    const int32_t scale = static_cast<const arrow::Decimal128Type&>(*taken->type()).scale();
    ARROW_ASSIGN_OR_RAISE(one, cp::Cast(*one, arrow::decimal128(38, scale)));
  }
  ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(*one, taken->type()));
  ARROW_ASSIGN_OR_RAISE(auto fill, cast->GetScalar(0));
  ARROW_ASSIGN_OR_RAISE(auto out, cp::CallFunction("if_else", {mask, fill, taken}));
  return out.make_array();
}

Result<std::shared_ptr<arrow::Array>> Positional(const WindowCall& call, const Layout& l,
                                                 const std::vector<int64_t>& lo,
                                                 const std::vector<int64_t>& hi) {
  const size_t n = l.order.size();
  const arrow::Array& values = *call.args[0];
  // Nearest non-NULL value at or after / at or before each sorted position, for IGNORE NULLS.
  std::vector<int64_t> next(n + 1, -1), prev(n, -1);
  if (call.ignore_nulls) {
    next[n] = static_cast<int64_t>(n);
    for (size_t p = n; p-- > 0;)
      next[p] = values.IsValid(l.order[p]) ? static_cast<int64_t>(p) : next[p + 1];
    for (size_t p = 0; p < n; ++p) {
      prev[p] = values.IsValid(l.order[p]) ? static_cast<int64_t>(p) : (p ? prev[p - 1] : -1);
    }
  }
  std::vector<int64_t> source(n, -1);
  for (size_t p = 0; p < n; ++p) {
    const int64_t a = lo[p], z = hi[p];
    if (a >= z) continue;
    int64_t at = -1;
    if (call.function == "first_value") {
      at = call.ignore_nulls ? next[static_cast<size_t>(a)] : a;
      if (at >= z) at = -1;
    } else if (call.function == "last_value") {
      at = call.ignore_nulls ? prev[static_cast<size_t>(z - 1)] : z - 1;
      if (at < a) at = -1;
    } else {  // nth_value
      if (!call.ignore_nulls) {
        at = a + call.offset - 1 < z ? a + call.offset - 1 : -1;
      } else {
        int64_t seen = 0;
        for (int64_t q = a; q < z && at < 0; ++q) {
          if (values.IsValid(l.order[static_cast<size_t>(q)]) && ++seen == call.offset) at = q;
        }
      }
    }
    if (at >= 0) source[p] = l.order[static_cast<size_t>(at)];
  }
  return Gather(call.args[0], l, source);
}

// min and max by each value's place in the column's own order, over frames that only move
// forward: a deque keeps the best position of the current frame.
Result<std::shared_ptr<arrow::Array>> Extreme(const WindowCall& call, const Layout& l,
                                              const std::vector<int64_t>& lo,
                                              const std::vector<int64_t>& hi) {
  const size_t n = l.order.size();
  const auto& values = call.args[0];
  std::vector<int64_t> place(n, -1);  // by sorted position; -1 for NULL
  if (values->type_id() != arrow::Type::NA) {
    WindowOrderKey key{values, true, false};
    ARROW_ASSIGN_OR_RAISE(auto by_value, WindowOrder(static_cast<int64_t>(n), {}, {key}));
    std::vector<int64_t> rank_of_row(n);
    for (size_t r = 0; r < n; ++r)
      rank_of_row[static_cast<size_t>(by_value[r])] = static_cast<int64_t>(r);
    for (size_t p = 0; p < n; ++p) {
      const int64_t row = l.order[p];
      if (values->IsValid(row)) place[p] = rank_of_row[static_cast<size_t>(row)];
    }
  }
  const bool max = call.function == "max";
  auto better = [&](int64_t a, int64_t b) {
    return max ? place[a] > place[b] : place[a] < place[b];
  };
  std::vector<int64_t> source(n, -1);
  std::deque<int64_t> window;
  int64_t added = -1, part = -1;
  for (size_t p = 0; p < n; ++p) {
    const int64_t a = lo[p], z = hi[p];
    if (l.part_start[p] != part) {
      part = l.part_start[p];
      window.clear();
      added = part;
    }
    if (a >= z) continue;
    if (added < a) {
      window.clear();
      added = a;
    }
    for (; added < z; ++added) {
      if (place[added] < 0) continue;
      while (!window.empty() && !better(window.back(), added)) window.pop_back();
      window.push_back(added);
    }
    while (!window.empty() && window.front() < a) window.pop_front();
    if (!window.empty()) source[p] = l.order[static_cast<size_t>(window.front())];
  }
  return Gather(values, l, source);
}

// count, sum and avg over each frame.
Result<std::shared_ptr<arrow::Array>> Summed(const WindowCall& call, const Layout& l,
                                             const std::vector<int64_t>& lo,
                                             const std::vector<int64_t>& hi, bool running) {
  const size_t n = l.order.size();
  const std::string& f = call.function;
  const arrow::Array* values = call.args.empty() ? nullptr : call.args[0].get();
  std::vector<int64_t> counted(n + 1, 0);  // non-NULL values before each sorted position
  for (size_t p = 0; p < n; ++p) {
    const bool valid =
        !values || (values->type_id() != arrow::Type::NA && values->IsValid(l.order[p]));
    counted[p + 1] = counted[p] + (valid ? 1 : 0);
  }
  auto count_in = [&](size_t p) {
    return lo[p] < hi[p] ? counted[static_cast<size_t>(hi[p])] - counted[static_cast<size_t>(lo[p])]
                         : 0;
  };
  if (f == "count") {
    std::vector<int64_t> v(n);
    for (size_t p = 0; p < n; ++p) v[p] = count_in(p);
    return Scatter<arrow::Int64Builder>(l, v, nullptr);
  }
  std::vector<bool> is_null(n);
  for (size_t p = 0; p < n; ++p) is_null[p] = count_in(p) == 0;
  const auto& result = call.result_type;
  if (values->type_id() == arrow::Type::NA) {
    return arrow::MakeArrayOfNull(result, static_cast<int64_t>(n));
  }
  if (values->type_id() == arrow::Type::DECIMAL128) {
    const auto& in = static_cast<const arrow::Decimal128Array&>(*values);
    const int32_t scale = static_cast<const arrow::Decimal128Type&>(*values->type()).scale();
    const auto& out_type = static_cast<const arrow::Decimal128Type&>(*result);
    std::vector<arrow::Decimal128> prefix(n + 1);
    for (size_t p = 0; p < n; ++p) {
      const int64_t row = l.order[p];
      prefix[p + 1] = prefix[p] + (in.IsValid(row) ? arrow::Decimal128(in.GetValue(row))
                                                   : arrow::Decimal128(0));
    }
    std::vector<arrow::Decimal128> v(n);
    for (size_t p = 0; p < n; ++p) {
      if (is_null[p]) continue;
      arrow::Decimal128 sum =
          prefix[static_cast<size_t>(hi[p])] - prefix[static_cast<size_t>(lo[p])];
      if (f == "avg") {
        // Mean at the result's scale, rounded half up, as Spark divides decimals.
        arrow::Decimal128 scaled =
            sum * arrow::Decimal128::GetScaleMultiplier(out_type.scale() - scale);
        const arrow::Decimal128 count(count_in(p));
        ARROW_ASSIGN_OR_RAISE(auto qr, scaled.Divide(count));
        arrow::Decimal128 q = qr.first, r = qr.second;
        if (r.Abs() * 2 >= count)
          q += scaled.Sign() < 0 ? arrow::Decimal128(-1) : arrow::Decimal128(1);
        sum = q;
      }
      if (!sum.FitsInPrecision(out_type.precision())) {
        is_null[p] = true;  // too wide for its type: NULL, as Spark's sum
        continue;
      }
      v[p] = sum;
    }
    return Scatter<arrow::Decimal128Builder>(l, v, &is_null, result);
  }
  if (arrow::is_integer(values->type_id())) {
    ARROW_ASSIGN_OR_RAISE(auto wide, cp::Cast(*values, arrow::int64()));
    const auto& in = static_cast<const arrow::Int64Array&>(*wide);
    std::vector<uint64_t> prefix(n + 1, 0);  // wraps on overflow as Spark's long sum does
    for (size_t p = 0; p < n; ++p) {
      const int64_t row = l.order[p];
      prefix[p + 1] = prefix[p] + (in.IsValid(row) ? static_cast<uint64_t>(in.Value(row)) : 0);
    }
    if (f == "sum") {
      std::vector<int64_t> v(n);
      for (size_t p = 0; p < n; ++p) {
        v[p] = static_cast<int64_t>(prefix[static_cast<size_t>(hi[p])] -
                                    prefix[static_cast<size_t>(lo[p])]);
      }
      return Scatter<arrow::Int64Builder>(l, v, &is_null);
    }
    std::vector<double> v(n);
    for (size_t p = 0; p < n; ++p) {
      if (is_null[p]) continue;
      const auto sum = static_cast<int64_t>(prefix[static_cast<size_t>(hi[p])] -
                                            prefix[static_cast<size_t>(lo[p])]);
      v[p] = static_cast<double>(sum) / static_cast<double>(count_in(p));
    }
    return Scatter<arrow::DoubleBuilder>(l, v, &is_null);
  }
  if (!arrow::is_floating(values->type_id())) {
    return Status::Invalid("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] ", f,
                           " needs a numeric argument, not ", values->type()->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto doubles, cp::Cast(*values, arrow::float64()));
  const auto& in = static_cast<const arrow::DoubleArray&>(*doubles);
  // Spark adds a frame's values in order: a running frame keeps one sum per partition,
  // any other is summed afresh, so both give Spark's rounding.
  std::vector<double> v(n);
  double running_sum = 0;
  for (size_t p = 0; p < n; ++p) {
    double sum = 0;
    if (running) {
      if (static_cast<int64_t>(p) == l.part_start[p]) running_sum = 0;
      // The frame grows to hi[p]: add the rows it gained.
      const int64_t from =
          p == 0 || l.part_start[p] != l.part_start[p - 1] ? l.part_start[p] : hi[p - 1];
      for (int64_t q = from; q < hi[p]; ++q) {
        const int64_t row = l.order[static_cast<size_t>(q)];
        if (in.IsValid(row)) running_sum += in.Value(row);
      }
      sum = running_sum;
    } else {
      for (int64_t q = lo[p]; q < hi[p]; ++q) {
        const int64_t row = l.order[static_cast<size_t>(q)];
        if (in.IsValid(row)) sum += in.Value(row);
      }
    }
    v[p] = f == "avg" && !is_null[p] ? sum / static_cast<double>(count_in(p)) : sum;
  }
  return Scatter<arrow::DoubleBuilder>(l, v, &is_null);
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> ComputeWindow(
    int64_t num_rows, const std::vector<std::shared_ptr<arrow::Array>>& partition_by,
    const std::vector<WindowOrderKey>& order_by, const WindowFrameSpec& frame,
    const WindowCall& call) {
  ARROW_ASSIGN_OR_RAISE(Layout layout, MakeLayout(num_rows, partition_by, order_by));
  const std::string& f = call.function;
  if (f == "row_number" || f == "rank" || f == "dense_rank" || f == "percent_rank" ||
      f == "cume_dist" || f == "ntile") {
    return Ranking(call, layout);
  }
  if (f == "lag" || f == "lead") return Offset(call, layout);
  std::vector<int64_t> lo, hi;
  ARROW_RETURN_NOT_OK(FrameBounds(layout, order_by, frame, &lo, &hi));
  if (f == "first_value" || f == "last_value" || f == "nth_value")
    return Positional(call, layout, lo, hi);
  if (f == "min" || f == "max") return Extreme(call, layout, lo, hi);
  if (f == "count" || f == "sum" || f == "avg") {
    const bool running = frame.start.kind == WindowBound::Kind::kUnboundedPreceding;
    return Summed(call, layout, lo, hi, running);
  }
  return Status::Invalid("internal: no window function ", f);
}

}  // namespace floe::sql
