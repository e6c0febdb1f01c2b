#include "floe/server/connection.h"

#include <arpa/inet.h>
#include <openssl/rand.h>

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/type.h>

#include <algorithm>
#include <cctype>

#include "floe/server/parameter_decoding.h"
#include "floe/server/pg_message.h"
#include "floe/server/pg_type_map.h"
#include "floe/server/scram.h"
#include "floe/server/value_encoding.h"
#include "floe/sql/parse/statement_splitter.h"

namespace floe::server {

namespace {

// Rows are written out once this much is buffered, so a large result streams.
constexpr size_t kFlushThreshold = 64 * 1024;
constexpr char kTimeZoneKey[] = "spark.sql.session.timeZone";
constexpr char kAbortedTransaction[] =
    "current transaction is aborted, commands ignored until end of transaction block";

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// "-c TimeZone=UTC --datestyle=ISO" (the startup packet's options): name -> value.
std::map<std::string, std::string> ParseOptions(const std::string& options) {
  std::map<std::string, std::string> out;
  std::vector<std::string> words;
  std::string word;
  bool escape = false;
  for (char c : options) {
    if (escape) {
      word.push_back(c);
      escape = false;
    } else if (c == '\\') {
      escape = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) words.push_back(word);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string setting;
    if (words[i] == "-c" && i + 1 < words.size()) {
      setting = words[++i];
    } else if (words[i].rfind("--", 0) == 0) {
      setting = words[i].substr(2);
    } else if (words[i].rfind("-c", 0) == 0) {
      setting = words[i].substr(2);
    }
    size_t eq = setting.find('=');
    if (eq != std::string::npos) out[setting.substr(0, eq)] = setting.substr(eq + 1);
  }
  return out;
}

}  // namespace

// ---- CancelRegistry ----

std::pair<int32_t, int32_t> CancelRegistry::Register(Connection* connection) {
  int32_t secret = 0;
  RAND_bytes(reinterpret_cast<unsigned char*>(&secret), sizeof(secret));
  std::lock_guard<std::mutex> lock(mutex_);
  int32_t pid = next_pid_++;
  live_[pid] = {secret, connection};
  return {pid, secret};
}

void CancelRegistry::Unregister(int32_t pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_.erase(pid);
}

void CancelRegistry::Cancel(int32_t pid, int32_t secret) {
  // Held while cancelling, so the connection cannot unregister and go away meanwhile.
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(pid);
  if (it != live_.end() && it->second.first == secret) it->second.second->Cancel();
}

// ---- addresses ----

bool IsLoopback(const sockaddr_storage& peer) {
  if (peer.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(peer);
    return (ntohl(a.sin_addr.s_addr) >> 24) == 127;
  }
  if (peer.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(peer);
    if (IN6_IS_ADDR_LOOPBACK(&a.sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a.sin6_addr) && a.sin6_addr.s6_addr[12] == 127;
  }
  return peer.ss_family == AF_UNIX;
}

std::string PeerHost(const sockaddr_storage& peer) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (peer.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(peer).sin_addr, buf, sizeof(buf));
  } else if (peer.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr, buf, sizeof(buf));
  }
  return buf;
}

// ---- Connection ----

Connection::Connection(int fd, const sockaddr_storage& peer, ConnectionContext context)
    : context_(std::move(context)), socket_(std::make_unique<SocketStream>(fd)), peer_(peer) {}

Connection::~Connection() = default;

void Connection::Run() {
  if (Startup()) MainLoop();
  EndStatement();
  if (pid_ != 0) context_.cancels->Unregister(pid_);
  portals_.clear();
  session_.reset();
}

void Connection::Cancel() {
  std::lock_guard<std::mutex> lock(running_mutex_);
  if (running_ && session_) session_->Cancel();
}

void Connection::Shutdown() {
  shutting_down_ = true;
  Cancel();
  socket_->ShutdownRead();
}

Status Connection::Flush() {
  if (out_.empty()) return Status::OK();
  Status st = socket_->WriteAll(out_);
  out_.clear();
  return st;
}

void Connection::SendError(const PgError& error) { AppendErrorResponse(error, &out_); }

void Connection::SendFatal(const char* code, const std::string& message) {
  PgError error;
  error.severity = "FATAL";
  error.code = code;
  error.message = message;
  AppendErrorResponse(error, &out_);
  (void)Flush();
}

void Connection::SendNotice(const std::string& message) {
  PgError notice;
  notice.severity = "WARNING";
  notice.code = "01000";
  notice.message = message;
  AppendErrorResponse(notice, &out_, 'N');
}

void Connection::FailTransaction() {
  session_->session().FailTransaction();
  transaction_ = session_->session().TransactionStatus();
}

void Connection::ReadyForQuery() { MessageBuilder(&out_, 'Z').Byte(transaction_).Finish(); }

bool Connection::Startup() {
  StartupPacket packet;
  bool tls_done = false;
  while (true) {
    char length_bytes[4];
    if (socket_->ReadExact(length_bytes, 4) != SocketStream::ReadResult::kOk) return false;
    std::string length_word(length_bytes, 4);
    BodyReader reader(length_word);
    int32_t length = *reader.Int32();
    if (length < 8 || static_cast<uint32_t>(length) > kMaxStartupLength) {
      SendFatal(sqlstate::kProtocolViolation, "invalid length of startup packet");
      return false;
    }
    std::string body(static_cast<size_t>(length) - 4, '\0');
    if (socket_->ReadExact(body.data(), body.size()) != SocketStream::ReadResult::kOk) return false;
    Result<StartupPacket> parsed = ParseStartupPacket(body);
    if (!parsed.ok()) {
      SendFatal(sqlstate::kProtocolViolation, parsed.status().message());
      return false;
    }
    packet = std::move(*parsed);
    if (packet.kind == StartupPacket::Kind::kSsl) {
      bool accept = context_.tls != nullptr && !tls_done;
      if (!socket_->WriteAll(accept ? "S" : "N").ok()) return false;
      if (accept) {
        if (!socket_->StartTls(context_.tls->get()).ok()) return false;
        tls_done = true;
      }
      continue;
    }
    if (packet.kind == StartupPacket::Kind::kGssEnc) {
      if (!socket_->WriteAll("N").ok()) return false;
      continue;
    }
    if (packet.kind == StartupPacket::Kind::kCancel) {
      context_.cancels->Cancel(packet.cancel_pid, packet.cancel_secret);
      return false;
    }
    break;
  }
  const std::string& user = packet.parameters["user"];
  if (user.empty()) {
    SendFatal(sqlstate::kInvalidAuthorization,
              "no PostgreSQL user name specified in startup packet");
    return false;
  }
  if (!Authenticate(user)) return false;
  if (!OpenSession(packet.parameters)) return false;

  MessageBuilder(&out_, 'R').Int32(0).Finish();  // AuthenticationOk
  std::string application_name = packet.parameters["application_name"];
  std::vector<std::pair<std::string, std::string>> status = {
      {"server_version", "15.0 (floe)"},
      {"server_encoding", "UTF8"},
      {"client_encoding", "UTF8"},
      {"DateStyle", "ISO, MDY"},
      {"TimeZone", zone_.name()},
      {"integer_datetimes", "on"},
      {"IntervalStyle", "postgres"},
      {"standard_conforming_strings", "on"},
      {"application_name", application_name},
      {"is_superuser", "off"},
      {"session_authorization", user},
  };
  for (const auto& [name, value] : status) {
    MessageBuilder(&out_, 'S').CString(name).CString(value).Finish();
  }
  std::tie(pid_, secret_) = context_.cancels->Register(this);
  MessageBuilder(&out_, 'K').Int32(pid_).Int32(secret_).Finish();
  ReadyForQuery();
  return Flush().ok();
}

bool Connection::Authenticate(const std::string& user) {
  const ServerOptions& options = *context_.options;
  if (options.auth == AuthMethod::kTrust) {
    if (!IsLoopback(peer_) && !options.allow_trust_remote) {
      SendFatal(sqlstate::kInvalidAuthorization,
                "trust authentication is refused for host \"" + PeerHost(peer_) +
                    "\": it is not a loopback address (start floe serve with --auth password, "
                    "or --allow-trust-remote)");
      return false;
    }
    return true;
  }
  const std::string failed = "password authentication failed for user \"" + user + "\"";
  // AuthenticationSASL with the one mechanism offered.
  MessageBuilder(&out_, 'R').Int32(10).CString("SCRAM-SHA-256").Byte('\0').Finish();
  if (!Flush().ok()) return false;
  auto found = options.users.find(user);
  ScramServer scram(found == options.users.end() ? std::nullopt
                                                 : std::optional<ScramVerifier>(found->second));
  char type = 0;
  std::string body;
  if (!ReadMessage(&type, &body)) return false;
  if (type != 'p') {
    SendFatal(sqlstate::kProtocolViolation,
              "expected SASL response, got message type '" + std::string(1, type) + "'");
    return false;
  }
  BodyReader initial(body);
  Result<std::string> mechanism = initial.CString();
  Result<int32_t> length = mechanism.ok() ? initial.Int32() : Result<int32_t>(mechanism.status());
  if (!length.ok() || *mechanism != "SCRAM-SHA-256" || *length < 0 ||
      static_cast<size_t>(*length) != initial.remaining()) {
    SendFatal(sqlstate::kProtocolViolation, "malformed SASLInitialResponse");
    return false;
  }
  Result<std::string> server_first =
      scram.ClientFirst(*initial.Bytes(static_cast<size_t>(*length)));
  if (!server_first.ok()) {
    SendFatal(sqlstate::kProtocolViolation, server_first.status().message());
    return false;
  }
  MessageBuilder(&out_, 'R').Int32(11).Bytes(*server_first).Finish();
  if (!Flush().ok()) return false;
  if (!ReadMessage(&type, &body)) return false;
  if (type != 'p') {
    SendFatal(sqlstate::kProtocolViolation, "expected SASL response");
    return false;
  }
  Result<std::string> server_final = scram.ClientFinal(body);
  if (!server_final.ok()) {
    SendFatal(sqlstate::kInvalidPassword, failed);
    return false;
  }
  MessageBuilder(&out_, 'R').Int32(12).Bytes(*server_final).Finish();
  return true;
}

bool Connection::OpenSession(const std::map<std::string, std::string>& parameters) {
  const ServerOptions& options = *context_.options;
  auto value = [&](const std::string& key) {
    auto it = parameters.find(key);
    return it == parameters.end() ? std::string() : it->second;
  };
  std::string database = value("database");
  if (database.empty()) database = value("user");
  Result<std::unique_ptr<sql::Session>> session = options.open_session();
  if (!session.ok()) {
    SendFatal(sqlstate::kConnectionFailure,
              "cannot open the catalog: " + session.status().message());
    return false;
  }
  session_ = std::make_unique<SessionAdapter>(std::move(*session));
  sql::Session& s = session_->session();
  (void)s.SetSetting("floe.pg.client", "true");
  // Commits and audit-log rows name the database user and where the connection came from.
  s.SetClientIdentity(value("user"), peer_.ss_family == AF_UNIX ? "local" : PeerHost(peer_));
  if (database != options.catalog_name) {
    // A namespace of the catalog: the session's current one.
    std::string quoted = "`";
    for (char c : database) {
      if (c == '`') quoted.push_back('`');
      quoted.push_back(c);
    }
    quoted.push_back('`');
    if (!s.Execute("USE " + quoted).ok()) {
      SendFatal(sqlstate::kInvalidCatalogName, "database \"" + database + "\" does not exist");
      return false;
    }
  }
  std::map<std::string, std::string> settings = ParseOptions(value("options"));
  std::string zone_name = value("TimeZone");
  for (const auto& [k, v] : settings) {
    if (Upper(k) == "TIMEZONE") zone_name = v;
  }
  if (zone_name.empty()) zone_name = s.Setting(kTimeZoneKey, "UTC");
  Result<TimeZone> zone = TimeZone::Make(zone_name);
  if (!zone.ok() || !s.SetSetting(kTimeZoneKey, zone_name).ok()) {
    SendFatal(sqlstate::kInvalidParameterValue,
              "invalid value for parameter \"TimeZone\": \"" + zone_name + "\"");
    return false;
  }
  zone_ = *zone;
  return true;
}

bool Connection::ReadMessage(char* type, std::string* body) {
  char header[5];
  // The idle timeout applies while the client owes us its next message.
  int timeout_ms = static_cast<int>(context_.options->idle_timeout_seconds * 1000);
  SocketStream::ReadResult r = socket_->ReadExact(header, 5, timeout_ms);
  if (r == SocketStream::ReadResult::kTimeout) {
    SendFatal(sqlstate::kIdleSessionTimeout, "terminating connection due to idle-session timeout");
    return false;
  }
  if (r != SocketStream::ReadResult::kOk) return false;
  uint32_t length = (static_cast<uint32_t>(static_cast<unsigned char>(header[1])) << 24) |
                    (static_cast<uint32_t>(static_cast<unsigned char>(header[2])) << 16) |
                    (static_cast<uint32_t>(static_cast<unsigned char>(header[3])) << 8) |
                    static_cast<unsigned char>(header[4]);
  if (length < 4 || length > kMaxMessageLength) {
    SendFatal(sqlstate::kProtocolViolation, "invalid message length " + std::to_string(length));
    return false;
  }
  *type = header[0];
  body->assign(length - 4, '\0');
  if (length > 4 &&
      socket_->ReadExact(body->data(), body->size()) != SocketStream::ReadResult::kOk) {
    return false;
  }
  return true;
}

void Connection::MainLoop() {
  char type = 0;
  std::string body;
  while (!shutting_down_ && ReadMessage(&type, &body)) {
    bool keep_going = true;
    switch (type) {
      case 'Q':
        keep_going = HandleSimpleQuery(body);
        break;
      case 'P':
        keep_going = HandleParse(body);
        break;
      case 'B':
        keep_going = HandleBind(body);
        break;
      case 'D':
        keep_going = HandleDescribe(body);
        break;
      case 'E':
        keep_going = HandleExecute(body);
        break;
      case 'C':
        keep_going = HandleClose(body);
        break;
      case 'S':
        HandleSync();
        break;
      case 'H':
        break;  // Flush: written below
      case 'X':
        return;
      default:
        SendFatal(
            sqlstate::kProtocolViolation,
            "invalid frontend message type " + std::to_string(static_cast<unsigned char>(type)));
        return;
    }
    if (!keep_going || !Flush().ok()) return;
  }
  if (shutting_down_ && !told_shutdown_) SendFatal(sqlstate::kAdminShutdown, kAdminShutdownMessage);
}

void Connection::BeginStatement() {
  std::lock_guard<std::mutex> lock(running_mutex_);
  running_ = true;
  timed_out_ = false;
  double timeout = context_.options->statement_timeout_seconds;
  if (timeout > 0) {
    auto deadline = DeadlineTimer::Clock::now() +
                    std::chrono::microseconds(static_cast<int64_t>(timeout * 1e6));
    context_.timer->Arm(static_cast<uint64_t>(pid_), deadline, [this] {
      std::lock_guard<std::mutex> inner(running_mutex_);
      if (!running_) return;
      timed_out_ = true;
      session_->Cancel();
    });
  }
}

void Connection::EndStatement() {
  if (context_.options->statement_timeout_seconds > 0) {
    context_.timer->Disarm(static_cast<uint64_t>(pid_));
  }
  std::lock_guard<std::mutex> lock(running_mutex_);
  running_ = false;
}

PgError Connection::ErrorFor(const Status& status, std::string_view sql, int statement_chars) {
  PgError error = ErrorFromStatus(status, sql, statement_chars);
  if (status.IsCancelled()) {
    std::lock_guard<std::mutex> lock(running_mutex_);
    error.code = sqlstate::kQueryCanceled;
    error.message = timed_out_ ? "canceling statement due to statement timeout"
                               : "canceling statement due to user request";
    if (shutting_down_) {
      // The server is stopping: PostgreSQL's words for a fast shutdown, once.
      error.severity = "FATAL";
      error.code = sqlstate::kAdminShutdown;
      error.message = kAdminShutdownMessage;
      told_shutdown_ = true;
    }
  }
  if (status.message() == kAbortedTransaction) error.code = sqlstate::kInFailedTransaction;
  if (const char* code = SavepointErrorCode(status.message())) error.code = code;
  constexpr std::string_view kInBlock = " cannot run inside a transaction block";
  if (std::string_view(status.message()).ends_with(kInBlock)) {
    error.code = sqlstate::kActiveSqlTransaction;
  }
  FailTransaction();
  return error;
}

void Connection::RowDescription(const arrow::Schema& schema, const std::vector<int16_t>& formats) {
  MessageBuilder m(&out_, 'T');
  m.Int16(static_cast<int16_t>(schema.num_fields()));
  for (int i = 0; i < schema.num_fields(); ++i) {
    PgType type = PgTypeFor(*schema.field(i)->type());
    int16_t format = formats.empty()       ? 0
                     : formats.size() == 1 ? formats[0]
                                           : formats[static_cast<size_t>(i)];
    m.CString(schema.field(i)->name())
        .Int32(0)
        .Int16(0)
        .Int32(type.oid)
        .Int16(type.typlen)
        .Int32(type.typmod)
        .Int16(format);
  }
  m.Finish();
}

std::string Connection::CommandTag(const Portal& portal) const {
  if (!portal.fixed_tag.empty()) return portal.fixed_tag;
  const StatementStream& stream = *portal.stream;
  std::string command = stream.command();
  int64_t n = stream.rows_affected();
  if (command == "SELECT" || (stream.schema() != nullptr && command.empty())) {
    return "SELECT " + std::to_string(portal.rows_sent);
  }
  if (command == "INSERT") return "INSERT 0 " + std::to_string(std::max<int64_t>(n, 0));
  if (command == "UPDATE" || command == "DELETE" || command == "MERGE") {
    return command + " " + std::to_string(std::max<int64_t>(n, 0));
  }
  return command;
}

Status Connection::RunTransactionStatement(const TransactionStatement&, Portal* portal) {
  // The session keeps the block (its staged writes, savepoints and state); the server reports
  // its state in ReadyForQuery and its warnings as notices.
  Result<sql::StatementResult> result = [&] {
    ExecutionGate::Slot slot(context_.gate);
    return session_->session().Execute(portal->statement->query);
  }();
  transaction_ = session_->session().TransactionStatus();
  if (!result.ok()) return result.status();
  constexpr std::string_view kWarning = "Warning: ";
  if (result->message.rfind(kWarning, 0) == 0) SendNotice(result->message.substr(kWarning.size()));
  portal->fixed_tag = result->command;
  return Status::OK();
}

Result<bool> Connection::HasRowToSend(Portal* portal) {
  while (portal->batch == nullptr || portal->batch_row >= portal->batch->num_rows()) {
    Result<std::shared_ptr<arrow::RecordBatch>> next = [&] {
      ExecutionGate::Slot slot(context_.gate);
      return portal->stream->Next();
    }();
    ARROW_ASSIGN_OR_RAISE(portal->batch, std::move(next));
    portal->batch_row = 0;
    if (portal->batch == nullptr) return false;
  }
  return true;
}

Status Connection::RunCopyOut(Portal* portal) {
  const bool binary = *portal->copy == CopyFormat::kBinary;
  std::shared_ptr<arrow::Schema> schema = portal->stream->schema();
  const int columns = schema ? schema->num_fields() : 0;
  if (portal->rows_sent == 0 && portal->batch == nullptr) {
    MessageBuilder response(&out_, 'H');  // CopyOutResponse
    response.Byte(binary ? 1 : 0).Int16(static_cast<int16_t>(columns));
    for (int c = 0; c < columns; ++c) response.Int16(binary ? 1 : 0);
    response.Finish();
  }
  // The binary header (signature, flags, extension length) goes in the CopyData of the first
  // tuple, or of the trailer, as PostgreSQL sends it: readers expect it there.
  std::string header;
  if (binary && portal->rows_sent == 0) {
    static constexpr char kSignature[] = "PGCOPY\n\377\r\n";
    header.assign(kSignature, 11);
    AppendInt32(&header, 0);
    AppendInt32(&header, 0);
  }
  Status result = Status::OK();
  while (result.ok() && schema != nullptr) {
    Result<bool> more = HasRowToSend(portal);
    if (!more.ok()) {
      result = more.status();
      break;
    }
    if (!*more) break;
    const arrow::RecordBatch& batch = *portal->batch;
    int64_t row = portal->batch_row++;
    if (binary) {
      // A tuple: its field count, then each field as a DataRow has it.
      const size_t message_start = out_.size();
      MessageBuilder tuple(&out_, 'd');
      tuple.Bytes(header).Int16(static_cast<int16_t>(columns));
      header.clear();
      for (int c = 0; c < columns && result.ok(); ++c) {
        result = AppendField(*batch.column(c), row, true, zone_, &out_);
      }
      if (!result.ok()) {
        out_.resize(message_start);
        break;
      }
      tuple.Finish();
    } else {
      std::string line;
      for (int c = 0; c < columns; ++c) {
        if (c > 0) line.push_back('\t');
        if (batch.column(c)->IsNull(row)) {
          line += "\\N";
          continue;
        }
        Result<std::string> text = TextValue(*batch.column(c), row, zone_);
        if (!text.ok()) {
          result = text.status();
          break;
        }
        line += CopyTextEscape(*text);
      }
      if (!result.ok()) break;
      line.push_back('\n');
      MessageBuilder(&out_, 'd').Bytes(line).Finish();
    }
    ++portal->rows_sent;
    if (out_.size() >= kFlushThreshold) result = Flush();
  }
  EndStatement();
  if (!result.ok()) return result;
  portal->done = true;
  if (binary) MessageBuilder(&out_, 'd').Bytes(header).Int16(-1).Finish();  // the trailer
  MessageBuilder(&out_, 'c').Finish();                        // CopyDone
  MessageBuilder(&out_, 'C').CString("COPY " + std::to_string(portal->rows_sent)).Finish();
  return Status::OK();
}

Status Connection::StartPortal(Portal* portal) {
  portal->started = true;
  const std::string& sql = portal->statement->query;
  TransactionStatement command = ParseTransactionStatement(sql);
  if (command.command != TransactionCommand::kNone) {
    ARROW_RETURN_NOT_OK(RunTransactionStatement(command, portal));
    portal->done = true;
    return Status::OK();
  }
  if (transaction_ == 'E') {
    return Status::Invalid(kAbortedTransaction);
  }
  for (auto& [name, other] : portals_) {
    if (other.get() != portal && other->stream != nullptr && !other->done) {
      other->stream.reset();
      other->done = true;
      other->interrupted = true;
    }
  }
  ARROW_ASSIGN_OR_RAISE(std::optional<CopyOut> copy, ParseCopyOut(sql));
  if (copy) portal->copy = copy->format;
  const std::string& run = copy ? copy->query : sql;
  BeginStatement();
  Result<std::unique_ptr<StatementStream>> stream = [&] {
    ExecutionGate::Slot slot(context_.gate);
    return session_->ExecuteStreaming(run, portal->parameters);
  }();
  if (!stream.ok()) {
    EndStatement();
    return stream.status();
  }
  portal->stream = std::move(*stream);
  return Status::OK();
}

Status Connection::RunPortal(Portal* portal, int64_t max_rows) {
  if (portal->interrupted) {
    return Status::Invalid(
        "portal was closed: another statement ran on this connection before it was read to the "
        "end");
  }
  if (!portal->fixed_tag.empty() || portal->stream == nullptr) {
    MessageBuilder(&out_, 'C').CString(CommandTag(*portal)).Finish();
    return Status::OK();
  }
  if (portal->copy) return RunCopyOut(portal);
  Status result = Status::OK();
  const auto& formats = portal->result_formats;
  int64_t sent_now = 0;
  if (portal->stream->schema() != nullptr) {
    while (!portal->done) {
      Result<bool> more = HasRowToSend(portal);
      if (!more.ok()) {
        result = more.status();
        break;
      }
      if (!*more) {
        portal->done = true;
        break;
      }
      if (max_rows > 0 && sent_now >= max_rows) break;
      const arrow::RecordBatch& batch = *portal->batch;
      int64_t row = portal->batch_row++;
      const size_t message_start = out_.size();
      MessageBuilder m(&out_, 'D');
      m.Int16(static_cast<int16_t>(batch.num_columns()));
      for (int c = 0; c < batch.num_columns(); ++c) {
        bool binary = formats.empty()       ? false
                      : formats.size() == 1 ? formats[0] == 1
                                            : formats[static_cast<size_t>(c)] == 1;
        result = AppendField(*batch.column(c), row, binary, zone_, &out_);
        if (!result.ok()) break;
      }
      if (!result.ok()) {
        out_.resize(message_start);
        break;
      }
      m.Finish();  // the DataRow's length covers its fields
      ++sent_now;
      ++portal->rows_sent;
      if (out_.size() >= kFlushThreshold) {
        result = Flush();
        if (!result.ok()) break;
      }
    }
  } else {
    portal->done = true;
  }
  if (!result.ok()) {
    EndStatement();
    return result;
  }
  if (!portal->done) {
    MessageBuilder(&out_, 's').Finish();  // PortalSuspended
    return Status::OK();
  }
  EndStatement();
  if (!portal->stream->message().empty() && portal->stream->schema() == nullptr &&
      portal->stream->command().rfind("CALL", 0) == 0) {
    // Procedures that return no rows report what they did.
    PgError notice;
    notice.severity = "NOTICE";
    notice.code = "00000";
    notice.message = portal->stream->message();
    AppendErrorResponse(notice, &out_, 'N');
  }
  MessageBuilder(&out_, 'C').CString(CommandTag(*portal)).Finish();
  return Status::OK();
}

bool Connection::HandleSimpleQuery(std::string_view body) {
  BodyReader reader(body);
  Result<std::string> query = reader.CString();
  if (!query.ok()) {
    SendFatal(sqlstate::kProtocolViolation, query.status().message());
    return false;
  }
  statements_.erase("");
  portals_.erase("");
  std::vector<sql::StatementSpan> spans = sql::SplitStatements(*query);
  if (spans.empty()) {
    MessageBuilder(&out_, 'I').Finish();  // EmptyQueryResponse
  }
  for (const sql::StatementSpan& span : spans) {
    Portal portal;
    portal.statement = std::make_shared<Prepared>();
    portal.statement->query = span.text;
    int before = CountChars(
        std::string_view(*query).substr(0, static_cast<size_t>(std::max(span.pos.offset, 0))));
    Status st = StartPortal(&portal);
    if (st.ok() && portal.stream != nullptr && portal.stream->schema() != nullptr && !portal.copy) {
      RowDescription(*portal.stream->schema(), {});
    }
    if (st.ok()) st = RunPortal(&portal, 0);
    if (!st.ok()) {
      SendError(ErrorFor(st, span.text, before));
      break;
    }
  }
  ReadyForQuery();
  return true;
}

bool Connection::HandleParse(std::string_view body) {
  if (skip_until_sync_) return true;
  BodyReader reader(body);
  Result<std::string> name = reader.CString();
  Result<std::string> query = name.ok() ? reader.CString() : name;
  Result<int16_t> count = query.ok() ? reader.Int16() : Result<int16_t>(query.status());
  if (!count.ok() || *count < 0) {
    SendFatal(sqlstate::kProtocolViolation, "malformed Parse message");
    return false;
  }
  auto prepared = std::make_shared<Prepared>();
  for (int i = 0; i < *count; ++i) {
    Result<int32_t> oid = reader.Int32();
    if (!oid.ok()) {
      SendFatal(sqlstate::kProtocolViolation, "malformed Parse message");
      return false;
    }
    prepared->parameter_oids.push_back(*oid);
  }
  std::vector<sql::StatementSpan> spans = sql::SplitStatements(*query);
  if (spans.size() > 1) {
    PgError error;
    error.code = sqlstate::kSyntaxError;
    error.message = "cannot insert multiple commands into a prepared statement";
    SendError(error);
    skip_until_sync_ = true;
    return true;
  }
  prepared->query = spans.empty() ? "" : spans[0].text;
  if (!name->empty() && statements_.count(*name) != 0) {
    PgError error;
    error.code = "42P05";
    error.message = "prepared statement \"" + *name + "\" already exists";
    SendError(error);
    skip_until_sync_ = true;
    return true;
  }
  statements_[*name] = prepared;
  MessageBuilder(&out_, '1').Finish();
  return true;
}

bool Connection::HandleBind(std::string_view body) {
  if (skip_until_sync_) return true;
  BodyReader reader(body);
  auto malformed = [&] {
    SendFatal(sqlstate::kProtocolViolation, "malformed Bind message");
    return false;
  };
  Result<std::string> portal_name = reader.CString();
  Result<std::string> statement_name = portal_name.ok() ? reader.CString() : portal_name;
  if (!statement_name.ok()) return malformed();
  std::vector<int16_t> param_formats;
  Result<int16_t> n = reader.Int16();
  if (!n.ok() || *n < 0) return malformed();
  for (int i = 0; i < *n; ++i) {
    Result<int16_t> f = reader.Int16();
    if (!f.ok()) return malformed();
    param_formats.push_back(*f);
  }
  Result<int16_t> nparams = reader.Int16();
  if (!nparams.ok() || *nparams < 0) return malformed();
  std::vector<std::optional<std::string_view>> values;
  for (int i = 0; i < *nparams; ++i) {
    Result<int32_t> len = reader.Int32();
    if (!len.ok()) return malformed();
    if (*len < 0) {
      values.emplace_back(std::nullopt);
      continue;
    }
    Result<std::string_view> bytes = reader.Bytes(static_cast<size_t>(*len));
    if (!bytes.ok()) return malformed();
    values.emplace_back(*bytes);
  }
  Result<int16_t> nresults = reader.Int16();
  if (!nresults.ok() || *nresults < 0) return malformed();
  auto portal = std::make_unique<Portal>();
  for (int i = 0; i < *nresults; ++i) {
    Result<int16_t> f = reader.Int16();
    if (!f.ok()) return malformed();
    portal->result_formats.push_back(*f);
  }
  auto fail = [&](const char* code, const std::string& message) {
    PgError error;
    error.code = code;
    error.message = message;
    SendError(error);
    skip_until_sync_ = true;
    FailTransaction();
    return true;
  };
  auto found = statements_.find(*statement_name);
  if (found == statements_.end()) {
    return fail(sqlstate::kInvalidPreparedStatement,
                "prepared statement \"" + *statement_name + "\" does not exist");
  }
  portal->statement = found->second;
  if (param_formats.size() > 1 && param_formats.size() != values.size()) {
    return fail(sqlstate::kProtocolViolation,
                "bind message has " + std::to_string(param_formats.size()) +
                    " parameter formats but " + std::to_string(values.size()) + " parameters");
  }
  const auto& oids = portal->statement->parameter_oids;
  for (size_t i = 0; i < values.size(); ++i) {
    int16_t format = param_formats.empty()       ? 0
                     : param_formats.size() == 1 ? param_formats[0]
                                                 : param_formats[i];
    int32_t oid = i < oids.size() ? oids[i] : 0;
    Result<Parameter> p = DecodeParameter(oid, format == 1, values[i]);
    if (!p.ok()) return fail(sqlstate::kInvalidParameterValue, p.status().message());
    portal->parameters.push_back(std::move(*p));
  }
  portals_[*portal_name] = std::move(portal);
  MessageBuilder(&out_, '2').Finish();
  return true;
}

bool Connection::HandleDescribe(std::string_view body) {
  if (skip_until_sync_) return true;
  BodyReader reader(body);
  Result<std::string_view> kind = reader.Bytes(1);
  Result<std::string> name = kind.ok() ? reader.CString() : Result<std::string>(kind.status());
  if (!name.ok() || ((*kind)[0] != 'S' && (*kind)[0] != 'P')) {
    SendFatal(sqlstate::kProtocolViolation, "malformed Describe message");
    return false;
  }
  if ((*kind)[0] == 'S') {
    auto found = statements_.find(*name);
    if (found == statements_.end()) {
      PgError error;
      error.code = sqlstate::kInvalidPreparedStatement;
      error.message = "prepared statement \"" + *name + "\" does not exist";
      SendError(error);
      skip_until_sync_ = true;
      return true;
    }
    const Prepared& prepared = *found->second;
    StatementShape shape;
    // Transaction statements and COPY return no rows; COPY's come in the COPY protocol.
    if (!prepared.query.empty() && CommandOf(prepared.query) != "COPY" &&
        ParseTransactionStatement(prepared.query).command == TransactionCommand::kNone) {
      std::vector<Parameter> unbound;
      BeginStatement();
      Result<StatementShape> described = [&] {
        ExecutionGate::Slot slot(context_.gate);
        return session_->Describe(prepared.query, unbound);
      }();
      EndStatement();
      if (!described.ok()) {
        SendError(ErrorFor(described.status(), prepared.query));
        skip_until_sync_ = true;
        return true;
      }
      shape = *described;
    }
    MessageBuilder m(&out_, 't');
    size_t count =
        std::max(prepared.parameter_oids.size(), static_cast<size_t>(shape.parameter_count));
    m.Int16(static_cast<int16_t>(count));
    for (size_t i = 0; i < count; ++i) {
      int32_t oid = i < prepared.parameter_oids.size() ? prepared.parameter_oids[i] : 0;
      if (oid == 0 && i < shape.parameter_types.size() && shape.parameter_types[i] != nullptr) {
        oid = PgTypeFor(*shape.parameter_types[i]).oid;
      }
      m.Int32(oid == 0 ? pg_oid::kText : oid);
    }
    m.Finish();
    if (shape.returns_rows && shape.schema != nullptr) {
      RowDescription(*shape.schema, {});
    } else {
      MessageBuilder(&out_, 'n').Finish();  // NoData
    }
    return true;
  }
  auto found = portals_.find(*name);
  if (found == portals_.end()) {
    PgError error;
    error.code = sqlstate::kInvalidCursorName;
    error.message = "portal \"" + *name + "\" does not exist";
    SendError(error);
    skip_until_sync_ = true;
    return true;
  }
  Portal* portal = found->second.get();
  if (!portal->started && !portal->statement->query.empty()) {
    Status st = StartPortal(portal);
    if (!st.ok()) {
      SendError(ErrorFor(st, portal->statement->query));
      skip_until_sync_ = true;
      return true;
    }
  }
  if (portal->stream != nullptr && portal->stream->schema() != nullptr && !portal->copy) {
    RowDescription(*portal->stream->schema(), portal->result_formats);
  } else {
    MessageBuilder(&out_, 'n').Finish();
  }
  return true;
}

bool Connection::HandleExecute(std::string_view body) {
  if (skip_until_sync_) return true;
  BodyReader reader(body);
  Result<std::string> name = reader.CString();
  Result<int32_t> max_rows = name.ok() ? reader.Int32() : Result<int32_t>(name.status());
  if (!max_rows.ok()) {
    SendFatal(sqlstate::kProtocolViolation, "malformed Execute message");
    return false;
  }
  auto found = portals_.find(*name);
  if (found == portals_.end()) {
    PgError error;
    error.code = sqlstate::kInvalidCursorName;
    error.message = "portal \"" + *name + "\" does not exist";
    SendError(error);
    skip_until_sync_ = true;
    return true;
  }
  Portal* portal = found->second.get();
  if (portal->statement->query.empty()) {
    MessageBuilder(&out_, 'I').Finish();
    return true;
  }
  Status st = portal->started ? Status::OK() : StartPortal(portal);
  if (st.ok()) st = RunPortal(portal, *max_rows);
  if (!st.ok()) {
    SendError(ErrorFor(st, portal->statement->query));
    skip_until_sync_ = true;
  }
  return true;
}

bool Connection::HandleClose(std::string_view body) {
  if (skip_until_sync_) return true;
  BodyReader reader(body);
  Result<std::string_view> kind = reader.Bytes(1);
  Result<std::string> name = kind.ok() ? reader.CString() : Result<std::string>(kind.status());
  if (!name.ok() || ((*kind)[0] != 'S' && (*kind)[0] != 'P')) {
    SendFatal(sqlstate::kProtocolViolation, "malformed Close message");
    return false;
  }
  if ((*kind)[0] == 'S') {
    statements_.erase(*name);
  } else {
    portals_.erase(*name);
    EndStatement();
  }
  MessageBuilder(&out_, '3').Finish();
  return true;
}

void Connection::HandleSync() {
  skip_until_sync_ = false;
  // Outside a transaction block the unnamed portal ends with its implicit transaction.
  if (transaction_ == 'I') portals_.erase("");
  EndStatement();
  ReadyForQuery();
}

}  // namespace floe::server
