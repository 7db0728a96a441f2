// module_to_text: the text form used by IR dumps and reproducers — the printer of
// ir/printer.h, so that a dump or a reproducer reads back with the parser.
#include "relax/text/printer.h"
#include "relax/transform/instruments.h"

namespace relax::transform {

std::string module_to_text(const IRModule& mod, bool show_constants) {
  PrintOptions options;
  options.show_constants = show_constants;
  return print_module(mod, "Module", options);
}

}  // namespace relax::transform
