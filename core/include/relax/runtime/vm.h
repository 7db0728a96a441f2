// The Relax virtual machine: a register machine running an Executable (RFC §4.2).
//
//   Ref<Executable> exec = Executable::load_from_file("model.rxe");
//   auto vm = VirtualMachine::create(exec);              // resolves every name once
//   Value y = vm->invoke("main", {x});
//
// Creation resolves each packed-function entry of the function table to a PackedFunc
// (kernel libraries first, then the global registry) and fails, naming the function, when one
// is missing. The dispatch loop then indexes tables only; it never looks up a string.
//
// Frames: each bytecode call pushes a frame whose register file (register_file_size Values)
// lives on one register stack; parameters arrive in registers 0..n-1. Calls between bytecode
// functions do not recurse on the C++ stack. Errors raised inside a call come out as
// relax::Error prefixed with the function and instruction where they happened.
//
// A VirtualMachine is single-threaded state; to run one executable on several threads, give
// each thread its own VirtualMachine (the executable is shared read-only).
#pragma once

#include <dlpack/dlpack.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "relax/runtime/executable.h"
#include "relax/runtime/packed_func.h"
#include "relax/support/trace.h"

namespace relax::runtime {

/// Limits that turn runaway programs into errors.
struct VMOptions {
  /// Instructions one top-level invoke may execute; 0 means unlimited.
  uint64_t max_instructions = 0;
  /// Deepest bytecode call stack (frames) before a "call stack overflow" error.
  int64_t max_call_depth = 10000;
  /// Largest storage one vm.builtin.alloc_storage may allocate, in bytes; 0 means unlimited.
  /// A larger request is a relax::Error naming the size and this limit (for executables from
  /// untrusted sources, whose allocation sizes are data).
  uint64_t max_alloc_bytes = 0;
  /// Time every packed-function call (kernels, builtins) the bytecode makes, per function-table
  /// entry; VirtualMachine::profile() reads the totals. A kernel on a device other than the CPU
  /// is timed to its completion (the VM synchronises the device after it, as it does under
  /// `trace`): launches are asynchronous, and otherwise the next blocking copy would take the
  /// time. Off: one predictable branch per call.
  bool profile = false;
  /// Reuse host storage across runs: a vm.builtin.alloc_storage block on the CPU goes back to
  /// the VM's pool when its last handle goes and serves the next request of its exact size,
  /// so a model run repeatedly does not fault in fresh pages for its intermediates every run
  /// (ONNX Runtime's arena, TVM's pooled allocator). Off: a fresh allocation each time.
  bool pool_storage = true;
  /// The pool frees its idle blocks, oldest first, beyond this many bytes in all.
  uint64_t max_idle_storage_bytes = uint64_t(1) << 30;
  /// Where to record a trace event per packed-function call (category "kernel", or "builtin"
  /// for vm.builtin.*) and per top-level invoke ("run"); null: none. A kernel on a device
  /// other than the CPU is recorded to its completion (as under `profile`). Not owned; must
  /// outlive the VM's calls.
  trace::Recorder* trace = nullptr;
};

/// One packed function's share of the calls timed under VMOptions::profile.
struct CallProfile {
  std::string name;
  int64_t calls = 0;
  double seconds = 0;  ///< wall-clock time inside the calls, summed
};

class VirtualMachine;
class StoragePool;

/// The value of the special register kVMStateRegister: gives builtins the running VM.
struct VMContextObj : Object {
  static constexpr uint32_t kKind = kVMContextObjKind;
  explicit VMContextObj(VirtualMachine* v) : Object(kKind), vm(v) {}
  VirtualMachine* const vm;
};

/// Runs an Executable. Create with VirtualMachine::create; not thread-safe (one per thread).
class VirtualMachine : public std::enable_shared_from_this<VirtualMachine> {
  struct Passkey {};

 public:
  /// A VM for `exec` with `devices` (alloc_storage's and to_vdevice's device index selects
  /// one; index 0 is the host). Empty: the executable's device list (Executable::devices),
  /// else one CPU. Registers the builtins, loads the kernel libraries and resolves names.
  /// Throws relax::Error when `devices` has fewer entries than the executable's list or a
  /// device has no registered device runtime (naming the device and its target).
  static std::shared_ptr<VirtualMachine> create(Ref<Executable> exec,
                                                std::vector<DLDevice> devices = {},
                                                VMOptions options = {});
  VirtualMachine(Passkey, Ref<Executable> exec, std::vector<DLDevice> devices, VMOptions options);
  VirtualMachine(const VirtualMachine&) = delete;
  VirtualMachine& operator=(const VirtualMachine&) = delete;

  /// Runs function `name` with `args` and returns its result. Throws relax::Error for an
  /// unknown name, a wrong argument count, or any error raised while running.
  Value invoke(std::string_view name, const std::vector<Value>& args);
  /// Runs function-table entry `func_index` (bytecode or packed).
  Value invoke(int64_t func_index, Args args);
  /// Function `name` as a PackedFunc bound to this VM; calling it after the VM is gone throws.
  PackedFunc get_function(std::string_view name);

  const Executable& executable() const { return *exec_; }
  const std::vector<DLDevice>& devices() const { return devices_; }
  const VMOptions& options() const { return options_; }
  /// The device at `index` of devices(); throws relax::Error when out of range.
  DLDevice device(int64_t index) const;
  /// Tensor constant `const_index` of the executable on device `device_index`: copied there on
  /// first use and kept for the life of the VM (vm.builtin.constant_to_vdevice), so a constant
  /// used on a device is uploaded once. On the CPU device the constant itself.
  Value constant_on_device(int64_t const_index, int64_t device_index);

  /// `nbytes` of storage on `device` (vm.builtin.alloc_storage): from the VM's pool on the CPU
  /// with VMOptions::pool_storage, else a new allocation. Checks max_alloc_bytes.
  NDArray alloc_storage(int64_t nbytes, DLDevice device);

  /// With VMOptions::profile: the packed functions called since creation (or reset_profile),
  /// slowest total first, entries of the same name summed. Calls a builtin makes itself
  /// (through a function-index argument) count in the builtin's time. Empty when not profiling.
  std::vector<CallProfile> profile() const;
  /// With VMOptions::profile: top-level invocations since creation (or reset_profile), to
  /// turn profile() totals into per-run times.
  int64_t profiled_runs() const { return profiled_runs_; }
  void reset_profile();

 private:
  struct Frame {
    int64_t func_index;
    int64_t return_pc;   // where the caller continues
    RegName caller_dst;  // caller register receiving the result
    size_t reg_base;     // first register of this frame on the register stack
  };

  void resolve_functions();
  /// Waits for the device of a device-library kernel (profile, trace); nothing for the CPU.
  void sync_kernel_device(size_t func_index);
  void push_frame(int64_t func_index, int64_t return_pc, RegName caller_dst);
  void pop_frame();
  Value run(int64_t func_index, Args args);
  Value run_loop(size_t entry_depth);
  /// "in function 'f', instruction 3 (call g), called from 'main', instruction 7 ..."
  std::string where(int64_t pc, size_t entry_depth) const;

  Ref<Executable> exec_;
  std::vector<DLDevice> devices_;
  VMOptions options_;
  /// Per function-table entry: the resolved PackedFunc (packed) or a VM-bound one (bytecode);
  /// what a function-index argument reads as.
  std::vector<Value> function_values_;
  std::vector<PackedFunc> packed_;
  /// VMOptions::profile: per function-table entry, calls and seconds.
  std::vector<CallProfile> profile_;
  /// Per function-table entry: the target of the device its library runs on (for traces;
  /// empty for builtins and bytecode).
  std::vector<std::string> kernel_device_;
  /// Per function-table entry: the device a kernel of a device library (not the CPU's) runs
  /// on, which profiling and tracing synchronise after each call; device_type 0 otherwise.
  std::vector<DLDevice> kernel_sync_;
  int64_t profiled_runs_ = 0;
  Value vm_state_;
  /// constant_on_device's uploads, by (constant index, device index).
  std::map<std::pair<int64_t, int64_t>, Value> device_constants_;
  /// VMOptions::pool_storage: the idle host storage (shared with the storages handed out).
  std::shared_ptr<StoragePool> storage_pool_;
  std::vector<Frame> frames_;
  std::vector<Value> registers_;
  size_t register_top_ = 0;
  uint64_t steps_left_ = 0;
  int reentry_depth_ = 0;
};

}  // namespace relax::runtime
