// fold-constant: evaluates at compile time the call_tir calls whose tensor arguments are all
// constants, through the reference interpreter (tir/lower.h, then tir/interpreter.h).
//
//   w_t = R.call_tir(transpose, (metadata[...][0],), out_sinfo=R.Tensor((128, 64), "float32"))
// becomes the Constant it computes, substituted into every use (variables bound to constants
// are inlined). A call is folded only when its callee is a PrimFunc of the module, it has no
// tir_vars, every output has a constant shape and a known dtype, and the outputs hold at most
// `max-elements` elements together (the interpreter is slow, and constants grow the
// executable). A call the interpreter rejects is left as it is (it may sit on a path never
// taken). The PrimFuncs no longer called are left to dead-code-elimination.
//
// Expects: normalized IR, after legalize-ops. Guarantees: the same values.
#include <unordered_map>

#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/sdk/plugin.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"

namespace relax::cleanup {

namespace {

using transform::PassContext;
using transform::PassOptions;

/// Element counts and dtypes of the outputs described by `sinfo`; false when one is not a
/// tensor of constant shape and known dtype.
bool output_shapes(const StructInfo& sinfo, std::vector<std::vector<int64_t>>* shapes,
                   std::vector<DataType>* dtypes) {
  if (auto* tuple = sinfo.as<TupleStructInfo>()) {
    for (const StructInfo& f : tuple->fields)
      if (!output_shapes(f, shapes, dtypes)) return false;
    return true;
  }
  auto* t = sinfo.as<TensorStructInfo>();
  if (t == nullptr || !t->shape || t->dtype.is_void()) return false;
  std::vector<int64_t> dims;
  for (const PrimExpr& d : *t->shape) {
    auto* imm = d.as<tir::IntImm>();
    if (imm == nullptr) return false;
    dims.push_back(imm->value);
  }
  shapes->push_back(std::move(dims));
  dtypes->push_back(t->dtype);
  return true;
}

class ConstantFolder : public ExprMutator {
 public:
  ConstantFolder(const IRModule& mod, int64_t max_elements)
      : mod_(mod), max_elements_(max_elements) {}
  using ExprMutator::visit_;

  void visit_var_binding(const VarBinding* b) override {
    Expr value = visit_expr(b->value);
    if (value.is<Constant>()) {
      var_remap_[b->var.get()] = value;
      return;
    }
    emit_visited(b, value);
  }

  Expr visit_(const Call* op) override {
    Expr visited = ExprMutator::visit_(op);
    auto* call = visited.as<Call>();
    if (call == nullptr) return visited;
    auto* callee = call->op.as<Op>();
    if (callee == nullptr || callee->name != "relax.call_tir" || call->args.size() != 2 ||
        call->sinfo_args.size() != 1)
      return visited;
    auto* gv = call->args[0].as<GlobalVar>();
    auto* args = call->args[1].as<Tuple>();
    if (gv == nullptr || args == nullptr) return visited;
    auto prim = mod_.find(gv->name).as_ref<tir::PrimFunc>();
    if (!prim.defined()) return visited;
    std::vector<tir::InterpArg> interp_args;
    for (const Expr& a : args->fields) {
      auto* c = a.as<Constant>();
      if (c == nullptr) return visited;
      interp_args.push_back(c->data);
    }
    std::vector<std::vector<int64_t>> shapes;
    std::vector<DataType> dtypes;
    if (!output_shapes(call->sinfo_args[0], &shapes, &dtypes)) return visited;
    int64_t elements = 0;
    for (const auto& s : shapes) {
      int64_t n = 1;
      for (int64_t d : s) n *= d;
      elements += n;
    }
    if (elements > max_elements_) return visited;
    std::vector<runtime::NDArray> outputs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      outputs.push_back(runtime::NDArray::empty(shapes[i], dtypes[i]));
      interp_args.push_back(outputs.back());
    }
    try {
      tir::interpret(lowered(gv->name, prim), interp_args);
    } catch (const Error&) {
      return visited;
    }
    if (!call->sinfo_args[0].is<TupleStructInfo>()) return make_constant(outputs[0]);
    std::vector<Expr> fields;
    for (const runtime::NDArray& o : outputs) fields.push_back(make_constant(o));
    return make_tuple(std::move(fields));
  }

  Expr visit_(const TupleGetItem* op) override {
    Expr visited = ExprMutator::visit_(op);
    auto* tgi = visited.as<TupleGetItem>();
    if (tgi == nullptr) return visited;
    if (auto* t = tgi->tuple.as<Tuple>(); t && t->fields.at(tgi->index).is<Constant>())
      return t->fields[tgi->index];
    return visited;
  }

 private:
  const Ref<tir::PrimFunc>& lowered(const std::string& name, const Ref<tir::PrimFunc>& func) {
    auto it = lowered_.find(name);
    if (it == lowered_.end()) it = lowered_.emplace(name, tir::lower(func)).first;
    return it->second;
  }

  const IRModule& mod_;
  int64_t max_elements_;
  std::unordered_map<std::string, Ref<tir::PrimFunc>> lowered_;
};

IRModule fold_constant(const IRModule& mod, const PassOptions& options, PassContext&) {
  int64_t max_elements = options.get_int("max-elements");
  RX_CHECK(max_elements >= 0) << "fold-constant: option max-elements must be >= 0, got "
                              << max_elements;
  IRModule out = mod;
  for (const auto& e : mod.functions()) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined()) continue;
    ConstantFolder folder(mod, max_elements);
    Expr folded = folder.visit_expr(func);
    if (!folded.same_as(func)) out.update(e.gv, folded.as_ref<Function>());
  }
  return out;
}

}  // namespace

void register_fold_constant(transform::PluginRegistrar& r) {
  r.add_pass({"fold-constant",
              "Evaluate call_tir calls on constant arguments at compile time",
              transform::Granularity::kModule,
              {{"max-elements", transform::OptionType::kInt, int64_t(65536),
                "largest number of output elements folded per call"}}},
             transform::ModuleTransform(fold_constant));
}

}  // namespace relax::cleanup
