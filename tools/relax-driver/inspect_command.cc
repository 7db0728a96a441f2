// relax-driver inspect: what an executable holds (signatures, packed functions, kernel
// libraries, constants, bytecode).
#include <iostream>

#include "driver.h"
#include "relax/runtime/executable.h"

namespace relax::driver {

using runtime::NDArray;
using runtime::Value;
using runtime::ValueKind;

int cmd_inspect(const std::string& path) {
  Ref<runtime::Executable> exec = runtime::Executable::load_from_file(path);
  std::cout << "executable " << path << "\n\nfunctions:\n";
  for (const runtime::FunctionInfo& f : exec->functions) {
    if (f.kind != runtime::FunctionKind::kBytecode) continue;
    std::cout << "  " << f.name << "(";
    for (size_t i = 0; i < f.param_names.size(); ++i) {
      std::cout << (i ? ", " : "") << f.param_names[i];
      if (i < f.param_types.size()) std::cout << ": " << f.param_types[i];
    }
    std::cout << ")  registers=" << f.register_file_size << " instructions=" << f.end - f.start
              << "\n";
  }
  std::cout << "\npacked functions (kernels and runtime builtins):\n";
  for (const runtime::FunctionInfo& f : exec->functions)
    if (f.kind == runtime::FunctionKind::kPacked) std::cout << "  " << f.name << "\n";
  std::cout << "\nkernel libraries:\n";
  for (const runtime::Library& lib : exec->libraries)
    std::cout << "  " << lib.format << ": " << lib.bytes.size() << " bytes\n";
  std::cout << "\nconstants (" << exec->constants.size() << "):\n";
  for (size_t i = 0; i < exec->constants.size(); ++i) {
    const Value& c = exec->constants[i];
    std::cout << "  c[" << i << "] ";
    if (c.is(ValueKind::kTensor)) {
      NDArray a = c.as_tensor();
      std::cout << "tensor " << runtime::shape_to_string(a.shape()) << " "
                << a.dtype().to_string() << " (" << a.nbytes() << " bytes)\n";
    } else {
      std::cout << c.describe() << "\n";
    }
  }
  std::cout << "\nbytecode:\n" << exec->as_text();
  return 0;
}

}  // namespace relax::driver
