// relax-driver compile / run / inspect: build executables, run them (or a .rx source through
// the JIT), and show what an executable holds.
//
// `run DIR` takes a directory in the ONNX backend-test layout (DIR/model.onnx and
// DIR/test_data_set_N/{input,output}_K.pb) and runs the model on every data set; with
// `--check` each output is compared with output_K.pb. The data-set and comparison helpers
// below are shared with tools/relax-conformance, which runs whole suites of such directories.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "relax/runtime/executable.h"
#include "relax/runtime/value.h"

namespace relax::transform {
class PassRegistry;
class PluginManager;
struct Pipeline;
}  // namespace relax::transform

namespace relax::driver {

struct CompileOptions {
  std::string input;         ///< .rx
  std::string output;        ///< .rxe
  std::string target;        ///< empty: the pipeline's, else "llvm"
  bool time_passes = false;
  bool verify_each = false;
  bool stats = false;  ///< print kernel launches and memory-plan statistics per function
  /// NAME=BOUND: the tir_var_upper_bound of every Relax function (memory planning at the bound).
  std::vector<std::string> upper_bounds;
  /// NAME=FILE: a model input's value the importer specialises on (ONNX: option value.NAME).
  std::vector<std::string> specialize;
};

struct RunOptions {
  std::string input;                  ///< .rxe, .rx/.onnx compiled in-process (JIT), or a test DIR
  std::string func = "main";
  std::vector<std::string> inputs;    ///< NAME=FILE or FILE (in parameter order)
  std::vector<std::string> dims;      ///< NAME=VALUE for symbolic dims of random inputs
  std::string output_dir;
  std::string target;                 ///< for .rx inputs; empty: "llvm,jit=1"
  int repeat = 1;
  uint32_t seed = 0;
  int print_limit = 8;                ///< elements printed per output
  bool check = false;                 ///< DIR input: compare outputs with output_K.pb
  double rtol = 1e-3;                 ///< --check: |got - want| <= atol + rtol * |want|
  double atol = 1e-4;
  int warmup = 0;                     ///< untimed runs before the --repeat timed ones
  double max_seconds = 0;             ///< > 0: cut warm-up and timed runs short (invoke_timed)
  bool json = false;                  ///< latency (and --check's max error) as one JSON line
  bool profile = false;               ///< time each kernel/builtin call (VMOptions::profile)
  int profile_top = 25;               ///< --profile: functions printed, slowest first; 0: all
  std::string executable;             ///< DIR input: run this .rxe instead of compiling model.onnx
};

// ---- ONNX backend-test directories -------------------------------------------------------

/// One test_data_set_N directory: its input_K.pb and output_K.pb files, by K.
struct TestDataSet {
  std::string dir;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

/// Frontend options giving the importer the values of inputs (ONNX `value.NAME=FILE`, with
/// `unknown-values=ignore`): of `specs` (NAME=FILE, or FILE of a .pb naming its tensor), those
/// holding small integer tensors (rank 0 or 1, at most 64 elements) — the axes, counts and
/// shapes an importer needs as static values. The importer guards each one it uses at run time.
std::map<std::string, std::string> input_value_options(const std::vector<std::string>& specs);

/// Whether `path` is a directory holding model.onnx.
bool is_onnx_test_dir(const std::string& path);
/// The test_data_set_N directories of `case_dir`, by N (none: an empty list).
std::vector<TestDataSet> find_test_data_sets(const std::string& case_dir);
/// The inputs of `set` as the arguments of `f`: a TensorProto whose name is a parameter's goes
/// there, the others fill the remaining parameters in order. Throws relax::Error naming the
/// file when the counts or names do not fit.
std::vector<runtime::Value> load_test_inputs(const TestDataSet& set, const runtime::FunctionInfo& f);
/// Compares the outputs in `result` (a tuple is flattened) with the set's output_K.pb: shapes
/// and dtypes must match, integers and bools exactly, floats within atol + rtol * |want| (NaN
/// equals NaN). Writes one verdict line per output to `os`; returns whether all match and, when
/// not, sets `first_error` (may be null) to the first mismatch's verdict.
bool check_outputs(const runtime::Value& result, const TestDataSet& set, double rtol, double atol,
                   std::ostream& os, std::string* first_error = nullptr);

/// Runs `pipeline` (completed with the minimum build's missing passes) over the module and
/// writes the executable.
int cmd_compile(const CompileOptions& opt, const transform::Pipeline& pipeline,
                transform::PassRegistry& registry, transform::PluginManager& plugins);
int cmd_run(const RunOptions& opt, const transform::Pipeline& pipeline,
            transform::PassRegistry& registry, transform::PluginManager& plugins);
int cmd_inspect(const std::string& path);

}  // namespace relax::driver
