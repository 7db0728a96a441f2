// The `.rx` pass cases of tests/passes/<pass>/ (see its README): each input is run through
// the pipeline its header names, with the plugins it names loaded from the build's plugin
// directory, and compared structurally with <case>.expected.rx (or its error with `# error:`).
// One gtest per case, registered at start-up from the directory listing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/ir/structural_equal.h"
#include "relax/support/diagnostic.h"
#include "relax/target/compile.h"
#include "relax/transform/pass_context.h"
#include "relax/transform/pipeline.h"
#include "relax/transform/plugin.h"

namespace relax {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = RELAX_SOURCE_DIR "/tests/passes";

struct Header {
  std::vector<std::string> plugins;
  std::string passes;
  std::string error;
};

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

Header read_header(const std::string& text) {
  Header h;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    if (line.rfind("#", 0) != 0) break;
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
    } else if (auto e = value("error")) {
      h.error = *e;
    }
  }
  return h;
}

class RxCase : public ::testing::Test {
 public:
  explicit RxCase(fs::path file) : file_(std::move(file)) {}

  void TestBody() override {
    std::string text = read_file(file_);
    Header h = read_header(text);
    ASSERT_FALSE(h.passes.empty()) << file_ << ": no `# passes:` line in the header";
    transform::PassRegistry registry = make_core_registry();
    transform::PluginManager plugins(registry);
    plugins.add_search_dir(RELAX_PLUGIN_DIR);
    auto run = [&]() {
      for (const std::string& p : h.plugins) plugins.load(p);
      std::vector<transform::Pass> passes =
          transform::parse_pipeline_line(h.passes, registry).build(registry);
      transform::PassContext ctx;
      return transform::run_passes(passes, parse_module(text, file_.string()), ctx);
    };
    if (!h.error.empty()) {
      try {
        run();
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(h.error), std::string::npos) << e.what();
        return;
      }
      ADD_FAILURE() << file_ << ": expected an error containing \"" << h.error << "\"";
      return;
    }
    fs::path expected_file = file_;
    expected_file.replace_extension(".expected.rx");
    ASSERT_TRUE(fs::exists(expected_file)) << "missing " << expected_file;
    IRModule expected = parse_module(read_file(expected_file), expected_file.string());
    IRModule out = run();
    if (auto diff = structural_diff(out, expected)) {
      ADD_FAILURE() << file_.filename() << ": " << *diff << "\n--- got:\n"
                    << print_module(out) << "--- expected:\n"
                    << print_module(expected);
    }
  }

 private:
  fs::path file_;
};

/// Registers one test per case file: suite = the pass directory, name = the case.
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
    std::string name = f.stem().string();
    for (std::string* s : {&suite, &name})
      for (char& c : *s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    ::testing::RegisterTest(("Rx_" + suite).c_str(), name.c_str(), nullptr, nullptr,
                            f.string().c_str(), 0, [f]() -> ::testing::Test* {
                              return new RxCase(f);
                            });
  }
  return true;
}

const bool kRegistered = register_cases();

}  // namespace
}  // namespace relax
