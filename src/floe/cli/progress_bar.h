#pragma once

// The progress bar of the floe command: a ProgressSink that draws one line on a terminal,
// only once work has gone on for a while (a second by default), and clears it when the work
// ends, so quick commands print nothing and output piped elsewhere is never touched.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "floe/util/progress.h"

namespace floe::cli {

class ProgressBar : public ProgressSink {
 public:
  struct Options {
    int fd = 2;                             // where the line is drawn (a terminal)
    std::chrono::milliseconds delay{1000};  // nothing is drawn before this much busy time
    std::chrono::milliseconds redraw{100};  // at most this often
    int width = 0;  // characters per line; 0 asks the terminal (80 when it cannot say)
  };

  explicit ProgressBar(Options options);
  ~ProgressBar() override;  // clears the line

  void Start(std::string_view what, int64_t total) override;
  void Update(int64_t done) override;
  void Finish() override;

  // The line for the tasks in progress (outermost first), `width` characters at most.
  struct Task {
    std::string what;
    int64_t total = 0;
    int64_t done = 0;
  };
  static std::string Render(const std::vector<Task>& tasks, int width);

 private:
  void Loop();
  void DrawLocked(std::chrono::steady_clock::time_point now);
  void ClearLocked();
  void Write(const std::string& text);
  int Width() const;

  Options options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<Task> tasks_;
  std::chrono::steady_clock::time_point busy_since_;
  std::chrono::steady_clock::time_point drawn_at_;
  bool drawn_ = false;
  std::thread thread_;
};

// Installs a ProgressBar on standard error for the lifetime of the returned object when
// standard error is a terminal (and FLOE_PROGRESS is not "0"); otherwise does nothing.
// $FLOE_PROGRESS_DELAY_MS replaces the one-second delay.
class TerminalProgress {
 public:
  TerminalProgress();
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

 private:
  std::unique_ptr<ProgressBar> bar_;
  ProgressSink* previous_ = nullptr;
};

}  // namespace floe::cli
