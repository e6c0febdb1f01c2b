// libFuzzer target: any text run as a SQL script (parse, bind, plan, execute) against a
// small catalog: db.t, partitioned, with three snapshots, a tag and a branch, and db.u.
// Writes, DDL and CALLs are all allowed; the catalog and warehouse are restored before each
// input, so every input sees the same tables and a crash reproduces from its input alone.
#include "floe/sql/session.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  floe::fuzz::InitEngine();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string script(floe::fuzz::Text(data, size));
  (void)floe::fuzz::RestoreEngine().ExecuteScript(script);
  return 0;
}
