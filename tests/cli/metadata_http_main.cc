// floe_http_test_server [catalog options] [--listen HOST:PORT]: the metadata pages of a
// catalog on their own, for tests. Prints "listening on http://HOST:PORT" once serving and
// stops on SIGINT or SIGTERM.

#include <csignal>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/cli/command_common.h"
#include "floe/server/http/metadata_http_server.h"

int main(int argc, char** argv) {
  CLI::App app("The metadata pages of a floe catalog, for tests");
  floe::cli::CatalogArgs catalog;
  floe::cli::AddCatalogOptions(&app, &catalog);
  std::string listen = "127.0.0.1:0";
  app.add_option("--listen", listen, "HOST:PORT to serve on (port 0: any free port)");
  CLI11_PARSE(app, argc, argv);

  // Blocked before any thread starts, so that only sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = floe::server::MetadataHttpServer::Start(
      listen, [&catalog] { return floe::cli::OpenSession(catalog, "floe http"); });
  if (!server.ok()) return floe::cli::ReportError(server.status(), std::cerr);
  const std::string host = listen.substr(0, listen.rfind(':'));
  std::cout << "listening on http://" << host << ":" << (*server)->port() << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  (*server)->Stop();
  return 0;
}
