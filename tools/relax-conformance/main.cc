// relax-conformance: the ONNX backend conformance runner.
//
//   relax-conformance CASES [--report report.md] [--floor 60] [--jobs 2] [--timeout 60]
//                     [--filter NAME] [--target llvm,jit=1] [--plugin-dir DIR] [-v]
//
// CASES holds directories in the ONNX backend-test layout (cases.h). The ONNX frontend and the
// target's backend are loaded once; each case then runs in a forked child (so a crash, a hang
// or a leak in one case cannot take the run down; `--jobs` children at a time, each killed by
// SIGALRM after `--timeout` seconds): import, relax::build, run every test_data_set on the
// VM and compare with output_K.pb exactly as `relax-driver run DIR --check` does. The child
// writes its verdict ("pass", or the stage and the first error line) to a pipe.
//
// Cases with training-only ops, random outputs (cases.h) or sequence/optional values are listed
// apart and left out of the pass rate. The report (Markdown) has the totals, the failures grouped by op type with
// counts and a first error, the excluded cases and every case's result. Exit status: 0 when
// the pass rate (percent of counted cases) is at least --floor, 1 below it, 2 on a usage error.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "cases.h"
#include "common/inputs.h"
#include "common/test_dir.h"
#include "relax/runtime/vm.h"
#include "relax/support/diagnostic.h"
#include "relax/target/compile.h"
#include "relax/target/target.h"
#include "relax/transform/frontend.h"
#include "relax/transform/pass.h"
#include "relax/transform/plugin.h"

namespace relax::conformance {

namespace {

struct Options {
  std::string root;
  std::string report;
  double floor = 0;
  int jobs = 2;
  int timeout_s = 60;
  std::string filter;
  std::string target = "llvm,jit=1";
  std::string pipeline = "o0";
  std::vector<std::string> plugin_dirs;
  bool verbose = false;
  double rtol = 1e-3, atol = 1e-4;
};

struct Result {
  bool pass = false;
  std::string error;  ///< "stage: first line of the error"
  double seconds = 0;
};

/// The start of an error message on one line ("cannot import the model:" lists the ops on
/// the next lines, so those are kept, joined by "; ").
std::string first_line(const std::string& s) {
  std::string line;
  for (char ch : s) line += ch == '\n' ? ' ' : ch;
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

/// The work of one child: the verdict line ("pass" or "stage: error").
std::string run_case(const Case& c, const Options& opt, Compiler& compiler) {
  std::string stage = "import";
  try {
    // Small integer inputs (axes, k, pads...) are handed to the importer, which specialises
    // on those it needs as static values and guards them at run time.
    std::vector<tools::TestDataSet> sets = tools::find_test_data_sets(c.dir);
    RX_CHECK(!sets.empty()) << c.dir << " has no test_data_set_N directories";
    IRModule mod =
        compiler.import(c.dir + "/model.onnx", tools::input_value_options(sets[0].inputs));
    stage = "build";
    CompileOptions co;
    co.module = mod;
    co.target = opt.target;
    co.pipeline = opt.pipeline;
    co.verify_each = false;
    Ref<runtime::Executable> exec = compiler.compile(co).executable;
    stage = "run";
    int64_t index = exec->find_function("main");
    RX_CHECK(index >= 0) << "the executable has no function main";
    runtime::FunctionInfo f = exec->functions[size_t(index)];
    auto vm = runtime::VirtualMachine::create(exec);
    for (const tools::TestDataSet& set : sets) {
      stage = "run";
      runtime::Value result = vm->invoke("main", tools::load_test_inputs(set, f));
      stage = "check";
      std::ostringstream verdicts;
      std::string mismatch;
      if (!tools::check_outputs(result, set, opt.rtol, opt.atol, verdicts, &mismatch))
        return "check: " + first_line(mismatch);
    }
    return "pass";
  } catch (const Error& e) {
    return stage + ": " + first_line(e.what());
  } catch (const InternalError& e) {
    return stage + ": internal error: " + first_line(e.what());
  } catch (const std::exception& e) {
    return stage + ": " + first_line(e.what());
  }
}

struct Child {
  pid_t pid;
  int fd;
  size_t index;
  std::chrono::steady_clock::time_point start;
};

/// Runs every counted case, `opt.jobs` forked children at a time.
std::vector<Result> run_all(const std::vector<Case>& cases, const Options& opt,
                            Compiler& compiler) {
  std::vector<Result> results(cases.size());
  std::vector<Child> running;
  size_t next = 0, done = 0, counted = 0;
  for (const Case& c : cases) counted += c.excluded.empty();
  auto skip_excluded = [&] {
    while (next < cases.size() && !cases[next].excluded.empty()) ++next;
  };
  skip_excluded();
  while (next < cases.size() || !running.empty()) {
    while (next < cases.size() && running.size() < size_t(opt.jobs)) {
      int fds[2];
      RX_CHECK(::pipe(fds) == 0) << "relax-conformance: pipe() failed: " << std::strerror(errno);
      std::cout.flush();
      pid_t pid = ::fork();
      RX_CHECK(pid >= 0) << "relax-conformance: fork() failed: " << std::strerror(errno);
      if (pid == 0) {
        ::close(fds[0]);
        ::alarm(unsigned(opt.timeout_s));
        if (!opt.verbose) {  // backend warnings would drown the summary; the verdict has the error
          int null_fd = ::open("/dev/null", O_WRONLY);
          if (null_fd >= 0) {
            ::dup2(null_fd, 1);
            ::dup2(null_fd, 2);
          }
        }
        std::string verdict = run_case(cases[next], opt, compiler);
        size_t off = 0;
        while (off < verdict.size()) {
          ssize_t n = ::write(fds[1], verdict.data() + off, verdict.size() - off);
          if (n <= 0) break;
          off += size_t(n);
        }
        ::_exit(0);  // no destructors or atexit handlers of the parent's state
      }
      ::close(fds[1]);
      running.push_back({pid, fds[0], next, std::chrono::steady_clock::now()});
      ++next;
      skip_excluded();
    }
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) continue;
    auto it = std::find_if(running.begin(), running.end(), [&](const Child& ch) { return ch.pid == pid; });
    if (it == running.end()) continue;
    std::string verdict;
    char buf[4096];
    for (ssize_t n; (n = ::read(it->fd, buf, sizeof buf)) > 0;) verdict.append(buf, size_t(n));
    ::close(it->fd);
    Result& r = results[it->index];
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - it->start).count();
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
      r.error = "timeout: no verdict after " + std::to_string(opt.timeout_s) + " s";
    } else if (WIFSIGNALED(status)) {
      r.error = std::string("crash: ") + ::strsignal(WTERMSIG(status));
    } else if (verdict.empty()) {
      r.error = "crash: the child exited with status " + std::to_string(WEXITSTATUS(status)) +
                " and no verdict";
    } else {
      r.pass = verdict == "pass";
      if (!r.pass) r.error = verdict;
    }
    ++done;
    if (opt.verbose) {
      std::cout << "[" << done << "/" << counted << "] " << cases[it->index].name << ": "
                << (r.pass ? "pass" : r.error) << "\n";
    }
    running.erase(it);
  }
  return results;
}

std::string md_escape(std::string s) {
  for (size_t p = 0; (p = s.find('|', p)) != std::string::npos; p += 2) s.replace(p, 1, "\\|");
  return s;
}

int run(int argc, char** argv) {
  Options opt;
  CLI::App app{"relax-conformance: run ONNX backend test cases through Relax"};
  app.add_option("cases", opt.root, "directory of ONNX test cases (node/test_x/model.onnx ...)")
      ->required();
  app.add_option("--report", opt.report, "write the Markdown report here");
  app.add_option("--floor", opt.floor, "minimum pass rate in percent (exit 1 below it)");
  app.add_option("-j,--jobs", opt.jobs, "cases run at once")->check(CLI::PositiveNumber);
  app.add_option("--timeout", opt.timeout_s, "seconds per case")->check(CLI::PositiveNumber);
  app.add_option("--filter", opt.filter, "only cases whose name contains this");
  app.add_option("--target", opt.target, "the build target (default llvm,jit=1)");
  app.add_option("-p,--pipeline", opt.pipeline,
                 "the pipeline: a built-in name, a YAML file or a one-line pass list (default o0)");
  app.add_option("--plugin-dir", opt.plugin_dirs, "search DIR for the plugins");
  app.add_option("--rtol", opt.rtol, "relative tolerance (default 1e-3)");
  app.add_option("--atol", opt.atol, "absolute tolerance (default 1e-4)");
  app.add_flag("-v,--verbose", opt.verbose, "print each case's verdict as it finishes");
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<Case> cases = discover_cases(opt.root, opt.filter);
    RX_CHECK(!cases.empty()) << "relax-conformance: no test cases (model.onnx) under " << opt.root;
    Compiler compiler(opt.plugin_dirs);
    // Loaded once, before forking: every child inherits the frontend, the pipeline's plugins
    // and the backend.
    compiler.load_plugin("onnx");
    compiler.load_plugin(Target::parse(opt.target).kind);
    compiler.pipeline(opt.pipeline);
    auto start = std::chrono::steady_clock::now();
    std::vector<Result> results = run_all(cases, opt, compiler);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    size_t counted = 0, passed = 0;
    std::map<std::string, std::pair<size_t, size_t>> per_op;  // op -> (failed, counted)
    std::map<std::string, std::string> first_error;
    for (size_t i = 0; i < cases.size(); ++i) {
      if (!cases[i].excluded.empty()) continue;
      ++counted;
      auto& [failed, total] = per_op[cases[i].op_type];
      ++total;
      if (results[i].pass) {
        ++passed;
      } else {
        ++failed;
        first_error.emplace(cases[i].op_type, cases[i].name + ": " + results[i].error);
      }
    }
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> groups;
    for (const auto& g : per_op)
      if (g.second.first) groups.push_back(g);
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    double rate = counted ? 100.0 * double(passed) / double(counted) : 0;
    size_t excluded = cases.size() - counted;

    std::ostringstream totals;
    totals << std::fixed << std::setprecision(1) << passed << " of " << counted << " cases pass ("
           << rate << "%), " << counted - passed << " fail; " << excluded
           << " excluded (training-only ops, random outputs, sequence/optional values); target " << opt.target
           << "; " << seconds << " s";
    std::cout << "relax-conformance: " << totals.str() << "\n";
    std::cout << "largest failure groups:";
    for (size_t i = 0; i < std::min<size_t>(groups.size(), 10); ++i)
      std::cout << (i ? ", " : " ") << groups[i].first << " " << groups[i].second.first;
    std::cout << "\n";

    if (!opt.report.empty()) {
      std::ofstream md(opt.report);
      RX_CHECK(md) << "relax-conformance: cannot write the report " << opt.report;
      md << "# ONNX backend conformance\n\n" << totals.str() << ".\n\nCases: `" << opt.root
         << "`; tolerances rtol " << opt.rtol << ", atol " << opt.atol << ".\n\n"
         << "## Failures by op type\n\n| op | failed | cases | first error |\n|---|---|---|---|\n";
      for (const auto& [op, n] : groups)
        md << "| " << op << " | " << n.first << " | " << n.second << " | "
           << md_escape(first_error[op]) << " |\n";
      md << "\n## Excluded (not in the pass rate)\n\n";
      for (const Case& c : cases)
        if (!c.excluded.empty()) md << "- " << c.name << ": " << c.excluded << "\n";
      md << "\n## Every case\n\n| case | op | result |\n|---|---|---|\n";
      for (size_t i = 0; i < cases.size(); ++i) {
        if (!cases[i].excluded.empty()) continue;
        md << "| " << cases[i].name << " | " << cases[i].op_type << " | "
           << (results[i].pass ? "pass" : "FAIL: " + md_escape(results[i].error)) << " |\n";
      }
      std::cout << "relax-conformance: wrote " << opt.report << "\n";
    }
    if (rate + 1e-9 < opt.floor) {
      std::cout << "relax-conformance: the pass rate " << std::fixed << std::setprecision(1)
                << rate << "% is below the floor " << opt.floor << "%\n";
      return 1;
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace

}  // namespace relax::conformance

int main(int argc, char** argv) { return relax::conformance::run(argc, argv); }
