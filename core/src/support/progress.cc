// The progress of compile steps (relax/support/progress.h).
#include "relax/support/progress.h"

#include <mutex>

namespace relax::progress {

struct Step::State {
  std::string label;
  size_t total = 0;
  size_t done = 0;
  Reporter report;
};

namespace {

thread_local Reporter t_reporter;
std::mutex g_mutex;
Step::State* g_open = nullptr;  // guarded by g_mutex

}  // namespace

ReporterScope::ReporterScope(Reporter report) : previous_(std::move(t_reporter)) {
  t_reporter = std::move(report);
}

ReporterScope::~ReporterScope() { t_reporter = std::move(previous_); }

Step::Step(std::string label, size_t total) {
  if (!t_reporter) return;
  state_ = std::make_unique<State>(State{std::move(label), total, 0, t_reporter});
  std::lock_guard<std::mutex> lock(g_mutex);
  previous_ = g_open;
  g_open = state_.get();
  state_->report(state_->label + " 0/" + std::to_string(total));
}

Step::~Step() {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_open == state_.get()) g_open = previous_;
}

void item_done() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_open) return;
  Step::State& s = *g_open;
  if (s.done < s.total) ++s.done;
  s.report(s.label + " " + std::to_string(s.done) + "/" + std::to_string(s.total));
}

}  // namespace relax::progress
