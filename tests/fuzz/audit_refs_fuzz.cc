// libFuzzer target: the refs column of the catalog's audit log (text any engine with access
// to the catalog database may have written) decodes or fails with an error, never crashes;
// what decodes encodes back to text that decodes to the same moves.
#include <cstdlib>

#include "floe/catalog/audit_log.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto refs = floe::DecodeRefMoves(floe::fuzz::Text(data, size));
  if (!refs.ok()) return 0;
  auto again = floe::DecodeRefMoves(floe::EncodeRefMoves(*refs));
  if (!again.ok() || *again != *refs) std::abort();
  return 0;
}
