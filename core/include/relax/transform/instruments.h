// The standard pass instruments: timing, IR dumps, verify-each and failure reproducers.
#pragma once

#include <chrono>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "relax/support/trace.h"
#include "relax/transform/pass_context.h"

namespace relax::transform {

/// True in builds without NDEBUG: verify-each is then on unless turned off.
#ifdef NDEBUG
inline constexpr bool kVerifyEachByDefault = false;
#else
inline constexpr bool kVerifyEachByDefault = true;
#endif

/// --time-passes: wall time of each pass; report() prints a table, slowest first.
class TimingInstrument : public PassInstrument {
 public:
  struct Entry {
    std::string pass;  ///< Pass::to_string()
    double ms = 0;
    double start_us = 0;  ///< trace::now_us() at its start
  };
  std::string name() const override { return "time-passes"; }
  void begin_pipeline(const std::vector<Pass>&, const IRModule&) override;
  void before_pass(const Pass& pass, const IRModule& mod) override;
  void after_pass(const Pass& pass, const IRModule& mod) override;
  void on_failure(const Pass& pass, const IRModule&, const std::exception&) override;

  /// Passes in the order they ran, with their times.
  const std::vector<Entry>& entries() const { return entries_; }
  double total_ms() const;
  /// "===- Pass execution timing report -===" then one line per pass and the total.
  void report(std::ostream& os) const;

 private:
  void stop(const Pass& pass);
  std::vector<Entry> entries_;
  std::chrono::steady_clock::time_point start_;
  double start_us_ = 0;
};

/// --dump-ir-before / --dump-ir-after: prints the module around the named passes (or all).
/// With a directory, each dump is a file "NN-<pass>-<before|after>.rx" there; otherwise it goes
/// to the stream (stderr in the driver) under a "// -----// IR Dump After <pass> //----- //" line.
class IRDumpInstrument : public PassInstrument {
 public:
  struct Options {
    std::set<std::string> before;  ///< pass names; "all" means every pass
    std::set<std::string> after;
    std::string directory;  ///< empty: write to `stream`
    std::ostream* stream = nullptr;
    /// Print large constants in full; off: `R.const_elided` placeholders (text/printer.h).
    bool show_constants = false;
  };
  explicit IRDumpInstrument(Options options);
  std::string name() const override { return "dump-ir"; }
  void before_pass(const Pass& pass, const IRModule& mod) override;
  void after_pass(const Pass& pass, const IRModule& mod) override;
  /// The files written so far (directory mode).
  const std::vector<std::string>& files() const { return files_; }

 private:
  void dump(const Pass& pass, const IRModule& mod, const char* when);
  Options options_;
  int counter_ = 0;
  std::vector<std::string> files_;
};

/// --verify-each: checks that the module is well formed after every pass; a violation fails
/// the pass with a relax::Error naming it and listing the violations.
class VerifyInstrument : public PassInstrument {
 public:
  std::string name() const override { return "verify-each"; }
  void after_pass(const Pass& pass, const IRModule& mod) override;
};

/// On a pass failure writes a reproducer: the pass's input module as text, preceded by
/// comment lines naming the failure and the one-line pipeline that reproduces it
/// ("# relax-reproducer: --passes='fuse-ops{max-depth=8}'").
class ReproducerInstrument : public PassInstrument {
 public:
  explicit ReproducerInstrument(std::string path) : path_(std::move(path)) {}
  std::string name() const override { return "reproducer"; }
  void begin_pipeline(const std::vector<Pass>& passes, const IRModule&) override;
  void on_failure(const Pass& pass, const IRModule& input, const std::exception& why) override;
  const std::string& path() const { return path_; }
  /// True once a reproducer was written.
  bool written() const { return written_; }

 private:
  std::string path_;
  std::string pipeline_;
  bool written_ = false;
};

/// The module as text for dumps and reproducers (the printer of ir/printer.h); reproducers
/// keep every constant, dumps elide large ones unless asked.
std::string module_to_text(const IRModule& mod, bool show_constants = true);

}  // namespace relax::transform
