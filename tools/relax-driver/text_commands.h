// The parts of relax-driver that need the Relax text format (ir/printer.h, ir/parser.h).
#pragma once

#include <string>

#include "relax/ir/module.h"

namespace relax::driver {

/// Parses the .rx file at `path` ("-" reads stdin); throws relax::Error with the parser's
/// diagnostics.
IRModule read_module(const std::string& path);
/// The module in the text format.
std::string print_module_text(const IRModule& mod);
/// Writes `text` to `path`, or stdout when `path` is empty or "-".
void write_text(const std::string& path, const std::string& text);

}  // namespace relax::driver
