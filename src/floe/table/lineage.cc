#include "floe/table/lineage.h"

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "floe/table/time_travel.h"
#include "floe/util/number_parse.h"

namespace floe::table {

namespace {

using spec::Snapshot;
using spec::TableMetadata;

// Newer rows compare greater. Snapshots not in the snapshot-log (branch commits) have
// log index -1: at the same millisecond, a logged change counts as the later one.
using RowKey = std::tuple<int64_t, int64_t, int64_t, int64_t>;

std::optional<int64_t> SummaryNumber(const Snapshot& s, const std::string& key) {
  auto it = s.summary.find(key);
  if (it == s.summary.end()) return std::nullopt;
  return ParseInt64(it->second);
}

std::string SnapshotText(const TableMetadata& md, const Snapshot& s, const TimeZone& zone) {
  std::string text = std::to_string(s.snapshot_id);
  std::vector<std::string> labels = RefLabels(md, s.snapshot_id);
  if (!labels.empty()) {
    text += " (";
    for (size_t i = 0; i < labels.size(); ++i) text += (i ? ", " : "") + labels[i];
    text += ")";
  }
  text += " " + FormatMillis(s.timestamp_ms, zone);
  if (!s.operation.empty()) text += " " + s.operation;
  std::optional<int64_t> added = SummaryNumber(s, "added-records");
  std::optional<int64_t> deleted = SummaryNumber(s, "deleted-records");
  if (added) text += " +" + std::to_string(*added);
  if (deleted) text += " -" + std::to_string(*deleted);
  if (added || deleted) text += " records";
  return text;
}

std::string JumpText(const MainJump& j, const TimeZone& zone) {
  const char* verb = j.kind == MainJump::Kind::kRollback      ? "rolled back"
                     : j.kind == MainJump::Kind::kFastForward ? "fast-forwarded"
                                                              : "moved";
  return StrCat("~ main ", verb, " from ", j.from_snapshot_id, " to ", j.to_snapshot_id, " at ",
                FormatMillis(j.at_ms, zone));
}

void TrimRight(std::string* line) {
  while (!line->empty() && line->back() == ' ') line->pop_back();
}

}  // namespace

const char* MainJumpKindName(MainJump::Kind kind) {
  switch (kind) {
    case MainJump::Kind::kRollback:
      return "rollback";
    case MainJump::Kind::kFastForward:
      return "fast-forward";
    case MainJump::Kind::kMove:
      return "move";
  }
  return "move";
}

std::vector<MainJump> MainJumps(const TableMetadata& md) {
  std::vector<MainJump> jumps;
  std::unordered_map<int64_t, size_t> seen;  // snapshot id -> first log index
  for (size_t i = 0; i < md.snapshot_log.size(); ++i) {
    const auto& entry = md.snapshot_log[i];
    const bool seen_before = seen.count(entry.snapshot_id) > 0;
    seen.emplace(entry.snapshot_id, i);
    if (i == 0) continue;
    const int64_t prev = md.snapshot_log[i - 1].snapshot_id;
    const Snapshot* cur = md.SnapshotById(entry.snapshot_id);
    if (prev == entry.snapshot_id || !cur || !md.SnapshotById(prev)) continue;
    // A new snapshot enters the log when it is committed, at its own time (whatever its
    // parent: a replaced table has none). Any other entry moved the pointer onto an existing
    // snapshot, even onto a child of the previous one (a fast-forward).
    if (!seen_before && cur->timestamp_ms == entry.timestamp_ms) continue;
    MainJump jump;
    jump.from_snapshot_id = prev;
    jump.to_snapshot_id = entry.snapshot_id;
    jump.at_ms = entry.timestamp_ms;
    jump.log_index = i;
    if (table::IsAncestorOf(md, prev, entry.snapshot_id)) {
      jump.kind = MainJump::Kind::kRollback;
    } else if (table::IsAncestorOf(md, entry.snapshot_id, prev)) {
      jump.kind = MainJump::Kind::kFastForward;
    } else {
      jump.kind = MainJump::Kind::kMove;
    }
    jumps.push_back(jump);
  }
  return jumps;
}

std::vector<LineageItem> LineageOrder(const TableMetadata& md, const std::vector<MainJump>& jumps) {
  std::unordered_map<int64_t, int64_t> first_log_index;
  for (size_t i = 0; i < md.snapshot_log.size(); ++i) {
    first_log_index.emplace(md.snapshot_log[i].snapshot_id, static_cast<int64_t>(i));
  }
  auto key_of = [&](const Snapshot* s) {
    auto it = first_log_index.find(s->snapshot_id);
    const int64_t log_index = it == first_log_index.end() ? -1 : it->second;
    return RowKey{s->timestamp_ms, s->sequence_number, log_index, s->snapshot_id};
  };
  // A snapshot is ready once every child of it is placed (Kahn's order), the newest first.
  std::unordered_map<int64_t, int> children;
  for (const auto& s : md.snapshots) {
    if (s.parent_snapshot_id && md.SnapshotById(*s.parent_snapshot_id)) {
      ++children[*s.parent_snapshot_id];
    }
  }
  auto older = [&](const Snapshot* a, const Snapshot* b) { return key_of(a) < key_of(b); };
  std::priority_queue<const Snapshot*, std::vector<const Snapshot*>, decltype(older)> ready(older);
  for (const auto& s : md.snapshots) {
    if (children[s.snapshot_id] == 0) ready.push(&s);
  }
  std::vector<const MainJump*> pending;
  for (const auto& j : jumps) pending.push_back(&j);
  std::sort(pending.begin(), pending.end(), [](const MainJump* a, const MainJump* b) {
    return std::tie(a->at_ms, a->log_index) > std::tie(b->at_ms, b->log_index);
  });

  std::vector<LineageItem> items;
  size_t next_jump = 0;
  while (!ready.empty() || next_jump < pending.size()) {
    if (next_jump < pending.size()) {
      const MainJump* j = pending[next_jump];
      bool jump_first = ready.empty();
      if (!jump_first) {
        RowKey k = key_of(ready.top());
        jump_first = std::make_tuple(j->at_ms, static_cast<int64_t>(j->log_index)) >
                     std::make_tuple(std::get<0>(k), std::get<2>(k));
      }
      if (jump_first) {
        items.push_back({nullptr, j});
        ++next_jump;
        continue;
      }
    }
    const Snapshot* s = ready.top();
    ready.pop();
    items.push_back({s, nullptr});
    if (s->parent_snapshot_id && md.SnapshotById(*s->parent_snapshot_id)) {
      if (--children[*s->parent_snapshot_id] == 0) {
        ready.push(md.SnapshotById(*s->parent_snapshot_id));
      }
    }
  }
  return items;
}

std::vector<std::string> RefLabels(const TableMetadata& md, int64_t snapshot_id) {
  std::vector<std::string> labels, tags, branches;
  for (const auto& [name, ref] : md.refs) {  // a std::map: names in order
    if (ref.snapshot_id != snapshot_id) continue;
    if (name == spec::kMainBranch) {
      labels.push_back(name);
    } else if (ref.is_branch()) {
      branches.push_back("branch: " + name);
    } else {
      tags.push_back("tag: " + name);
    }
  }
  labels.insert(labels.end(), tags.begin(), tags.end());
  labels.insert(labels.end(), branches.begin(), branches.end());
  return labels;
}

std::vector<std::string> DrawLineage(const TableMetadata& md, const TimeZone& zone) {
  const std::vector<MainJump> jumps = MainJumps(md);
  std::vector<std::string> lines;
  // Each lane waits for the snapshot drawn next on it.
  std::vector<int64_t> lanes;
  auto lane_prefix = [&](size_t star) {
    std::string prefix;
    for (size_t k = 0; k < lanes.size(); ++k) prefix += k == star ? "* " : "| ";
    return prefix;
  };
  // Lane `gone` ends; the lanes right of it move one place left. When `into` is set, the
  // ending lane joins that lane (left of it), passing under the lanes between.
  auto close_lane = [&](size_t gone, std::optional<size_t> into) {
    if (!into && gone + 1 == lanes.size()) {
      lanes.erase(lanes.begin() + static_cast<std::ptrdiff_t>(gone));
      return;
    }
    std::string row(2 * lanes.size(), ' ');
    for (size_t k = 0; k < gone; ++k) row[2 * k] = '|';
    if (into) {
      for (size_t k = *into; k + 1 < gone; ++k) row[2 * k + 1] = '_';
      row[2 * gone - 1] = '/';
    }
    for (size_t k = gone + 1; k < lanes.size(); ++k) row[2 * k - 1] = '/';
    TrimRight(&row);
    lines.push_back(row);
    lanes.erase(lanes.begin() + static_cast<std::ptrdiff_t>(gone));
  };

  for (const LineageItem& item : LineageOrder(md, jumps)) {
    if (item.jump) {
      lines.push_back(lane_prefix(lanes.size()) + JumpText(*item.jump, zone));
      continue;
    }
    const Snapshot& s = *item.snapshot;
    auto at = std::find(lanes.begin(), lanes.end(), s.snapshot_id);
    size_t lane = static_cast<size_t>(at - lanes.begin());
    if (at == lanes.end()) lanes.push_back(s.snapshot_id);
    lines.push_back(lane_prefix(lane) + SnapshotText(md, s, zone));

    if (!s.parent_snapshot_id || !md.SnapshotById(*s.parent_snapshot_id)) {
      close_lane(lane, std::nullopt);
      continue;
    }
    const int64_t parent = *s.parent_snapshot_id;
    lanes[lane] = parent;
    // Two lanes waiting for the same parent become one, the left one.
    for (size_t k = 0; k < lanes.size(); ++k) {
      if (k != lane && lanes[k] == parent) {
        close_lane(std::max(k, lane), std::min(k, lane));
        break;
      }
    }
  }
  return lines;
}

}  // namespace floe::table
