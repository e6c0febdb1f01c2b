#pragma once

// One client connection from its startup packet to its end: TLS negotiation, authentication,
// then simple and extended queries over the connection's own session. Run() owns the
// socket; Cancel() and Shutdown() may be called from other threads.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>

#include "floe/server/copy_command.h"
#include "floe/server/deadline_timer.h"
#include "floe/server/execution_gate.h"
#include "floe/server/server_options.h"
#include "floe/server/session_adapter.h"
#include "floe/server/socket_stream.h"
#include "floe/server/sql_state.h"
#include "floe/server/tls_context.h"
#include "floe/server/transaction_command.h"
#include "floe/util/time_zone.h"

namespace floe::server {

class Connection;

// The live connections by BackendKeyData, for CancelRequest.
class CancelRegistry {
 public:
  // Returns the process id and secret the client is told.
  std::pair<int32_t, int32_t> Register(Connection* connection);
  void Unregister(int32_t pid);
  // Cancels the connection's running statement when the secret matches; otherwise nothing.
  void Cancel(int32_t pid, int32_t secret);

 private:
  std::mutex mutex_;
  int32_t next_pid_ = 1000;
  std::map<int32_t, std::pair<int32_t, Connection*>> live_;
};

struct ConnectionContext {
  const ServerOptions* options = nullptr;
  std::shared_ptr<TlsContext> tls;  // null: SSLRequest is answered 'N'
  CancelRegistry* cancels = nullptr;
  DeadlineTimer* timer = nullptr;
  ExecutionGate* gate = nullptr;
};

class Connection {
 public:
  Connection(int fd, const sockaddr_storage& peer, ConnectionContext context);
  ~Connection();

  void Run();
  // Cancels the running statement, if any (CancelRequest).
  void Cancel();
  // Ends the connection from outside (the server stopping).
  void Shutdown();

 private:
  struct Prepared {
    std::string query;
    std::vector<int32_t> parameter_oids;  // from Parse, 0 = unspecified
  };
  struct Portal {
    std::shared_ptr<Prepared> statement;
    std::vector<Parameter> parameters;
    std::vector<int16_t> result_formats;
    std::unique_ptr<StatementStream> stream;  // started on first Describe or Execute
    std::string fixed_tag;                    // transaction control: no stream, this tag
    bool started = false;
    bool done = false;
    // Its stream was closed for another statement: a session runs one statement at a time.
    bool interrupted = false;
    std::shared_ptr<arrow::RecordBatch> batch;
    int64_t batch_row = 0;
    int64_t rows_sent = 0;
    // COPY (query) TO STDOUT: the rows go out in the COPY protocol, in this format.
    std::optional<CopyFormat> copy;
  };

  // Startup: SSL/GSS negotiation, the startup packet, authentication, the session.
  bool Startup();
  bool Authenticate(const std::string& user);
  bool OpenSession(const std::map<std::string, std::string>& parameters);
  void MainLoop();

  bool HandleSimpleQuery(std::string_view body);
  bool HandleParse(std::string_view body);
  bool HandleBind(std::string_view body);
  bool HandleDescribe(std::string_view body);
  bool HandleExecute(std::string_view body);
  bool HandleClose(std::string_view body);
  void HandleSync();

  // Starts the portal's statement (transaction control is answered here).
  Status StartPortal(Portal* portal);
  // BEGIN, COMMIT, ROLLBACK and the savepoint commands, answered from the block's state.
  Status RunTransactionStatement(const TransactionStatement& command, Portal* portal);
  // Moves the portal on to a batch with a row left to send, reading its stream (under the
  // execution gate) as needed; false once the stream has ended.
  Result<bool> HasRowToSend(Portal* portal);
  // The rest of a COPY portal's rows as CopyData, then CopyDone and its COPY n tag.
  Status RunCopyOut(Portal* portal);
  // Sends up to `max_rows` rows (0: all) and CommandComplete or PortalSuspended.
  Status RunPortal(Portal* portal, int64_t max_rows);
  void RowDescription(const arrow::Schema& schema, const std::vector<int16_t>& formats);
  std::string CommandTag(const Portal& portal) const;

  // Statement timeout and cancel bracketing.
  void BeginStatement();
  void EndStatement();
  PgError ErrorFor(const Status& status, std::string_view sql, int statement_chars = 0);
  void SendError(const PgError& error);
  void SendFatal(const char* code, const std::string& message);
  void SendNotice(const std::string& message);
  // A statement failed: so does the transaction block it ran in, if any.
  void FailTransaction();
  void ReadyForQuery();
  Status Flush();

  // Reads one message after startup; false when the connection should end.
  bool ReadMessage(char* type, std::string* body);

  ConnectionContext context_;
  std::unique_ptr<SocketStream> socket_;
  sockaddr_storage peer_;
  std::string out_;
  std::unique_ptr<SessionAdapter> session_;
  TimeZone zone_ = TimeZone::Utc();
  int32_t pid_ = 0;
  int32_t secret_ = 0;

  std::map<std::string, std::shared_ptr<Prepared>> statements_;
  std::map<std::string, std::unique_ptr<Portal>> portals_;
  bool skip_until_sync_ = false;
  // The session's transaction block as ReadyForQuery reports it: 'I' idle, 'T' in a block,
  // 'E' failed block.
  char transaction_ = 'I';

  std::mutex running_mutex_;
  bool running_ = false;
  bool timed_out_ = false;
  std::atomic<bool> shutting_down_{false};
  bool told_shutdown_ = false;  // the running statement's error said so already
};

// Whether the peer address is a loopback one (127.0.0.0/8, ::1, a v4-mapped loopback).
bool IsLoopback(const sockaddr_storage& peer);
std::string PeerHost(const sockaddr_storage& peer);

}  // namespace floe::server
