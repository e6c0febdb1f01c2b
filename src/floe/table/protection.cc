#include "floe/table/protection.h"

#include <functional>
#include <map>

#include "floe/catalog/audit_log.h"
#include "floe/table/audit_change.h"
#include "floe/table/audit_log.h"
#include "floe/table/commit.h"
#include "floe/table/metadata_files.h"
#include "floe/table/table_metadata_builder.h"
#include "floe/table/time_travel.h"
#include "floe/util/ascii.h"

namespace floe::table {

namespace {

constexpr char kAllowFastForward[] = "fast-forward";
constexpr char kAllowCherryPick[] = "cherry-pick";
constexpr char kAllowRollback[] = "rollback";
constexpr char kTagLocked[] = "locked";

bool HasPrefix(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string LiftHint(const std::string& table_name, const ProtectionRule& rule) {
  return StrCat("ALTER TABLE ", table_name, " UNSET PROTECTION ON ",
                rule.branch ? "BRANCH " : "TAG ", rule.ref, " lifts the rule");
}

}  // namespace

bool IsProtectionProperty(std::string_view key) {
  return HasPrefix(key, kProtectedBranchPrefix) || HasPrefix(key, kProtectedTagPrefix);
}

std::string ProtectionRule::Describe() const {
  if (!branch) return "tag '" + ref + "' is locked";
  std::vector<std::string> allowed;
  if (allow_fast_forward) allowed.push_back(kAllowFastForward);
  if (allow_cherry_pick) allowed.push_back(kAllowCherryPick);
  if (allow_rollback) allowed.push_back(kAllowRollback);
  if (allowed.empty()) return "branch '" + ref + "' is protected and allows no change";
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return "branch '" + ref + "' is protected and allows only " + list;
}

std::string ProtectionRule::PropertyKey() const {
  return (branch ? kProtectedBranchPrefix : kProtectedTagPrefix) + ref;
}

std::string ProtectionRule::PropertyValue() const {
  if (!branch) return kTagLocked;
  std::string out;
  auto add = [&](bool on, const char* name) {
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  };
  add(allow_fast_forward, kAllowFastForward);
  add(allow_cherry_pick, kAllowCherryPick);
  add(allow_rollback, kAllowRollback);
  return out.empty() ? "none" : out;
}

std::vector<ProtectionRule> ProtectionRules(const spec::TableMetadata& md) {
  std::vector<ProtectionRule> rules;
  for (const auto& [key, value] : md.properties) {
    ProtectionRule rule;
    if (HasPrefix(key, kProtectedBranchPrefix)) {
      rule.branch = true;
      rule.ref = key.substr(sizeof(kProtectedBranchPrefix) - 1);
      size_t start = 0;
      while (start <= value.size()) {
        size_t end = value.find(',', start);
        if (end == std::string::npos) end = value.size();
        std::string word = AsciiLower(value.substr(start, end - start));
        word.erase(0, word.find_first_not_of(' '));
        word.erase(word.find_last_not_of(' ') + 1);
        rule.allow_fast_forward |= word == kAllowFastForward;
        rule.allow_cherry_pick |= word == kAllowCherryPick;
        rule.allow_rollback |= word == kAllowRollback;
        start = end + 1;
      }
    } else if (HasPrefix(key, kProtectedTagPrefix)) {
      rule.branch = false;
      rule.ref = key.substr(sizeof(kProtectedTagPrefix) - 1);
    } else {
      continue;
    }
    if (!rule.ref.empty()) rules.push_back(std::move(rule));
  }
  return rules;
}

std::optional<ProtectionRule> FindProtectionRule(const spec::TableMetadata& md, bool branch,
                                                 const std::string& ref) {
  for (auto& rule : ProtectionRules(md)) {
    if (rule.branch == branch && rule.ref == ref) return rule;
  }
  return std::nullopt;
}

std::vector<std::string> ProtectionViolations(const std::string& table_name,
                                              const spec::TableMetadata& base,
                                              const spec::TableMetadata& updated) {
  std::vector<std::string> out;
  for (const auto& rule : ProtectionRules(base)) {
    auto from = base.refs.find(rule.ref);
    if (from == base.refs.end() || from->second.is_branch() != rule.branch) continue;
    const char* noun = rule.branch ? "branch" : "tag";
    auto to = updated.refs.find(rule.ref);
    if (to == updated.refs.end()) {
      out.push_back(StrCat("Cannot drop ", noun, " '", rule.ref, "' of ", table_name, ": ",
                           rule.Describe(), " (", LiftHint(table_name, rule), ")"));
      continue;
    }
    const int64_t a = from->second.snapshot_id, b = to->second.snapshot_id;
    if (!rule.branch) {
      if (!(to->second == from->second)) {
        out.push_back(StrCat("Cannot ", a == b ? "replace" : "move", " tag '", rule.ref, "' of ",
                             table_name, a == b ? "" : StrCat(" from ", a, " to ", b), ": ",
                             rule.Describe(), " (", LiftHint(table_name, rule), ")"));
      }
      continue;
    }
    if (a == b) continue;  // its retention settings may change
    const std::string branch = StrCat("branch '", rule.ref, "' of ", table_name);
    std::string what;
    bool allowed = false;
    if (!base.SnapshotById(b)) {
      const spec::Snapshot* written = updated.SnapshotById(b);
      if (written && written->summary.count("source-snapshot-id")) {
        what = StrCat("cherry-pick snapshot ", written->summary.at("source-snapshot-id"), " onto ",
                      branch);
        allowed = rule.allow_cherry_pick;
      } else {
        what = StrCat("write snapshot ", b, " directly to ", branch);
      }
    } else if (IsAncestorOf(updated, b, a)) {
      what = StrCat("fast-forward ", branch, " from ", a, " to ", b);
      allowed = rule.allow_fast_forward;
    } else if (IsAncestorOf(base, a, b) || IsAncestorOf(updated, a, b)) {
      // `updated` may no longer list `a` (a pointer moved back to an older metadata file).
      what = StrCat("roll back ", branch, " from ", a, " to ", b);
      allowed = rule.allow_rollback;
    } else {
      what =
          StrCat("move ", branch, " from ", a, " to ", b, ", neither an ancestor nor a descendant");
    }
    if (!allowed)
      out.push_back(
          StrCat("Cannot ", what, ": ", rule.Describe(), " (", LiftHint(table_name, rule), ")"));
  }
  return out;
}

Status CheckProtection(const std::string& table_name, const spec::TableMetadata& base,
                       const spec::TableMetadata& updated) {
  auto violations = ProtectionViolations(table_name, base, updated);
  if (violations.empty()) return Status::OK();
  return ValidationError(violations.front());
}

Status CheckExpiryProtection(const spec::TableMetadata& md,
                             const std::vector<int64_t>& snapshot_ids) {
  const std::vector<ProtectionRule> rules = ProtectionRules(md);
  for (int64_t id : snapshot_ids) {
    for (const auto& rule : rules) {
      auto ref = md.refs.find(rule.ref);
      if (rule.branch || ref == md.refs.end() || ref->second.is_branch() ||
          ref->second.snapshot_id != id)
        continue;
      return ValidationError("Cannot expire snapshot ", id, ": ", rule.Describe(),
                             " and reaches it (ALTER TABLE ... UNSET PROTECTION ON TAG ", rule.ref,
                             " lifts the rule)");
    }
  }
  return Status::OK();
}

void RecordRefusal(Table& table, const Status& why) {
  AuditRecord record;
  record.kind = audit_kind::kRefused;
  record.previous_snapshot_id = table.metadata()->current_snapshot_id;
  record.snapshot_id = record.previous_snapshot_id;
  record.detail = why.message();
  AddProvenance(table.provenance(), &record);
  (void)table.catalog()->RecordAuditEntry(table.ident(), table.metadata_location(), record);
}

Result<std::vector<std::string>> AuditedProtectionViolations(Table& table, int64_t page_size) {
  std::vector<std::string> out;
  if (!table.catalog()->HasAuditLog()) return out;
  // Newest page first, each page's findings oldest first; only a page's metadata files are
  // held at a time, so a log of any length reads in bounded memory.
  AuditQuery query;
  query.table = table.ident();
  query.limit = page_size;
  std::vector<std::vector<std::string>> pages;
  for (;;) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadAuditLog(*table.catalog(), *table.io(), query));
    std::map<std::string, spec::TableMetadataPtr> read;
    auto load = [&](const std::string& location) -> spec::TableMetadataPtr {
      auto it = read.find(location);
      if (it != read.end()) return it->second;
      auto md = ReadMetadataFile(*table.io(), location);
      return read[location] = md.ok() ? *md : nullptr;
    };
    std::vector<std::string> found;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      const AuditEntry& e = *it;
      // floe's own commits were checked when they were made.
      const bool by_floe = e.client.rfind("floe ", 0) == 0 || e.client == "c++ api";
      if (by_floe || e.kind == audit_kind::kRefused || !e.previous_metadata_location ||
          !e.metadata_location || *e.previous_metadata_location == *e.metadata_location) {
        continue;
      }
      spec::TableMetadataPtr before = load(*e.previous_metadata_location),
                             after = load(*e.metadata_location);
      if (!before || !after) continue;
      for (const auto& v : ProtectionViolations(table.name(), *before, *after)) {
        found.push_back(StrCat("audit log entry ", e.seq, " (",
                               e.client.empty() ? "external" : e.client, "): ", v));
      }
    }
    pages.push_back(std::move(found));
    if (static_cast<int64_t>(entries.size()) < page_size) break;
    query.before_seq = entries.back().seq;
  }
  for (auto page = pages.rbegin(); page != pages.rend(); ++page) {
    out.insert(out.end(), page->begin(), page->end());
  }
  return out;
}

// A rule written or removed: one commit, recorded as a protection change; none when the
// properties already say so.
Status CommitRuleChange(Table& table, const std::function<void(TableMetadataBuilder&)>& change,
                        const std::string& detail) {
  return Commit(
      table,
      [&](const spec::TableMetadataPtr& base,
          std::vector<std::string>*) -> Result<std::shared_ptr<spec::TableMetadata>> {
        TableMetadataBuilder b(base);
        change(b);
        if (!b.changed()) return std::shared_ptr<spec::TableMetadata>();
        return b.Build();
      },
      AuditNote{audit_kind::kProtection, detail});
}

Status SetProtection(Table& table, const ProtectionRule& rule) {
  ARROW_RETURN_NOT_OK(table.Refresh());
  auto it = table.metadata()->refs.find(rule.ref);
  if (it == table.metadata()->refs.end() || it->second.is_branch() != rule.branch) {
    return ValidationError("Cannot protect ", rule.branch ? "branch '" : "tag '", rule.ref, "' of ",
                           table.name(), ": it does not exist");
  }
  return CommitRuleChange(
      table,
      [&](TableMetadataBuilder& b) {
        b.SetProperties({{rule.PropertyKey(), rule.PropertyValue()}});
      },
      rule.Describe());
}

Status RemoveProtection(Table& table, bool branch, const std::string& ref, bool if_exists) {
  ARROW_RETURN_NOT_OK(table.Refresh());
  auto rule = FindProtectionRule(*table.metadata(), branch, ref);
  if (!rule) {
    if (if_exists) return Status::OK();
    return ValidationError("Cannot unset protection of ", branch ? "branch '" : "tag '", ref,
                           "' of ", table.name(), ": it is not protected");
  }
  return CommitRuleChange(
      table, [&](TableMetadataBuilder& b) { b.RemoveProperties({rule->PropertyKey()}); },
      StrCat(branch ? "branch '" : "tag '", ref, "' is no longer protected"));
}

}  // namespace floe::table
