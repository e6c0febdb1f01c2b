// libFuzzer target: any bytes as the JSON body of each of the REST catalog's requests
// (namespaces, table create, commit, transaction, rename, register) either parse or are
// refused with Invalid, and as a namespace path part split into levels that join back to the
// same bytes.
#include <string>

#include "floe/server/rest/rest_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace rest = floe::server::rest;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto create = rest::ParseCreateNamespaceRequest(in);
  if (!create.ok() && !create.status().IsInvalid()) __builtin_trap();
  auto update = rest::ParseUpdateNamespacePropertiesRequest(in);
  if (!update.ok() && !update.status().IsInvalid()) __builtin_trap();
  auto create_table = rest::ParseCreateTableRequest(in);
  if (!create_table.ok() && !create_table.status().IsInvalid()) __builtin_trap();
  auto commit = rest::ParseCommitTableRequest(in);
  if (!commit.ok() && !commit.status().IsInvalid()) __builtin_trap();
  auto transaction = rest::ParseCommitTransactionRequest(in);
  if (!transaction.ok() && !transaction.status().IsInvalid()) __builtin_trap();
  auto rename = rest::ParseRenameTableRequest(in);
  if (!rename.ok() && !rename.status().IsInvalid()) __builtin_trap();
  auto register_table = rest::ParseRegisterTableRequest(in);
  if (!register_table.ok() && !register_table.status().IsInvalid()) __builtin_trap();
  const floe::Namespace ns = rest::NamespaceFromPathPart(in);
  std::string joined;
  for (size_t i = 0; i < ns.levels.size(); ++i) joined += (i ? "\x1f" : "") + ns.levels[i];
  if (joined != in) __builtin_trap();
  return 0;
}
