// `relax-driver completion bash` (cli.h): a bash completion script written from the CLI11 App
// tree, so a command or option added in main.cc completes without editing a list here. CMake
// runs it at build time and installs the script (tools/relax-driver/CMakeLists.txt).
#include <CLI/CLI.hpp>
#include <sstream>

#include "cli.h"

namespace relax::driver {
namespace {

/// The option names of `app` as typed, and those of them that take a value.
struct OptionWords {
  std::string all;     ///< "--help --target -o ..."
  std::string values;  ///< " --target -o ... ": padded, for a whole-word match in bash
};

OptionWords option_words(const CLI::App& app, bool inherited = false) {
  OptionWords w{"", " "};
  for (const CLI::Option* opt : app.get_options()) {
    if (inherited && (opt == app.get_version_ptr() || opt == app.get_help_ptr())) continue;
    std::vector<std::string> names;
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    for (const std::string& n : names) {
      w.all += (w.all.empty() ? "" : " ") + n;
      if (opt->get_expected_max() > 0) w.values += n + " ";  // flags expect none
    }
  }
  return w;
}

}  // namespace

std::string bash_completion(CLI::App& app) {
  std::vector<CLI::App*> commands =
      app.get_subcommands([](CLI::App* c) { return !c->get_name().empty(); });
  OptionWords top = option_words(app);
  // Top-level options work after the command too (main.cc: fallthrough); --version and --help
  // only before it (a command has its own --help).
  OptionWords inherited = option_words(app, true);
  std::string command_names;
  for (const CLI::App* c : commands)
    command_names += (command_names.empty() ? "" : " ") + c->get_name();

  std::ostringstream s;
  s << "# bash completion for relax-driver, written by `relax-driver completion bash` from its\n"
       "# command definitions. Install as share/bash-completion/completions/relax-driver, or\n"
       "# source it.\n"
       "_relax_driver() {\n"
       "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
       "  # The command is the first word that is neither an option nor an option's value.\n"
       "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
       "    case \" "
    << top.values
    << " \" in\n"
       "      *\" ${COMP_WORDS[i]} \"*) ((i++)); continue ;;\n"
       "    esac\n"
       "    case ${COMP_WORDS[i]} in\n"
       "      -*) ;;\n"
       "      *) cmd=${COMP_WORDS[i]}; break ;;\n"
       "    esac\n"
       "  done\n"
       "  local words values\n"
       "  case $cmd in\n"
       "    '') words=\""
    << top.all << " " << command_names << "\"; values=\"" << top.values << "\" ;;\n";
  for (CLI::App* c : commands) {
    OptionWords w = option_words(*c);
    s << "    " << c->get_name() << ") words=\"" << w.all << " " << inherited.all << "\"; values=\""
      << w.values << inherited.values.substr(1) << "\" ;;\n";
  }
  s << "    *) words=; values= ;;\n"
       "  esac\n"
       "  # Option values and operands are mostly files.\n"
       "  if [[ \"$values\" == *\" $prev \"* ]]; then\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  elif [[ $cur == -* || -z $cmd ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
       "  else\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  fi\n"
       "}\n"
       "complete -o filenames -o bashdefault -F _relax_driver relax-driver\n";
  return s.str();
}

}  // namespace relax::driver
