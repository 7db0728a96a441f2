// The reference interpreter: executes a lowered PrimFunc (tir/lower.h) on CPU NDArrays.
//
// It is the ground truth the code generators are tested against, so it is slow and plain:
// a tree walk over statements and expressions, one scalar at a time.
//
// Semantics (those of tir/expr.h and tir/stmt.h, made precise where they leave a choice):
//  - Integers wrap at the width of their dtype (two's complement); Div/Mod truncate, FloorDiv/
//    FloorMod floor (Python). Integer division or modulo by zero, and shifts by an amount
//    outside [0, bits), are errors.
//  - Floats compute in double and round to the dtype after every operation (float16 and
//    bfloat16 round to nearest even). Float division by zero gives IEEE inf/nan.
//  - Casts: to bool is `!= 0`; float to integer truncates toward zero (NaN gives 0; values out of
//    the int64 range saturate, then wrap to the width); integer to integer wraps.
//  - Vectors (Ramp, Broadcast, vector loads/stores) are evaluated lane by lane: lane l of an
//    expression is the expression evaluated with every Ramp at base + l * stride. A vector
//    store computes every lane before writing any.
//  - if_then_else evaluates only the arm taken (per lane); Select evaluates both.
//  - Loads and stores check their index against the memory they touch: an out-of-bounds
//    access is an error naming the buffer and the index.
//  - Allocate fills its memory with 0xFF bytes (NaN for floats, -1 for signed integers), so a
//    kernel that reads memory it never wrote is likely to show it.
//  - Loops of every kind (parallel, vectorized, unrolled, vthread) run serially, in order,
//    except threadIdx-bound loops inside block regions (below).
//  - call_extern is an error: the interpreter knows no external functions.
// Blocks are not interpreted: lower the PrimFunc first.
//
// GPU semantics. A function without threadIdx-bound loops runs as above (blockIdx loops
// iterate like serial loops). Otherwise:
//  - A loop bound to blockIdx.x|y|z iterates its blocks one after another, in order (blocks are
//    independent, so any order is correct).
//  - A block region is the body of an innermost blockIdx loop or, for threadIdx loops outside
//    any blockIdx loop, the outermost statement that holds them and no blockIdx loop (one
//    block). A threadIdx loop around a blockIdx loop is an error naming the loops; one nested
//    in a loop of its own tag runs on the same thread index (TVM's meaning).
//  - The block has, per tag threadIdx.x|y|z, as many threads as the largest extent of a loop
//    of that tag in the region, evaluated when the region starts (an extent that cannot be
//    evaluated there is an error naming the loop); at most 1024 threads in all (an error names
//    the kernel: its global_symbol, else "main"). Every thread runs the whole region; a
//    threadIdx loop of extent e does not iterate: it binds its variable to min + the thread's
//    index and runs its body when that index is below e.
//  - Storage scopes: an Allocate of scope "shared" in a region is one buffer per block, made
//    by whichever thread reaches it first; "local" is per thread (a "local" Allocate outside
//    the regions is copied for each thread of a region inside it); "global" in a region is one
//    buffer per kernel call (until the outermost blockIdx loop ends). Allocations outside the
//    regions are made when reached, as on a CPU.
//  - T.tvm_storage_sync("shared") is a barrier. In a region with barriers, the threads run as
//    cooperative fibers: each runs to its next barrier or its end, in thread order (x fastest);
//    when every thread waits at the same barrier, all are released. A thread that finishes
//    while others wait, or threads waiting at different barriers, are an error naming the
//    kernel, the barriers (numbered in the region's text order) and the threads. Regions
//    without barriers run their threads one after another. Outside regions a barrier does
//    nothing (one thread). An error in a thread ends the kernel: the other threads are unwound
//    and the error is rethrown.
//
// Errors are relax::Errors whose message names the parameter, buffer or variable at fault.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "relax/runtime/ndarray.h"
#include "relax/ir/prim_func.h"

namespace relax::tir {

/// One argument: an NDArray for a buffer (handle) parameter, an integer or a float for a
/// scalar parameter (converted to the parameter's dtype).
using InterpArg = std::variant<runtime::NDArray, int64_t, double>;

/// Runs `func` on `args`, one per parameter in order. Buffer arguments must be CPU NDArrays
/// whose dtype is the buffer's and whose shape matches the buffer's shape: a symbolic
/// dimension that is a plain variable is bound at its first occurrence (in parameter order)
/// and must agree everywhere after; other dimensions are evaluated and compared. Outputs are
/// written into their NDArrays in place.
void interpret(const Ref<PrimFunc>& func, const std::vector<InterpArg>& args);

/// IEEE binary16 conversions (round to nearest even), for building and reading float16 data.
uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);
/// bfloat16 conversions (round to nearest even).
uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(uint16_t bits);

}  // namespace relax::tir
