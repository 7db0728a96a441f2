// relax-driver's inputs and outputs: reading .rx files (or models through a frontend plugin)
// and printing modules.
#include "text_commands.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "relax/text/parser.h"
#include "relax/transform/instruments.h"
#include "relax/transform/plugin.h"

namespace relax::driver {

IRModule read_module(const std::string& path, transform::PluginManager* plugins,
                     const transform::FrontendOptions& options) {
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    return parse_module(ss.str(), "<stdin>");
  }
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".rx" || ext == ".py" || plugins == nullptr) return parse_module_file(path);
  return transform::find_frontend_for(path, *plugins).import(path, options);
}

std::string print_module_text(const IRModule& mod) { return transform::module_to_text(mod); }

void write_text(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << "\n";
    std::cout.flush();
    return;
  }
  std::ofstream out(path);
  RX_CHECK(out) << "cannot write '" << path << "'";
  out << text;
  if (!text.empty() && text.back() != '\n') out << "\n";
  RX_CHECK(out.good()) << "error writing '" << path << "'";
}

}  // namespace relax::driver
