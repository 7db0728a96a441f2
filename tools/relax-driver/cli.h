// What relax-driver's command line offers beside the commands: the --version text, suggestions
// for a mistyped command or option, and the bash completion script. The last two read the
// CLI11 App tree main.cc builds, so they follow every command and option added there.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace relax::driver {

/// `--version`: the Relax version, the plugin ABI, the LLVM of the LLVM backend and the git
/// commit built from, one per line.
std::string version_text();

/// After CLI11 rejected a command line parsed by `app`: "unknown command 'comple'; did you mean
/// 'compile'?" (or the same for an option of the command given) for the first word it could not
/// place; "" when every word was placed (then CLI11's own message says what is wrong).
std::string unknown_argument_message(CLI::App& app);

/// A bash completion script for the commands of `app`, each with its options.
std::string bash_completion(CLI::App& app);

}  // namespace relax::driver
