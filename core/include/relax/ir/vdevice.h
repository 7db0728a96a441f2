// Virtual devices (TVM's VDevice): the module-level list of devices a program runs on.
//
// An IRModule holds a list of VDevices (its global info "vdevice", printed inside the module
// class as `I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global"), ...]})`). A
// TensorStructInfo's `vdevice` string refers to one entry of that list:
//   "<kind>:<i>"  the i-th vdevice (counting from 0) whose target kind is <kind>, the kind
//                 being the text of the target before its first comma ("tir-interp" for
//                 "tir-interp,gpu=1");
//   "<kind>"      the same as "<kind>:0".
// An empty string means "not placed": the tensor lives wherever its producer puts it (the
// host, on a module without devices). The parser and the well-formed checker reject a string
// that names no entry. The VM numbers devices like the list: vdevice i is the VM's device i
// (relax/vm/codegen.h), and by convention device-placement's host is entry 0 when it is first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relax {

/// One virtual device: what runs there (a target string) and which device of that kind.
struct VDevice {
  /// A target string, e.g. "llvm" or "tir-interp,gpu=1" (relax/target/target.h).
  std::string target;
  /// Which device of the target's device type (DLDevice::device_id).
  int64_t device_id = 0;
  /// Where tensors placed here live on the device ("global").
  std::string memory_scope = "global";

  /// The target kind: the text of `target` before its first comma.
  std::string kind() const;
  friend bool operator==(const VDevice&, const VDevice&) = default;
};

/// The index into `devices` of the vdevice `ref` names ("kind" or "kind:i"), or nullopt when
/// it names none (also for malformed references such as "kind:x").
std::optional<size_t> find_vdevice(const std::vector<VDevice>& devices, std::string_view ref);

/// Like find_vdevice, but throws relax::Error naming `ref`, `where` (e.g. "the struct info of
/// parameter 'x'") and the module's devices when it names none.
size_t resolve_vdevice(const std::vector<VDevice>& devices, std::string_view ref,
                       std::string_view where);

/// The canonical reference "kind:i" of entry `index` of `devices`.
std::string vdevice_ref(const std::vector<VDevice>& devices, size_t index);

/// "llvm:0 = llvm, tir-interp:1 = tir-interp,gpu=1", or "none" for an empty list (messages).
std::string describe_vdevices(const std::vector<VDevice>& devices);

/// The message resolve_vdevice throws (without location), for callers that report it
/// through their own diagnostics: "vdevice \"x\" in <where> names no device of the module
/// (its devices: ...)".
std::string unknown_vdevice_message(const std::vector<VDevice>& devices, std::string_view ref,
                                    std::string_view where);

}  // namespace relax
