// Progress of a compile step whose items finish on any thread (the kernels a backend compiles
// on its worker threads), for the progress line of relax-driver (CompileOptions::progress):
//  - compile() installs its reporter for the calling thread with a ReporterScope;
//  - the core opens a Step around a backend's build ("codegen llvm: kernels", 42 items); the
//    Step takes the reporter installed on its thread (none: the Step is silent);
//  - the backend calls item_done() as each item finishes, from any thread: the open Step
//    counts it and reports "codegen llvm: kernels 12/42", one report at a time.
// One Step is open per process at a time (a nested one replaces it until it closes): a second
// compile running at once in the same process reports no items.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace relax::progress {

using Reporter = std::function<void(const std::string& line)>;

/// Installs `report` (may be empty) for the Steps opened on this thread while it lives.
class ReporterScope {
 public:
  explicit ReporterScope(Reporter report);
  ~ReporterScope();
  ReporterScope(const ReporterScope&) = delete;
  ReporterScope& operator=(const ReporterScope&) = delete;

 private:
  Reporter previous_;
};

/// A step of `total` items, reported as "label done/total" as they finish.
class Step {
 public:
  Step(std::string label, size_t total);
  ~Step();
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;

  struct State;  ///< the count and the reporter (progress.cc)

 private:
  std::unique_ptr<State> state_;  ///< null when no reporter was installed
  State* previous_ = nullptr;     ///< the Step this one replaced
};

/// One item of the open Step finished (thread-safe; nothing without an open Step).
void item_done();

}  // namespace relax::progress
