#include "floe/cli/verify_command.h"

#include <cstdio>

#include "floe/table/protection.h"
#include "floe/table/table.h"
#include "floe/table/verify_table.h"
#include "floe/util/json_writer.h"

namespace floe::cli {

namespace {

std::string Plural(int64_t n, const std::string& one) {
  return StrCat(n, " ", one, n == 1 ? "" : "s");
}

// Whether the catalog's audit log records every engine's changes to the table.
std::string AuditText(const AuditTriggerState& audit) {
  if (audit.installed) return "every engine's changes are recorded in the audit log";
  return "other engines' changes are not recorded in the audit log: " + audit.reason;
}

void PrintText(const std::string& name, const std::string& metadata_location,
               const table::VerifyReport& r, const AuditTriggerState& audit,
               const std::vector<std::string>& violations, std::ostream& out) {
  out << "Table " << name << " at " << metadata_location << "\n";
  out << "Checked " << Plural(r.checked(), "file") << ": "
      << Plural(r.metadata_files, "metadata file") << ", "
      << Plural(r.manifest_lists, "manifest list") << ", " << Plural(r.manifests, "manifest")
      << ", " << Plural(r.data_files, "data file") << ", " << Plural(r.delete_files, "delete file")
      << ", " << Plural(r.statistics_files, "statistics file") << "\n";
  out << "Audit: " << AuditText(audit) << "\n";
  if (!violations.empty()) {
    out << Plural(static_cast<int64_t>(violations.size()), "protected ref change") << " against the rule:\n";
    for (const auto& v : violations) out << "protection: " << v << "\n";
  }
  if (r.ok()) {
    out << "All files present\n";
    return;
  }
  out << Plural(static_cast<int64_t>(r.problems.size()), "problem") << ":\n";
  for (const auto& p : r.problems) {
    out << p.problem << ": " << table::ReachableKindName(p.file.kind) << " " << p.file.location
        << " (";
    if (p.file.snapshot_id) out << "snapshot " << *p.file.snapshot_id << ", ";
    out << "referenced by " << p.file.referenced_by << ")\n";
  }
}

void PrintJson(const std::string& name, const std::string& metadata_location,
               const table::VerifyReport& r, const AuditTriggerState& audit,
               const std::vector<std::string>& violations, std::ostream& out) {
  JsonWriter json(JsonWriter::Style::kSpaced);
  json.StartObject();
  json.Key("table").String(name);
  json.Key("metadata_location").String(metadata_location);
  json.Key("ok").Bool(r.ok() && violations.empty());
  json.Key("checked").StartObject();
  json.Key("total").Int64(r.checked());
  json.Key("metadata_files").Int64(r.metadata_files);
  json.Key("manifest_lists").Int64(r.manifest_lists);
  json.Key("manifests").Int64(r.manifests);
  json.Key("data_files").Int64(r.data_files);
  json.Key("delete_files").Int64(r.delete_files);
  json.Key("statistics_files").Int64(r.statistics_files);
  json.EndObject();
  json.Key("audit").StartObject();
  json.Key("every_engine_recorded").Bool(audit.installed);
  json.Key("reason");
  audit.installed ? json.Null() : json.String(audit.reason);
  json.EndObject();
  json.Key("problems").StartArray();
  for (const auto& p : r.problems) {
    json.StartObject();
    json.Key("kind").String(table::ReachableKindName(p.file.kind));
    json.Key("location").String(p.file.location);
    json.Key("problem").String(p.problem);
    json.Key("snapshot_id").OptionalInt64(p.file.snapshot_id);
    json.Key("referenced_by").String(p.file.referenced_by);
    json.EndObject();
  }
  json.EndArray();
  json.Key("protection_violations").Strings(violations);
  json.EndObject();
  out << json.view() << "\n";
}

}  // namespace

int RunVerify(sql::Session& session, const VerifyCommandOptions& options, std::ostream& out,
              std::ostream& err) {
  auto ident = TableIdentifier::Parse(options.table);
  if (!ident.ok()) {
    err << "Error: " << ident.status().message() << "\n";
    return 1;
  }
  // "lakehouse.db.t": the first part names the catalog, as in SQL.
  if (!ident->ns.empty() && ident->ns.levels.size() >= 2 &&
      ident->ns.levels.front() == options.catalog_name) {
    std::vector<std::string> levels(ident->ns.levels.begin() + 1, ident->ns.levels.end());
    ident = TableIdentifier(Namespace(std::move(levels)), ident->name);
  }
  auto loaded = table::Table::Load(session.catalog(), session.io(), *ident);
  if (!loaded.ok()) {
    if (IsNotFound(loaded.status())) {
      err << "Error: Table " << options.catalog_name << "." << ident->ToString() << " not found\n";
    } else {
      err << "Error: " << loaded.status().message() << "\n";
    }
    return 1;
  }
  const auto& t = **loaded;
  table::VerifyOptions verify;
  verify.check_sizes = options.check_sizes;
  auto report = table::VerifyTableFiles(*t.io(), *t.metadata(), t.metadata_location(), verify);
  if (!report.ok()) {
    err << "Error: " << report.status().message() << "\n";
    return 1;
  }
  auto audit = session.catalog()->AuditTrigger();
  if (!audit.ok()) {
    err << "Error: " << audit.status().message() << "\n";
    return 1;
  }
  auto violations = table::AuditedProtectionViolations(**loaded);
  if (!violations.ok()) {
    err << "Error: " << violations.status().message() << "\n";
    return 1;
  }
  const std::string name = t.name();
  if (options.json) {
    PrintJson(name, t.metadata_location(), *report, *audit, *violations, out);
  } else {
    PrintText(name, t.metadata_location(), *report, *audit, *violations, out);
  }
  return report->ok() && violations->empty() ? 0 : 2;
}

}  // namespace floe::cli
