// ExecBuilder: the C++ API for writing VM bytecode (used by tests and by VM codegen).
//
//   ExecBuilder b;
//   b.begin_function("add1", {"x"});                  // x is register 0
//   b.emit_call("my.add", {Arg::reg(0), Arg::imm(1)}, /*dst=*/1);
//   b.emit_ret(1);
//   b.end_function();
//   Ref<Executable> exec = b.get();
//
// A name called with emit_call (or taken with function_arg) that is never defined with
// begin_function becomes a packed-function entry, resolved at VM creation. Jumps take either
// raw relative offsets or labels bound later in the same function.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "relax/runtime/executable.h"

namespace relax::runtime {

/// A jump target inside the function being built.
struct Label {
  int64_t id = -1;
};

/// Builds an Executable function by function. Not thread-safe.
class ExecBuilder {
 public:
  ExecBuilder();

  /// Starts bytecode function `name`; its parameters are registers 0..params.size()-1.
  void begin_function(std::string name, std::vector<std::string> param_names);
  /// Records the parameters' types (FunctionInfo::param_types) of the current function.
  void set_param_types(std::vector<std::string> types);
  /// Finishes the current function: resolves labels and sets the register file size to
  /// max(highest register used + 1, num_params, min_registers).
  void end_function(int64_t min_registers = 0);
  /// Declares a packed function (optional: emit_call declares unknown names itself).
  int64_t declare_packed(std::string_view name);

  /// Call `func_name` with `args`, result into `dst` (kVoidRegister drops it).
  void emit_call(std::string_view func_name, std::vector<Arg> args, RegName dst = kVoidRegister);
  void emit_ret(RegName result);
  /// Jump by a relative offset (1 is the next instruction).
  void emit_goto(int64_t offset);
  void emit_goto(Label target);
  /// If register `cond` is true go on, else jump by `false_offset`.
  void emit_if(RegName cond, int64_t false_offset);
  void emit_if(RegName cond, Label false_target);

  /// A fresh label; bind it to the next instruction with bind().
  Label new_label();
  void bind(Label label);
  /// Index (within the current function) that the next emitted instruction will have.
  int64_t next_offset() const;

  /// Adds a constant (int, float, string, shape or CPU tensor) and returns its argument.
  Arg add_constant(Value value);
  /// The function-table index of `name` as an argument (declares a packed entry if unknown).
  Arg function_arg(std::string_view name);
  /// Attaches a kernel library of format `format`.
  void add_library(std::string format, std::vector<uint8_t> bytes);

  /// Finishes the executable: checks that no function is still open and validates it. The
  /// builder then starts a new, empty executable.
  Ref<Executable> get();

 private:
  int64_t function_index(std::string_view name, bool define);
  void note_register(RegName r);
  void emit(Instruction instr);

  Ref<Executable> exec_;
  Executable* mut_;
  std::unordered_map<std::string, int64_t> index_of_;
  int64_t current_ = -1;
  int64_t max_register_ = -1;
  std::vector<int64_t> label_pos_;
  /// (instruction index, label id) pairs to patch at end_function.
  std::vector<std::pair<int64_t, int64_t>> fixups_;
};

}  // namespace relax::runtime
