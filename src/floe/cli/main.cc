// The floe binary: the command line of cli_main.cc behind the last-resort error guard.

#include "floe/cli/cli_main.h"
#include "floe/cli/guarded_main.h"
#include "floe/cli/sql_command.h"
#include "floe/io/object_store.h"

// Whatever escapes a subcommand ends the process with an error line, never an abort.
int main(int argc, char** argv) {
  int code =
      floe::cli::GuardedMain([&] { return floe::cli::RunCli(argc, argv); }, floe::cli::kExitFailed);
  // Every session is closed by now; the AWS SDK must shut down before static destructors.
  (void)floe::FinalizeObjectStore();
  return code;
}
