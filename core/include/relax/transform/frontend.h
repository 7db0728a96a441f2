// Frontends: importers that turn a model file into an IRModule, provided by plugins.
//
// A frontend plugin (librelax-<name>.so, e.g. librelax-onnx.so) registers itself from its
// register function:
//     relax::transform::register_frontend({"onnx", {".onnx"}, import_onnx_file});
// Tools find a frontend by the input file's extension (find_frontend_for), loading the plugin
// named like the extension ("model.onnx" -> plugin "onnx") when none is registered yet; a
// `.txt` file starting with `#[version` (TVM's Relay text) goes to the "relay" frontend.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "relax/ir/module.h"

namespace relax::transform {

class PluginManager;

/// Importer options, as key=value strings the frontend interprets (e.g. "params=inputs").
using FrontendOptions = std::map<std::string, std::string>;

struct Frontend {
  std::string name;                     ///< "onnx"
  std::vector<std::string> extensions;  ///< with the dot: ".onnx"
  /// Reads the model at `path`; throws relax::Error naming the file and what is wrong.
  std::function<IRModule(const std::string& path, const FrontendOptions& options)> import;
};

/// Registers (or replaces, by name) a frontend. Thread-safe.
void register_frontend(Frontend frontend);
/// Every registered frontend as "name (.ext, ...)", sorted by name.
std::vector<std::string> list_frontends();
/// The frontend handling `path`'s extension, or null.
const Frontend* find_frontend(const std::string& path);
/// find_frontend, loading the plugin named like the extension through `plugins` first when no
/// frontend handles it; Relay text in a `.txt` file by its first bytes. Throws relax::Error
/// naming the file and the plugin searched for.
const Frontend& find_frontend_for(const std::string& path, PluginManager& plugins);

}  // namespace relax::transform
