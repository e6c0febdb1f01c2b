#include "floe/sql/execute/statement_stream.h"

#include <arrow/api.h>

#include "floe/sql/execute/executors.h"
#include "floe/sql/execute/statement_cancel.h"

namespace floe::sql {

namespace {

// Marks the statement finished when the stream goes.
class StatementEnd {
 public:
  explicit StatementEnd(std::shared_ptr<StatementCancel> cancel) : cancel_(std::move(cancel)) {}
  ~StatementEnd() { cancel_->End(); }
  StatementEnd(const StatementEnd&) = delete;
  StatementEnd& operator=(const StatementEnd&) = delete;
  const StatementCancel& cancel() const { return *cancel_; }

 private:
  std::shared_ptr<StatementCancel> cancel_;
};

class QueryStatementStream : public StatementStream {
 public:
  QueryStatementStream(std::shared_ptr<SessionMemoryPool> memory, std::shared_ptr<StatementCancel> cancel,
                       std::shared_ptr<const Statement> statement, std::unique_ptr<Binder> binder,
                       std::unique_ptr<QueryPlanner> planner,
                       std::shared_ptr<arrow::RecordBatchReader> reader,
                       std::shared_ptr<arrow::Schema> schema)
      : memory_(std::move(memory)),
        end_(std::move(cancel)),
        statement_(std::move(statement)),
        binder_(std::move(binder)),
        planner_(std::move(planner)),
        reader_(std::move(reader)),
        schema_(std::move(schema)) {}

  ~QueryStatementStream() override {
    // Stops a plan read only part way (Acero's StopProducing).
    if (reader_) (void)reader_->Close();
  }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (!reader_) return nullptr;
    Status st = end_.cancel().Check();
    std::shared_ptr<arrow::RecordBatch> batch;
    if (st.ok()) st = reader_->ReadNext(&batch);
    if (!st.ok()) {
      (void)reader_->Close();
      reader_.reset();
      return WhenCancelled(*end_.cancel().flag(), st);
    }
    if (!batch) {
      (void)reader_->Close();
      reader_.reset();
      return nullptr;
    }
    rows_ += batch->num_rows();
    // The plan names columns by position; the stream gives them their SQL names.
    return arrow::RecordBatch::Make(schema_, batch->num_rows(), batch->columns());
  }

  std::string command() const override { return "SELECT"; }
  int64_t rows_affected() const override { return rows_; }
  std::string message() const override { return ""; }

 private:
  std::shared_ptr<SessionMemoryPool> memory_;   // the plan allocates from it: it goes last
  StatementEnd end_;
  std::shared_ptr<const Statement> statement_;  // the plan's expressions came from it
  std::unique_ptr<Binder> binder_;              // holds the tables the plan reads
  std::unique_ptr<QueryPlanner> planner_;
  std::shared_ptr<arrow::RecordBatchReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  int64_t rows_ = 0;
};

class ResultStream : public StatementStream {
 public:
  ResultStream(StatementResult result, std::shared_ptr<StatementCancel> cancel)
      : end_(std::move(cancel)), result_(std::move(result)) {
    if (result_.rows) reader_ = std::make_shared<arrow::TableBatchReader>(result_.rows);
  }

  std::shared_ptr<arrow::Schema> schema() const override {
    return result_.rows ? result_.rows->schema() : nullptr;
  }
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (!reader_) return nullptr;
    ARROW_RETURN_NOT_OK(end_.cancel().Check());
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader_->ReadNext(&batch));
    if (!batch) reader_.reset();
    return batch;
  }
  std::string command() const override { return result_.command; }
  int64_t rows_affected() const override { return result_.rows_affected; }
  std::string message() const override { return result_.message; }

 private:
  StatementEnd end_;
  StatementResult result_;
  std::shared_ptr<arrow::RecordBatchReader> reader_;
};

}  // namespace

Result<std::unique_ptr<StatementStream>> StreamQueryStatement(
    SessionState& state, std::shared_ptr<const Statement> statement, const std::string& sql) {
  const Query* query = statement->As<Query>();
  if (!query) return Status::Invalid("internal: not a query");
  auto binder = std::make_unique<Binder>(state, sql);
  auto planner = std::make_unique<QueryPlanner>(binder->Planner());
  ARROW_ASSIGN_OR_RAISE(QueryStream stream, StreamQuery(*planner, *query));
  arrow::FieldVector fields;
  const auto& plan_schema = *stream.reader->schema();
  for (int i = 0; i < plan_schema.num_fields(); ++i) {
    fields.push_back(plan_schema.field(i)->WithName(stream.names[i]));
  }
  return std::make_unique<QueryStatementStream>(
      state.memory, state.cancel, std::move(statement), std::move(binder), std::move(planner),
      std::move(stream.reader), arrow::schema(std::move(fields)));
}

std::unique_ptr<StatementStream> StreamResult(StatementResult result,
                                              std::shared_ptr<StatementCancel> cancel) {
  return std::make_unique<ResultStream>(std::move(result), std::move(cancel));
}

}  // namespace floe::sql
