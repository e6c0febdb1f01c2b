#include "floe/table/commit_provenance.h"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

namespace floe::table {

std::string OperatingSystemUser() {
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  const uid_t uid = ::geteuid();
  struct passwd entry {};
  struct passwd* found = nullptr;
  char buffer[1024];
  if (::getpwuid_r(uid, &entry, buffer, sizeof(buffer), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

std::string TruncateStatement(std::string_view statement) {
  std::string out;
  out.reserve(std::min(statement.size(), kMaxStatementBytes + 3));
  bool pending_space = false;
  for (char c : statement) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
    if (out.size() > kMaxStatementBytes) break;
  }
  if (out.size() <= kMaxStatementBytes) return out;
  size_t cut = kMaxStatementBytes;
  // Never split a UTF-8 sequence: back up over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  out += "...";
  return out;
}

void StampProvenance(const CommitProvenance& provenance, const spec::TableMetadata& base,
                     spec::TableMetadata* updated) {
  std::string user;
  for (spec::Snapshot& snapshot : updated->snapshots) {
    if (base.SnapshotById(snapshot.snapshot_id) != nullptr) continue;
    if (snapshot.summary.count(kClientKey)) continue;
    if (user.empty()) user = provenance.user.empty() ? OperatingSystemUser() : provenance.user;
    snapshot.summary[kClientKey] = provenance.client;
    snapshot.summary[kUserKey] = user;
    if (!provenance.statement.empty()) {
      snapshot.summary[kStatementKey] = TruncateStatement(provenance.statement);
    }
  }
}

}  // namespace floe::table
