// The device-module container shared by the GPU backends (Vulkan, OpenCL, and any vendor's):
// what a GPU codegen plugin writes as its kernel library and what its runtime plugin loads.
//
// A GPU kernel library holds, for every PrimFunc the VM calls, a *launch table*: the host half
// of the lowered program (kernel/gpu_lower.h: asserts, scalar lets, global workspaces and
// kernel launches) in a form the runtime evaluates without LLVM or the compiler: integer
// expressions in postfix form over "slots" (the shape variables bound from the arguments, the
// scalar arguments and the lets). Beside the tables: one entry per kernel (its name, block
// size, shared bytes, the kinds of its parameters and its code) and the device requirements
// (features such as "float16" or "int64", limits) that the runtime checks before it runs
// anything.
//
// The kernel calling convention every GPU codegen follows (so that one runtime-side executor
// serves all): a kernel's parameters are its buffers (binding i = buffer i) then its scalars
// (in the order of KernelInfo::scalar_dtypes), then one int32 *element offset* per buffer, in
// buffer order. A buffer access `B[i]` in the kernel reads element `offset_B + i` of the
// binding. The runtime passes the DLTensor's byte_offset / element size (a byte offset that is
// not a multiple of the element size, or an offset past int32, is an error naming the
// argument). Vulkan puts the scalars and offsets in push constants (see the codegen for the
// layout); OpenCL passes them as kernel arguments.
//
// This header and launch_table.cc need only the C++ standard library, dlpack.h and c_abi.h:
// a runtime plugin links them without the compiler (relax_gpu_runtime_common).
// Deserialisation never trusts its input: a truncated or malformed library is a
// std::runtime_error naming what was wrong, never a crash.
#pragma once

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "relax/runtime/c_abi.h"

namespace relax::gpu {

/// Operations of the postfix integer expressions (int64, two's-complement wrapping).
enum class ExprOp : uint8_t {
  kConst = 0,  ///< push `value`
  kSlot,       ///< push slots[value]
  kAdd, kSub, kMul,
  kDiv,       ///< truncating division (TIR Div); division by zero is an error
  kMod,       ///< truncating remainder (TIR Mod)
  kFloorDiv,  ///< TIR FloorDiv
  kFloorMod,  ///< TIR FloorMod
  kMin, kMax,
  kEQ, kNE, kLT, kLE, kGT, kGE,  ///< 1 or 0
  kAnd, kOr,                     ///< logical, on 0/non-0
  kNot,                          ///< logical (unary)
  kNeg,                          ///< unary
  kSelect,                       ///< pops c, t, f (pushed in that order): c ? t : f
};

struct ExprInstr {
  ExprOp op = ExprOp::kConst;
  int64_t value = 0;  ///< the constant (kConst) or the slot index (kSlot); unused otherwise
};

/// An integer expression in postfix form.
struct Expr {
  std::vector<ExprInstr> code;
};

/// Evaluates `e` over `slots`; throws std::runtime_error on division by zero, a slot out of
/// range or a malformed program (stack underflow, not exactly one result).
int64_t eval(const Expr& e, const std::vector<int64_t>& slots);

/// One dimension of a buffer parameter: `slot` >= 0: the dimension binds that slot at its
/// first occurrence (a shape variable) and must equal it afterwards; slot < 0: it must equal
/// `value`.
struct DimSpec {
  int32_t slot = -1;
  int64_t value = 0;
};

/// A parameter of a function the VM calls: a tensor (DLTensor on the backend's device, its
/// shape checked/bound dimension by dimension, dtype equal) or an integer scalar (stored in
/// `slot`).
struct ParamSpec {
  enum class Kind : uint8_t { kBuffer = 0, kScalar = 1 };
  Kind kind = Kind::kBuffer;
  std::string name;  ///< for messages
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<DimSpec> shape;  ///< kBuffer
  int32_t slot = -1;           ///< kScalar
};

/// A kernel argument at a launch: a buffer parameter of the function, a workspace, or a scalar.
struct LaunchArg {
  enum class Kind : uint8_t { kParam = 0, kWorkspace = 1, kScalar = 2 };
  Kind kind = Kind::kParam;
  int32_t index = 0;  ///< kParam: the function's parameter index; kWorkspace: the workspace index
  Expr value;         ///< kScalar
};

/// One step of a function's host program, run in order.
struct Step {
  enum class Kind : uint8_t { kAssert = 0, kLet = 1, kAlloc = 2, kLaunch = 3 };
  Kind kind = Kind::kAssert;
  Expr value;           ///< kAssert: the condition; kLet: the value; kAlloc: the byte size
  std::string message;  ///< kAssert: the error text when the condition is 0
  int32_t slot = -1;    ///< kLet: the slot it sets; kAlloc: the workspace index
  int32_t kernel = -1;  ///< kLaunch: index into Library::kernels
  std::array<Expr, 3> grid;   ///< kLaunch: work-groups per dimension
  std::vector<LaunchArg> args;  ///< kLaunch: the kernel's buffers then its scalars
};

/// The launch table of one function the VM calls by name.
struct FunctionTable {
  std::string name;
  std::vector<ParamSpec> params;
  int32_t num_slots = 0;
  /// The name of each slot for messages (a shape variable's or a let's name); may be shorter
  /// than num_slots (unnamed slots print as "s<i>").
  std::vector<std::string> slot_names;
  int32_t num_workspaces = 0;
  std::vector<Step> steps;
};

/// One device kernel.
struct KernelInfo {
  std::string name;  ///< the entry point / kernel function name in the code
  std::array<uint32_t, 3> block{1, 1, 1};  ///< work-group size (constant)
  uint64_t shared_bytes = 0;
  /// Element type of each buffer binding; a bool buffer is uint8 here ({kDLUInt, 8, 1}: one
  /// byte per element, 0 or 1), while the function's ParamSpec keeps bool ({kDLUInt, 1, 1}).
  std::vector<DLDataType> buffer_dtypes;
  std::vector<DLDataType> scalar_dtypes;  ///< int32 or int64 each
  std::vector<uint8_t> code;              ///< per-kernel code (SPIR-V words); may be empty
};

/// A GPU kernel library.
struct Library {
  std::string format;  ///< the library format tag: "spirv", "opencl-c", ...
  /// Device requirements, name -> value: features ("float16" -> "1", "int64" -> "1", ...)
  /// and limits ("max-threads-per-block" -> "256", "shared-bytes" -> "8192").
  std::map<std::string, std::string> requirements;
  std::vector<KernelInfo> kernels;
  std::vector<FunctionTable> functions;
  std::vector<uint8_t> module_code;  ///< whole-module code (OpenCL C source); may be empty
};

/// The bytes of `lib` ("RXGPU\0" magic, format version 1, then the fields little-endian;
/// launch_table.cc describes the layout).
std::vector<uint8_t> serialize(const Library& lib);
/// The library in `bytes`; std::runtime_error naming the problem (bad magic, unsupported
/// version, truncated at field X, an index out of range) when they are not one. Every index
/// (kernel, parameter, slot, workspace), every expression (well-formed, slots in range) and
/// each launch's argument kinds against its kernel are validated, so execute() may trust the
/// result; slots are limited to 2^20 and workspaces to 2^16 per function.
Library deserialize(const uint8_t* bytes, uint64_t nbytes);

/// A buffer argument resolved for a launch.
struct BufferArg {
  void* data = nullptr;         ///< the DLTensor's data (the device runtime's handle)
  int64_t elem_offset = 0;      ///< byte_offset / element size
  uint64_t nbytes = 0;          ///< bytes of the tensor past its byte_offset (a workspace: its size)
  DLDataType dtype{kDLFloat, 32, 1};
};

/// A launch with every expression evaluated.
struct Launch {
  int32_t kernel = -1;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<BufferArg> buffers;
  std::vector<int64_t> scalars;  ///< in KernelInfo::scalar_dtypes order (int32 values range-checked)
};

/// What the executor needs from a device runtime.
struct ExecCallbacks {
  /// Allocates a device workspace of `nbytes`; returns the handle (throws on failure).
  std::function<void*(uint64_t nbytes)> alloc_workspace;
  /// Frees a workspace (after the launches that use it are queued; the runtime keeps it alive
  /// until they complete).
  std::function<void(void* handle)> free_workspace;
  /// Queues one launch (in order after the previous ones); throws std::runtime_error on failure.
  std::function<void(const Launch& launch)> launch;
};

/// Runs `fn` on the VM's arguments: checks their number and kinds, each tensor's device type
/// (`device_type`), dtype, rank, compactness and shape (binding the shape slots), the scalar
/// arguments, then the steps in order (asserts, lets, workspaces, launches through `cb`).
/// Throws std::runtime_error whose message names the function, the parameter or the assert
/// and what was expected, e.g.
///   function "add": argument 1 ("B") has shape [4, 5], expected [4, ?n] with n = 3 from argument 0
/// A byte offset that is not a multiple of the element size, or an element offset past int32,
/// is an error naming the argument; an int32 kernel scalar out of range names the kernel. A
/// grid dimension must lie in [0, 2^32); a launch with a 0 dimension is skipped (a zero-size
/// tensor). Workspaces are freed before it returns or throws. `fn` must come from a validated
/// library (deserialize or build_library).
void execute(const Library& lib, const FunctionTable& fn, const RxAny* args, int32_t nargs,
             int32_t device_type, const ExecCallbacks& cb);

/// The size in bytes of one element of `t` (bits*lanes rounded up to bytes; bool: 1).
uint64_t dtype_bytes(DLDataType t);
/// "float32", "int8", "bool", "float16x4", ...
std::string dtype_name(DLDataType t);

}  // namespace relax::gpu
