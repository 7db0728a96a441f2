// Pipelines: the one-line form, YAML, their round trip over the shipped files, and the errors.
#include "relax/transform/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../../common/error_of.h"
#include "relax/target/compile.h"
#include "relax/transform/plugin.h"

namespace relax::transform {
namespace {

using test::error_of;

PassRegistry registry_with_demo() {
  PassRegistry reg = make_core_registry();
  reg.add({"fuse-ops",
           "demo",
           Granularity::kModule,
           {{"max-depth", OptionType::kInt, int64_t(4), ""},
            {"mode", OptionType::kString, std::string("greedy"), ""},
            {"ratio", OptionType::kFloat, 1.5, ""}}},
          ModuleTransform([](const IRModule& m, const PassOptions&, PassContext&) { return m; }));
  return reg;
}

TEST(PipelineLine, ParsesFillsDefaultsAndPrintsBack) {
  PassRegistry reg = registry_with_demo();
  Pipeline p =
      parse_pipeline_line(" normalize , fuse-ops{max-depth=8, mode=\"a,b\"},to-non-dataflow", reg);
  ASSERT_EQ(p.passes.size(), 3u);
  EXPECT_EQ(p.to_line(), "normalize,fuse-ops{max-depth=8,mode=\"a,b\",ratio=1.5},to-non-dataflow");
  EXPECT_EQ(parse_pipeline_line(p.to_line(), reg), p);
  EXPECT_TRUE(parse_pipeline_line("", reg).passes.empty());
  EXPECT_EQ(p.build(reg).at(1).options().get_string("mode"), "a,b");
  // A value with white space or control characters at its ends prints quoted (unquoted, the
  // reader trims white space: a fuzz_pipeline finding).
  Pipeline q = parse_pipeline_line("fuse-ops{mode=\"\fgreedy \"}", reg);
  EXPECT_EQ(q.to_line(), "fuse-ops{max-depth=4,mode=\"\fgreedy \",ratio=1.5}");
  EXPECT_EQ(parse_pipeline_line(q.to_line(), reg), q);
}

TEST(PipelineLine, Errors) {
  PassRegistry reg = registry_with_demo();
  EXPECT_EQ(error_of([&] { parse_pipeline_line("normalize,fuse-opz", reg); }),
            "<pipeline>:1:11: error: unknown pass 'fuse-opz'; valid passes: attach-global-symbol, "
            "call-tir-rewrite, device-placement, fuse-ops, gpu-host-fallback, kill-after-last-use, lambda-lift, legalize-ops, "
            "normalize, remove-unused-functions, run-codegen, to-non-dataflow, vm-shape-lower");
  EXPECT_EQ(error_of([&] { parse_pipeline_line("fuse-ops{depth=8}", reg); }),
            "<pipeline>:1:10: error: pass 'fuse-ops' has no option 'depth'; valid options: "
            "max-depth (int), "
            "mode (string), ratio (float)");
  EXPECT_EQ(
      error_of([&] { parse_pipeline_line("fuse-ops{max-depth=deep}", reg); }),
      "<pipeline>:1:10: error: option 'max-depth' of pass 'fuse-ops' expects int, got 'deep'");
  EXPECT_EQ(error_of([&] { parse_pipeline_line("fuse-ops{max-depth=1,max-depth=2}", reg); }),
            "<pipeline>:1:22: error: option 'max-depth' of pass 'fuse-ops' is given twice");
  EXPECT_EQ(error_of([&] { parse_pipeline_line("fuse-ops{max-depth 8}", reg); }),
            "<pipeline>:1:20: error: pipeline syntax: expected '=' after option 'max-depth', found "
            "'8' in "
            "\"fuse-ops{max-depth 8}\"");
  EXPECT_EQ(error_of([&] { parse_pipeline_line("normalize,,", reg); }),
            "<pipeline>:1:11: error: pipeline syntax: expected a pass name, found ',' in "
            "\"normalize,,\"");
}

TEST(PipelineYaml, ParsesEveryForm) {
  PassRegistry reg = registry_with_demo();
  Pipeline p = parse_pipeline_yaml(R"(
plugins: []
target: llvm
passes:
  - normalize
  - fuse-ops: {max-depth: 8}
  - fuse-ops:
      mode: "x y"
      ratio: 2
instruments:
  time-passes: true
  verify-each: false
  dump-ir-after: [fuse-ops]
  dump-ir-before: all
  dump-dir: dumps
)",
                                   "p.yaml", reg);
  EXPECT_EQ(p.target, "llvm");
  EXPECT_EQ(p.to_line(),
            "normalize,fuse-ops{max-depth=8,mode=greedy,ratio=1.5},fuse-ops{max-depth=4,mode=\"x "
            "y\",ratio=2.0}");
  EXPECT_TRUE(p.instruments.time_passes);
  EXPECT_EQ(p.instruments.verify_each, false);
  EXPECT_EQ(p.instruments.dump_ir_after, std::vector<std::string>{"fuse-ops"});
  EXPECT_EQ(p.instruments.dump_ir_before, std::vector<std::string>{"all"});
  // The printed YAML reads back to the same object.
  EXPECT_EQ(parse_pipeline_yaml(p.to_yaml(), "printed.yaml", reg), p);
}

TEST(PipelineYaml, ErrorsPointAtTheLineAndListChoices) {
  PassRegistry reg = registry_with_demo();
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes:\n  - normalize\n  - fuse-opz\n", "p.yaml", reg);
            }),
            "p.yaml:3:5: error: unknown pass 'fuse-opz'; valid passes: attach-global-symbol, "
            "call-tir-rewrite, device-placement, fuse-ops, gpu-host-fallback, kill-after-last-use, lambda-lift, legalize-ops, normalize, "
            "remove-unused-functions, run-codegen, to-non-dataflow, vm-shape-lower");
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes:\n  - fuse-ops:\n      depth: 3\n", "p.yaml", reg);
            }),
            "p.yaml:3:7: error: pass 'fuse-ops' has no option 'depth'; valid options: max-depth "
            "(int), mode (string), "
            "ratio (float)");
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes:\n  - fuse-ops: {max-depth: 1.5}\n", "p.yaml", reg);
            }),
            "p.yaml:2:16: error: option 'max-depth' of pass 'fuse-ops' expects int, got '1.5'");
  EXPECT_EQ(
      error_of([&] { parse_pipeline_yaml("passes: [normalize]\nstages: 3\n", "p.yaml", reg); }),
      "p.yaml:2:1: error: unknown key 'stages' in a pipeline file; valid keys: plugins, target, "
      "host, passes, instruments");
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes: []\ninstruments: {timing: true}\n", "p.yaml", reg);
            }),
            "p.yaml:2:15: error: unknown instrument 'timing'; valid instruments: time-passes, "
            "verify-each, "
            "dump-ir-before, dump-ir-after, dump-dir");
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes: []\ninstruments: {dump-ir-after: [fuse]}\n", "p.yaml",
                                  reg);
            }),
            "p.yaml:2:31: error: unknown pass 'fuse' in 'dump-ir-after'; valid passes: all, "
            "attach-global-symbol, call-tir-rewrite, device-placement, fuse-ops, gpu-host-fallback, kill-after-last-use, "
            "lambda-lift, legalize-ops, normalize, remove-unused-functions, run-codegen, to-non-dataflow, vm-shape-lower");
  EXPECT_EQ(error_of([&] { parse_pipeline_yaml("target: llvm\n", "p.yaml", reg); }),
            "p.yaml:1:1: error: a pipeline file needs a 'passes' list");
  EXPECT_NE(
      error_of([&] { parse_pipeline_yaml("passes: [normalize\n", "p.yaml", reg); }).find("p.yaml:"),
      std::string::npos);
}

TEST(PipelineYaml, RepeatedKeysAreErrors) {
  PassRegistry reg = registry_with_demo();
  // yaml-cpp would keep both: `passes` would read the first value and `target` the last.
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes: [normalize]\npasses: [legalize-ops]\n", "d.yaml", reg);
            }),
            "d.yaml:2:1: error: key 'passes' appears twice in the same map");
  EXPECT_EQ(error_of([&] {
              parse_pipeline_yaml("passes:\n  - fuse-ops: {max-depth: 2, max-depth: 3}\n",
                                  "d.yaml", reg);
            }),
            "d.yaml:2:30: error: key 'max-depth' appears twice in the same map");
}

TEST(PipelineYaml, ShippedFilesRoundTripThroughTheOneLineForm) {
  PassRegistry reg = make_core_registry();
  PluginManager plugins(reg);  // the shipped pipelines name the optimisation plugins
  plugins.add_search_dir(RELAX_PLUGIN_DIR);
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(RELAX_SOURCE_DIR "/config/pipelines")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    Pipeline from_yaml = load_pipeline_file(entry.path().string(), reg, &plugins);
    Pipeline from_line = parse_pipeline_line(from_yaml.to_line(), reg);
    EXPECT_EQ(from_line.passes, from_yaml.passes);
    EXPECT_EQ(from_line.to_line(), from_yaml.to_line());
    EXPECT_EQ(parse_pipeline_yaml(from_yaml.to_yaml(), "printed", reg), from_yaml);
    EXPECT_FALSE(from_yaml.build(reg).empty());
  }
  EXPECT_GE(files, 2);
}

}  // namespace
}  // namespace relax::transform

namespace relax::transform {
namespace {

TEST(PipelineYaml, PrintedYamlQuotesEveryByteThatNeedsIt) {
  PassRegistry reg = registry_with_demo();
  // Option strings with a tab, control bytes, a NUL, quotes, backslashes, YAML's special
  // characters and UTF-8 text: the printed YAML and the one-line form read back to the same.
  const std::string values[] = {std::string("a\tb"), std::string("x\x01y\x7fz"),
                                std::string("nul\0in", 6), "say \"hi\" \\ #not-a-comment: {x}",
                                "\xc3\xbf unicode", " leading", "true", "-3", ""};
  for (const std::string& v : values) {
    SCOPED_TRACE(v);
    Pipeline p = parse_pipeline_line("fuse-ops", reg);  // with its defaults filled in
    for (auto& [key, value] : p.passes[0].options)
      if (key == "mode") value = OptionValue(v);
    Pipeline back = parse_pipeline_yaml(p.to_yaml(), "printed.yaml", reg);
    EXPECT_EQ(back, p) << p.to_yaml();
    EXPECT_EQ(parse_pipeline_line(p.to_line(), reg).passes, p.passes) << p.to_line();
  }
  // No target: the printed YAML has no target line, and loads.
  Pipeline none;
  EXPECT_EQ(none.to_yaml().find("target:"), std::string::npos) << none.to_yaml();
  EXPECT_EQ(parse_pipeline_yaml(none.to_yaml(), "printed.yaml", reg), none);
}

}  // namespace
}  // namespace relax::transform
