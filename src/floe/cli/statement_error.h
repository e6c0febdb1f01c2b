#pragma once

// Errors of statements a subcommand generated: the user wrote options, not the SQL, so the
// "(line L, column C)" suffix and the caret lines that point into it are dropped.

#include "floe/util/status.h"

namespace floe::cli {

// The first line of the message without its position; the kind and detail are kept.
Status WithoutSqlPosition(const Status& status);

}  // namespace floe::cli
