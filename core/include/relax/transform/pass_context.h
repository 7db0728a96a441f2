// PassContext, instruments and running a list of passes.
//
// A PassContext carries what is not part of any one pass: the thread count for unit-level
// passes, the instruments called around each pass, and where a reproducer goes on failure.
// run_passes() is the one loop that runs passes (Sequential and the driver use it):
//
//   for each pass:  instruments.before_pass(pass, in)
//                   out = pass(in)                      (unit-level passes run concurrently)
//                   instruments.after_pass(pass, out)   (verify-each throws here)
//   on an exception from the pass or an after_pass hook: instruments.on_failure(pass, in, why),
//   then the exception propagates (a reproducer instrument writes its file first).
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "relax/transform/pass.h"

namespace relax::transform {

/// Hooks called around each pass. Called from the thread running the pipeline, never
/// concurrently.
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  /// A short name for messages ("time-passes").
  virtual std::string name() const = 0;
  /// Before the first pass of a run_passes call; `passes` is the whole list.
  virtual void begin_pipeline(const std::vector<Pass>& passes, const IRModule& mod) {}
  virtual void before_pass(const Pass& pass, const IRModule& mod) {}
  /// After a pass succeeded; may throw (relax::Error) to fail the pass.
  virtual void after_pass(const Pass& pass, const IRModule& mod) {}
  /// A pass (or an after_pass hook) failed; `input` is the module the pass was given.
  virtual void on_failure(const Pass& pass, const IRModule& input, const std::exception& why) {}
  /// After the last pass, or after a failure.
  virtual void end_pipeline() {}
};

/// The environment a pipeline runs in.
class PassContext {
 public:
  PassContext() = default;

  /// Threads for unit-level passes; 0 (the default) means every hardware thread.
  int jobs() const;
  void set_jobs(int jobs) { jobs_ = jobs; }

  void add_instrument(std::shared_ptr<PassInstrument> instrument) {
    instruments_.push_back(std::move(instrument));
  }
  const std::vector<std::shared_ptr<PassInstrument>>& instruments() const { return instruments_; }
  /// The first instrument of type T, or null.
  template <class T>
  T* find_instrument() const {
    for (const auto& i : instruments_)
      if (auto* t = dynamic_cast<T*>(i.get())) return t;
    return nullptr;
  }

 private:
  int jobs_ = 0;
  std::vector<std::shared_ptr<PassInstrument>> instruments_;
};

/// Runs `passes` in order over `mod` with the context's instruments (see the file comment).
IRModule run_passes(const std::vector<Pass>& passes, IRModule mod, PassContext& ctx);

/// A list of passes run as one.
class Sequential {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<Pass> passes) : passes_(std::move(passes)) {}
  void add(Pass pass) { passes_.push_back(std::move(pass)); }
  const std::vector<Pass>& passes() const { return passes_; }
  /// The one-line form: "normalize,fuse-ops{max-depth=8}".
  std::string to_string() const;
  IRModule operator()(IRModule mod, PassContext& ctx) const {
    return run_passes(passes_, std::move(mod), ctx);
  }

 private:
  std::vector<Pass> passes_;
};

}  // namespace relax::transform
