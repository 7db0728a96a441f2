// VM code generation: the Relax functions of a VM-level module (after the minimum build's
// passes, relax/vm/passes.h) become bytecode; PrimFuncs are called by name and provided by
// kernel libraries that the caller builds for its target.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "relax/ir/module.h"
#include "relax/runtime/executable.h"

namespace relax::vm {

/// The DLPack device of a vdevice (device type from its target kind, and its device id).
using DeviceResolver = std::function<runtime::ExecDevice(const VDevice&)>;

/// The built-in resolver: "llvm", "c" and "tir-interp" run on the CPU, "tir-interp,gpu=1" on
/// the interpreter's GPU device (kDLExtDev, relax/target/devices.h); "cuda", "rocm",
/// "opencl", "vulkan", "metal" and "webgpu" on their DLPack types. Throws relax::Error naming
/// the target for any other kind (pass a resolver that knows it).
runtime::ExecDevice default_device_of(const VDevice& vdevice);

/// Relax functions of a VM-level module -> bytecode. Throws relax::Error for constructs left
/// unlowered (an op without legalisation, a symbolic ShapeExpr, ...), naming the function.
/// `libraries` (kernel libraries, each with the VM device its kernels run on) are attached to
/// the executable. The executable's device list is the module's vdevices, in order (VM device
/// i = vdevice i), resolved by `resolve`; a module without vdevices runs on one CPU.
/// R.to_vdevice becomes vm.builtin.to_vdevice(%vm, x, i), or, of a constant,
/// vm.builtin.constant_to_vdevice(%vm, constant index, i) (uploaded once per VM).
Ref<runtime::Executable> vm_codegen(const IRModule& mod,
                                    std::vector<runtime::Library> libraries = {},
                                    const DeviceResolver& resolve = default_device_of);

/// The PrimFuncs of `mod` by the VM device their calls run on: the index of the vdevice named
/// by their `relax.vdevice` attribute (set by device-placement); PrimFuncs without it (shape
/// functions, single-device modules) run on device 0. Each module holds the PrimFuncs of one
/// device (and nothing else), for building one kernel library per device.
std::map<size_t, IRModule> kernels_by_device(const IRModule& mod);

}  // namespace relax::vm
