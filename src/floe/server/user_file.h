#pragma once

// The users file of `floe serve --auth password`: one "name:verifier" line per user, the
// verifier a SCRAM-SHA-256 one (scram.h). Blank lines and lines starting with '#' are
// skipped.

#include <map>
#include <string>

#include "floe/server/scram.h"
#include "floe/util/status.h"

namespace floe::server {

using UserVerifiers = std::map<std::string, ScramVerifier>;

// A missing file is an error naming it; a bad line names its number.
Result<UserVerifiers> LoadUserFile(const std::string& path);

// Adds or replaces `name` with a verifier of `password`, rewriting the file (created
// readable by its owner only).
Status AddUser(const std::string& path, const std::string& name, const std::string& password);

}  // namespace floe::server
