// relax-driver's inputs and outputs: modules from .rx text or a frontend plugin, text out.
#pragma once

#include <string>

#include "relax/ir/module.h"
#include "relax/transform/frontend.h"

namespace relax::driver {

/// Reads the module at `path`: a .rx file ("-" reads stdin) through the parser, any other
/// extension through the frontend registered for it (transform/frontend.h), loading the
/// frontend plugin named like the extension through `plugins` ("m.onnx" -> "onnx"). Throws
/// relax::Error with the parser's or the frontend's diagnostics.
IRModule read_module(const std::string& path, transform::PluginManager* plugins = nullptr,
                     const transform::FrontendOptions& options = {});
/// The module in the text format.
std::string print_module_text(const IRModule& mod);
/// Writes `text` to `path`, or stdout when `path` is empty or "-".
void write_text(const std::string& path, const std::string& text);

}  // namespace relax::driver
