// Host tensors in, host tensors out: moving a run's arguments to the devices its parameters
// live on and its results back (relax-driver run, relax-conformance).
#pragma once

#include <vector>

#include "relax/runtime/vm.h"

namespace relax::tools {

/// `args` with each tensor moved to the VM device its parameter's type names (the
/// `vdevice="kind:i"` of FunctionInfo::param_types, resolved against the executable's
/// devices by target kind); tensors of parameters without a vdevice stay where they are.
std::vector<runtime::Value> to_param_devices(const runtime::VirtualMachine& vm,
                                             const runtime::FunctionInfo& f,
                                             std::vector<runtime::Value> args);

/// `v` with every tensor (inside tuples too) on the CPU.
runtime::Value to_host(const runtime::Value& v);

}  // namespace relax::tools
