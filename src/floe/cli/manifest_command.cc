#include "floe/cli/manifest_command.h"

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "floe/cli/table_argument.h"
#include "floe/table/run_manifest.h"
#include "floe/table/table_catalog.h"
#include "floe/util/clock.h"
#include "floe/util/json_writer.h"

namespace floe::cli {

namespace {

// FileIO takes absolute locations; a relative path is taken from the current directory.
std::string AbsoluteLocation(const std::string& path) {
  if (path.find(':') != std::string::npos || path.empty() || path.front() == '/') return path;
  return std::filesystem::absolute(path).lexically_normal().string();
}

int CreateManifest(const ManifestArgs& args, std::ostream& out, std::ostream& err) {
  auto session = OpenSession(args.where);
  if (!session.ok()) return ReportError(session.status(), err);
  const std::string location = AbsoluteLocation(args.output);
  const auto& io = (*session)->io();
  auto exists = io->Exists(location);
  if (!exists.ok()) return ReportError(exists.status(), err);
  if (*exists && !args.force) {
    return ReportError(
        Status::Invalid("Run manifest ", location, " already exists; --force replaces it"), err);
  }
  std::vector<std::shared_ptr<table::Table>> tables;
  for (const std::string& name : args.tables) {
    auto loaded = LoadTableArgument(**session, name);
    if (!loaded.ok()) return ReportError(loaded.status(), err);
    tables.push_back(*loaded);
  }
  auto manifest = table::BuildRunManifest(tables, NowMillis());
  if (!manifest.ok()) return ReportError(manifest.status(), err);
  if (*exists) {
    Status removed = io->DeleteFile(location, FileKind::kOther);
    if (!removed.ok()) return ReportError(removed, err);
  }
  Status written = table::WriteRunManifest(*io, location, *manifest);
  if (!written.ok()) return ReportError(written, err);
  if (args.json) {
    JsonWriter json(JsonWriter::Style::kSpaced);
    json.StartObject();
    json.Key("path").String(location);
    json.Key("manifest").Raw(table::RunManifestToJson(*manifest));  // the file's own text
    json.EndObject();
    out << json.view() << "\n";
    return 0;
  }
  out << "Run manifest " << location << ":\n";
  for (const auto& source : manifest->sources) {
    out << "  " << source.table << " at snapshot " << source.snapshot_id << "\n";
  }
  return 0;
}

int OpenManifest(const ManifestArgs& args, std::ostream& err) {
  auto session = OpenSession(args.shell.where, "floe sql");
  if (!session.ok()) return ReportError(session.status(), err);
  // A bad manifest (unreadable, another catalog, a table re-created, a snapshot expired)
  // fails here, before any statement runs.
  const std::string location = AbsoluteLocation(args.manifest);
  auto manifest = table::ReadRunManifest(*(*session)->io(), location);
  if (!manifest.ok()) return ReportError(manifest.status(), err);
  table::TableCatalog catalog((*session)->catalog(), (*session)->io());
  auto resolved = table::ResolveRunManifest(catalog, *manifest);
  if (!resolved.ok()) return ReportError(resolved.status(), err);
  Status pinned = (*session)->SetSetting(kRunManifestSetting, location);
  if (!pinned.ok()) return ReportError(pinned, err);
  if (args.shell.commands.empty() && args.shell.files.empty() && ::isatty(STDIN_FILENO) == 1) {
    for (const auto& source : manifest->sources) {
      err << "Reading " << source.table << " at snapshot " << source.snapshot_id << "\n";
    }
  }
  return RunSqlShell(**session, args.shell, *args.open);
}

}  // namespace

CLI::App* AddManifestCommand(CLI::App& app, ManifestArgs* args) {
  CLI::App* command = app.add_subcommand(
      "manifest",
      "Record the current snapshot of tables in a run manifest, and open a SQL shell that "
      "reads exactly those snapshots.");
  command->require_subcommand(1);
  args->create = command->add_subcommand(
      "create", "Write a run manifest with the current snapshot of each table");
  AddCatalogOptions(args->create, &args->where);
  args->create->add_option("tables", args->tables, "The tables, e.g. db.orders db.customers")
      ->required();
  args->create->add_option("-o,--output", args->output, "The manifest file to write")->required();
  args->create->add_flag("--force", args->force, "Replace an existing manifest file");
  args->create->add_flag("--json", args->json, "Print one JSON object");
  args->open = command->add_subcommand(
      "open",
      "The floe sql shell (the same options) with every read of the manifest's tables at the "
      "recorded snapshot");
  args->open->add_option("manifest", args->manifest, "The run manifest file")->required();
  AddSqlOptions(args->open, &args->shell);
  return command;
}

int RunManifestCommand(const ManifestArgs& args, std::ostream& out, std::ostream& err) {
  if (args.create->parsed()) return CreateManifest(args, out, err);
  return OpenManifest(args, err);
}

}  // namespace floe::cli
