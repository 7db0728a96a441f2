// The standard instruments: --time-passes, --dump-ir-before/after, --verify-each and the
// failure reproducer.
#include "relax/transform/instruments.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <sstream>

#include "relax/ir/well_formed.h"

namespace relax::transform {

// ---- Timing.

void TimingInstrument::begin_pipeline(const std::vector<Pass>&, const IRModule&) {}

void TimingInstrument::before_pass(const Pass&, const IRModule&) {
  start_ = std::chrono::steady_clock::now();
  start_us_ = trace::now_us();
}

void TimingInstrument::stop(const Pass& pass) {
  auto ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  entries_.push_back({pass.to_string(), ms, start_us_});
}

void TimingInstrument::after_pass(const Pass& pass, const IRModule&) { stop(pass); }
void TimingInstrument::on_failure(const Pass& pass, const IRModule&, const std::exception&) {
  stop(pass);
}

double TimingInstrument::total_ms() const {
  double t = 0;
  for (const auto& e : entries_) t += e.ms;
  return t;
}

void TimingInstrument::report(std::ostream& os) const {
  std::vector<Entry> sorted = entries_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Entry& a, const Entry& b) { return a.ms > b.ms; });
  double total = total_ms();
  os << "===- Pass execution timing report -===\n";
  os << "  Total: " << std::fixed << std::setprecision(3) << total << " ms\n";
  for (const auto& e : sorted) {
    double pct = total > 0 ? 100.0 * e.ms / total : 0.0;
    os << "  " << std::setw(10) << e.ms << " ms (" << std::setw(5) << std::setprecision(1) << pct
       << "%)  " << e.pass << "\n"
       << std::setprecision(3);
  }
  os.unsetf(std::ios::floatfield);
}

// ---- IR dumps.

IRDumpInstrument::IRDumpInstrument(Options options) : options_(std::move(options)) {
  if (!options_.directory.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.directory, ec);
    RX_CHECK(!ec) << "cannot create the IR dump directory '" << options_.directory
                  << "': " << ec.message();
  }
}

namespace {
bool selected(const std::set<std::string>& names, const Pass& pass) {
  return names.count("all") != 0 || names.count(pass.name()) != 0;
}
}  // namespace

void IRDumpInstrument::before_pass(const Pass& pass, const IRModule& mod) {
  if (selected(options_.before, pass)) dump(pass, mod, "before");
}

void IRDumpInstrument::after_pass(const Pass& pass, const IRModule& mod) {
  if (selected(options_.after, pass)) dump(pass, mod, "after");
}

void IRDumpInstrument::dump(const Pass& pass, const IRModule& mod, const char* when) {
  std::string text = module_to_text(mod, options_.show_constants);
  std::string title =
      std::string("IR Dump ") + (when[0] == 'b' ? "Before " : "After ") + pass.to_string();
  if (options_.directory.empty()) {
    std::ostream& os = options_.stream ? *options_.stream : std::cerr;
    os << "# -----// " << title << " //----- #\n" << text;
    if (!text.empty() && text.back() != '\n') os << "\n";
    os.flush();
    return;
  }
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%02d-", counter_++);
  auto path =
      std::filesystem::path(options_.directory) / (prefix + pass.name() + "-" + when + ".rx");
  std::ofstream out(path);
  RX_CHECK(out) << "cannot write the IR dump '" << path.string() << "'";
  out << "# " << title << "\n" << text;
  files_.push_back(path.string());
}

// ---- Verify-each.

void VerifyInstrument::after_pass(const Pass& pass, const IRModule& mod) {
  auto errors = well_formed_errors(mod);
  if (errors.empty()) return;
  std::ostringstream os;
  os << "the module is not well formed after pass '" << pass.name() << "' (" << errors.size()
     << (errors.size() == 1 ? " violation" : " violations") << "):";
  for (const auto& d : errors) os << "\n  " << d.to_string();
  throw Error(os.str());
}

// ---- Reproducer.

void ReproducerInstrument::begin_pipeline(const std::vector<Pass>& passes, const IRModule&) {
  pipeline_.clear();
  for (const auto& p : passes) pipeline_ += (pipeline_.empty() ? "" : ",") + p.to_string();
}

void ReproducerInstrument::on_failure(const Pass& pass, const IRModule& input,
                                      const std::exception& why) {
  std::ofstream out(path_);
  if (!out) return;  // The original error matters more than a missing reproducer.
  std::string reason = why.what();
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  out << "# relax-reproducer: pass '" << pass.name() << "' failed: " << reason << "\n";
  out << "# pipeline: " << pipeline_ << "\n";
  out << "# relax-reproducer: --passes='" << pass.to_string() << "'\n";
  out << module_to_text(input);
  written_ = out.good();
}

}  // namespace relax::transform
