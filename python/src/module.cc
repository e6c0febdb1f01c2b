// floe._floe: the engine under the floe Python package. The Python side (floe/*.py) holds
// the API; this module opens sessions, runs statements without the GIL, hands rows over as
// Arrow C streams and runs the `floe` command line.

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <arrow/table.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrow_stream.h"
#include "floe/cli/cli_main.h"
#include "floe/cli/guarded_main.h"
#include "floe/cli/sql_command.h"
#include "python_errors.h"
#include "python_session.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace floe::python {
namespace {

// What one statement produced; rows stay in C++ until a consumer imports the stream.
struct PyStatementResult {
  std::string statement;
  std::string message;
  std::shared_ptr<arrow::Table> rows;
  std::string command;  // PostgreSQL's command tag: COMMIT of a failed block says ROLLBACK
};

// The Python object of a session (PythonSession itself holds a mutex and cannot move).
struct SessionHandle {
  std::unique_ptr<PythonSession> session;
};

PyStatementResult Execute(SessionHandle& handle, const std::string& sql) {
  Result<sql::StatementResult> result;
  {
    nb::gil_scoped_release release;
    result = handle.session->Execute(sql);
  }
  sql::StatementResult r = ValueOrRaise(std::move(result));
  return PyStatementResult{std::move(r.statement), std::move(r.message), std::move(r.rows),
                           std::move(r.command)};
}

int RunCli(const std::vector<std::string>& args) {
  std::vector<std::string> owned = args;
  std::vector<char*> argv;
  for (auto& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  int status;
  {
    nb::gil_scoped_release release;
    status = cli::GuardedMain(
        [&] { return cli::RunCli(static_cast<int>(owned.size()), argv.data()); }, cli::kExitFailed);
    std::cout.flush();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  return status;
}

}  // namespace

NB_MODULE(_floe, m) {
  m.doc() = "The floe engine; use the floe package, not this module.";

  nb::class_<PyStatementResult>(m, "StatementResult")
      .def_ro("statement", &PyStatementResult::statement)
      .def_ro("message", &PyStatementResult::message)
      .def_ro("command", &PyStatementResult::command)
      .def_prop_ro("has_rows", [](const PyStatementResult& r) { return r.rows != nullptr; })
      .def(
          "__arrow_c_stream__",
          [](const PyStatementResult& r, nb::object requested_schema) {
            // A requested schema may be ignored (the interface allows it): the rows keep theirs.
            (void)requested_schema;
            if (!r.rows) throw nb::type_error("the statement returned no rows");
            return ExportTableStream(r.rows);
          },
          "requested_schema"_a = nb::none())
      .def("_buffer_addresses", [](const PyStatementResult& r) {
        return r.rows ? BufferAddresses(*r.rows) : std::vector<uintptr_t>{};
      });

  nb::class_<SessionHandle>(m, "Session")
      .def(
          "__init__",
          [](SessionHandle* self, std::optional<std::string> catalog,
             std::optional<std::string> warehouse, std::string catalog_name,
             std::optional<std::string> time_zone,
             std::optional<std::map<std::string, std::string>> s3,
             std::optional<std::map<std::string, std::string>> rest) {
            ConnectOptions options;
            if (s3) options.object_store = ValueOrRaise(ObjectStoreFromSettings(*s3));
            if (rest) options.rest = ValueOrRaise(RestFromSettings(*rest));
            options.catalog = catalog.value_or("");
            options.warehouse = warehouse.value_or("");
            options.catalog_name = std::move(catalog_name);
            options.time_zone = time_zone.value_or("");
            Result<std::unique_ptr<PythonSession>> opened;
            {
              nb::gil_scoped_release release;
              opened = PythonSession::Open(options);
            }
            new (self) SessionHandle{ValueOrRaise(std::move(opened))};
          },
          "catalog"_a = nb::none(), "warehouse"_a = nb::none(), "catalog_name"_a = "lakehouse",
          "time_zone"_a = nb::none(), "s3"_a = nb::none(), "rest"_a = nb::none())
      .def("execute", &Execute, "sql"_a)
      .def(
          "setting",
          [](SessionHandle& h, const std::string& key) { return h.session->Setting(key); }, "key"_a)
      .def_prop_ro("catalog_name", [](SessionHandle& h) { return h.session->catalog_name(); })
      .def(
          "build_run_manifest",
          [](SessionHandle& h, const std::vector<std::string>& tables, int64_t started_ms) {
            Result<std::string> json;
            {
              nb::gil_scoped_release release;
              json = h.session->BuildRunManifest(tables, started_ms);
            }
            return ValueOrRaise(std::move(json));
          },
          "tables"_a, "run_started_at_ms"_a)
      .def(
          "resolve_run_manifest",
          [](SessionHandle& h, const std::string& json) {
            Result<std::vector<ManifestSource>> sources;
            {
              nb::gil_scoped_release release;
              sources = h.session->ResolveRunManifest(json);
            }
            std::vector<std::tuple<std::string, int64_t>> out;
            for (const auto& source : ValueOrRaise(std::move(sources))) {
              out.emplace_back(source.table, source.snapshot_id);
            }
            return out;
          },
          "manifest_json"_a)
      .def(
          "read_appended_rows",
          [](SessionHandle& h, const std::string& table, int64_t start_exclusive,
             std::optional<int64_t> end_inclusive, const std::vector<std::string>& columns,
             const std::string& filter) {
            Result<sql::StatementResult> result;
            {
              nb::gil_scoped_release release;
              result = h.session->ReadAppendedRows(table, start_exclusive, end_inclusive, columns,
                                                   filter);
            }
            sql::StatementResult r = ValueOrRaise(std::move(result));
            return PyStatementResult{std::move(r.statement), std::move(r.message),
                                     std::move(r.rows), std::move(r.command)};
          },
          "table"_a, "start_exclusive"_a, "end_inclusive"_a = nb::none(),
          "columns"_a = std::vector<std::string>{}, "filter"_a = "");

  // Tests reach the error translation of every kind through this.
  m.def("_raise_status", [](const std::string& kind, const std::string& message) {
    static const std::map<std::string, ErrorKind> kinds = {
        {"not_found", ErrorKind::kNotFound},
        {"already_exists", ErrorKind::kAlreadyExists},
        {"validation", ErrorKind::kValidation},
        {"commit_conflict", ErrorKind::kCommitConflict},
        {"commit_state_unknown", ErrorKind::kCommitStateUnknown}};
    auto it = kinds.find(kind);
    RaiseStatus(it == kinds.end() ? Status::IOError(message) : MakeError(it->second, message));
  });

  m.def("run_cli", &RunCli, "argv"_a,
        "Runs the floe command line (argv[0] is the program name); returns the exit status.");
}

}  // namespace floe::python
