// libFuzzer target: any bytes as one request to the REST catalog's routes, "METHOD TARGET"
// on the first line and the body after it, against the SQL engine target's catalog (db.t with
// snapshots, a tag and a branch; db.u), restored before each input. Every answer is a status
// the catalog sends with an ErrorModel or JSON body; none is a 5xx (nothing here can leave a
// commit's outcome unknown); and a refused request leaves both tables as they were. Requests to
// the OAuth2 token endpoint go to an authenticator with one user instead.
#include <string>

#include <rapidjson/document.h>

#include "floe/server/rest/rest_auth.h"
#include "floe/server/rest/rest_catalog.h"
#include "floe/spec/json_document.h"
#include "floe/sql/session.h"
#include "fuzz_support.h"

namespace {

std::string Location(floe::sql::Session& session, const char* table) {
  auto ident = floe::TableIdentifier(floe::Namespace({"db"}), table);
  return session.catalog()->LoadMetadataLocation(ident).ValueOr("(none)");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  floe::fuzz::InitEngine();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace http = floe::server::http;
  std::string_view in = floe::fuzz::Text(data, size);
  const size_t line_end = in.find('\n');
  std::string_view line = in.substr(0, line_end);
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  http::HttpRequest request;
  request.method = std::string(line.substr(0, space));
  request.target = std::string(line.substr(space + 1));
  if (request.target.empty() || request.target[0] != '/') return 0;
  const size_t question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string::npos) request.query = request.target.substr(question + 1);
  request.version = "HTTP/1.1";
  if (line_end != std::string_view::npos) request.body = std::string(in.substr(line_end + 1));
  request.remote_address = "127.0.0.1:1";

  if (request.path == floe::server::rest::kTokenPath) {
    // One user, "ana" with password "secret"; one PBKDF2 round keeps the fuzzer fast.
    static floe::server::rest::RestAuthenticator auth(floe::server::UserVerifiers{
        {"ana", floe::fuzz::Check(floe::server::ScramVerifier::FromPassword("secret", "salt", 1),
                                  "verifier")}});
    const http::HttpResponse answer = auth.IssueToken(request);
    if (answer.status != 200 && answer.status != 400 && answer.status != 401) {
      floe::fuzz::Die("the token endpoint answered " + std::to_string(answer.status));
    }
    return 0;
  }
  floe::sql::Session& session = floe::fuzz::RestoreEngine();
  const std::string t_before = Location(session, "t"), u_before = Location(session, "u");
  floe::server::rest::RestCatalog catalog;
  const http::HttpResponse response = catalog.Handle(request, session, "fuzz");
  if (response.status >= 500) {
    floe::fuzz::Die("answered " + std::to_string(response.status) + ": " + response.body);
  }
  if (!response.body.empty()) {
    std::string buffer;
    rapidjson::Document doc;
    if (!floe::spec::ParseJsonDocument(response.body, &buffer, &doc).ok() || !doc.IsObject()) {
      floe::fuzz::Die("answered a body that is not a JSON object: " + response.body);
    }
  }
  if (response.status >= 400 &&
      (Location(session, "t") != t_before || Location(session, "u") != u_before)) {
    floe::fuzz::Die("a refused request (" + std::to_string(response.status) +
                    ") changed a table: " + response.body);
  }
  return 0;
}
