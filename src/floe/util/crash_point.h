#pragma once

// Named points where a test can kill the process as the kernel's OOM killer or a power cut
// would: with FLOE_CRASH_POINT=<name> in the environment, reaching the point ends the process
// at once with SIGKILL, nothing flushed and no destructor run. Without it, a point costs one
// comparison.

namespace floe {

void CrashPoint(const char* name);

}  // namespace floe
