// relax-driver inspect: what an executable holds (signatures, devices, packed functions,
// kernel libraries with their device and kernels, device copies, constants, bytecode).
#include <iostream>

#include "driver.h"
#include "relax/runtime/executable.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/target/devices.h"

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
  std::cout << "\ndevices:\n";
  if (exec->devices.empty()) std::cout << "  0: cpu:0 (single-device executable)\n";
  for (size_t i = 0; i < exec->devices.size(); ++i) {
    const runtime::ExecDevice& d = exec->devices[i];
    std::cout << "  " << i << ": type " << d.device_type << " id " << d.device_id << " target "
              << d.target << (i == 0 ? " (host)" : "") << "\n";
  }
  // Which library provides each packed function: load the libraries when this process can.
  std::vector<std::vector<std::string>> kernels(exec->libraries.size());
  std::string unloadable;
  target::register_interp_gpu_device();
  try {
    const std::vector<runtime::Module>& modules = exec->modules();
    for (const runtime::FunctionInfo& f : exec->functions) {
      if (f.kind != runtime::FunctionKind::kPacked) continue;
      for (size_t m = 0; m < modules.size(); ++m) {
        if (modules[m]->get_function(f.name).defined()) {
          kernels[m].push_back(f.name);
          break;
        }
      }
    }
  } catch (const Error& e) {
    unloadable = e.message();
  }
  std::cout << "\nkernel libraries:\n";
  for (size_t i = 0; i < exec->libraries.size(); ++i) {
    const runtime::Library& lib = exec->libraries[i];
    std::cout << "  " << lib.format << ": " << lib.bytes.size() << " bytes, device "
              << lib.device_index;
    if (unloadable.empty()) {
      std::cout << ", " << kernels[i].size() << " kernels:";
      for (const std::string& k : kernels[i]) std::cout << " " << k;
    }
    std::cout << "\n";
  }
  if (!unloadable.empty()) std::cout << "  (kernels not listed: " << unloadable << ")\n";
  int64_t copies = 0, constant_uploads = 0;
  for (const runtime::Instruction& in : exec->instructions) {
    if (in.op != runtime::Opcode::kCall) continue;
    const std::string& callee = exec->functions[size_t(in.value)].name;
    copies += callee == "vm.builtin.to_vdevice" ? 1 : 0;
    constant_uploads += callee == "vm.builtin.constant_to_vdevice" ? 1 : 0;
  }
  std::cout << "\ndevice copies: " << copies << " (+" << constant_uploads
            << " constant uploads, once per VM)\n";
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
