// Fuzz target: the .rx text parser (relax/text/parser.h).
//
// Property: a module that parses prints to text that parses again and prints the same (the
// printer's output is always valid input, and the round trip is stable).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "relax/text/parser.h"
#include "relax/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<relax::IRModule> mod;
  relax::fuzz::expect_user_errors_only("fuzz_rx", [&] { mod = relax::parse_module(text, "in.rx"); });
  if (!mod) return 0;
  std::string printed, reprinted;
  relax::fuzz::expect_user_errors_only("fuzz_rx", [&] { printed = relax::print_module(*mod); });
  if (printed.empty()) return 0;
  try {
    reprinted = relax::print_module(relax::parse_module(printed, "printed.rx"));
  } catch (const relax::Error& e) {
    relax::fuzz::property(false, "fuzz_rx",
                          "the printer's output does not parse again: " + std::string(e.what()) +
                              "\n--- printed:\n" + printed);
  }
  relax::fuzz::property(reprinted == printed, "fuzz_rx",
                        "print(parse(print(m))) differs from print(m):\n--- first:\n" + printed +
                            "\n--- second:\n" + reprinted);
  return 0;
}
