#include "floe/catalog/rest_http_client.h"

#include <curl/curl.h>

#include <cctype>

namespace floe {

std::string PercentEncodeComponent(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

// libcurl's global state is set up once per process, before any handle.
Status InitCurlOnce() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) {
    return Status::IOError("Cannot start the HTTP client: ", curl_easy_strerror(rc));
  }
  return Status::OK();
}

size_t CollectBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// Keeps the headers of the last response only (a 100 Continue or a redirect has its own).
size_t CollectHeader(char* data, size_t size, size_t count, void* out) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(out);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return size * count;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  (*headers)[name] = std::string(value);
  return size * count;
}

// Failures that leave no connection made: the request certainly did not reach the server.
bool BeforeConnecting(CURLcode rc) {
  return rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY ||
         rc == CURLE_COULDNT_CONNECT || rc == CURLE_SSL_CONNECT_ERROR ||
         rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
         rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT;
}

class HeaderList {
 public:
  ~HeaderList() { curl_slist_free_all(list_); }
  void Add(const std::string& name, const std::string& value) {
    list_ = curl_slist_append(list_, (name + ": " + value).c_str());
  }
  curl_slist* get() const { return list_; }

 private:
  curl_slist* list_ = nullptr;
};

}  // namespace

RestHttpClient::RestHttpClient(RestHttpOptions options, void* handle)
    : options_(std::move(options)), handle_(handle) {}

RestHttpClient::~RestHttpClient() { curl_easy_cleanup(static_cast<CURL*>(handle_)); }

Result<std::unique_ptr<RestHttpClient>> RestHttpClient::Make(RestHttpOptions options) {
  ARROW_RETURN_NOT_OK(InitCurlOnce());
  CURL* handle = curl_easy_init();
  if (handle == nullptr) return Status::IOError("Cannot start the HTTP client");
  return std::unique_ptr<RestHttpClient>(new RestHttpClient(std::move(options), handle));
}

Result<RestHttpReply> RestHttpClient::Send(std::string_view method, const std::string& url,
                                           const HttpHeaders& headers, std::string_view body,
                                           bool* maybe_sent) {
  std::lock_guard<std::mutex> lock(mu_);
  CURL* curl = static_cast<CURL*>(handle_);
  curl_easy_reset(curl);  // keeps the connection, drops the last request's settings
  const std::string verb(method);
  RestHttpReply reply;
  HeaderList list;
  for (const auto& [name, value] : headers) list.Add(name, value);
  for (const auto& [name, value] : options_.headers) list.Add(name, value);
  // No "Expect: 100-continue" pause before bodies.
  list.Add("Expect", "");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, verb.c_str());
  if (verb == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  // libcurl sends a request again, unasked, when a kept-alive connection turns out dead before
  // any answer; a change (a commit) the server took from the first send would then be made
  // twice, or refused as a conflict with itself. A change gets a connection of its own.
  if (verb != "GET" && verb != "HEAD") curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
  if (!body.empty() || verb == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, CollectHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_ms));
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(curl);
  if (maybe_sent != nullptr) *maybe_sent = !BeforeConnecting(rc);
  if (rc != CURLE_OK) {
    return Status::IOError("Cannot ", verb, " ", url, ": ",
                           error[0] != '\0' ? error : curl_easy_strerror(rc));
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  reply.status = static_cast<int>(status);
  return reply;
}

}  // namespace floe
