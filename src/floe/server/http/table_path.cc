#include "floe/server/http/table_path.h"

#include "floe/server/http/url_encoding.h"

namespace floe::server::http {

std::string TablePath(const TableIdentifier& ident) {
  std::string out;
  for (size_t i = 0; i < ident.ns.levels.size(); ++i) {
    out += (i ? "." : "") + PercentEncode(ident.ns.levels[i]);
  }
  return out + "/" + PercentEncode(ident.name);
}

std::optional<TableIdentifier> ParseTablePath(std::string_view ns_segment,
                                              std::string_view table_segment) {
  TableIdentifier ident;
  size_t start = 0;
  while (start <= ns_segment.size()) {
    size_t end = ns_segment.find('.', start);
    if (end == std::string_view::npos) end = ns_segment.size();
    auto level = PercentDecode(ns_segment.substr(start, end - start));
    if (!level || level->empty()) return std::nullopt;
    ident.ns.levels.push_back(std::move(*level));
    start = end + 1;
  }
  auto name = PercentDecode(table_segment);
  if (!name || name->empty()) return std::nullopt;
  ident.name = std::move(*name);
  if (!ident.Validate().ok()) return std::nullopt;
  return ident;
}

}  // namespace floe::server::http
