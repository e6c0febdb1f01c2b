// libFuzzer target: any text parses to a tree or a positioned error; a tree prints to SQL.
#include "floe/sql/parse/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto script = floe::sql::ParseScript(std::string_view(reinterpret_cast<const char*>(data), size));
  if (script.ok()) for (const auto& s : *script) (void)floe::sql::ToSql(s.statement);
  return 0;
}
