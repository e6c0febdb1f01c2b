// libFuzzer target: any bytes as what a REST catalog floe opens may answer (its config, a page
// of namespaces or tables, a namespace's properties, a loaded or committed table, a staged
// create, an error body, a token endpoint's answer) and as what a user gives for it (the catalog
// URI, a --rest-header line, an OAuth2 credential) either read or are refused with a Status;
// nothing crashes, and what reads holds together.
#include <string>

#include "floe/catalog/rest_answers.h"
#include "floe/catalog/rest_catalog_config.h"
#include "floe/catalog/rest_oauth2.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)floe::ParseRestCatalogConfig(in, {{"warehouse", "w"}});
  (void)floe::ParseRestListPage(in, floe::RestListKind::kNamespaces);
  (void)floe::ParseRestListPage(in, floe::RestListKind::kTables);
  (void)floe::ParseNamespaceProperties(in);
  auto table = floe::ParseLoadTableResult(in);
  if (table.ok() && table->metadata == nullptr) __builtin_trap();
  (void)floe::ParseStagedTableLocation(in);
  if (floe::RestErrorMessage(in).empty()) __builtin_trap();
  for (int status : {200, 401}) {
    auto token = floe::ParseOAuth2TokenAnswer(status, in, "http://h/v1/oauth/tokens");
    if (token.ok() && (status != 200 || token->access_token.empty() || token->lifetime_ms < 0)) {
      __builtin_trap();
    }
  }
  auto base = floe::RestCatalogBaseUri(in);
  if (base.ok() && base->rfind("http", 0) != 0) __builtin_trap();
  auto header = floe::ParseHeaderLine(in);
  if (header.ok() && (header->first.empty() || header->second.find('\n') != std::string::npos)) {
    __builtin_trap();
  }
  (void)floe::ParseOAuth2Credential(in);
  return 0;
}
