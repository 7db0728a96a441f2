// The Relay frontend plugin (librelax-relay.so): Relay text (format 0.0.5, TVM v0.8-v0.14's
// astext() / tvm.relay.fromtext) with its `#[metadata]` weights -> a Relax module, for files
// ending in ".relay". Parsing (parser.cc) builds a syntax tree and decodes the metadata;
// conversion (convert.cc) checks the whole program, then builds Relax through the BlockBuilder.
// Every error is a relax::Error "file:line:col: message" followed by the line and a caret.
#include <fstream>
#include <sstream>

#include "convert.h"
#include "relax/sdk/plugin.h"
#include "relax/support/diagnostic.h"
#include "relax/transform/frontend.h"

namespace relax::relay_frontend {

namespace {

IRModule import_file(const std::string& path, const transform::FrontendOptions& options) {
  for (const auto& [key, value] : options) {
    RX_THROW() << path << ": unknown option '" << key << "=" << value << "' for the Relay frontend (it takes none)";
  }
  std::ifstream in(path, std::ios::binary);
  RX_CHECK(in) << path << ": cannot open the Relay program";
  std::stringstream ss;
  ss << in.rdbuf();
  Source src(path, ss.str());
  RX_CHECK(!src.text().empty()) << path << ": the file is empty, not a Relay program";
  Program prog = parse_program(src);
  return convert_program(src, prog);
}

}  // namespace

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_math_ops(t);
    register_nn_ops(t);
    register_tensor_ops(t);
    register_more_ops(t);
    register_extra_ops(t);
    register_qnn_ops(t);
    return t;
  }();
  return table;
}

}  // namespace relax::relay_frontend

namespace {

void register_relay(relax::transform::PluginRegistrar&) {
  relax::transform::register_frontend({"relay", {".relay"}, relax::relay_frontend::import_file});
}

}  // namespace

RELAX_PLUGIN("relay", "0.1.0", register_relay)
