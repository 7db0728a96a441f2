// relax-driver's use of the text format: reading .rx files and printing modules.
#include "text_commands.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "relax/ir/parser.h"
#include "relax/transform/instruments.h"

namespace relax::driver {

IRModule read_module(const std::string& path) {
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    return parse_module(ss.str(), "<stdin>");
  }
  return parse_module_file(path);
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
