#pragma once

#include <ostream>
#include <string>

#include "floe/sql/session.h"

namespace floe::cli {

struct VerifyCommandOptions {
  std::string table;         // "db.t" or "<catalog>.db.t"
  std::string catalog_name;  // a leading part equal to it names the catalog
  bool json = false;
  bool check_sizes = false;
};

// `floe verify`: checks that every file the table's current metadata reaches exists (and,
// with check_sizes, has its recorded size). Prints a summary, then one line per missing or
// damaged file, to `out`; a user error (unknown table) is one line on `err`. Returns 0 when
// every file is present, 2 when some are not, 1 on an error.
int RunVerify(sql::Session& session, const VerifyCommandOptions& options, std::ostream& out,
              std::ostream& err);

}  // namespace floe::cli
