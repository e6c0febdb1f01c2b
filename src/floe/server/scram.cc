#include "floe/server/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <charconv>
#include <vector>

namespace floe::server {

namespace {

constexpr char kPrefix[] = "SCRAM-SHA-256$";
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Sha256(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof(out));
}

Result<std::string> RandomBytes(int n) {
  std::string bytes(static_cast<size_t>(n), '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), n) != 1) {
    return Status::IOError("cannot read random bytes from OpenSSL");
  }
  return bytes;
}

// The attribute `name` ("r", "p", ...) of a SCRAM message "a=...,b=...".
std::optional<std::string_view> Attribute(std::string_view message, char name) {
  while (!message.empty()) {
    size_t comma = message.find(',');
    std::string_view part = message.substr(0, comma);
    if (part.size() >= 2 && part[0] == name && part[1] == '=') return part.substr(2);
    if (comma == std::string_view::npos) break;
    message.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

Status Malformed(std::string_view what) {
  return Status::Invalid("malformed SCRAM message (", what, ")");
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint32_t{static_cast<unsigned char>(bytes[i])} << 16) |
                 (uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return Status::Invalid("invalid base64 length");
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  size_t padding = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') {
      if (i + 2 < text.size()) return Status::Invalid("invalid base64 padding");
      ++padding;
      continue;
    }
    if (padding > 0) return Status::Invalid("invalid base64 padding");
    const char* at = std::char_traits<char>::find(kAlphabet, 64, c);
    if (at == nullptr) return Status::Invalid("invalid base64 character");
    v = (v << 6) | static_cast<uint32_t>(at - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((v >> bits) & 0xff));
    }
  }
  return out;
}

std::string ScramVerifier::ToString() const {
  return std::string(kPrefix) + std::to_string(iterations) + ":" + Base64Encode(salt) + "$" +
         Base64Encode(stored_key) + ":" + Base64Encode(server_key);
}

Result<ScramVerifier> ScramVerifier::Parse(std::string_view text) {
  auto bad = [&] { return Status::Invalid("not a SCRAM-SHA-256 verifier: '", text, "'"); };
  if (text.substr(0, sizeof(kPrefix) - 1) != kPrefix) return bad();
  std::string_view rest = text.substr(sizeof(kPrefix) - 1);
  size_t colon = rest.find(':');
  size_t dollar = rest.find('$');
  if (colon == std::string_view::npos || dollar == std::string_view::npos || dollar < colon) {
    return bad();
  }
  ScramVerifier v;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + colon, v.iterations);
  if (ec != std::errc() || end != rest.data() + colon || v.iterations < 1) return bad();
  ARROW_ASSIGN_OR_RAISE(v.salt, Base64Decode(rest.substr(colon + 1, dollar - colon - 1)));
  std::string_view keys = rest.substr(dollar + 1);
  size_t key_colon = keys.find(':');
  if (key_colon == std::string_view::npos) return bad();
  ARROW_ASSIGN_OR_RAISE(v.stored_key, Base64Decode(keys.substr(0, key_colon)));
  ARROW_ASSIGN_OR_RAISE(v.server_key, Base64Decode(keys.substr(key_colon + 1)));
  if (v.stored_key.size() != SHA256_DIGEST_LENGTH || v.server_key.size() != SHA256_DIGEST_LENGTH) {
    return bad();
  }
  return v;
}

Result<ScramVerifier> ScramVerifier::FromPassword(std::string_view password, std::string salt,
                                                  int iterations) {
  ScramVerifier v;
  v.iterations = iterations;
  if (salt.empty()) {
    ARROW_ASSIGN_OR_RAISE(salt, RandomBytes(16));
  }
  v.salt = std::move(salt);
  unsigned char salted[SHA256_DIGEST_LENGTH];
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(v.salt.data()),
                        static_cast<int>(v.salt.size()), iterations, EVP_sha256(), sizeof(salted),
                        salted) != 1) {
    return Status::IOError("PBKDF2 failed");
  }
  std::string salted_password(reinterpret_cast<char*>(salted), sizeof(salted));
  v.stored_key = Sha256(Hmac(salted_password, "Client Key"));
  v.server_key = Hmac(salted_password, "Server Key");
  return v;
}

ScramServer::ScramServer(std::optional<ScramVerifier> verifier, std::string server_nonce)
    : verifier_(std::move(verifier)), server_nonce_(std::move(server_nonce)) {}

Result<std::string> ScramServer::ClientFirst(std::string_view message) {
  // gs2-header: "n,," or "y,," (a client that could bind but thinks we cannot); "p=" asks
  // for channel binding, which is not offered.
  if (message.size() < 3) return Malformed("client-first too short");
  if (message[0] == 'p') return Status::Invalid("channel binding is not supported");
  if ((message[0] != 'n' && message[0] != 'y') || message[1] != ',') {
    return Malformed("gs2 header");
  }
  size_t second_comma = message.find(',', 2);
  if (second_comma == std::string_view::npos) return Malformed("gs2 header");
  gs2_header_ = std::string(message.substr(0, second_comma + 1));
  client_first_bare_ = std::string(message.substr(second_comma + 1));
  std::optional<std::string_view> client_nonce = Attribute(client_first_bare_, 'r');
  if (!client_nonce || client_nonce->empty()) return Malformed("no client nonce");
  if (server_nonce_.empty()) {
    ARROW_ASSIGN_OR_RAISE(std::string random, RandomBytes(18));
    server_nonce_ = Base64Encode(random);
  }
  if (verifier_) {
    used_ = *verifier_;
  } else {
    // A stable made-up salt per exchange: the client learns nothing from it.
    ARROW_ASSIGN_OR_RAISE(used_.salt, RandomBytes(16));
    used_.iterations = kScramIterations;
  }
  nonce_ = std::string(*client_nonce) + server_nonce_;
  server_first_ =
      "r=" + nonce_ + ",s=" + Base64Encode(used_.salt) + ",i=" + std::to_string(used_.iterations);
  return server_first_;
}

Result<std::string> ScramServer::ClientFinal(std::string_view message) {
  if (server_first_.empty()) return Malformed("client-final before client-first");
  std::optional<std::string_view> binding = Attribute(message, 'c');
  std::optional<std::string_view> nonce = Attribute(message, 'r');
  size_t proof_at = message.rfind(",p=");
  if (!binding || !nonce || proof_at == std::string_view::npos) {
    return Malformed("client-final attributes");
  }
  if (*binding != Base64Encode(gs2_header_)) return Malformed("channel binding data");
  if (*nonce != nonce_) return Malformed("nonce");
  ARROW_ASSIGN_OR_RAISE(std::string proof, Base64Decode(message.substr(proof_at + 3)));
  std::string auth_message =
      client_first_bare_ + "," + server_first_ + "," + std::string(message.substr(0, proof_at));
  if (!verifier_ || proof.size() != SHA256_DIGEST_LENGTH) {
    return Status::Invalid("authentication failed");
  }
  std::string client_signature = Hmac(used_.stored_key, auth_message);
  std::string client_key(proof.size(), '\0');
  for (size_t i = 0; i < proof.size(); ++i) client_key[i] = proof[i] ^ client_signature[i];
  if (!ConstantTimeEqual(Sha256(client_key), used_.stored_key)) {
    return Status::Invalid("authentication failed");
  }
  return "v=" + Base64Encode(Hmac(used_.server_key, auth_message));
}

}  // namespace floe::server
