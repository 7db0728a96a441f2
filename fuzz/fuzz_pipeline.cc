// Fuzz target: the pipeline readers (relax/transform/pipeline.h), YAML and one-line.
//
// The first byte picks the reader (even: YAML, odd: one line), the rest is the text. No
// plugins are loaded: the registry holds the core passes.
// Properties (the round trip pipeline.h promises): a pipeline read from YAML prints YAML that
// reads back equal, and its one-line form reads back to the same passes; a one-line pipeline
// prints a line that reads back equal.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_common.h"
#include "relax/target/compile.h"
#include "relax/transform/pipeline.h"

namespace {

relax::transform::PassRegistry& registry() {
  static relax::transform::PassRegistry r = relax::make_core_registry();
  return r;
}

// Reads `text` back; a relax::Error here means the printer wrote what its reader refuses.
template <typename F>
relax::transform::Pipeline read_back(const std::string& what, const std::string& text, F&& read) {
  try {
    return read(text);
  } catch (const relax::Error& e) {
    relax::fuzz::property(false, "fuzz_pipeline",
                          what + " does not read back: " + e.what() + "\n--- text:\n" + text);
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool yaml = data[0] % 2 == 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto& reg = registry();
  std::optional<relax::transform::Pipeline> p;
  relax::fuzz::expect_user_errors_only("fuzz_pipeline", [&] {
    p = yaml ? relax::transform::parse_pipeline_yaml(text, "in.yaml", reg)
             : relax::transform::parse_pipeline_line(text, reg);
  });
  if (!p) return 0;
  auto read_line = [&](const std::string& t) { return relax::transform::parse_pipeline_line(t, reg); };
  auto line = read_back("the one-line form", p->to_line(), read_line);
  relax::fuzz::property(line.passes == p->passes, "fuzz_pipeline",
                        "the one-line form reads back to other passes: " + p->to_line());
  if (yaml) {
    auto read_yaml = [&](const std::string& t) {
      return relax::transform::parse_pipeline_yaml(t, "printed.yaml", reg);
    };
    auto again = read_back("the YAML form", p->to_yaml(), read_yaml);
    relax::fuzz::property(again == *p, "fuzz_pipeline",
                          "the YAML form reads back different:\n" + p->to_yaml());
  }
  return 0;
}
