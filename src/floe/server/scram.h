#pragma once

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it: the stored verifier
// ("SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>", never the password) and the
// server's side of the exchange. Channel binding is not offered.

#include <optional>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::server {

inline constexpr int kScramIterations = 4096;

struct ScramVerifier {
  int iterations = kScramIterations;
  std::string salt;        // raw bytes
  std::string stored_key;  // H(HMAC(SaltedPassword, "Client Key"))
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")

  std::string ToString() const;
  static Result<ScramVerifier> Parse(std::string_view text);
  // `salt` empty: 16 random bytes.
  static Result<ScramVerifier> FromPassword(std::string_view password, std::string salt = "",
                                            int iterations = kScramIterations);
};

std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

// One exchange. A missing verifier (unknown user) runs the exchange to its end against a
// made-up one and fails there, so a client cannot tell unknown users from wrong passwords.
class ScramServer {
 public:
  // `server_nonce` empty: 18 random bytes, base64.
  ScramServer(std::optional<ScramVerifier> verifier, std::string server_nonce = "");

  // client-first-message -> server-first-message.
  Result<std::string> ClientFirst(std::string_view message);
  // client-final-message -> server-final-message; an error means authentication failed
  // (or the message was malformed).
  Result<std::string> ClientFinal(std::string_view message);

 private:
  std::optional<ScramVerifier> verifier_;
  ScramVerifier used_;
  std::string server_nonce_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string gs2_header_;
  std::string nonce_;
};

}  // namespace floe::server
