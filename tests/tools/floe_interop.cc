// A small driver the interop tests call to make floe write and read tables that PyIceberg
// (and later Spark) read and write too. Data crosses as Arrow IPC files.
//
//   floe_interop CATALOG WAREHOUSE create TABLE SCHEMA.arrow [PARTITION ...]
//   floe_interop CATALOG WAREHOUSE append TABLE DATA.arrow
//   floe_interop CATALOG WAREHOUSE overwrite TABLE DATA.arrow [all|dynamic]
//   floe_interop CATALOG WAREHOUSE read TABLE OUT.arrow [SNAPSHOT_ID]
//   floe_interop CATALOG WAREHOUSE snapshots TABLE
//
// WAREHOUSE may be a directory or an s3:// location; an S3-compatible store is reached as the
// environment says (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION).
// A leading "--catalog-name NAME" names the catalog in the file (default lakehouse), as a
// Spark catalog of that name would.
// PARTITION is "col", "day(col)", "bucket(16,col)", "truncate(4,col)", ...; each command
// prints what it made (a snapshot id, JSON) on stdout and errors on stderr.

#include <iostream>
#include <string>
#include <vector>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/api.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/io/object_store.h"
#include "floe/scan/table_scan.h"
#include "floe/table/arrow_schema.h"
#include "floe/table/snapshot_producer.h"
#include "floe/table/table_catalog.h"

namespace {

using floe::Result;
using floe::Status;

Result<std::shared_ptr<arrow::Table>> ReadIpc(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::ipc::RecordBatchFileReader::Open(file));
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int i = 0; i < reader->num_record_batches(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto batch, reader->ReadRecordBatch(i));
    batches.push_back(std::move(batch));
  }
  return arrow::Table::FromRecordBatches(reader->schema(), batches);
}

Status WriteIpc(const arrow::Table& table, const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::FileOutputStream::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(file, table.schema()));
  ARROW_RETURN_NOT_OK(writer->WriteTable(table));
  ARROW_RETURN_NOT_OK(writer->Close());
  return file->Close();
}

Result<floe::table::UnboundPartitionField> ParsePartition(const std::string& text) {
  size_t open = text.find('(');
  if (open == std::string::npos) return floe::table::UnboundPartitionField{text, floe::spec::Transform::Identity(), ""};
  std::string fn = text.substr(0, open);
  std::string args = text.substr(open + 1, text.size() - open - 2);
  size_t comma = args.find(',');
  if (comma != std::string::npos) {
    int32_t n = std::stoi(args.substr(0, comma));
    std::string col = args.substr(comma + 1);
    if (fn == "bucket") return floe::table::UnboundPartitionField{col, floe::spec::Transform::Bucket(n), ""};
    if (fn == "truncate") return floe::table::UnboundPartitionField{col, floe::spec::Transform::Truncate(n), ""};
  }
  if (fn == "year") return floe::table::UnboundPartitionField{args, floe::spec::Transform::Year(), ""};
  if (fn == "month") return floe::table::UnboundPartitionField{args, floe::spec::Transform::Month(), ""};
  if (fn == "day") return floe::table::UnboundPartitionField{args, floe::spec::Transform::Day(), ""};
  if (fn == "hour") return floe::table::UnboundPartitionField{args, floe::spec::Transform::Hour(), ""};
  return Status::Invalid("Unknown partition transform: ", text);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Status Run(std::vector<std::string> args) {
  std::string catalog_name = "lakehouse";
  if (args.size() >= 2 && args[0] == "--catalog-name") {
    catalog_name = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() < 4) return Status::Invalid("usage: floe_interop CATALOG WAREHOUSE COMMAND TABLE ...");
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<floe::Catalog> catalog,
                        floe::SqlCatalog::Open(args[0], catalog_name, args[1]));
  // s3:// warehouses and tables are reached as the environment says (AWS_ENDPOINT_URL, ...).
  ARROW_ASSIGN_OR_RAISE(auto io, floe::FileIO::Make(floe::ObjectStoreOptions{}));
  floe::table::TableCatalog tables(catalog, io);
  const std::string& command = args[2];
  ARROW_ASSIGN_OR_RAISE(auto ident, floe::TableIdentifier::Parse(args[3]));

  if (command == "create") {
    if (args.size() < 5) return Status::Invalid("create needs a schema file");
    ARROW_ASSIGN_OR_RAISE(auto data, ReadIpc(args[4]));
    ARROW_ASSIGN_OR_RAISE(auto schema, floe::table::SchemaFromArrow(*data->schema()));
    floe::table::CreateTableOptions options;
    for (size_t i = 5; i < args.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto field, ParsePartition(args[i]));
      options.partition_by.push_back(field);
    }
    ARROW_ASSIGN_OR_RAISE(bool ns_exists, catalog->NamespaceExists(ident.ns));
    if (!ns_exists) ARROW_RETURN_NOT_OK(catalog->CreateNamespace(ident.ns, {}));
    ARROW_ASSIGN_OR_RAISE(auto table, tables.CreateTable(ident, *schema, options));
    std::cout << table->metadata_location() << "\n";
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto table, tables.LoadTable(ident));
  if (command == "append" || command == "overwrite") {
    if (args.size() < 5) return Status::Invalid(command, " needs a data file");
    ARROW_ASSIGN_OR_RAISE(auto data, ReadIpc(args[4]));
    int64_t id = 0;
    if (command == "append") {
      ARROW_ASSIGN_OR_RAISE(id, floe::table::AppendData(*table, *data));
    } else {
      bool dynamic = args.size() > 5 && args[5] == "dynamic";
      auto filter = dynamic ? floe::table::OverwriteFilter::DynamicPartitions()
                            : floe::table::OverwriteFilter::All();
      ARROW_ASSIGN_OR_RAISE(id, floe::table::OverwriteData(*table, *data, filter));
    }
    std::cout << id << "\n";
    return Status::OK();
  }
  if (command == "read") {
    if (args.size() < 5) return Status::Invalid("read needs an output file");
    floe::scan::TableScan scan(table);
    if (args.size() > 5) scan.UseSnapshot(std::stoll(args[5]));
    ARROW_ASSIGN_OR_RAISE(auto result, scan.ToArrowTable());
    return WriteIpc(*result, args[4]);
  }
  if (command == "snapshots") {
    auto md = table->metadata();
    std::cout << "[";
    for (size_t i = 0; i < md->snapshots.size(); ++i) {
      const auto& s = md->snapshots[i];
      std::cout << (i ? "," : "") << "{\"snapshot-id\":" << s.snapshot_id << ",\"parent-snapshot-id\":"
                << (s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "null")
                << ",\"sequence-number\":" << s.sequence_number << ",\"timestamp-ms\":" << s.timestamp_ms
                << ",\"operation\":" << JsonString(s.operation) << ",\"summary\":{";
      bool first = true;
      for (const auto& [k, v] : s.summary) {
        std::cout << (first ? "" : ",") << JsonString(k) << ":" << JsonString(v);
        first = false;
      }
      std::cout << "}}";
    }
    std::cout << "]\n";
    return Status::OK();
  }
  return Status::Invalid("Unknown command: ", command);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  Status st = Run(args);
  (void)floe::FinalizeObjectStore();  // after the last s3:// use; see object_store.h
  if (!st.ok()) {
    std::cerr << st.message() << "\n";
    return 1;
  }
  return 0;
}
