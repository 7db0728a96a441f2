// relax-driver print / opt / graph / pipeline: read a module (any input a compile takes) and
// print it, optionally after a pipeline, as Relax or as a Graphviz graph; print a pipeline
// with every default filled in.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "driver.h"
#include "relax/support/diagnostic.h"
#include "relax/text/dot.h"
#include "relax/text/printer.h"
#include "relax/transform/pipeline.h"

namespace relax::driver {

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

int cmd_print(Compiler& compiler, const std::string& file, const std::string& output,
              bool show_constants) {
  PrintOptions options;
  options.show_constants = show_constants;
  write_text(output, print_module(compiler.import(file), "Module", options));
  return kOk;
}

int cmd_opt(Compiler& compiler, const std::string& file, const std::string& output,
            const PipelineOptions& p) {
  CompileOptions options = to_compile_options(p, "");
  options.input = file;
  options.passes_only = true;
  CompileResult result = run_compile(compiler, options);
  write_text(output, print_module(result.lowered));
  return kOk;
}

int cmd_graph(Compiler& compiler, const std::string& file, const std::string& output,
              const std::string& function, const std::string& after, const PipelineOptions& p) {
  CompileOptions options = to_compile_options(p, "");
  IRModule mod;
  if (options.pipeline.empty() && after.empty()) {
    mod = compiler.import(file);  // the model as imported
  } else {
    options.input = file;
    options.passes_only = true;
    options.stop_after = after;
    mod = run_compile(compiler, options, p.quiet).lowered;
  }
  std::string dot = module_to_dot(mod, function);
  std::string ext = std::filesystem::path(output).extension().string();
  if (ext != ".svg" && ext != ".png" && ext != ".pdf") {
    write_text(output, dot);
    return kOk;
  }
  // A picture: Graphviz's dot renders the DOT text.
  RX_CHECK(std::system("command -v dot >/dev/null 2>&1") == 0)
      << "graph -o " << output << ": rendering " << ext
      << " needs Graphviz's `dot` (install graphviz), or write DOT with -o FILE.dot";
  std::string dot_file = output + ".dot.tmp";
  write_text(dot_file, dot);
  std::string cmd = "dot -T" + ext.substr(1) + " '" + dot_file + "' -o '" + output + "'";
  int rc = std::system(cmd.c_str());
  std::filesystem::remove(dot_file);
  RX_CHECK(rc == 0) << "graph -o " << output << ": dot failed (" << cmd << ")";
  return kOk;
}

int cmd_pipeline(Compiler& compiler, const std::string& file, const PipelineOptions& p) {
  CompileOptions options = to_compile_options(p, "");
  RX_CHECK(file.empty() || options.pipeline.empty())
      << "pipeline: give the pipeline as the argument or with -p/--passes/-O0, not both";
  transform::Pipeline pipeline = compiler.pipeline(file.empty() ? options.pipeline : file);
  std::cout << pipeline.to_yaml();
  std::cout << "# one line: " << pipeline.to_line() << "\n";
  return kOk;
}

}  // namespace relax::driver
