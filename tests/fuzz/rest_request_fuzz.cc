// libFuzzer target: any bytes as the JSON body of the REST catalog's namespace requests either
// parse or are refused with Invalid, and as a namespace path part split into levels that join
// back to the same bytes.
#include <string>

#include "floe/server/rest/rest_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace rest = floe::server::rest;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto create = rest::ParseCreateNamespaceRequest(in);
  if (!create.ok() && !create.status().IsInvalid()) __builtin_trap();
  auto update = rest::ParseUpdateNamespacePropertiesRequest(in);
  if (!update.ok() && !update.status().IsInvalid()) __builtin_trap();
  const floe::Namespace ns = rest::NamespaceFromPathPart(in);
  std::string joined;
  for (size_t i = 0; i < ns.levels.size(); ++i) joined += (i ? "\x1f" : "") + ns.levels[i];
  if (joined != in) __builtin_trap();
  return 0;
}
