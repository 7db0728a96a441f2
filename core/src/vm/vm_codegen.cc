// vm-codegen: VM-level Relax (after the minimum pipeline, relax/vm/vm_ops.h) to bytecode.
//
// Each Relax function becomes a bytecode function of the same name; its parameters are
// registers 0..n-1 and every binding gets a fresh register, except an alias `y = x` (or a
// MatchCast, whose checks vm-shape-lower emitted before it), which shares x's register
// (kill-after-last-use kills alias groups together). Leaves become call arguments directly: int
// PrimValues immediates; tensors, floats, strings, dtypes and constant shapes constant-pool
// entries; GlobalVars and ExternFuncs function-table indices.
//   R.vm.call_dps(f, (a...), tv?)  -> Call f(a..., tv?)         (f a PrimFunc or packed name)
//   R.vm.call_builtin(f, (a...))   -> Call f(a...)
//   R.vm.alloc_storage(size, dev)  -> Call vm.builtin.alloc_storage(%vm, size, dev)
//   R.vm.alloc_tensor(s, o, sh, t) -> Call vm.builtin.alloc_tensor(s, o, sh, t)
//   R.vm.kill_object(x)            -> Call vm.builtin.null_value() into x's register
//   R.to_vdevice(x, "kind:i")      -> Call vm.builtin.to_vdevice(%vm, x, dev), or for a
//                                     constant vm.builtin.constant_to_vdevice(%vm, k, dev)
//   R.call_packed / call_pure_packed(f, a...) -> Call f(a...)
//   calls of module functions (recursion included) -> Call name(args...)
//   a call of a closure value      -> Call vm.builtin.invoke_closure(c, args...)
//   R.make_closure(gv, (c...))     -> Call vm.builtin.make_closure(gv, c...)  (gv a function index)
//   R.invoke_[pure_]closure(f, (a...)) -> Call vm.builtin.invoke_closure(f, a...)
//   tuples / tuple fields          -> vm.builtin.make_tuple / tuple_getitem
//   If                             -> read_if_cond, If, both branches writing one register
// A value that must land in a given register is moved there with make_tuple + tuple_getitem
// (registers hold references; no tensor is copied); a constant with vm.builtin.copy.
#include <map>
#include <unordered_map>

#include "relax/ir/op.h"
#include "relax/runtime/exec_builder.h"
#include "relax/support/diagnostic.h"
#include "relax/vm/codegen.h"
#include "relax/vm/vm_ops.h"
#include "relax/ir/prim_func.h"

namespace relax::vm {

namespace {

using runtime::Arg;
using runtime::ExecBuilder;
using runtime::RegName;

class FunctionCodegen {
 public:
  FunctionCodegen(ExecBuilder& b, std::string name, const std::vector<VDevice>& devices)
      : b_(b), name_(std::move(name)), devices_(devices) {}

  void run(const Function& func) {
    std::vector<std::string> names, types;
    for (const Ref<Var>& p : func.params) {
      reg_of_[p.get()] = RegName(names.size());
      names.push_back(p->name);
      types.push_back(to_string(p->struct_info));
    }
    next_reg_ = RegName(names.size());
    b_.begin_function(name_, std::move(names));
    b_.set_param_types(std::move(types));
    Arg result = gen_body(func.body);
    b_.emit_ret(to_register(result));
    b_.end_function();
  }

 private:
  [[noreturn]] void unsupported(const std::string& what) {
    RX_THROW() << "vm-codegen: function " << name_ << ": " << what;
    __builtin_unreachable();
  }

  RegName new_reg() { return next_reg_++; }

  RegName to_register(const Arg& a) {
    if (a.kind == runtime::ArgKind::kRegister) return a.value;
    RegName r = new_reg();
    move(a, r);
    return r;
  }

  /// Puts the value of `src` into register `dst`.
  void move(const Arg& src, RegName dst) {
    if (src.kind == runtime::ArgKind::kRegister) {
      if (src.value == dst) return;
      b_.emit_call("vm.builtin.make_tuple", {src}, dst);
      b_.emit_call("vm.builtin.tuple_getitem", {Arg::reg(dst), Arg::imm(0)}, dst);
    } else {
      b_.emit_call("vm.builtin.copy", {src}, dst);
    }
  }

  Arg gen_body(const Expr& e) {
    if (auto* s = e.as<SeqExpr>()) {
      for (const Block& block : s->blocks)
        for (const Binding& binding : block->bindings) gen_binding(binding);
      return arg(s->body);
    }
    return arg(e);
  }

  void gen_binding(const Binding& binding) {
    // A MatchCast was checked by vm-shape-lower; here it is an alias like a VarBinding.
    const Expr& value = binding->value;
    auto pre = preassigned_.find(binding->var.get());
    if (auto* src = value.as<VarNode>()) {
      if (pre != preassigned_.end()) {
        move(arg(value), pre->second);
        reg_of_[binding->var.get()] = pre->second;
      } else {
        reg_of_[binding->var.get()] = reg(src);
      }
      return;
    }
    RegName dst = pre != preassigned_.end() ? pre->second : new_reg();
    gen_value(value, dst);
    reg_of_[binding->var.get()] = dst;
  }

  RegName reg(const VarNode* v) {
    auto it = reg_of_.find(v);
    if (it == reg_of_.end()) unsupported("variable " + v->name + " is used outside its scope");
    return it->second;
  }

  void gen_value(const Expr& e, RegName dst) {
    if (auto* call = e.as<Call>()) return gen_call(*call, dst);
    if (auto* t = e.as<Tuple>()) {
      std::vector<Arg> fields;
      for (const Expr& f : t->fields) fields.push_back(arg(f));
      return b_.emit_call("vm.builtin.make_tuple", std::move(fields), dst);
    }
    if (auto* g = e.as<TupleGetItem>()) {
      return b_.emit_call("vm.builtin.tuple_getitem", {arg(g->tuple), Arg::imm(g->index)}, dst);
    }
    if (auto* i = e.as<If>()) return gen_if(*i, dst);
    if (e.is<SeqExpr>()) return move(gen_body(e), dst);
    if (e.is<Function>()) unsupported("a local function is left (run lambda-lift)");
    move(arg(e), dst);
  }

  void gen_if(const If& i, RegName dst) {
    RegName cond = new_reg();
    b_.emit_call("vm.builtin.read_if_cond", {arg(i.cond)}, cond);
    runtime::Label else_label = b_.new_label();
    runtime::Label end_label = b_.new_label();
    b_.emit_if(cond, else_label);
    gen_branch(i.then_branch, dst);
    b_.emit_goto(end_label);
    b_.bind(else_label);
    gen_branch(i.else_branch, dst);
    b_.bind(end_label);
  }

  void gen_branch(const Expr& e, RegName dst) {
    // The branch's result variable is computed straight into dst when the branch defines it.
    if (auto* s = e.as<SeqExpr>()) {
      if (auto* v = s->body.as<VarNode>()) {
        for (const Block& block : s->blocks)
          for (const Binding& b : block->bindings)
            if (b->var.get() == v) preassigned_[v] = dst;
      }
    }
    if (auto* s = e.as<SeqExpr>(); s && is_computed(s->body)) {
      for (const Block& block : s->blocks)
        for (const Binding& binding : block->bindings) gen_binding(binding);
      return gen_value(s->body, dst);
    }
    move(gen_body(e), dst);
  }

  static bool is_computed(const Expr& e) {
    return e.is<Call>() || e.is<TupleGetItem>() || e.is<If>() || e.is<SeqExpr>() || e.is<Tuple>();
  }

  void gen_call(const Call& call, RegName dst) {
    if (auto* op = call.op.as<Op>()) return gen_op_call(op->name, call, dst);
    std::vector<Arg> args;
    if (auto* gv = call.op.as<GlobalVar>()) {
      for (const Expr& a : call.args) args.push_back(arg(a));
      return b_.emit_call(gv->name, std::move(args), dst);
    }
    if (auto* ext = call.op.as<ExternFunc>()) {
      for (const Expr& a : call.args) args.push_back(arg(a));
      return b_.emit_call(ext->global_symbol, std::move(args), dst);
    }
    args.push_back(arg(call.op));
    for (const Expr& a : call.args) args.push_back(arg(a));
    b_.emit_call("vm.builtin.invoke_closure", std::move(args), dst);
  }

  std::vector<Arg> tuple_args(const Expr& tuple) {
    std::vector<Arg> out;
    if (auto* t = tuple.as<Tuple>()) {
      for (const Expr& f : t->fields) out.push_back(arg(f));
      return out;
    }
    unsupported("the arguments of a VM call must be a tuple literal, got " + describe(tuple));
  }

  static const std::string& callee_name(const Expr& e) {
    if (auto* gv = e.as<GlobalVar>()) return gv->name;
    return e.as<ExternFunc>()->global_symbol;
  }

  void gen_op_call(const std::string& op, const Call& call, RegName dst) {
    if (op == "relax.vm.call_dps") {
      std::vector<Arg> args = tuple_args(call.args.at(1));
      if (call.args.size() == 3) args.push_back(arg(call.args[2]));
      return b_.emit_call(callee_name(call.args[0]), std::move(args), dst);
    }
    if (op == "relax.vm.call_builtin") {
      return b_.emit_call(callee_name(call.args.at(0)), tuple_args(call.args.at(1)), dst);
    }
    if (op == "relax.vm.alloc_storage") {
      return b_.emit_call("vm.builtin.alloc_storage",
                          {Arg::vm_state(), arg(call.args.at(0)), arg(call.args.at(1))}, dst);
    }
    if (op == "relax.vm.alloc_tensor") {
      return b_.emit_call(
          "vm.builtin.alloc_tensor",
          {arg(call.args.at(0)), arg(call.args.at(1)), arg(call.args.at(2)), arg(call.args.at(3))},
          dst);
    }
    if (op == "relax.to_vdevice") {
      const AttrValue* attr = call.attrs.defined() ? call.attrs->find("dst_vdevice") : nullptr;
      const std::string* ref = attr ? std::get_if<std::string>(attr) : nullptr;
      RX_ICHECK(ref != nullptr) << "R.to_vdevice without dst_vdevice";
      auto index = int64_t(resolve_vdevice(devices_, *ref, "R.to_vdevice in function " + name_));
      if (call.args.at(0).is<Constant>()) {
        Arg c = arg(call.args[0]);
        return b_.emit_call("vm.builtin.constant_to_vdevice",
                            {Arg::vm_state(), Arg::imm(c.value), Arg::imm(index)}, dst);
      }
      return b_.emit_call("vm.builtin.to_vdevice",
                          {Arg::vm_state(), arg(call.args[0]), Arg::imm(index)}, dst);
    }
    if (op == "relax.vm.kill_object") {
      auto* v = call.args.at(0).as<VarNode>();
      if (v == nullptr) unsupported("R.vm.kill_object of " + describe(call.args[0]));
      return b_.emit_call("vm.builtin.null_value", {}, reg(v));
    }
    if (op == "relax.make_closure") {
      std::vector<Arg> args{arg(call.args.at(0))};
      for (Arg& a : tuple_args(call.args.at(1))) args.push_back(a);
      return b_.emit_call("vm.builtin.make_closure", std::move(args), dst);
    }
    if (op == "relax.invoke_closure" || op == "relax.invoke_pure_closure") {
      std::vector<Arg> args{arg(call.args.at(0))};
      for (Arg& a : tuple_args(call.args.at(1))) args.push_back(a);
      return b_.emit_call("vm.builtin.invoke_closure", std::move(args), dst);
    }
    if (op == "relax.call_packed" || op == "relax.call_pure_packed") {
      std::vector<Arg> args;
      for (size_t i = 1; i < call.args.size(); ++i) args.push_back(arg(call.args[i]));
      return b_.emit_call(callee_name(call.args.at(0)), std::move(args), dst);
    }
    if (op == "relax.builtin.alloc_tensor")
      unsupported("R.builtin.alloc_tensor left (run vm-shape-lower)");
    if (op == "relax.call_tir" || op == "relax.call_dps_packed")
      unsupported(op + " left (run call-tir-rewrite)");
    unsupported("op " + op +
                " has no legalisation and no VM lowering (run legalize-ops, or register one)");
  }

  Arg arg(const Expr& e) {
    if (auto* v = e.as<VarNode>()) return Arg::reg(reg(v));
    if (auto* c = e.as<Constant>()) return b_.add_constant(c->data);
    if (auto* p = e.as<PrimValue>()) {
      if (auto* i = p->value.as<tir::IntImm>()) {
        if (i->value >= runtime::kMinImmediate && i->value <= runtime::kMaxImmediate)
          return Arg::imm(i->value);
        return b_.add_constant(i->value);
      }
      if (auto* f = p->value.as<tir::FloatImm>()) return b_.add_constant(f->value);
      unsupported("R.prim_value(" + describe(e) + ") with a symbolic value");
    }
    if (auto* s = e.as<StringImm>()) return b_.add_constant(s->value);
    if (auto* d = e.as<DataTypeImm>()) return b_.add_constant(d->value.to_string());
    if (auto* s = e.as<ShapeExpr>()) {
      std::vector<int64_t> dims;
      for (const PrimExpr& v : s->values) {
        auto* i = v.as<tir::IntImm>();
        if (i == nullptr) unsupported("a symbolic shape is left (run vm-shape-lower)");
        dims.push_back(i->value);
      }
      return b_.add_constant(runtime::Shape(std::move(dims)));
    }
    if (auto* g = e.as<GlobalVar>()) return b_.function_arg(g->name);
    if (auto* x = e.as<ExternFunc>()) return b_.function_arg(x->global_symbol);
    // Non-leaves (a branch or function body left unbound): computed into a new register.
    if (e.is<Tuple>() || e.is<Call>() || e.is<TupleGetItem>() || e.is<If>() || e.is<SeqExpr>()) {
      RegName r = new_reg();
      gen_value(e, r);
      return Arg::reg(r);
    }
    unsupported("cannot pass " + describe(e) + " as an argument");
  }

  ExecBuilder& b_;
  std::string name_;
  const std::vector<VDevice>& devices_;
  std::unordered_map<const VarNode*, RegName> reg_of_;
  std::unordered_map<const VarNode*, RegName> preassigned_;
  RegName next_reg_ = 0;
};

}  // namespace

runtime::ExecDevice default_device_of(const VDevice& vdevice) {
  static const std::map<std::string, int32_t> kTypes = {
      {"llvm", kDLCPU},     {"c", kDLCPU},          {"tir-interp", kDLCPU}, {"cuda", kDLCUDA},
      {"rocm", kDLROCM},    {"opencl", kDLOpenCL},  {"vulkan", kDLVulkan},  {"metal", kDLMetal},
      {"webgpu", 15}};
  std::string kind = vdevice.kind();
  auto it = kTypes.find(kind);
  RX_CHECK(it != kTypes.end()) << "vm-codegen: no device type is known for the vdevice target \""
                               << vdevice.target << "\" (kind " << kind << ")";
  int32_t type = it->second;
  // The interpreter's GPU target runs on its own device (relax/target/devices.h).
  if (kind == "tir-interp") {
    std::string attrs = "," + vdevice.target.substr(kind.size()) + ",";
    if (attrs.find(",gpu=1,") != std::string::npos || attrs.find(",gpu,") != std::string::npos)
      type = kDLExtDev;
  }
  return {type, int32_t(vdevice.device_id), vdevice.target};
}

std::map<size_t, IRModule> kernels_by_device(const IRModule& mod) {
  std::map<size_t, IRModule> out;
  for (const auto& entry : mod.functions()) {
    if (!entry.func.is<tir::PrimFunc>()) continue;
    size_t device = 0;
    const Attrs& attrs = entry.func->attrs;
    const AttrValue* v = attrs.defined() ? attrs->find("relax.vdevice") : nullptr;
    if (auto* ref = v ? std::get_if<std::string>(v) : nullptr)
      device = resolve_vdevice(mod.vdevices(), *ref, "the relax.vdevice of @" + entry.gv->name);
    out[device].add(entry.gv, entry.func);
  }
  return out;
}

Ref<runtime::Executable> vm_codegen(const IRModule& mod, std::vector<runtime::Library> libraries,
                                    const DeviceResolver& resolve) {
  ExecBuilder builder;
  for (const auto& entry : mod.functions()) {
    auto* func = entry.func.as<Function>();
    if (func == nullptr) continue;
    FunctionCodegen(builder, entry.gv->name, mod.vdevices()).run(*func);
  }
  std::vector<int32_t> library_devices;
  for (runtime::Library& lib : libraries) {
    library_devices.push_back(lib.device_index);
    builder.add_library(std::move(lib.format), std::move(lib.bytes));
  }
  Ref<runtime::Executable> exec = builder.get();
  auto& e = const_cast<runtime::Executable&>(*exec);
  for (const VDevice& d : mod.vdevices()) e.devices.push_back(resolve(d));
  for (size_t i = 0; i < library_devices.size(); ++i)
    e.libraries[i].device_index = library_devices[i];
  e.validate();
  return exec;
}

}  // namespace relax::vm
