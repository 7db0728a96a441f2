// The fallback of the layout design ("Layout Rewrite Transformation Callback"): a function
// registered for a Relax op (by op name, "relax.nn.softmax") or a PrimFunc (by its global
// name in the module) that says how a result rewrite flows through it, used by flow-layout
// instead of reading the PrimFunc's blocks — for opaque computations.
//
// A callback gets the call and the index map on its result and returns one entry per tensor
// operand (the call_tir's inputs, or the op's arguments in legalisation order): the rewrite
// that operand needs (nullopt: that operand is left as it is), or nothing when the rewrite must
// stay on the result. flow-layout then transforms the PrimFunc's buffers with these maps (the
// result keeps a call_tir of it), so a callback only chooses layouts and cannot make the
// computation wrong.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "relax/arith/index_map.h"
#include "relax/ir/expr.h"

namespace relax::layout {

using FlowCallback = std::function<std::optional<std::vector<std::optional<arith::IndexMap>>>(
    const Call& call, const arith::IndexMap& result_map)>;

/// Registers (or, with an empty function, removes) the callback of `op_or_prim_func`.
/// Thread-safe.
void register_flow_callback(const std::string& op_or_prim_func, FlowCallback callback);

/// The callback of `op_or_prim_func`, or null. The pointer stays valid until the callback is
/// replaced or removed.
const FlowCallback* find_flow_callback(const std::string& op_or_prim_func);

}  // namespace relax::layout

/// The registration entry for code outside this plugin (other plugins, tests) in the same
/// process: dlopen the loaded librelax-layout.so with RTLD_NOLOAD, dlsym this name, and call
/// it with a pointer to a relax::layout::FlowCallback (copied; null removes the callback).
extern "C" void relax_layout_register_flow_callback(const char* op_or_prim_func,
                                                    const void* callback);
