#pragma once

// `floe serve`'s listener: accepts clients and runs each connection on its own thread until
// Stop().

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "floe/server/connection.h"
#include "floe/server/deadline_timer.h"
#include "floe/server/execution_gate.h"
#include "floe/server/server_options.h"
#include "floe/server/tls_context.h"
#include "floe/util/status.h"

namespace floe::server {

class Server {
 public:
  // Binds and listens; fails naming the address that cannot be used.
  static Result<std::unique_ptr<Server>> Make(ServerOptions options);
  ~Server();

  // The port listened on (the real one when options.port was 0).
  int port() const { return port_; }
  const ServerOptions& options() const { return options_; }

  // Accepts connections until Stop(), then ends the live ones and waits for them.
  void Run();
  // Thread-safe and async-signal-safe: wakes Run().
  void Stop();

 private:
  struct Live {
    std::shared_ptr<Connection> connection;
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  Server(ServerOptions options, int listen_fd, int port, int wake_read, int wake_write,
         std::shared_ptr<TlsContext> tls);
  void Reap(bool all);

  ServerOptions options_;
  int listen_fd_;
  int port_;
  int wake_read_;
  int wake_write_;
  std::shared_ptr<TlsContext> tls_;
  CancelRegistry cancels_;
  DeadlineTimer timer_;
  ExecutionGate gate_;
  std::list<Live> live_;
};

}  // namespace floe::server
