// The `.rx` pass cases of tests/passes/<pass>/ (see its README): a file holds one case, or
// several separated by `# -----` lines (MLIR's -split-input-file). Each case is run through the
// pipeline its header names, with the plugins it names loaded from the build's plugin
// directory, and compared structurally (consecutive plain blocks merged, as the text spells
// them) with the same case of <file>.expected.rx (or its error with `# error:`). One gtest per
// case, registered at start-up from the directory listing; every failure names the file, the case's
// line and its number.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "../../common/merge_plain_blocks.h"
#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/transform/pass_context.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = RELAX_SOURCE_DIR "/tests/passes";

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

/// `# -----` (five or more dashes) alone on a line separates the cases of a file.
bool is_separator(const std::string& line) {
  std::string t = trim(line);
  if (t.rfind("# -----", 0) != 0) return false;
  return t.find_first_not_of('-', 2) == std::string::npos;
}

/// One case of a file: its text with every line outside the case blanked, so that parse errors
/// and spans keep the file's line numbers.
struct Section {
  std::string text;
  int first_line = 1;        ///< 1-based line of the case's first line (after the separator)
  bool has_content = false;  ///< a line that is neither blank nor a `#` comment
};

std::vector<Section> split_sections(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  std::vector<Section> out;
  size_t begin = 0;
  for (size_t k = 0; k <= lines.size(); ++k) {
    if (k < lines.size() && !is_separator(lines[k])) continue;
    Section s;
    s.first_line = int(begin) + 1;
    for (size_t j = 0; j < lines.size(); ++j) {
      bool inside = j >= begin && j < k;
      if (inside) {
        s.text += lines[j];
        std::string t = trim(lines[j]);
        s.has_content |= !t.empty() && t[0] != '#';
      }
      s.text += '\n';
    }
    out.push_back(std::move(s));
    begin = k + 1;
  }
  return out;
}

/// What a case asks for: its leading `#` lines (blank lines before them are skipped).
struct Header {
  std::vector<std::string> plugins;
  std::string passes;
  std::string error;
  int passes_line = 0;  ///< 1-based line of `# passes:`, for messages
};

Header read_header(const Section& s) {
  Header h;
  std::stringstream ss(s.text);
  int line_no = 0;
  bool started = false;
  for (std::string line; std::getline(ss, line);) {
    ++line_no;
    if (line_no < s.first_line) continue;
    if (trim(line).empty() && !started) continue;
    if (line.rfind("#", 0) != 0) break;
    started = true;
    std::string body = trim(line.substr(1));
    auto value = [&](const char* key) -> std::optional<std::string> {
      std::string k = std::string(key) + ":";
      if (body.rfind(k, 0) != 0) return std::nullopt;
      return trim(body.substr(k.size()));
    };
    if (auto v = value("plugins")) {
      std::stringstream names(*v);
      for (std::string n; std::getline(names, n, ',');)
        if (!trim(n).empty()) h.plugins.push_back(trim(n));
    } else if (auto p = value("passes")) {
      h.passes = *p;
      h.passes_line = line_no;
    } else if (auto e = value("error")) {
      h.error = *e;
    }
  }
  return h;
}

fs::path expected_path(const fs::path& file) {
  fs::path p = file;
  return p.replace_extension(".expected.rx");
}

class RxCase : public ::testing::Test {
 public:
  RxCase(fs::path file, size_t index, size_t count)
      : file_(std::move(file)), index_(index), count_(count) {}

  void TestBody() override {
    std::vector<Section> sections = split_sections(read_file(file_));
    ASSERT_EQ(sections.size(), count_) << file_ << " changed since the cases were registered";
    const Section& section = sections[index_];
    const std::string where = where_of(section.first_line);
    Header h = read_header(section);
    if (h.passes.empty()) {
      ADD_FAILURE_AT(file_.c_str(), section.first_line)
          << where << "no `# passes:` line in the case's header";
      return;
    }
    transform::PassRegistry registry = make_core_registry();
    transform::PluginManager plugins(registry);
    plugins.add_search_dir(RELAX_PLUGIN_DIR);
    auto run = [&]() {
      for (const std::string& p : h.plugins) plugins.load(p);
      std::vector<transform::Pass> passes =
          transform::parse_pipeline_line(h.passes, registry).build(registry);
      transform::PassContext ctx;
      return transform::run_passes(passes, parse_module(section.text, file_.string()), ctx);
    };
    std::optional<Section> expected = expected_section(section, !h.error.empty());
    if (::testing::Test::HasFailure()) return;

    if (!h.error.empty()) {
      try {
        run();
      } catch (const Error& e) {
        if (std::string(e.what()).find(h.error) == std::string::npos)
          ADD_FAILURE_AT(file_.c_str(), h.passes_line)
              << where << "the error does not contain \"" << h.error << "\":\n"
              << e.what();
        return;
      }
      ADD_FAILURE_AT(file_.c_str(), h.passes_line)
          << where << "expected an error containing \"" << h.error << "\"; the pipeline passed";
      return;
    }

    IRModule out, want;
    try {
      // Consecutive plain blocks have one spelling in the text: compare them as one.
      out = test::merge_plain_blocks(run());
    } catch (const Error& e) {
      ADD_FAILURE_AT(file_.c_str(), h.passes_line) << where << "the pipeline failed:\n" << e.what();
      return;
    }
    fs::path expected_file = expected_path(file_);
    try {
      want = parse_module(expected->text, expected_file.string());
    } catch (const Error& e) {
      ADD_FAILURE_AT(expected_file.c_str(), expected->first_line)
          << where << "the expected module does not parse:\n"
          << e.what();
      return;
    }
    if (auto diff = structural_diff(out, want)) {
      ADD_FAILURE_AT(file_.c_str(), h.passes_line)
          << where << *diff << "\n--- got:\n"
          << print_module(out) << "--- expected (" << expected_file.filename().string() << ":"
          << expected->first_line << "):\n"
          << print_module(want);
    }
  }

 private:
  /// "pass/file.rx:12: case 2 of 3: " (the case number only when the file holds several).
  std::string where_of(int line) const {
    std::string s = fs::relative(file_, kCases).string() + ":" + std::to_string(line) + ": ";
    if (count_ > 1)
      s += "case " + std::to_string(index_ + 1) + " of " + std::to_string(count_) + ": ";
    return s;
  }

  /// The case's section of <file>.expected.rx. An error case has none, or an empty one (only
  /// comments) when other cases of the file need the expected file.
  std::optional<Section> expected_section(const Section& section, bool is_error) {
    const std::string where = where_of(section.first_line);
    fs::path path = expected_path(file_);
    if (!fs::exists(path)) {
      if (!is_error)
        ADD_FAILURE_AT(file_.c_str(), section.first_line) << where << "missing " << path;
      return std::nullopt;
    }
    std::vector<Section> sections = split_sections(read_file(path));
    if (sections.size() != count_) {
      ADD_FAILURE_AT(path.c_str(), 1)
          << where << path.filename().string() << " holds " << sections.size()
          << " case(s) for the " << count_ << " of " << file_.filename().string();
      return std::nullopt;
    }
    const Section& s = sections[index_];
    if (is_error && s.has_content)
      ADD_FAILURE_AT(path.c_str(), s.first_line)
          << where << "an error case's section of the expected file must be empty";
    if (!is_error && !s.has_content)
      ADD_FAILURE_AT(path.c_str(), s.first_line) << where << "the expected section is empty";
    return s;
  }

  fs::path file_;
  size_t index_, count_;
};

/// Registers one test per case: suite = the pass directory, name = the file (plus `_case<k>`
/// when it holds several cases); gtest reports the case's first line as its location.
bool register_cases() {
  if (!fs::is_directory(kCases)) return false;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(kCases)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() == ".rx" && name.find(".expected.") == std::string::npos)
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::string suite = f.parent_path().filename().string();
    std::string stem = f.stem().string();
    for (std::string* s : {&suite, &stem})
      for (char& c : *s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    std::vector<Section> sections = split_sections(read_file(f));
    for (size_t k = 0; k < sections.size(); ++k) {
      std::string name = sections.size() == 1 ? stem : stem + "_case" + std::to_string(k + 1);
      size_t count = sections.size();
      ::testing::RegisterTest(
          ("Rx_" + suite).c_str(), name.c_str(), nullptr, nullptr, f.string().c_str(),
          sections[k].first_line,
          [f, k, count]() -> ::testing::Test* { return new RxCase(f, k, count); });
    }
  }
  return true;
}

const bool kRegistered = register_cases();

}  // namespace
}  // namespace relax
