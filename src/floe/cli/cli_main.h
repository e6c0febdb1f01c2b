#pragma once

namespace floe::cli {

// Parses the command line (argv[0] is the program name) and runs the chosen subcommand;
// returns the process exit status. Errors a subcommand does not catch propagate as
// exceptions (GuardedMain turns them into an `Error:` line).
int RunCli(int argc, char** argv);

}  // namespace floe::cli
