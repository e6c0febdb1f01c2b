#include "floe/util/progress.h"

namespace floe {

namespace {
std::atomic<ProgressSink*> g_sink{nullptr};
}  // namespace

ProgressSink* SetProgressSink(ProgressSink* sink) { return g_sink.exchange(sink); }

ProgressSink* CurrentProgressSink() { return g_sink.load(std::memory_order_acquire); }

ProgressTask::ProgressTask(std::string_view what, int64_t total) : sink_(CurrentProgressSink()) {
  if (sink_ != nullptr) sink_->Start(what, total);
}

ProgressTask::~ProgressTask() {
  if (sink_ != nullptr) sink_->Finish();
}

void ProgressTask::Advance(int64_t steps) {
  int64_t done = done_.fetch_add(steps, std::memory_order_relaxed) + steps;
  if (sink_ != nullptr) sink_->Update(done);
}

}  // namespace floe
