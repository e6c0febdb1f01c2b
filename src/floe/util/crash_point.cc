#include "floe/util/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace floe {

void CrashPoint(const char* name) {
  static const char* const wanted = std::getenv("FLOE_CRASH_POINT");
  if (wanted == nullptr || std::strcmp(wanted, name) != 0) return;
  ::kill(::getpid(), SIGKILL);
  ::_exit(137);  // not reached
}

}  // namespace floe
