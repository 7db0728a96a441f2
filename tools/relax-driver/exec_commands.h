// relax-driver compile / run / inspect: build executables, run them (or a .rx source through
// the JIT), and show what an executable holds.
#pragma once

#include <string>
#include <vector>

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
};

struct RunOptions {
  std::string input;                  ///< .rxe, or .rx compiled in-process (JIT)
  std::string func = "main";
  std::vector<std::string> inputs;    ///< NAME=FILE or FILE (in parameter order)
  std::vector<std::string> dims;      ///< NAME=VALUE for symbolic dims of random inputs
  std::string output_dir;
  std::string target;                 ///< for .rx inputs; empty: "llvm,jit=1"
  int repeat = 1;
  uint32_t seed = 0;
  int print_limit = 8;                ///< elements printed per output
};

/// Runs `pipeline` (completed with the minimum build's missing passes) over the module and
/// writes the executable.
int cmd_compile(const CompileOptions& opt, const transform::Pipeline& pipeline,
                transform::PassRegistry& registry, transform::PluginManager& plugins);
int cmd_run(const RunOptions& opt, const transform::Pipeline& pipeline,
            transform::PassRegistry& registry, transform::PluginManager& plugins);
int cmd_inspect(const std::string& path);

}  // namespace relax::driver
