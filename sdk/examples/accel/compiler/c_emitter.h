// The accel backend's code generator: one lowered PrimFunc (relax/kernel/lower.h) as a C99
// function of the accel kernel convention (accel_kernel.h), compiled by the system C compiler.
#pragma once

#include <string>

#include "relax/ir/prim_func.h"

namespace accel {

/// The C source of kernel `name` (function accel_kernel_<name>) from `func`, which this function
/// lowers first. Throws relax::Error naming the kernel for what it cannot emit (vector code,
/// 16-bit floats).
std::string emit_kernel(const std::string& name, const relax::Ref<relax::tir::PrimFunc>& func);

/// The helpers every kernel file starts with (includes, floor division, min/max).
std::string c_prelude();

}  // namespace accel
