#include "floe/util/ids.h"

#include <cstdio>
#include <mutex>
#include <random>

#include <unistd.h>

namespace floe {

namespace {
uint64_t RandomU64() {
  static std::mutex mu;
  static std::mt19937_64 engine;
  static pid_t seeded_for = 0;
  std::lock_guard<std::mutex> lock(mu);
  // A forked child inherits the parent's engine state; reseed so the two never produce the
  // same file names or snapshot ids.
  if (seeded_for != ::getpid()) {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    engine.seed(seed);
    seeded_for = ::getpid();
  }
  return engine();
}
}  // namespace

std::string NewUuid() {
  uint64_t hi = RandomU64();
  uint64_t lo = RandomU64();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                              // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;       // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

int64_t NewSnapshotId() {
  int64_t id = 0;
  while (id == 0) id = static_cast<int64_t>(RandomU64() & 0x7FFFFFFFFFFFFFFFULL);
  return id;
}

}  // namespace floe
