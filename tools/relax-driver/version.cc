// `relax-driver --version` (cli.h). The version, commit and LLVM version come from CMake as
// compile definitions of this file alone (tools/relax-driver/CMakeLists.txt), so a new commit
// recompiles one file; the plugin ABI is the one the driver's plugin loader checks.
#include <sstream>

#include "cli.h"
#include "relax/transform/plugin_abi.h"

#ifndef RELAX_VERSION
#define RELAX_VERSION "unknown"
#endif
#ifndef RELAX_GIT_COMMIT
#define RELAX_GIT_COMMIT "unknown"
#endif

namespace relax::driver {

std::string version_text() {
  std::ostringstream s;
  s << "relax-driver " << RELAX_VERSION << " (commit " << RELAX_GIT_COMMIT << ")\n"
    << "plugin ABI " << RELAX_PLUGIN_ABI_MAJOR << "." << RELAX_PLUGIN_ABI_MINOR << "\n";
#ifdef RELAX_LLVM_VERSION
  s << "LLVM " << RELAX_LLVM_VERSION << " (the llvm backend plugin)";
#else
  s << "LLVM none (built without the llvm backend plugin)";
#endif
  return s.str();
}

}  // namespace relax::driver
