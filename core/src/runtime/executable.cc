// Executable: structural validation, the text form, and its kernel-library modules.
// Serialisation lives in exec_serialize.cc.
#include "relax/runtime/executable.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <unordered_set>

#include "relax/support/diagnostic.h"

namespace relax::runtime {

int64_t Executable::find_function(std::string_view name) const {
  for (size_t i = 0; i < functions.size(); ++i) {
    if (functions[i].name == name) return int64_t(i);
  }
  return -1;
}

namespace {

/// Checks one bytecode function; `at` prefixes every message with the function and pc.
class FunctionValidator {
 public:
  FunctionValidator(const Executable& exec, const FunctionInfo& f) : exec_(exec), f_(f) {}

  void run() {
    RX_CHECK(f_.start >= 0 && f_.start < f_.end && f_.end <= int64_t(exec_.instructions.size()))
        << "function '" << f_.name << "': instruction range [" << f_.start << ", " << f_.end
        << ") is empty or outside the " << exec_.instructions.size() << " instructions";
    RX_CHECK(f_.register_file_size >= 0 && f_.register_file_size <= kMaxRegisterFileSize)
        << "function '" << f_.name << "': register file size " << f_.register_file_size
        << " is outside [0, " << kMaxRegisterFileSize << "]";
    RX_CHECK(f_.num_params >= 0 && f_.num_params <= f_.register_file_size)
        << "function '" << f_.name << "': " << f_.num_params << " parameters do not fit in "
        << f_.register_file_size << " registers";
    RX_CHECK(int64_t(f_.param_names.size()) == f_.num_params)
        << "function '" << f_.name << "': " << f_.param_names.size() << " parameter names for "
        << f_.num_params << " parameters";
    RX_CHECK(f_.param_types.empty() || int64_t(f_.param_types.size()) == f_.num_params)
        << "function '" << f_.name << "' has " << f_.param_types.size() << " parameter types for "
        << f_.num_params << " parameters";
    Opcode last = exec_.instructions[size_t(f_.end - 1)].op;
    RX_CHECK(last == Opcode::kRet || last == Opcode::kGoto)
        << "function '" << f_.name << "' does not end with ret or goto";
    for (int64_t pc = f_.start; pc < f_.end; ++pc) check_instruction(pc);
  }

 private:
  std::string at(int64_t pc) const {
    return "function '" + f_.name + "', instruction " + std::to_string(pc - f_.start);
  }
  void check_register(int64_t pc, RegName r, bool allow_special, const char* role) const {
    bool ok = (r >= 0 && r < f_.register_file_size) ||
              (allow_special && (r == kVoidRegister || r == kVMStateRegister));
    RX_CHECK(ok) << at(pc) << ": " << role << " register " << r << " is outside the "
                 << f_.register_file_size << " registers";
  }
  void check_jump(int64_t pc, int64_t offset) const {
    int64_t target = 0;
    bool overflow = __builtin_add_overflow(pc, offset, &target);
    RX_CHECK(!overflow && offset != 0 && target >= f_.start && target < f_.end)
        << at(pc) << ": jump by " << offset << " leaves the function (it has "
        << (f_.end - f_.start) << " instructions)";
  }
  void check_instruction(int64_t pc) const {
    const Instruction& in = exec_.instructions[size_t(pc)];
    switch (in.op) {
      case Opcode::kCall: {
        check_register(pc, in.reg, /*allow_special=*/true, "destination");
        RX_CHECK(in.reg != kVMStateRegister) << at(pc) << ": the VM register is not writable";
        RX_CHECK(in.value >= 0 && in.value < int64_t(exec_.functions.size()))
            << at(pc) << ": function index " << in.value << " is outside the "
            << exec_.functions.size() << " functions";
        RX_CHECK(uint64_t(in.args_begin) + in.num_args <= exec_.args.size())
            << at(pc) << ": arguments [" << in.args_begin << ", +" << in.num_args
            << ") are outside the " << exec_.args.size() << " arguments";
        for (uint32_t i = 0; i < in.num_args; ++i) check_arg(pc, exec_.args[in.args_begin + i]);
        const FunctionInfo& callee = exec_.functions[size_t(in.value)];
        RX_CHECK(callee.kind != FunctionKind::kBytecode ||
                 int64_t(in.num_args) == callee.num_params)
            << at(pc) << ": calls '" << callee.name << "' with " << in.num_args
            << " arguments, it takes " << callee.num_params;
        break;
      }
      case Opcode::kRet:
        check_register(pc, in.reg, false, "result");
        break;
      case Opcode::kGoto:
        check_jump(pc, in.value);
        break;
      case Opcode::kIf:
        check_register(pc, in.reg, false, "condition");
        check_jump(pc, in.value);
        break;
      default:
        RX_THROW() << at(pc) << ": unknown opcode " << int(in.op);
    }
  }
  void check_arg(int64_t pc, const Arg& a) const {
    switch (a.kind) {
      case ArgKind::kRegister:
        check_register(pc, a.value, true, "argument");
        RX_CHECK(a.value != kVoidRegister) << at(pc) << ": argument reads the void register";
        break;
      case ArgKind::kImmediate:
        RX_CHECK(a.value >= kMinImmediate && a.value <= kMaxImmediate)
            << at(pc) << ": immediate " << a.value << " does not fit in 56 bits";
        break;
      case ArgKind::kConstIndex:
        RX_CHECK(a.value >= 0 && a.value < int64_t(exec_.constants.size()))
            << at(pc) << ": constant index " << a.value << " is outside the "
            << exec_.constants.size() << " constants";
        break;
      case ArgKind::kFuncIndex:
        RX_CHECK(a.value >= 0 && a.value < int64_t(exec_.functions.size()))
            << at(pc) << ": function index " << a.value << " is outside the "
            << exec_.functions.size() << " functions";
        break;
      default:
        RX_THROW() << at(pc) << ": unknown argument kind " << int(a.kind);
    }
  }

  const Executable& exec_;
  const FunctionInfo& f_;
};

std::string reg_text(RegName r) {
  if (r == kVoidRegister) return "%void";
  if (r == kVMStateRegister) return "%vm";
  return "%" + std::to_string(r);
}

std::string arg_text(const Executable& exec, const Arg& a) {
  switch (a.kind) {
    case ArgKind::kRegister:
      return reg_text(a.value);
    case ArgKind::kImmediate:
      return "i" + std::to_string(a.value);
    case ArgKind::kConstIndex:
      return "c[" + std::to_string(a.value) + "]";
    case ArgKind::kFuncIndex:
      if (a.value >= 0 && a.value < int64_t(exec.functions.size()))
        return "f[" + exec.functions[size_t(a.value)].name + "]";
      return "f[" + std::to_string(a.value) + "]";
  }
  return "?";
}

}  // namespace

void Executable::validate() const {
  std::unordered_set<std::string_view> names;
  for (const FunctionInfo& f : functions) {
    RX_CHECK(!f.name.empty()) << "a function has an empty name";
    RX_CHECK(names.insert(f.name).second) << "function '" << f.name << "' is defined twice";
    if (f.kind == FunctionKind::kBytecode) {
      FunctionValidator(*this, f).run();
    } else {
      RX_CHECK(f.kind == FunctionKind::kPacked)
          << "function '" << f.name << "': unknown kind " << int(f.kind);
      RX_CHECK(f.num_params == 0 && f.register_file_size == 0 && f.start == 0 && f.end == 0 &&
               f.param_names.empty())
          << "packed function '" << f.name << "' carries bytecode fields";
    }
  }
  for (size_t i = 0; i < constants.size(); ++i) {
    const Value& c = constants[i];
    switch (c.kind()) {
      case ValueKind::kInt:
      case ValueKind::kFloat:
      case ValueKind::kString:
      case ValueKind::kShape:
        break;
      case ValueKind::kTensor:
        RX_CHECK(c.as_tensor().device().device_type == kDLCPU && c.as_tensor().is_contiguous())
            << "constant " << i << ": tensor constants must be compact CPU tensors";
        break;
      default:
        RX_THROW() << "constant " << i << ": a " << value_kind_name(c.kind())
                   << " cannot be a constant";
    }
  }
  for (size_t i = 0; i < libraries.size(); ++i) {
    RX_CHECK(!libraries[i].format.empty()) << "library " << i << " has an empty format tag";
    int32_t d = libraries[i].device_index;
    RX_CHECK(d >= 0 && (d == 0 || size_t(d) < devices.size()))
        << "library " << i << " (" << libraries[i].format << ") runs on device " << d
        << ", the executable has " << std::max<size_t>(devices.size(), 1) << " devices";
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    RX_CHECK(devices[i].device_type > 0 && devices[i].device_id >= 0)
        << "device " << i << " (" << devices[i].target << ") has invalid device type "
        << devices[i].device_type << " or id " << devices[i].device_id;
  }
}

std::string Executable::as_text() const {
  std::ostringstream os;
  os << "; relax executable: " << functions.size() << " functions, " << constants.size()
     << " constants, " << libraries.size() << " libraries\n";
  for (size_t i = 0; i < constants.size(); ++i)
    os << "; c[" << i << "] = " << constants[i].describe() << "\n";
  for (size_t i = 0; i < devices.size(); ++i)
    os << "; device " << i << ": type " << devices[i].device_type << ", id "
       << devices[i].device_id << " (" << devices[i].target << ")\n";
  for (size_t i = 0; i < libraries.size(); ++i)
    os << "; library " << i << ": " << libraries[i].format << " (" << libraries[i].bytes.size()
       << " bytes"
       << (devices.empty() ? "" : ", device " + std::to_string(libraries[i].device_index))
       << ")\n";
  for (const FunctionInfo& f : functions) {
    if (f.kind == FunctionKind::kPacked) continue;
    os << "\n@" << f.name << "(";
    for (size_t i = 0; i < f.param_names.size(); ++i) os << (i ? ", " : "") << f.param_names[i];
    os << "):  ; " << f.register_file_size << " registers\n";
    for (int64_t pc = f.start; pc < f.end && pc < int64_t(instructions.size()); ++pc) {
      const Instruction& in = instructions[size_t(pc)];
      os << "  " << std::setw(3) << (pc - f.start) << ": ";
      switch (in.op) {
        case Opcode::kCall: {
          bool known = in.value >= 0 && in.value < int64_t(functions.size());
          os << "call  "
             << (known ? functions[size_t(in.value)].name : "?" + std::to_string(in.value))
             << " in: ";
          for (uint32_t i = 0; i < in.num_args && in.args_begin + i < args.size(); ++i)
            os << (i ? ", " : "") << arg_text(*this, args[in.args_begin + i]);
          os << " dst: " << reg_text(in.reg);
          break;
        }
        case Opcode::kRet:
          os << "ret   " << reg_text(in.reg);
          break;
        case Opcode::kGoto:
          os << "goto  " << in.value;
          break;
        case Opcode::kIf:
          os << "if    " << reg_text(in.reg) << ", " << in.value;
          break;
      }
      os << "\n";
    }
  }
  bool any_packed = false;
  for (const FunctionInfo& f : functions) {
    if (f.kind != FunctionKind::kPacked) continue;
    os << (any_packed ? "" : "\n") << "packed " << f.name << "\n";
    any_packed = true;
  }
  return os.str();
}

const std::vector<Module>& Executable::modules() const {
  std::call_once(modules_once_, [this] {
    std::vector<Module> loaded;
    for (const Library& lib : libraries) loaded.push_back(load_module(lib.format, lib.bytes));
    modules_ = std::move(loaded);
  });
  return modules_;
}

uint64_t fnv1a64(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace relax::runtime
