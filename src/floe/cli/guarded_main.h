#pragma once

// The last line of defence of floe's binaries: whatever escapes `run` ends the process with
// an `Error:` line and `failure_code`, never an abort.

#include <exception>
#include <iostream>

namespace floe::cli {

template <typename Run>
int GuardedMain(Run run, int failure_code) {
  try {
    return run();
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "Error: unknown exception\n";
  }
  return failure_code;
}

}  // namespace floe::cli
