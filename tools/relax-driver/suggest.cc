// Suggestions for a mistyped command or option (cli.h). CLI11 reports the consequence of a typo
// ("A subcommand is required", "--output is required": the misspelt word was set aside and
// something required is then missing), so when a parse fails we look at the words it set aside
// instead: the first one is matched by edit distance against the commands, or against the
// options of the command given, as git's "did you mean" does.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

#include "cli.h"

namespace relax::driver {
namespace {

/// Levenshtein distance with adjacent transpositions counting one edit ("tagret"), the most
/// common slip of typing (optimal string alignment).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string strip_dashes(const std::string& s) {
  size_t at = s.find_first_not_of('-');
  return at == std::string::npos ? "" : s.substr(at);
}

/// The names of `names` nearest to `word` when near enough to be a typo of it: within one edit
/// per three letters (at most three; none for one or two letters, where everything is near).
/// Failing those, the names that begin with `word` (an abbreviation of two letters or more).
/// Dashes are not counted.
std::vector<std::string> nearest(const std::string& word, const std::vector<std::string>& names) {
  std::string w = strip_dashes(word);
  size_t limit = std::min<size_t>(3, w.size() / 3);
  size_t best = limit + 1;
  std::vector<std::string> found, prefixed;
  for (const std::string& name : names) {
    std::string n = strip_dashes(name);
    if (w.size() >= 2 && n.rfind(w, 0) == 0 &&
        std::find(prefixed.begin(), prefixed.end(), name) == prefixed.end())
      prefixed.push_back(name);
    size_t d = edit_distance(w, n);
    if (d > limit || d > best) continue;
    if (d < best) found.clear();
    best = d;
    if (std::find(found.begin(), found.end(), name) == found.end()) found.push_back(name);
  }
  return found.empty() ? prefixed : found;
}

/// "; did you mean 'a'?", "; did you mean 'a' or 'b'?", or "" for no names.
std::string did_you_mean(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  size_t shown = std::min<size_t>(names.size(), 3);
  std::string s = "; did you mean ";
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) s += i + 1 == shown ? " or " : ", ";
    s += "'" + names[i] + "'";
  }
  return s + "?";
}

/// The option names of `app` as typed ("--target", "-o"); positionals have none.
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<CLI::App*> commands_of(CLI::App& app) {
  return app.get_subcommands([](CLI::App* c) { return !c->get_name().empty(); });
}

/// Negative numbers are values, not options.
bool looks_like_option(const std::string& word) {
  return word.size() > 1 && word[0] == '-' && !std::isdigit(static_cast<unsigned char>(word[1])) &&
         word[1] != '.';
}

/// `word` is no option of `cmd` (or of the top level): the nearest of those, else the command
/// that takes it, else a pointer to the help.
std::string unknown_option(CLI::App& app, CLI::App* cmd, const std::string& word) {
  std::string name = word.substr(0, word.find('='));
  std::string where = cmd ? " of '" + cmd->get_name() + "'" : "";
  std::vector<std::string> names = option_names(app);
  if (cmd) {
    std::vector<std::string> own = option_names(*cmd);
    if (std::find(own.begin(), own.end(), name) != own.end())
      return "option '" + name + "' of '" + cmd->get_name() + "' must come after the command";
    names.insert(names.begin(), own.begin(), own.end());
  }
  std::vector<std::string> near = nearest(name, names);
  if (!near.empty()) return "unknown option '" + name + "'" + where + did_you_mean(near);
  // Given before the command, or to a command that does not take it.
  std::vector<std::string> takers;
  for (CLI::App* other : commands_of(app)) {
    std::vector<std::string> theirs = option_names(*other);
    if (std::find(theirs.begin(), theirs.end(), name) != theirs.end())
      takers.push_back(other->get_name());
  }
  std::string msg = "unknown option '" + name + "'" + where;
  if (!cmd && !takers.empty())
    return msg + "; it is an option of a command: give it after the command";
  if (!takers.empty()) {
    msg += "; it is an option of ";
    for (size_t i = 0; i < takers.size(); ++i) msg += (i ? ", '" : "'") + takers[i] + "'";
    return msg;
  }
  return msg + "; see 'relax-driver " + (cmd ? cmd->get_name() + " " : "") + "--help'";
}

}  // namespace

std::string unknown_argument_message(CLI::App& app) {
  std::vector<CLI::App*> given = app.get_subcommands();
  CLI::App* cmd = given.empty() ? nullptr : given.front();
  for (const std::string& word : app.remaining(true)) {
    if (looks_like_option(word)) return unknown_option(app, cmd, word);
    // A word left over after the command is a surplus value: CLI11 says so well enough.
    if (cmd) continue;
    std::vector<std::string> names;
    for (CLI::App* c : commands_of(app)) names.push_back(c->get_name());
    std::string msg = "unknown command '" + word + "'";
    std::vector<std::string> near = nearest(word, names);
    if (!near.empty()) return msg + did_you_mean(near);
    msg += "; the commands are:";
    for (const std::string& n : names) msg += " " + n;
    return msg;
  }
  return "";
}

}  // namespace relax::driver
