#include "floe/cli/serve_command.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <iostream>
#include <string>

#include "floe/cli/sql_command.h"
#include "floe/server/http/metadata_http_server.h"
#include "floe/server/rest/rest_catalog_server.h"
#include "floe/server/server.h"
#include "floe/server/tls_context.h"
#include "floe/server/user_file.h"
#include "floe/sql/plan/spill/spill_space.h"
#include "floe/util/memory_limit.h"

namespace floe::cli {

namespace {

server::Server* volatile g_serving = nullptr;
// Without the wire server (--rest alone), the signal handler wakes the main thread here.
volatile int g_stop_fd = -1;
// The first signal wakes the shutdown deadline through this pipe.
volatile int g_deadline_fd = -1;
std::atomic<int> g_signals{0};

// How long running statements get to end once a stop is asked for. A commit is one atomic
// catalog operation, so leaving after it never leaves a change half made.
constexpr int kShutdownSeconds = 4;

// Async-signal-safe: Stop() and the deadline only write a byte to a pipe; a second signal
// leaves at once.
void StopOnSignal(int signal) {
  if (g_signals.fetch_add(1) > 0) _exit(128 + signal);
  server::Server* serving = g_serving;
  if (serving != nullptr) serving->Stop();
  const char byte = 0;
  for (int fd : {static_cast<int>(g_stop_fd), static_cast<int>(g_deadline_fd)}) {
    if (fd >= 0) [[maybe_unused]] ssize_t n = write(fd, &byte, 1);
  }
}

// Once a stop is asked for, the process leaves after kShutdownSeconds even if a statement
// has not ended by then (a sort or an aggregate that is not yet between batches).
class ShutdownDeadline {
 public:
  Status Start() {
    if (pipe2(pipe_, O_CLOEXEC) != 0) return Status::IOError("Cannot create a pipe: ", std::strerror(errno));
    g_deadline_fd = pipe_[1];
    watcher_ = std::thread([this] { Watch(); });
    return Status::OK();
  }
  // The server stopped in time (or never was asked to).
  ~ShutdownDeadline() {
    g_deadline_fd = -1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    ended_.notify_all();
    if (pipe_[1] >= 0) close(pipe_[1]);  // wakes the watcher with end of file
    if (watcher_.joinable()) watcher_.join();
    if (pipe_[0] >= 0) close(pipe_[0]);
  }

 private:
  void Watch() {
    char byte;
    ssize_t n;
    while ((n = read(pipe_[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    if (n <= 0) return;
    std::unique_lock<std::mutex> lock(mutex_);
    if (ended_.wait_for(lock, std::chrono::seconds(kShutdownSeconds), [this] { return done_; })) return;
    static const char kMessage[] = "floe serve: statements still running after the stop; leaving now\n";
    [[maybe_unused]] ssize_t written = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    _exit(1);
  }

  int pipe_[2] = {-1, -1};
  std::thread watcher_;
  std::mutex mutex_;
  std::condition_variable ended_;
  bool done_ = false;
};

std::string HostOf(const std::string& listen) { return listen.substr(0, listen.rfind(':')); }

// "host:port", "[v6]:port" or ":port" (all addresses).
Status ParseListen(const std::string& text, std::string* host, int* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos)
    return Status::Invalid("--listen wants HOST:PORT, got '", text, "'");
  *host = text.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  try {
    size_t used = 0;
    *port = std::stoi(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1 || *port < 0 || *port > 65535) throw std::out_of_range("");
  } catch (const std::exception&) {
    return Status::Invalid("--listen port must be 0 to 65535, got '", text.substr(colon + 1), "'");
  }
  return Status::OK();
}

int AddUserCommand(const ServeArgs& args) {
  if (args.users_file.empty()) {
    std::cerr << "Error: --add-user needs --users FILE\n";
    return kExitUsage;
  }
  std::string password;
  std::getline(std::cin, password);
  if (!password.empty() && password.back() == '\r') password.pop_back();
  Status st = server::AddUser(args.users_file, args.add_user, password);
  if (!st.ok()) return ReportError(st, std::cerr);
  std::cout << "floe serve: user " << args.add_user << " stored in " << args.users_file << "\n";
  return kExitOk;
}

}  // namespace

CLI::App* AddServeCommand(CLI::App& app, ServeArgs* args) {
  CLI::App* serve = app.add_subcommand("serve",
                                       "Serve the catalog over the PostgreSQL wire protocol: psql, "
                                       "psycopg, JDBC and BI tools connect "
                                       "to database <catalog name> (or one of its namespaces) and "
                                       "run floe SQL. Stops on SIGINT or SIGTERM.");
  AddCatalogOptions(serve, &args->where);
  serve
      ->add_option("--listen", args->listen,
                   "Address and port to listen on (port 0: any free port); with --rest and "
                   "without --listen, only the REST catalog is served")
      ->capture_default_str()
      ->each([args](const std::string&) { args->listen_given = true; });
  serve
      ->add_option("--auth", args->auth,
                   "trust (anyone, loopback clients only) or password (SCRAM-SHA-256)")
      ->check(CLI::IsMember({"trust", "password"}))
      ->capture_default_str();
  serve->add_option("--users", args->users_file, "Users file for --auth password (see --add-user)");
  serve->add_option("--tls-cert", args->tls_cert,
                    "PEM certificate chain: clients may ask for TLS (sslmode=require)");
  serve->add_option("--tls-key", args->tls_key, "PEM private key of --tls-cert");
  serve->add_option("--idle-timeout", args->idle_timeout,
                    "Seconds a client may stay idle before its connection is closed (0: never)");
  serve->add_option("--statement-timeout", args->statement_timeout,
                    "Seconds a statement may run before it is cancelled (0: never)");
  serve->add_flag("--allow-trust-remote", args->allow_trust_remote,
                  "With --auth trust, let clients from other hosts in too");
  serve->add_option("--http", args->http_listen,
                    "Also serve read-only metadata pages (lineage graph, snapshots, diffs) on "
                    "HOST:PORT (port 0: any free port)");
  serve->add_option("--rest", args->rest_listen,
                    "Also serve the Iceberg REST catalog on HOST:PORT (port 0: any free port); "
                    "with --auth password, clients authenticate with OAuth2 client credentials "
                    "(a user and its password) at /v1/oauth/tokens; with --tls-cert, over HTTPS. "
                    "Other than loopback addresses only with both");
  serve->add_flag("--vend-credentials", args->vend_credentials,
                  "With --rest, give clients that ask (X-Iceberg-Access-Delegation: "
                  "vended-credentials) this server's S3 settings for the s3:// tables they load");
  AddMemoryLimitOption(serve, &args->memory_limit);
  AddTempDirectoryOption(serve, &args->temp_directory);
  serve->add_option(
      "--add-user", args->add_user,
      "Store NAME with the password read from standard input in --users FILE (a SCRAM-SHA-256 "
      "verifier, never the password), then exit");
  return serve;
}

int RunServeCommand(const ServeArgs& args) {
  if (!args.add_user.empty()) return AddUserCommand(args);
  server::ServerOptions options;
  Status st = ParseListen(args.listen, &options.host, &options.port);
  if (st.ok()) st = ApplyMemoryLimit(args.memory_limit);
  if (!st.ok()) {
    std::cerr << "Error: " << st.message() << "\n";
    return kExitUsage;
  }
  // One session may take 80% of the server's memory unless it says otherwise: the rest is
  // left for the others.
  MemoryBudget::Process().set_session_default(MemoryBudget::Process().limit() / 10 * 8);
  sql::SetProcessTempDirectory(args.temp_directory, false);
  options.auth =
      args.auth == "password" ? server::AuthMethod::kPassword : server::AuthMethod::kTrust;
  if (options.auth == server::AuthMethod::kPassword) {
    if (args.users_file.empty()) {
      std::cerr << "Error: --auth password needs --users FILE (add users with --add-user)\n";
      return kExitUsage;
    }
    auto users = server::LoadUserFile(args.users_file);
    if (!users.ok()) return ReportError(users.status(), std::cerr);
    options.users = std::move(*users);
  }
  // The REST catalog authenticates the same users (OAuth2 client credentials).
  std::optional<server::UserVerifiers> rest_users;
  if (options.auth == server::AuthMethod::kPassword) rest_users = options.users;
  options.tls_cert_file = args.tls_cert;
  options.tls_key_file = args.tls_key;
  options.allow_trust_remote = args.allow_trust_remote;
  options.idle_timeout_seconds = args.idle_timeout;
  options.statement_timeout_seconds = args.statement_timeout;
  options.catalog_name = args.where.catalog_name;
  CatalogArgs where = args.where;
  options.open_session = [where] { return OpenSession(where, "floe serve"); };

  // Opening one session up front reports a bad catalog before clients come.
  auto probe = OpenSession(where, "floe serve");
  if (!probe.ok()) return ReportError(probe.status(), std::cerr);
  probe->reset();

  // A client that goes away mid-write must not kill the server.
  signal(SIGPIPE, SIG_IGN);

  // With --rest and no --listen, only the REST catalog is served.
  const bool wire = args.rest_listen.empty() || args.listen_given;
  std::unique_ptr<server::Server> server;
  if (wire) {
    auto made = server::Server::Make(std::move(options));
    if (!made.ok()) return ReportError(made.status(), std::cerr);
    server = std::move(*made);
  }
  std::unique_ptr<server::MetadataHttpServer> pages;
  if (!args.http_listen.empty()) {
    auto started = server::MetadataHttpServer::Start(
        args.http_listen, [where] { return OpenSession(where, "floe serve"); });
    if (!started.ok()) return ReportError(started.status(), std::cerr);
    pages = std::move(*started);
  }
  std::unique_ptr<server::RestCatalogServer> rest;
  bool rest_https = false;
  if (!args.rest_listen.empty()) {
    // The wire server's certificate serves HTTPS too.
    std::shared_ptr<server::TlsContext> rest_tls;
    if (!args.tls_cert.empty() || !args.tls_key.empty()) {
      if (args.tls_cert.empty() || args.tls_key.empty()) {
        std::cerr << "Error: --tls-cert and --tls-key go together\n";
        return kExitUsage;
      }
      auto tls = server::TlsContext::Make(args.tls_cert, args.tls_key);
      if (!tls.ok()) return ReportError(tls.status(), std::cerr);
      rest_tls = std::move(*tls);
    }
    rest_https = rest_tls != nullptr;
    auto started = server::RestCatalogServer::Start(
        args.rest_listen, [where] { return OpenSession(where, "floe serve --rest"); },
        std::move(rest_users), std::move(rest_tls), args.vend_credentials);
    if (!started.ok()) return ReportError(started.status(), std::cerr);
    rest = std::move(*started);
  }
  int stop_pipe[2] = {-1, -1};
  if (!wire && pipe2(stop_pipe, O_CLOEXEC) != 0) {
    return ReportError(Status::IOError("Cannot create a pipe: ", std::strerror(errno)), std::cerr);
  }
  // SIGINT and SIGTERM stop the server from whichever thread receives them (Arrow's pools
  // and, in the Python package, the interpreter's threads may get them too); installed before
  // the listening line, which tells a supervisor it may now stop the server that way.
  ShutdownDeadline deadline;
  if (Status started = deadline.Start(); !started.ok()) return ReportError(started, std::cerr);
  g_signals = 0;
  g_serving = server.get();
  g_stop_fd = stop_pipe[1];
  struct sigaction stop {};
  stop.sa_handler = StopOnSignal;
  sigemptyset(&stop.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &stop, &old_int);
  sigaction(SIGTERM, &stop, &old_term);
  if (server) {
    std::cout << "floe serve: listening on "
              << (server->options().host.find(':') != std::string::npos
                      ? "[" + server->options().host + "]"
                      : server->options().host)
              << ":" << server->port() << " (catalog " << args.where.catalog_name << ")"
              << std::endl;
  }
  if (pages) {
    std::cout << "floe serve: metadata pages on http://" << HostOf(args.http_listen) << ":"
              << pages->port() << std::endl;
  }
  if (rest) {
    std::cout << "floe serve: Iceberg REST catalog on " << (rest_https ? "https://" : "http://")
              << HostOf(args.rest_listen) << ":" << rest->port() << " (catalog "
              << args.where.catalog_name << ")" << std::endl;
  }

  if (server) {
    server->Run();
  } else {
    char byte;
    while (read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  g_serving = nullptr;
  g_stop_fd = -1;
  for (int fd : stop_pipe) {
    if (fd >= 0) close(fd);
  }
  if (rest) rest->Stop();
  if (pages) pages->Stop();
  server.reset();
  std::cout << "floe serve: stopped" << std::endl;
  return kExitOk;
}

}  // namespace floe::cli
