#include "floe/table/snapshot_provenance.h"

namespace floe::table {

namespace {

std::optional<std::string> Get(const spec::Snapshot& snapshot, const std::string& key) {
  auto it = snapshot.summary.find(key);
  if (it == snapshot.summary.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

// Line breaks and tabs as spaces, runs of spaces as one.
std::string OneLine(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

SnapshotProvenance ProvenanceOf(const spec::Snapshot& snapshot) {
  SnapshotProvenance p;
  p.user = Get(snapshot, "floe.user");
  p.client = Get(snapshot, "floe.client");
  p.statement = Get(snapshot, "floe.statement");
  if (auto name = Get(snapshot, "engine-name")) {
    auto version = Get(snapshot, "engine-version");
    p.engine = version ? *name + " " + *version : *name;
  } else {
    p.engine = Get(snapshot, "iceberg-version");
  }
  return p;
}

std::string DescribeProvenance(const SnapshotProvenance& p, size_t max_statement) {
  std::string out;
  if (p.user) out = *p.user;
  if (p.client) out += (out.empty() ? "" : " with ") + *p.client;
  if (p.statement) {
    std::string statement = OneLine(*p.statement);
    if (max_statement > 3 && statement.size() > max_statement) {
      size_t cut = max_statement - 3;
      while (cut > 0 && (static_cast<unsigned char>(statement[cut]) & 0xC0) == 0x80)
        --cut;  // not inside a character
      statement = statement.substr(0, cut) + "...";
    }
    out += (out.empty() ? "" : ": ") + statement;
  }
  if (out.empty() && p.engine) out = *p.engine;
  return out.empty() ? "unknown" : out;
}

}  // namespace floe::table
