// call-tir-rewrite (RFC §4.3 C0): destination-passing calls become explicit allocation plus
// a call that takes the outputs as extra arguments.
//
//   y = R.call_tir(f, (x,), out_sinfo=R.Tensor((n, 4), "float32"), tir_vars=R.shape([m]))
// becomes
//   alloc = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
//   _ = R.vm.call_dps(f, (x, alloc), R.shape([m]))
//   y = alloc
// and likewise for R.call_dps_packed (the callee an ExternFunc). Several outputs
// (a tuple out_sinfo) allocate one tensor each and bind y to the tuple of them. The ops are
// those of relax/vm/vm_ops.h.
//
// R.call_tir_inplace(f, args, inplace_indices=[k0, k1, ...], out_sinfo=...) writes output i
// into argument k_i: only the outputs whose index is -1 are allocated and passed after the
// arguments, and output i is argument k_i itself (the caller must not read that argument
// afterwards expecting its old value, as in TVM).
//
// TVM's explicit memory ops (a statically planned program) map onto the VM's:
//   R.memory.alloc_storage(size, virtual_device_index, scope, dtype)  ->  R.vm.alloc_storage(size, dev)
//   R.memory.alloc_tensor(storage, offset, shape, dtype)              ->  R.vm.alloc_tensor(...)
//   R.memory.kill_storage(x) / R.memory.kill_tensor(x)                ->  R.vm.kill_object(x)
// with a constant device index and offset (an error naming the op otherwise).
//
// Each output is allocated on the VM device of its vdevice (its index in the module's vdevice
// list, relax/ir/vdevice.h; device 0 when it has none).
//
// Expects: normalized IR, after legalize-ops. Guarantees: no call_tir, call_tir_inplace or
// call_dps_packed is left; the allocations carry the output shapes symbolically (vm-shape-lower turns symbolic
// ones into run-time computations on the shape heap).
#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/tir/attrs.h"
#include "relax/vm/vm_ops.h"
#include "relax/vm/passes.h"

namespace relax::vm {

using namespace relax::transform;

namespace {

class CallTirRewriter : public ExprMutator {
 public:
  explicit CallTirRewriter(const std::vector<VDevice>& devices)
      : ExprMutator(module_with(devices)), devices_(devices) {}
  using ExprMutator::visit_;

  Expr visit_(const Call* op) override {
    Expr visited = ExprMutator::visit_(op);
    auto* call = visited.as<Call>();
    auto* callee = call->op.as<Op>();
    if (callee != nullptr && callee->name.starts_with("relax.memory.")) return lower_memory(*call);
    if (callee == nullptr ||
        (callee->name != "relax.call_tir" && callee->name != "relax.call_dps_packed" &&
         callee->name != "relax.call_tir_inplace")) {
      return visited;
    }
    RX_ICHECK(call->sinfo_args.size() == 1) << callee->name << " without out_sinfo";
    std::vector<Expr> args = unpack_args(call->args.at(1));
    const StructInfo& out = call->sinfo_args[0];
    std::vector<StructInfo> out_fields;
    if (auto* tuple = out.as<TupleStructInfo>())
      out_fields = tuple->fields;
    else
      out_fields.push_back(out);
    // In place: output i is argument inplace[i] (>= 0), else a fresh allocation.
    std::vector<int64_t> inplace(out_fields.size(), -1);
    if (callee->name == "relax.call_tir_inplace") {
      inplace = get_ints(call->attrs, "inplace_indices", {});
      RX_ICHECK(inplace.size() == out_fields.size()) << "call_tir_inplace: inplace_indices";
    }
    std::vector<Expr> outputs, fresh;
    for (size_t i = 0; i < out_fields.size(); ++i) {
      if (inplace[i] >= 0) {
        RX_ICHECK(size_t(inplace[i]) < args.size()) << "call_tir_inplace: index " << inplace[i];
        outputs.push_back(args[size_t(inplace[i])]);
      } else {
        outputs.push_back(allocate(out_fields[i], callee->name));
        fresh.push_back(outputs.back());
      }
    }
    std::vector<Expr> dps_args = args;
    dps_args.insert(dps_args.end(), fresh.begin(), fresh.end());
    std::optional<Expr> tir_vars;
    if (call->args.size() == 3) tir_vars = call->args[2];
    builder_.emit(vm::call_dps(call->op.is<Op>() ? call->args[0] : call->op,
                                   std::move(dps_args), tir_vars),
                  "_");
    if (out.is<TupleStructInfo>()) return builder_.normalize(make_tuple(std::move(outputs)));
    return outputs[0];
  }

 private:
  static IRModule module_with(const std::vector<VDevice>& devices) {
    IRModule m;
    m.set_vdevices(devices);
    return m;
  }

  /// R.memory.* as the VM's allocation ops (see the file comment).
  Expr lower_memory(const Call& call) {
    const std::string& name = call.op.as<Op>()->name;
    auto constant = [&](size_t i, const char* what) {
      auto* p = call.args.size() > i ? call.args[i].as<PrimValue>() : nullptr;
      const int64_t* v = p ? tir::as_const_int(p->value) : nullptr;
      RX_CHECK(v != nullptr) << name << ": the " << what << " must be a constant integer, got "
                             << (p ? tir::to_string(p->value)
                                   : call.args.size() > i ? describe(call.args[i]) : "nothing");
      return *v;
    };
    if (name == "relax.memory.alloc_storage") {
      RX_ICHECK(call.args.size() == 4) << name << " arguments";
      return vm::vm_alloc_storage(call.args[0], constant(1, "virtual device index"));
    }
    if (name == "relax.memory.alloc_tensor") {
      auto* dtype = call.args.at(3).as<DataTypeImm>();
      RX_ICHECK(dtype != nullptr) << name << " dtype";
      return vm::vm_alloc_tensor(call.args[0], constant(1, "offset"), call.args[2], dtype->value);
    }
    if (name == "relax.memory.kill_storage" || name == "relax.memory.kill_tensor")
      return vm::kill_object(call.args.at(0));
    RX_THROW() << name << ": the VM build does not lower this memory op";
  }

  /// The fields of the argument tuple: a Tuple literal's fields, or TupleGetItems of a var.
  std::vector<Expr> unpack_args(const Expr& args) {
    if (auto* t = args.as<Tuple>()) return t->fields;
    auto* sinfo = get_struct_info(args).as<TupleStructInfo>();
    RX_ICHECK(sinfo != nullptr) << "call_tir arguments are not a tuple: " << describe(args);
    std::vector<Expr> fields;
    for (size_t i = 0; i < sinfo->fields.size(); ++i) {
      fields.push_back(builder_.emit(make_ref<TupleGetItem>(args, int(i)), "arg"));
    }
    return fields;
  }

  Expr allocate(const StructInfo& sinfo, const std::string& op_name) {
    auto* t = sinfo.as<TensorStructInfo>();
    RX_ICHECK(t != nullptr && t->shape.has_value() && !t->dtype.is_void())
        << op_name << ": output " << to_string(sinfo) << " has no shape or dtype";
    int64_t device = 0;
    if (!t->vdevice.empty())
      device = int64_t(
          resolve_vdevice(devices_, t->vdevice, op_name + " output " + to_string(sinfo)));
    return builder_.emit(vm::alloc_tensor(make_shape(*t->shape), t->dtype, device), "alloc");
  }

  const std::vector<VDevice>& devices_;
};

Ref<Function> call_tir_rewrite(const Ref<Function>& func, const PassArgs& args) {
  vm::register_vm_ops();
  CallTirRewriter rewriter(args.module.vdevices());
  return rewriter.visit_expr(func).as_ref<Function>();
}

}  // namespace

void register_call_tir_rewrite(PassRegistry& registry) {
  vm::register_vm_ops();
  registry.add({"call-tir-rewrite",
                "Lower call_tir/call_dps_packed to explicit output allocation and a DPS call",
                Granularity::kFunction,
                {}},
               FunctionTransform(call_tir_rewrite));
}

}  // namespace relax::vm
