// The progress line relax-driver keeps on a terminal during long compiles and runs: one line on
// stderr, rewritten in place ("[relax] pass 12/31 fuse-ops", "[relax] codegen llvm (42
// kernels)", "[relax] writing m.rxe", "[relax] run 3/10"), cleared when the work is done or
// before anything else is printed. Silent when stderr is not a terminal, when TERM is "dumb",
// and with --quiet, so logs and pipes never see it.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace relax::driver {

class ProgressLine {
 public:
  explicit ProgressLine(bool quiet) {
    const char* term = std::getenv("TERM");
    enabled_ = !quiet && ::isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
  }
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  /// Replaces the line with "[relax] text" (cut to 100 columns).
  void show(const std::string& text) {
    if (!enabled_) return;
    std::string line = "[relax] " + text;
    if (line.size() > 100) line = line.substr(0, 97) + "...";
    std::cerr << "\r\033[K" << line << std::flush;
    shown_ = true;
  }
  /// Erases the line (before other output, and at the end).
  void clear() {
    if (!shown_) return;
    std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  bool enabled_ = false;
  bool shown_ = false;
};

}  // namespace relax::driver
