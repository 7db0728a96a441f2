// Constant folding at import (importer.h: fold_node). A node whose inputs are all constants
// (initializers, Constant nodes, folded results) is converted by its ordinary converter into a
// scratch function of its own; that function is legalised (legalize-ops) and evaluated binding
// by binding with the reference interpreter (tir::lower + tir::interpret), the semantics every
// backend is tested against. Its outputs then become constants (small integer ones also known
// elements, so shape arithmetic keeps folding). Exporters write whole constant chains (PyTorch's
// F.pad: ConstantOfShape -> Concat -> Reshape -> Slice -> Transpose -> Reshape -> Cast), so
// folding node by node folds the chain.
//
// Not folded (converted as usual): nodes with subgraphs, nodes without inputs (Constant, the
// random generators), random and training ops (the result must differ per run), nodes whose
// outputs hold more than kMaxFoldElements elements together, or whose inputs do (the interpreter
// is a scalar tree walk: a large fold would make import slow and the executable large; a
// weight-sized transform is better left to the compiled kernels), and anything the evaluator
// meets that is not a plain call_tir of a static shape (builtins, data-dependent shapes).
// A node that fails to fold for any reason is converted as usual, so folding never changes
// what imports, only how much of it is left to run time.
#include <unordered_map>

#include "importer.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"
#include "relax/ir/op.h"
#include "relax/support/diagnostic.h"
#include "relax/transform/core_passes.h"
#include "relax/transform/pass_context.h"

namespace relax::onnx_frontend {

namespace {

/// The most elements a folded node may produce (all outputs together), and read.
constexpr int64_t kMaxFoldElements = int64_t(1) << 18;  // 1 MiB of float32
constexpr int64_t kMaxFoldInputElements = int64_t(1) << 20;

/// Ops never folded: their result must differ from run to run.
bool is_random(const std::string& op) {
  static const std::set<std::string> kRandom = {
      "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
      "Multinomial",  "Bernoulli",        "Dropout"};
  return kRandom.count(op) != 0;
}

/// The constant data of a value, or null when it is not a constant.
const runtime::NDArray* constant_data(const OnnxValue& v) {
  if (auto* c = v.expr.as<Constant>()) return &c->data;
  return nullptr;
}

/// Whether `v` is known at import time as numbers: a Constant, or known elements that are all
/// integer immediates.
bool is_constant(const OnnxValue& v) {
  if (v.expr.defined()) return v.expr.is<Constant>();
  if (!v.known) return false;
  for (const PrimExpr& e : *v.known)
    if (!tir::as_const_int(e)) return false;
  return true;
}

int64_t elements_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// The static shape of tensor struct info, or nullopt.
std::optional<std::vector<int64_t>> static_shape(const StructInfo& sinfo) {
  auto* t = sinfo.as<TensorStructInfo>();
  if (!t || !t->shape || t->dtype.is_void()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const PrimExpr& d : *t->shape) {
    const int64_t* c = tir::as_const_int(d);
    if (!c || *c < 0) return std::nullopt;
    dims.push_back(*c);
  }
  return dims;
}

/// A value during evaluation: a tensor or a tuple of tensors.
struct Value {
  runtime::NDArray tensor;
  std::vector<runtime::NDArray> fields;
  bool is_tuple = false;
};

/// Evaluates the legalised scratch function `fn` of `mod` (no parameters) binding by binding;
/// nullopt when it meets anything but constants, tuples and call_tir of static shapes.
class Evaluator {
 public:
  explicit Evaluator(const IRModule& mod) : mod_(mod) {}

  std::optional<Value> run(const Function& fn) {
    auto* seq = fn.body.as<SeqExpr>();
    if (!seq) return eval(fn.body);
    for (const Block& b : seq->blocks) {
      for (const Binding& binding : b->bindings) {
        if (binding->kind() != uint32_t(BindingKind::kVarBinding)) return std::nullopt;
        std::optional<Value> v = eval(binding->value);
        if (!v) return std::nullopt;
        env_[binding->var.get()] = std::move(*v);
      }
    }
    return eval(seq->body);
  }

 private:
  std::optional<Value> eval(const Expr& e) {
    if (auto* c = e.as<Constant>()) return Value{c->data, {}, false};
    if (auto* v = e.as<VarNode>()) {
      auto it = env_.find(v);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    }
    if (auto* t = e.as<Tuple>()) {
      Value out;
      out.is_tuple = true;
      for (const Expr& f : t->fields) {
        std::optional<Value> fv = eval(f);
        if (!fv || fv->is_tuple) return std::nullopt;
        out.fields.push_back(fv->tensor);
      }
      return out;
    }
    if (auto* g = e.as<TupleGetItem>()) {
      std::optional<Value> tv = eval(g->tuple);
      if (!tv || !tv->is_tuple || g->index < 0 || size_t(g->index) >= tv->fields.size())
        return std::nullopt;
      return Value{tv->fields[size_t(g->index)], {}, false};
    }
    if (auto* call = e.as<Call>()) return call_tir(*call);
    return std::nullopt;
  }

  std::optional<Value> call_tir(const Call& call) {
    auto* callee = call.op.as<Op>();
    if (!callee || callee->name != "relax.call_tir" || call.args.size() != 2 ||
        call.sinfo_args.size() != 1)
      return std::nullopt;
    auto* gv = call.args[0].as<GlobalVar>();
    auto* args = call.args[1].as<Tuple>();
    if (!gv || !args) return std::nullopt;
    auto prim = mod_.find(gv->name).as_ref<tir::PrimFunc>();
    if (!prim.defined()) return std::nullopt;
    std::vector<tir::InterpArg> interp_args;
    for (const Expr& a : args->fields) {
      std::optional<Value> v = eval(a);
      if (!v || v->is_tuple) return std::nullopt;
      interp_args.push_back(v->tensor);
    }
    std::vector<StructInfo> outs;
    const StructInfo& sinfo = call.sinfo_args[0];
    if (auto* tuple = sinfo.as<TupleStructInfo>()) outs = tuple->fields;
    else outs.push_back(sinfo);
    Value result;
    result.is_tuple = sinfo.is<TupleStructInfo>();
    for (const StructInfo& o : outs) {
      std::optional<std::vector<int64_t>> shape = static_shape(o);
      if (!shape || elements_of(*shape) > kMaxFoldElements) return std::nullopt;
      runtime::NDArray a = runtime::NDArray::empty(*shape, o.as<TensorStructInfo>()->dtype);
      interp_args.push_back(a);
      result.fields.push_back(a);
    }
    auto it = lowered_.find(gv->name);
    if (it == lowered_.end()) it = lowered_.emplace(gv->name, tir::lower(prim)).first;
    tir::interpret(it->second, interp_args);
    if (!result.is_tuple) result.tensor = result.fields[0];
    return result;
  }

  const IRModule& mod_;
  std::unordered_map<const VarNode*, Value> env_;
  std::unordered_map<std::string, Ref<tir::PrimFunc>> lowered_;
};

/// legalize-ops over `mod` (a pass registry of the core's transform passes, made once).
IRModule legalize(const IRModule& mod) {
  static const transform::Pass pass = [] {
    static transform::PassRegistry registry;
    transform::register_transform_passes(registry);
    return registry.create("legalize-ops");
  }();
  transform::PassContext pc;
  pc.set_jobs(1);
  return pass(mod, pc);
}

}  // namespace

std::optional<std::vector<OnnxValue>> fold_node(Context& ctx, const onnx::NodeProto& node) {
  if (node.input_size() == 0 || has_subgraphs(node) || is_random(node.op_type()) ||
      node.op_type() == "Identity" || node.op_type() == "Constant")
    return std::nullopt;
  if (!converter_table().count(node.op_type())) return std::nullopt;
  int64_t input_elements = 0;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!Context::has_input(node, i)) continue;
    if (!ctx.has(node.input(i))) return std::nullopt;
    const OnnxValue& v = ctx.value(node.input(i));
    if (!is_constant(v)) return std::nullopt;
    if (const runtime::NDArray* a = constant_data(v)) input_elements += a->numel();
  }
  if (input_elements > kMaxFoldInputElements) return std::nullopt;

  // The node converted into a scratch function of its own, its inputs the constants.
  BlockBuilder bb;
  Context scratch(bb, ctx.opset(), ctx.file());
  for (int i = 0; i < node.input_size(); ++i) {
    if (Context::has_input(node, i)) scratch.define(node.input(i), ctx.value(node.input(i)));
  }
  std::vector<OnnxValue> outs;
  std::vector<Expr> results;  // the outputs that need evaluating
  try {
    bb.begin_function("fold", {}, /*pure=*/true);
    bb.begin_dataflow_block();
    outs = converter_table().at(node.op_type()).convert(scratch, node);
    for (OnnxValue& v : outs) {
      if (!v.expr.defined() || v.expr.is<Constant>()) continue;
      const TensorStructInfo* t = tensor_info(v.expr);
      std::optional<std::vector<int64_t>> shape = t ? static_shape(get_struct_info(v.expr))
                                                    : std::nullopt;
      if (!shape) return std::nullopt;
      results.push_back(bb.emit_output(v.expr));
    }
    bb.end_block();
    bb.end_function(make_tuple(results));
  } catch (const Error&) {
    return std::nullopt;  // converted as usual, where the error is reported with its context
  }
  int64_t out_elements = 0;
  for (const Expr& r : results) out_elements += elements_of(*static_shape(get_struct_info(r)));
  if (out_elements > kMaxFoldElements) return std::nullopt;
  if (!results.empty()) {
    std::optional<Value> values;
    try {
      IRModule mod = legalize(bb.get_module());
      auto fn = mod.find("fold").as_ref<Function>();
      RX_ICHECK(fn.defined()) << "the scratch function of a fold is missing";
      values = Evaluator(mod).run(*fn);
    } catch (const Error&) {
      return std::nullopt;  // e.g. an index out of range: left to run time, as ONNX Runtime does
    } catch (const InternalError&) {
      // A kernel the interpreter cannot run is a bug to fix there, but must not stop an import
      // that works without folding.
      return std::nullopt;
    }
    if (!values || !values->is_tuple || values->fields.size() != results.size())
      return std::nullopt;
    size_t k = 0;
    for (OnnxValue& v : outs) {
      if (!v.expr.defined() || v.expr.is<Constant>()) continue;
      runtime::NDArray data = values->fields[k++];
      v = Context::tensor_value(make_constant(data));
      attach_known(v, data);
    }
  }
  return outs;
}

}  // namespace relax::onnx_frontend
