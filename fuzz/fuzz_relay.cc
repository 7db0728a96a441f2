// Fuzz target: the Relay frontend (the plugin's parser and converter, compiled in: the plugin
// keeps its internals private).
//
// Property: a program that converts gives a Relax module whose .rx text parses again (what the
// frontend builds is always printable, valid IR).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "convert.h"
#include "fuzz_common.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<relax::IRModule> mod;
  relax::fuzz::expect_user_errors_only("fuzz_relay", [&] {
    relax::relay_frontend::Source src("in.relay", text);
    relax::relay_frontend::Program prog = relax::relay_frontend::parse_program(src);
    mod = relax::relay_frontend::convert_program(src, prog);
  });
  if (!mod) return 0;
  std::string printed;
  relax::fuzz::expect_user_errors_only("fuzz_relay", [&] { printed = relax::print_module(*mod); });
  if (printed.empty()) return 0;
  try {
    relax::parse_module(printed, "converted.rx");
  } catch (const relax::Error& e) {
    relax::fuzz::property(false, "fuzz_relay",
                          "the converted module's text does not parse: " + std::string(e.what()) +
                              "\n--- printed:\n" + printed);
  }
  return 0;
}
