#include "floe/cli/progress_bar.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "floe/util/number_parse.h"
#include "floe/util/str_cat.h"

namespace floe::cli {

namespace {

constexpr int kBarWidth = 24;
// Back to the start of the line and erase it.
constexpr char kClearLine[] = "\r\x1b[K";

std::string Counts(const ProgressBar::Task& task) {
  return task.total > 0 ? StrCat(task.done, "/", task.total) : StrCat(task.done);
}

}  // namespace

ProgressBar::ProgressBar(Options options) : options_(options) {
  thread_ = std::thread([this] { Loop(); });
}

ProgressBar::~ProgressBar() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    ClearLocked();
  }
  wake_.notify_all();
  thread_.join();
}

void ProgressBar::Start(std::string_view what, int64_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (tasks_.empty()) busy_since_ = now;
  tasks_.push_back({std::string(what), std::max<int64_t>(0, total), 0});
  DrawLocked(now);
}

void ProgressBar::Update(int64_t done) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tasks_.empty()) return;
  tasks_.back().done = std::max(tasks_.back().done, done);
  DrawLocked(std::chrono::steady_clock::now());
}

void ProgressBar::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!tasks_.empty()) tasks_.pop_back();
  if (tasks_.empty()) {
    ClearLocked();
  } else if (drawn_) {
    drawn_at_ = {};  // the outer task shows again at once
    DrawLocked(std::chrono::steady_clock::now());
  }
}

std::string ProgressBar::Render(const std::vector<Task>& tasks, int width) {
  if (tasks.empty()) return "";
  // The outermost task gets the bar: it is the whole job. A nested task (the files of one
  // step) follows as a label and a count.
  const Task& outer = tasks.front();
  std::string line = outer.what;
  if (outer.total > 0) {
    const int64_t done = std::min(outer.done, outer.total);
    const int filled = static_cast<int>(done * kBarWidth / outer.total);
    line += " [" + std::string(static_cast<size_t>(filled), '#') +
            std::string(static_cast<size_t>(kBarWidth - filled), '.') + "]";
  }
  line += " " + Counts(outer);
  if (tasks.size() > 1) line += " - " + tasks.back().what + " " + Counts(tasks.back());
  if (width > 1 && static_cast<int>(line.size()) > width - 1) {
    line.resize(static_cast<size_t>(width - 1));
  }
  return line;
}

void ProgressBar::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, options_.redraw);
    if (!stop_ && !tasks_.empty()) DrawLocked(std::chrono::steady_clock::now());
  }
}

void ProgressBar::DrawLocked(std::chrono::steady_clock::time_point now) {
  if (stop_ || tasks_.empty() || now - busy_since_ < options_.delay) return;
  if (drawn_ && now - drawn_at_ < options_.redraw) return;
  Write(kClearLine + Render(tasks_, Width()));
  drawn_ = true;
  drawn_at_ = now;
}

void ProgressBar::ClearLocked() {
  if (!drawn_) return;
  Write(kClearLine);
  drawn_ = false;
}

void ProgressBar::Write(const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(options_.fd, text.data() + written, text.size() - written);
    if (n <= 0) return;  // a terminal that went away: progress is not worth an error
    written += static_cast<size_t>(n);
  }
}

int ProgressBar::Width() const {
  if (options_.width > 0) return options_.width;
  struct winsize size {};
  if (::ioctl(options_.fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

TerminalProgress::TerminalProgress() {
  if (::isatty(STDERR_FILENO) != 1) return;
  const char* enabled = std::getenv("FLOE_PROGRESS");
  if (enabled != nullptr && std::string_view(enabled) == "0") return;
  ProgressBar::Options options;
  options.fd = STDERR_FILENO;
  if (const char* delay = std::getenv("FLOE_PROGRESS_DELAY_MS")) {
    if (auto ms = ParseInt64(delay); ms && *ms >= 0) options.delay = std::chrono::milliseconds(*ms);
  }
  bar_ = std::make_unique<ProgressBar>(options);
  previous_ = SetProgressSink(bar_.get());
}

TerminalProgress::~TerminalProgress() {
  if (bar_) SetProgressSink(previous_);
}

}  // namespace floe::cli
