// Moving run arguments and results between the host and the VM's devices (devices.h).
#include "devices.h"

#include "relax/support/diagnostic.h"

namespace relax::tools {

using runtime::Value;
using runtime::ValueKind;

namespace {

/// The vdevice of a parameter type: `vdevice="kind[:i]"` (TVMScript) or the third item of
/// `Tensor(shape, dtype, kind:i)` (relax::to_string); empty when it has none.
std::string vdevice_of(const std::string& type) {
  const std::string key = "vdevice=\"";
  if (size_t at = type.find(key); at != std::string::npos) {
    size_t end = type.find('"', at + key.size());
    return type.substr(at + key.size(), end - at - key.size());
  }
  if (type.rfind("Tensor(", 0) != 0 || type.back() != ')') return "";
  std::vector<std::string> items(1);
  int depth = 0;
  for (size_t i = 7; i + 1 < type.size(); ++i) {
    char c = type[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      items.emplace_back();
    } else if (c != ' ' || !items.back().empty()) {
      items.back() += c;
    }
  }
  return items.size() == 3 ? items[2] : "";
}

/// The VM device index of a parameter type's vdevice, or -1 when it has none.
int64_t param_device(const runtime::Executable& exec, const std::string& type) {
  std::string ref = vdevice_of(type);
  if (ref.empty()) return -1;
  std::string kind = ref.substr(0, ref.find(':'));
  int64_t ordinal = kind.size() == ref.size() ? 0 : std::stoll(ref.substr(kind.size() + 1));
  for (size_t i = 0; i < exec.devices.size(); ++i) {
    const std::string& target = exec.devices[i].target;
    if (target.substr(0, target.find(',')) == kind && ordinal-- == 0) return int64_t(i);
  }
  RX_THROW() << "parameter type " << type << " names vdevice \"" << ref
             << "\", which is none of the executable's " << exec.devices.size() << " devices";
}

}  // namespace

std::vector<Value> to_param_devices(const runtime::VirtualMachine& vm,
                                    const runtime::FunctionInfo& f, std::vector<Value> args) {
  for (size_t i = 0; i < args.size() && i < f.param_types.size(); ++i) {
    if (!args[i].is(ValueKind::kTensor)) continue;
    int64_t device = param_device(vm.executable(), f.param_types[i]);
    if (device < 0) continue;
    DLDevice dev = vm.device(device);
    runtime::NDArray t = args[i].as_tensor();
    if (t.device().device_type != dev.device_type || t.device().device_id != dev.device_id)
      args[i] = t.copy_to(dev);
  }
  return args;
}

Value to_host(const Value& v) {
  if (v.is(ValueKind::kTensor)) {
    runtime::NDArray t = v.as_tensor();
    return t.device().device_type == kDLCPU ? v : Value(t.copy_to(runtime::kCPU));
  }
  if (v.is(ValueKind::kTuple)) {
    std::vector<Value> fields;
    for (const Value& f : v.as_tuple().fields()) fields.push_back(to_host(f));
    return runtime::Tuple(std::move(fields));
  }
  return v;
}

}  // namespace relax::tools
