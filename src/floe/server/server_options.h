#pragma once

// How `floe serve` listens, authenticates and bounds its connections.

#include <functional>
#include <memory>
#include <string>

#include "floe/server/user_file.h"
#include "floe/sql/session.h"
#include "floe/util/status.h"

namespace floe::server {

enum class AuthMethod { kTrust, kPassword };

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 5433;  // 0: any free port (Server::port() tells which)
  AuthMethod auth = AuthMethod::kTrust;
  UserVerifiers users;        // for kPassword
  std::string tls_cert_file;  // both set: SSLRequest is answered 'S'
  std::string tls_key_file;
  // Trust lets anyone who can reach the port in; only loopback peers unless allowed.
  bool allow_trust_remote = false;
  double idle_timeout_seconds = 0;       // 0: none
  double statement_timeout_seconds = 0;  // 0: none
  // The catalog's name: the database name clients connect to (or one of its namespaces).
  std::string catalog_name = "lakehouse";
  // Opens each connection's own session.
  std::function<Result<std::unique_ptr<sql::Session>>()> open_session;
};

}  // namespace floe::server
