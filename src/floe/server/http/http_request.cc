#include "floe/server/http/http_request.h"

#include <cctype>
#include <cstdint>
#include <vector>

namespace floe::server::http {

namespace {

// RFC 9110 tchar: the characters of methods and field names.
bool IsTokenChar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(std::string_view text) {
  if (text.empty()) return false;
  for (unsigned char c : text) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// Visible ASCII only: a target with spaces, controls or raw non-ASCII bytes is malformed.
bool IsTargetChar(unsigned char c) { return c > 0x20 && c < 0x7F; }

// Field values may hold visible characters, spaces, tabs and (obsolete but allowed) bytes
// above 0x7F; never other control characters.
bool IsFieldValueChar(unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7F); }

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> SplitLines(std::string_view head) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < head.size()) {
    size_t end = head.find('\n', start);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

ParsedRequest Fail(int status, std::string reason) {
  ParsedRequest parsed;
  parsed.error = HttpRequestError{status, std::move(reason)};
  return parsed;
}

}  // namespace

std::optional<std::string> HttpRequest::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

bool HttpRequest::KeepAlive() const {
  std::string connection = Header("connection").value_or("");
  for (auto& c : connection) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto has = [&](std::string_view token) {
    size_t start = 0;
    while (start <= connection.size()) {
      size_t end = connection.find(',', start);
      if (end == std::string::npos) end = connection.size();
      if (TrimSpaces(std::string_view(connection).substr(start, end - start)) == token) return true;
      start = end + 1;
    }
    return false;
  };
  if (version == "HTTP/1.0") return has("keep-alive");
  return !has("close");
}

std::optional<size_t> FindRequestHeadEnd(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\n') continue;
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return std::nullopt;
}

ParsedRequest ParseRequestHead(std::string_view head) {
  if (head.size() > kMaxRequestHeadBytes) return Fail(431, "Request header fields too large");
  std::vector<std::string_view> lines = SplitLines(head);
  // A client may send empty lines before the request line (RFC 9112 2.2).
  size_t first = 0;
  while (first < lines.size() && lines[first].empty()) ++first;
  if (first == lines.size()) return Fail(400, "Empty request");

  const std::string_view line = lines[first];
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Fail(400, "Malformed request line");
  }
  HttpRequest request;
  request.method = std::string(line.substr(0, sp1));
  request.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  request.version = std::string(line.substr(sp2 + 1));
  if (!IsToken(request.method)) return Fail(400, "Malformed request method");
  if (request.version.size() != 8 || request.version.compare(0, 5, "HTTP/") != 0 ||
      !std::isdigit(static_cast<unsigned char>(request.version[5])) || request.version[6] != '.' ||
      !std::isdigit(static_cast<unsigned char>(request.version[7]))) {
    return Fail(400, "Malformed HTTP version");
  }
  if (request.version != "HTTP/1.1" && request.version != "HTTP/1.0") {
    return Fail(505, "HTTP version not supported");
  }
  if (request.target.empty() || request.target.front() != '/') {
    return Fail(400, "The request target must be a path");
  }
  for (unsigned char c : request.target) {
    if (!IsTargetChar(c)) return Fail(400, "Malformed request target");
  }
  const size_t question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string::npos) request.query = request.target.substr(question + 1);

  size_t fields = 0;
  for (size_t i = first + 1; i < lines.size(); ++i) {
    const std::string_view field = lines[i];
    if (field.empty()) break;  // the blank line that ends the head
    if (++fields > kMaxHeaderFields) return Fail(431, "Too many header fields");
    // Line folding is obsolete and a smuggling risk (RFC 9112 5.2): refused.
    if (field.front() == ' ' || field.front() == '\t') return Fail(400, "Folded header field");
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos) return Fail(400, "Malformed header field");
    const std::string_view name = field.substr(0, colon);
    if (!IsToken(name)) return Fail(400, "Malformed header field name");
    const std::string_view value = TrimSpaces(field.substr(colon + 1));
    for (unsigned char c : value) {
      if (!IsFieldValueChar(c)) return Fail(400, "Malformed header field value");
    }
    std::string key(name);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto [it, inserted] = request.headers.emplace(key, std::string(value));
    if (!inserted) {
      // Two lengths could frame the request two ways: refused, as RFC 9112 6.3 asks.
      if (key == "content-length" || key == "host") return Fail(400, "Repeated " + key);
      it->second += ", " + std::string(value);
    }
  }
  if (request.version == "HTTP/1.1" && !request.Header("host")) {
    return Fail(400, "Missing Host header");
  }
  ParsedRequest parsed;
  parsed.request = std::move(request);
  return parsed;
}

BodyLength RequestBodyLength(const HttpRequest& request, size_t max_body_bytes) {
  BodyLength body;
  if (request.Header("transfer-encoding")) {
    body.error =
        HttpRequestError{411, "Chunked request bodies are not accepted; send Content-Length"};
    return body;
  }
  const std::optional<std::string> length = request.Header("content-length");
  if (!length) return body;
  if (length->empty() || length->size() > 19) {
    body.error =
        HttpRequestError{length->empty() ? 400 : 413, "Malformed or too large Content-Length"};
    return body;
  }
  uint64_t value = 0;
  for (unsigned char c : *length) {
    if (!std::isdigit(c)) {
      body.error = HttpRequestError{400, "Malformed Content-Length"};
      return body;
    }
    value = value * 10 + (c - '0');
  }
  if (value > max_body_bytes) {
    body.error = HttpRequestError{413, "The request body of " + std::to_string(value) +
                                           " bytes exceeds the limit of " +
                                           std::to_string(max_body_bytes) + " bytes"};
    return body;
  }
  body.length = static_cast<size_t>(value);
  return body;
}

bool HttpRequestReader::InRequest() const {
  if (pending_) return true;
  for (char c : buffer_) {
    if (c != '\r' && c != '\n') return true;
  }
  return false;
}

HttpRequestReader::Step HttpRequestReader::Next() {
  Step step;
  auto fail = [&](HttpRequestError error) {
    failed_ = true;
    step.state = State::kError;
    step.error = std::move(error);
    return step;
  };
  if (failed_) return fail({400, "The connection cannot be read further"});
  if (!pending_) {
    const std::optional<size_t> end = FindRequestHeadEnd(buffer_);
    if (!end) {
      if (buffer_.size() > kMaxRequestHeadBytes)
        return fail({431, "Request header fields too large"});
      return step;
    }
    ParsedRequest parsed = ParseRequestHead(std::string_view(buffer_).substr(0, *end));
    if (parsed.error) return fail(*parsed.error);
    BodyLength body = RequestBodyLength(*parsed.request, max_body_bytes_);
    if (body.error) return fail(*body.error);
    buffer_.erase(0, *end);
    pending_ = std::move(parsed.request);
    body_length_ = body.length;
  }
  if (buffer_.size() < body_length_) return step;
  pending_->body = buffer_.substr(0, body_length_);
  buffer_.erase(0, body_length_);
  step.state = State::kRequest;
  step.request = std::move(pending_);
  pending_.reset();
  body_length_ = 0;
  return step;
}

}  // namespace floe::server::http
