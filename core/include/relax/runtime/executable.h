// The VM executable: bytecode, function table, constant pool and kernel libraries.
//
// Instruction set (Relax RFC §4.2): four instructions.
//   Call  dst, func, args...  calls function-table entry `func` (bytecode or packed) and writes
//                             its result to register `dst` (or drops it: kVoidRegister).
//   Ret   reg                 returns register `reg` to the caller.
//   Goto  offset              pc += offset.
//   If    cond, false_offset  pc += 1 when register `cond` is true (non-zero int or bool),
//                             else pc += false_offset.
// An argument is a register, a signed 56-bit immediate int, a constant-pool index, or a
// function-table index (which reads as a function value, e.g. for make_closure).
// Registers 0..num_params-1 of a function hold its parameters. Offsets are relative to the
// instruction that jumps and must stay inside the function; the last instruction of a
// bytecode function is a Ret or a Goto, so control never runs off its end.
//
// An Executable is immutable once built or loaded and may be shared by any number of threads;
// each thread runs it on its own VirtualMachine.
//
// File format (.rxe, little-endian), version 3 (version 2 lacks DEVS and the library device;
// version 1 also the parameter types):
//   header   magic "RXEXE\0\r\n" (8 bytes), format version u32, flags u32 (0),
//            payload size u64, FNV-1a-64 checksum of the payload u64
//   payload  sections in this order, each `tag u32, size u64, body`:
//            "STRS" string table: count u32, then per string: length u32, bytes
//            "FUNC" function table: count u32, then per function: name u32 (string index),
//                   kind u8, num_params u32, register_file_size u32, start u32, end u32,
//                   num_params × param name u32
//            "CNST" constants: count u32, then per constant: tag u8 and its body
//                   (int i64 | float f64 | string u32 | shape ndim u32 + dims i64... |
//                    tensor dtype u8,u8,u16 + ndim u32 + dims i64... + nbytes u64 + bytes)
//            "CODE" bytecode: instruction count u32, then per instruction: opcode u8 and
//                   Call: dst i64, func u32, nargs u32, nargs × (kind u8, value i64)
//                   Ret: reg i64 | Goto: offset i64 | If: cond i64, false_offset i64
//            "LIBS" kernel libraries: count u32, then per library: format u32 (string
//                   index), nbytes u64, bytes, device index i32
//            "DEVS" devices: count u32, then per device: DLPack device type i32, device id
//                   i32, target u32 (string index)
// The loader checks every count, size, offset and index, and every instruction's registers,
// constants, functions and jump targets, and rejects damage with a relax::Error that says
// what is wrong and where.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "relax/runtime/module.h"
#include "relax/runtime/value.h"

namespace relax::runtime {

/// A register index. Negative values are special registers.
using RegName = int64_t;
/// Destination that discards a call's result.
inline constexpr RegName kVoidRegister = -1;
/// Reads as the running VM's context object (builtins that need the VM take it first).
inline constexpr RegName kVMStateRegister = -2;

/// Largest register file a function may declare (guards against damaged files).
inline constexpr int64_t kMaxRegisterFileSize = 1 << 20;
/// Immediates are signed 56-bit, as in TVM.
inline constexpr int64_t kMaxImmediate = (int64_t(1) << 55) - 1;
inline constexpr int64_t kMinImmediate = -(int64_t(1) << 55);

/// The four instructions.
enum class Opcode : uint8_t { kCall = 0, kRet = 1, kGoto = 2, kIf = 3 };

/// What an instruction argument refers to.
enum class ArgKind : uint8_t { kRegister = 0, kImmediate = 1, kConstIndex = 2, kFuncIndex = 3 };

/// One argument of a Call.
struct Arg {
  ArgKind kind = ArgKind::kRegister;
  int64_t value = 0;

  static Arg reg(RegName r) { return {ArgKind::kRegister, r}; }
  static Arg imm(int64_t v) { return {ArgKind::kImmediate, v}; }
  static Arg const_index(int64_t i) { return {ArgKind::kConstIndex, i}; }
  static Arg func_index(int64_t i) { return {ArgKind::kFuncIndex, i}; }
  /// The VM context (kVMStateRegister).
  static Arg vm_state() { return {ArgKind::kRegister, kVMStateRegister}; }
  friend bool operator==(const Arg&, const Arg&) = default;
};

/// One instruction. Fields by opcode:
///   Call: reg = dst, value = function index, args = [args_begin, args_begin + num_args)
///   Ret: reg = result      Goto: value = offset      If: reg = cond, value = false offset
struct Instruction {
  Opcode op = Opcode::kRet;
  uint32_t num_args = 0;
  uint32_t args_begin = 0;
  int64_t reg = 0;
  int64_t value = 0;
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

/// How a function-table entry is implemented.
enum class FunctionKind : uint8_t {
  kBytecode = 0,  ///< instructions of this executable
  kPacked = 1,    ///< a packed function resolved by name at VM creation
};

/// One entry of the function table.
struct FunctionInfo {
  std::string name;
  FunctionKind kind = FunctionKind::kPacked;
  /// Bytecode: exact parameter count; packed: unused (0).
  int64_t num_params = 0;
  int64_t register_file_size = 0;
  /// Bytecode: instructions [start, end).
  int64_t start = 0;
  int64_t end = 0;
  std::vector<std::string> param_names;
  /// Bytecode: each parameter's struct info as TVMScript text (`R.Tensor((n, 4), "float32")`),
  /// for tools that make inputs (relax-driver run) and for error messages; empty when unknown
  /// (executables of format version 1, hand-built ones).
  std::vector<std::string> param_types;
  friend bool operator==(const FunctionInfo&, const FunctionInfo&) = default;
};

/// An opaque kernel library for one target.
struct Library {
  std::string format;
  std::vector<uint8_t> bytes;
  /// The VM device (index into Executable::devices) its kernels run on.
  int32_t device_index = 0;
  friend bool operator==(const Library&, const Library&) = default;
};

/// One device of the executable's device list (a vdevice of the compiled module).
struct ExecDevice {
  int32_t device_type = 1;  ///< DLDeviceType (kDLCPU = 1, kDLExtDev = 12, ...)
  int32_t device_id = 0;
  /// The target its kernels were compiled for ("llvm", "tir-interp,gpu=1"), for messages.
  std::string target;
  friend bool operator==(const ExecDevice&, const ExecDevice&) = default;
};

/// Format version written by save() and accepted by load().
inline constexpr uint32_t kExecutableFormatVersion = 3;
/// The oldest format version load() still reads (version 1 has no parameter types).
inline constexpr uint32_t kOldestExecutableFormatVersion = 1;

/// A complete program for the VM (see the file comment).
class Executable : public Object {
 public:
  static constexpr uint32_t kKind = kExecutableObjKind;
  Executable() : Object(kKind) {}

  std::vector<FunctionInfo> functions;
  /// Ints, floats, strings, shapes and CPU tensors.
  std::vector<Value> constants;
  std::vector<Instruction> instructions;
  /// Call arguments, indexed by Instruction::args_begin.
  std::vector<Arg> args;
  std::vector<Library> libraries;
  /// The devices the program runs on, by VM device index (alloc_storage's and to_vdevice's
  /// device argument); device 0 is the host. Empty: one CPU (a single-device program).
  std::vector<ExecDevice> devices;

  /// Index of the function named `name`, or -1.
  int64_t find_function(std::string_view name) const;
  /// Checks every index, count and jump of the program; throws relax::Error naming the
  /// function and instruction at fault. load() and ExecBuilder::get() run it.
  void validate() const;
  /// The bytecode as text, one instruction a line (RFC `as_text()`).
  std::string as_text() const;

  /// Serialises to the .rxe format.
  std::vector<uint8_t> save() const;
  void save_to_file(const std::string& path) const;
  /// Parses and validates a .rxe image; throws relax::Error describing any damage.
  static Ref<Executable> load(std::span<const uint8_t> bytes);
  static Ref<Executable> load_from_file(const std::string& path);

  /// The libraries loaded through their module loaders, once per executable (thread-safe).
  const std::vector<Module>& modules() const;

 private:
  mutable std::once_flag modules_once_;
  mutable std::vector<Module> modules_;
};

/// FNV-1a 64-bit hash, the checksum of the .rxe payload.
uint64_t fnv1a64(std::span<const uint8_t> bytes);

}  // namespace relax::runtime
