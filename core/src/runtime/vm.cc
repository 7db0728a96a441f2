// The VM: name resolution at creation, frames, and the dispatch loop.
#include "relax/runtime/vm.h"
#include "relax/runtime/module.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <new>
#include <sstream>

#include "relax/runtime/builtins.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/registry.h"
#include "relax/support/diagnostic.h"
#include "storage_pool.h"

namespace relax::runtime {

namespace {
/// Nested invocations through closures or VM-bound functions recurse on the C++ stack.
constexpr int kMaxReentryDepth = 200;

/// The kernel calling convention (R.vm.call_dps with tir_vars): the symbolic values a kernel
/// takes as scalar parameters arrive as one Shape argument. Kernels of compiled libraries take
/// scalars only, so a Shape argument is spread into one int argument per dimension here, once
/// for every backend.
PackedFunc expand_shape_arguments(PackedFunc kernel) {
  std::string name = kernel.name();
  return PackedFunc(std::move(name), [kernel = std::move(kernel)](Args args) -> Value {
    bool has_shape = false;
    for (const Value& a : args) has_shape |= a.kind() == ValueKind::kShape;
    if (!has_shape) return kernel(args);
    std::vector<Value> spread;
    spread.reserve(args.size() + 4);
    for (const Value& a : args) {
      if (a.kind() != ValueKind::kShape) {
        spread.push_back(a);
        continue;
      }
      for (int64_t d : a.as_shape().dims()) spread.emplace_back(d);
    }
    return kernel(Args(spread.data(), spread.size()));
  });
}
}  // namespace

std::shared_ptr<VirtualMachine> VirtualMachine::create(Ref<Executable> exec,
                                                       std::vector<DLDevice> devices,
                                                       VMOptions options) {
  RX_CHECK(exec.defined()) << "VirtualMachine::create: null executable";
  // The device types as ints: an extension type (past DLDeviceType's enumerators) is checked
  // before anything reads it back as the enum (a damaged executable's 247 is not a value of it).
  std::vector<int> types;
  for (const DLDevice& d : devices) types.push_back(int(d.device_type));
  if (devices.empty()) {
    for (size_t i = 0; i < exec->devices.size(); ++i) {
      const ExecDevice& d = exec->devices[i];
      // Vendor device runtimes serve types past DLPack's enumerators (the SDK's accel example:
      // 33), carried in DLDevice as DLPack consumers carry extension types; a damaged
      // executable's negative or huge type is refused here, an unknown one below.
      RX_CHECK(d.device_type >= 0 && d.device_type <= 0xFFFF)
          << "VirtualMachine::create: device " << i << " (target " << d.target
          << ") has device type " << d.device_type << ", outside 0..65535";
      devices.push_back(DLDevice{DLDeviceType(d.device_type), d.device_id});
      types.push_back(d.device_type);
    }
    if (devices.empty()) {
      devices.push_back(DLDevice{kDLCPU, 0});
      types.push_back(kDLCPU);
    }
  }
  RX_CHECK(devices.size() >= exec->devices.size())
      << "VirtualMachine::create: the executable runs on " << exec->devices.size()
      << " devices, the VM was given " << devices.size();
  for (size_t i = 0; i < devices.size(); ++i) {
    std::string target =
        i < exec->devices.size() ? " (target " + exec->devices[i].target + ")" : "";
    RX_CHECK(DeviceAPI::find(types[i]) != nullptr || discover_device_runtime(types[i]))
        << "VirtualMachine::create: device " << i << target << " has device type " << types[i]
        << ", for which no device runtime is registered; load the backend plugin that provides it";
  }
  register_builtins();
  auto vm =
      std::make_shared<VirtualMachine>(Passkey{}, std::move(exec), std::move(devices), options);
  vm->resolve_functions();
  return vm;
}

VirtualMachine::VirtualMachine(Passkey, Ref<Executable> exec, std::vector<DLDevice> devices,
                               VMOptions options)
    : exec_(std::move(exec)), devices_(std::move(devices)), options_(options) {
  vm_state_ = Value::from_object(make_ref<VMContextObj>(this));
  if (options_.pool_storage)
    storage_pool_ = std::make_shared<StoragePool>(options_.max_idle_storage_bytes);
}

void VirtualMachine::resolve_functions() {
  const std::vector<Module>& modules = exec_->modules();
  size_t n = exec_->functions.size();
  packed_.assign(n, PackedFunc());
  function_values_.assign(n, Value());
  kernel_device_.assign(n, std::string());
  kernel_sync_.assign(n, DLDevice{DLDeviceType(0), 0});
  std::weak_ptr<VirtualMachine> weak = weak_from_this();
  for (size_t i = 0; i < n; ++i) {
    const FunctionInfo& f = exec_->functions[i];
    if (f.kind == FunctionKind::kBytecode) {
      int64_t index = int64_t(i);
      function_values_[i] =
          PackedFunc(f.name, [weak, index](Args args) {
            std::shared_ptr<VirtualMachine> vm = weak.lock();
            RX_CHECK(vm != nullptr)
                << "a VM function was called after its VirtualMachine was destroyed";
            return vm->invoke(index, args);
          });
      continue;
    }
    PackedFunc found;
    for (size_t k = 0; k < modules.size(); ++k) {
      found = modules[k]->get_function(f.name);
      if (found.defined()) {
        found = expand_shape_arguments(std::move(found));
        // Its device's target kind ("vulkan" of "vulkan,max-threads-per-block=256,..."); a
        // single-device executable lists no devices: the CPU.
        size_t dev = size_t(exec_->libraries[k].device_index);
        const std::string target =
            dev < exec_->devices.size() ? exec_->devices[dev].target : std::string();
        kernel_device_[i] = target.empty() ? "cpu" : target.substr(0, target.find(','));
        if (dev < devices_.size() && devices_[dev].device_type != kDLCPU)
          kernel_sync_[i] = devices_[dev];
        break;
      }
    }
    if (!found.defined()) found = Registry::get(f.name);
    if (!found.defined()) {
      std::string formats;
      for (const Library& lib : exec_->libraries)
        formats += (formats.empty() ? "" : ", ") + lib.format;
      RX_THROW() << "function '" << f.name
                 << "' is not defined: neither the executable's kernel libraries ("
                 << (formats.empty() ? "none" : formats) << ") nor the global registry provide it";
    }
    packed_[i] = found;
    function_values_[i] = found;
  }
  if (options_.profile) reset_profile();
}

std::vector<CallProfile> VirtualMachine::profile() const {
  std::map<std::string, CallProfile> by_name;
  for (const CallProfile& p : profile_) {
    if (p.calls == 0) continue;
    CallProfile& sum = by_name[p.name];
    sum.name = p.name;
    sum.calls += p.calls;
    sum.seconds += p.seconds;
  }
  std::vector<CallProfile> out;
  for (auto& [name, p] : by_name) out.push_back(std::move(p));
  std::stable_sort(out.begin(), out.end(),
                   [](const CallProfile& a, const CallProfile& b) { return a.seconds > b.seconds; });
  return out;
}

void VirtualMachine::sync_kernel_device(size_t func_index) {
  const DLDevice& d = kernel_sync_[func_index];
  if (d.device_type != DLDeviceType(0)) DeviceAPI::get(d.device_type).synchronize(d);
}

void VirtualMachine::reset_profile() {
  if (!options_.profile) return;
  profiled_runs_ = 0;
  profile_.assign(exec_->functions.size(), CallProfile());
  for (size_t i = 0; i < profile_.size(); ++i) profile_[i].name = exec_->functions[i].name;
}

DLDevice VirtualMachine::device(int64_t index) const {
  RX_CHECK(index >= 0 && index < int64_t(devices_.size()))
      << "device index " << index << " is outside the VM's " << devices_.size() << " devices";
  return devices_[size_t(index)];
}

NDArray VirtualMachine::alloc_storage(int64_t nbytes, DLDevice device) {
  RX_CHECK(nbytes >= 0) << "vm.builtin.alloc_storage: negative size " << nbytes;
  uint64_t limit = options_.max_alloc_bytes;
  RX_CHECK(limit == 0 || uint64_t(nbytes) <= limit)
      << "vm.builtin.alloc_storage: " << nbytes << " bytes exceed the VM's allocation limit of "
      << limit << " bytes (VMOptions::max_alloc_bytes)";
  if (storage_pool_ && device.device_type == kDLCPU) return storage_pool_->take(nbytes, device);
  return NDArray::empty({nbytes}, DataType::UInt(8), device);
}

Value VirtualMachine::constant_on_device(int64_t const_index, int64_t device_index) {
  RX_CHECK(const_index >= 0 && const_index < int64_t(exec_->constants.size()))
      << "constant index " << const_index << " is outside the executable's "
      << exec_->constants.size() << " constants";
  const Value& c = exec_->constants[size_t(const_index)];
  DLDevice dev = device(device_index);
  if (!c.is(ValueKind::kTensor) || dev.device_type == kDLCPU) return c;
  auto key = std::make_pair(const_index, device_index);
  auto it = device_constants_.find(key);
  if (it != device_constants_.end()) return it->second;
  Value uploaded = c.as_tensor().copy_to(dev);
  device_constants_.emplace(key, uploaded);
  return uploaded;
}

Value VirtualMachine::invoke(std::string_view name, const std::vector<Value>& args) {
  int64_t index = exec_->find_function(name);
  if (index < 0) {
    std::string names;
    for (const FunctionInfo& f : exec_->functions)
      if (f.kind == FunctionKind::kBytecode) names += (names.empty() ? "" : ", ") + f.name;
    RX_THROW() << "no function named '" << name << "' in the executable (it has: " << names << ")";
  }
  return invoke(index, Args(args));
}

Value VirtualMachine::invoke(int64_t func_index, Args args) {
  RX_CHECK(func_index >= 0 && func_index < int64_t(exec_->functions.size()))
      << "function index " << func_index << " is outside the executable's "
      << exec_->functions.size() << " functions";
  if (packed_[size_t(func_index)].defined()) return packed_[size_t(func_index)](args);
  return run(func_index, args);
}

PackedFunc VirtualMachine::get_function(std::string_view name) {
  int64_t index = exec_->find_function(name);
  RX_CHECK(index >= 0) << "no function named '" << name << "' in the executable";
  return function_values_[size_t(index)].as_function();
}

void VirtualMachine::push_frame(int64_t func_index, int64_t return_pc, RegName caller_dst) {
  RX_CHECK(int64_t(frames_.size()) < options_.max_call_depth)
      << "call stack overflow: more than " << options_.max_call_depth
      << " nested calls (runaway recursion?)";
  const FunctionInfo& f = exec_->functions[size_t(func_index)];
  size_t base = register_top_;
  size_t need = base + size_t(f.register_file_size);
  if (registers_.size() < need) registers_.resize(std::max(need, registers_.size() * 2));
  register_top_ = need;
  frames_.push_back(Frame{func_index, return_pc, caller_dst, base});
}

void VirtualMachine::pop_frame() {
  const Frame& frame = frames_.back();
  for (size_t r = frame.reg_base; r < register_top_; ++r) registers_[r] = Value();
  register_top_ = frame.reg_base;
  frames_.pop_back();
}

Value VirtualMachine::run(int64_t func_index, Args args) {
  const FunctionInfo& f = exec_->functions[size_t(func_index)];
  if (int64_t(args.size()) != f.num_params) {
    std::string params;
    for (const std::string& p : f.param_names) params += (params.empty() ? "" : ", ") + p;
    RX_THROW() << "function '" << f.name << "' takes " << f.num_params << " arguments (" << params
               << "), got " << args.size();
  }
  RX_CHECK(reentry_depth_ < kMaxReentryDepth)
      << "call stack overflow: more than " << kMaxReentryDepth << " nested VM invocations";
  size_t entry_depth = frames_.size();
  if (entry_depth == 0) {
    steps_left_ = options_.max_instructions == 0 ? std::numeric_limits<uint64_t>::max()
                                                 : options_.max_instructions;
    if (options_.profile) ++profiled_runs_;
  }
  push_frame(func_index, -1, kVoidRegister);
  Value* regs = registers_.data() + frames_.back().reg_base;
  for (size_t i = 0; i < args.size(); ++i) regs[i] = args[i];
  ++reentry_depth_;
  double trace_start = options_.trace && entry_depth == 0 ? trace::now_us() : 0;
  try {
    Value result = run_loop(entry_depth);
    --reentry_depth_;
    if (options_.trace && entry_depth == 0) options_.trace->complete(f.name, "run", trace_start);
    return result;
  } catch (...) {
    --reentry_depth_;
    while (frames_.size() > entry_depth) pop_frame();
    throw;
  }
}

std::string VirtualMachine::where(int64_t pc, size_t entry_depth) const {
  // One entry per frame, innermost first; a run of identical frames (a recursion) is said
  // once with its count, and a deep stack is cut in the middle, so that the message stays
  // short whatever the depth.
  std::vector<std::pair<std::string, size_t>> frames;
  for (size_t depth = frames_.size(); depth > entry_depth; --depth) {
    const Frame& frame = frames_[depth - 1];
    const FunctionInfo& f = exec_->functions[size_t(frame.func_index)];
    const Instruction& in = exec_->instructions[size_t(pc)];
    std::ostringstream os;
    os << "'" << f.name << "', instruction " << (pc - f.start);
    if (in.op == Opcode::kCall) os << " (call " << exec_->functions[size_t(in.value)].name << ")";
    if (frames.size() >= 2 && frames.back().first == os.str()) {
      ++frames.back().second;
    } else {
      frames.emplace_back(os.str(), 1);
    }
    pc = frame.return_pc - 1;  // the caller's Call instruction
  }
  constexpr size_t kHead = 12, kTail = 4;
  std::ostringstream os;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames.size() > kHead + kTail && i == kHead) {
      size_t skipped = 0;
      for (size_t j = kHead; j < frames.size() - kTail; ++j) skipped += frames[j].second;
      os << ", ... (" << skipped << " more calls)";
      i = frames.size() - kTail - 1;
      continue;
    }
    os << (i == 0 ? "in function " : ", called from ") << frames[i].first;
    if (frames[i].second > 1) os << " [" << frames[i].second << " nested calls]";
  }
  return os.str();
}

Value VirtualMachine::run_loop(size_t entry_depth) {
  const Executable& exec = *exec_;
  const Instruction* code = exec.instructions.data();
  const Arg* arg_pool = exec.args.data();
  const FunctionInfo* funcs = exec.functions.data();
  std::vector<Value> call_args;
  int64_t pc = funcs[frames_.back().func_index].start;
  Value* regs = registers_.data() + frames_.back().reg_base;

  auto read_arg = [&](const Arg& a, const Value* frame_regs) -> Value {
    switch (a.kind) {
      case ArgKind::kRegister:
        return a.value >= 0 ? frame_regs[a.value] : vm_state_;
      case ArgKind::kImmediate:
        return a.value;
      case ArgKind::kConstIndex:
        return exec.constants[size_t(a.value)];
      case ArgKind::kFuncIndex:
        return function_values_[size_t(a.value)];
    }
    return Value();
  };

  try {
    for (;;) {
      RX_CHECK(steps_left_-- != 0)
          << "instruction limit of " << options_.max_instructions << " exceeded";
      const Instruction& in = code[pc];
      switch (in.op) {
        case Opcode::kCall: {
          const Arg* a = arg_pool + in.args_begin;
          const FunctionInfo& callee = funcs[in.value];
          if (callee.kind == FunctionKind::kBytecode) {
            size_t caller_base = frames_.back().reg_base;
            push_frame(in.value, pc + 1, in.reg);  // may move registers_
            const Value* caller_regs = registers_.data() + caller_base;
            regs = registers_.data() + frames_.back().reg_base;
            for (uint32_t i = 0; i < in.num_args; ++i) regs[i] = read_arg(a[i], caller_regs);
            pc = callee.start;
            break;
          }
          call_args.clear();
          for (uint32_t i = 0; i < in.num_args; ++i) call_args.push_back(read_arg(a[i], regs));
          Value result;
          if (options_.trace) {
            double start = trace::now_us();
            result = packed_[size_t(in.value)](Args(call_args));
            sync_kernel_device(size_t(in.value));
            const std::string& name = exec_->functions[size_t(in.value)].name;
            const std::string& device = kernel_device_[size_t(in.value)];
            options_.trace->complete(
                name, name.rfind("vm.builtin.", 0) == 0 ? "builtin" : "kernel", start,
                device.empty() ? std::vector<std::pair<std::string, std::string>>{}
                               : std::vector<std::pair<std::string, std::string>>{
                                     {"device", device}});
          } else if (!options_.profile) {
            result = packed_[size_t(in.value)](Args(call_args));
          } else {
            auto start = std::chrono::steady_clock::now();
            result = packed_[size_t(in.value)](Args(call_args));
            sync_kernel_device(size_t(in.value));
            CallProfile& p = profile_[size_t(in.value)];
            ++p.calls;
            p.seconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          }
          regs =
              registers_.data() + frames_.back().reg_base;  // a re-entrant call may move registers_
          if (in.reg >= 0) regs[in.reg] = std::move(result);
          ++pc;
          break;
        }
        case Opcode::kRet: {
          Value result = std::move(regs[in.reg]);
          Frame done = frames_.back();
          pop_frame();
          if (frames_.size() == entry_depth) return result;
          regs = registers_.data() + frames_.back().reg_base;
          if (done.caller_dst >= 0) regs[done.caller_dst] = std::move(result);
          pc = done.return_pc;
          break;
        }
        case Opcode::kGoto:
          pc += in.value;
          break;
        case Opcode::kIf: {
          const Value& cond = regs[in.reg];
          RX_CHECK(cond.is(ValueKind::kInt) || cond.is(ValueKind::kBool))
              << "if: the condition must be an int or a bool, got " << cond.describe();
          pc += cond.as_int() != 0 ? 1 : in.value;
          break;
        }
      }
    }
  } catch (const Error& e) {
    RX_THROW() << where(pc, entry_depth) << ": " << e.message();
  } catch (const InternalError&) {
    throw;
  } catch (const std::bad_alloc&) {
    RX_THROW() << where(pc, entry_depth) << ": out of memory";
  } catch (const std::exception& e) {
    RX_THROW() << where(pc, entry_depth) << ": " << e.what();
  }
}

}  // namespace relax::runtime
