// fold-layout: folds adjacent layout rewrites into one and computes at compile time the layout
// ops applied to constants, natively.
//
// Adjacent rewrites (rewrite_util.h, fold_pair): a layout_transform or permute_dims of the
// result of another composes into one map, or into nothing when the maps cancel (NCHW ->
// NCHW4c -> NCHW, a permutation and its inverse); a crop after a pad folds; a pad after a crop
// folds only when the crop's cropped_value promises the pad's value for exactly the positions
// the pad restores. The inner rewrite stays for its other uses (dead-code-elimination drops it
// when none remain).
//
//   w_t = R.permute_dims(metadata["relax.expr.Constant"][0], axes=[1, 0])
// becomes the Constant it computes, substituted into every use (variables bound to constants
// are inlined), and so do relax.layout_transform, pad, crop, reshape, flatten, expand_dims and
// squeeze of a Constant. The work is a loop over the NDArray's bytes for any dtype and any size, unlike
// fold-constant, which interprets the legalized PrimFunc and stops at a size limit: the
// weights convert-layout permutes and the transposed matmul weights of ONNX models are large.
// A chain (expand_dims then permute_dims of a bias) folds in one run. A call whose result
// shape is not constant, or a layout_transform whose map uses other than +, -, *, //, %, min
// and max, is left as it is.
//
// Expects: normalized IR, before legalize-ops (it works on relax ops). Guarantees: the same
// values.
#include <cstring>
#include <optional>

#include "layout_util.h"
#include "relax/op/op.h"
#include "rewrite_util.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/sdk/plugin.h"

namespace relax::layout {

namespace {

using transform::PassArgs;

/// The constant shape of `e`'s tensor struct info, if it has one.
std::optional<std::vector<int64_t>> const_shape(const Expr& e) {
  auto* t = get_struct_info(e).as<TensorStructInfo>();
  if (t == nullptr || !t->shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const PrimExpr& d : *t->shape) {
    auto* imm = d.as<tir::IntImm>();
    if (imm == nullptr) return std::nullopt;
    dims.push_back(imm->value);
  }
  return dims;
}

/// Row-major strides, in elements.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

runtime::NDArray permute(const runtime::NDArray& in, const Perm& axes) {
  const std::vector<int64_t>& ishape = in.shape();
  size_t ndim = axes.size();
  std::vector<int64_t> oshape(ndim), step(ndim);
  std::vector<int64_t> istride = strides_of(ishape);
  for (size_t i = 0; i < ndim; ++i) {
    oshape[i] = ishape[size_t(axes[i])];
    step[i] = istride[size_t(axes[i])];
  }
  runtime::NDArray out = runtime::NDArray::empty(oshape, in.dtype());
  int64_t n = in.numel();
  if (n == 0) return out;
  size_t elem = in.nbytes() / size_t(n);
  const char* src = static_cast<const char*>(in.data());
  char* dst = static_cast<char*>(out.data());
  // An odometer over the output's index; `offset` is the matching input element.
  std::vector<int64_t> idx(ndim, 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(dst + size_t(k) * elem, src + size_t(offset) * elem, elem);
    for (size_t d = ndim; d-- > 0;) {
      offset += step[d];
      if (++idx[d] < oshape[d]) break;
      offset -= step[d] * oshape[d];
      idx[d] = 0;
    }
  }
  return out;
}

/// Evaluates an index expression of layout_transform's map with its variables bound.
class IndexEval {
 public:
  explicit IndexEval(const std::vector<PrimExpr>& vars) {
    for (const PrimExpr& v : vars) vars_.push_back(v.get());
  }
  /// False when `e` uses a node the evaluator does not know.
  bool supported(const PrimExpr& e) const {
    if (e.as<tir::IntImm>()) return true;
    if (e.as<tir::Var>()) return std::find(vars_.begin(), vars_.end(), e.get()) != vars_.end();
    if (auto* b = binary(e)) return supported(b->a) && supported(b->b);
    return false;
  }
  int64_t eval(const PrimExpr& e, const std::vector<int64_t>& values) const {
    if (auto* i = e.as<tir::IntImm>()) return i->value;
    if (e.as<tir::Var>())
      return values[size_t(std::find(vars_.begin(), vars_.end(), e.get()) - vars_.begin())];
    const tir::BinaryOp* b = binary(e);
    int64_t x = eval(b->a, values), y = eval(b->b, values);
    if (e.as<tir::Add>()) return x + y;
    if (e.as<tir::Sub>()) return x - y;
    if (e.as<tir::Mul>()) return x * y;
    if (e.as<tir::Min>()) return std::min(x, y);
    if (e.as<tir::Max>()) return std::max(x, y);
    RX_CHECK(y != 0) << "fold-layout: layout_transform map divides by zero";
    if (e.as<tir::Div>()) return x / y;
    if (e.as<tir::Mod>()) return x % y;
    int64_t q = x / y, r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) {
      --q;
      r += y;
    }
    return e.as<tir::FloorDiv>() ? q : r;
  }

 private:
  static const tir::BinaryOp* binary(const PrimExpr& e) {
    if (e.as<tir::Add>() || e.as<tir::Sub>() || e.as<tir::Mul>() || e.as<tir::Div>() ||
        e.as<tir::Mod>() || e.as<tir::FloorDiv>() || e.as<tir::FloorMod>() || e.as<tir::Min>() ||
        e.as<tir::Max>())
      return static_cast<const tir::BinaryOp*>(e.get());
    return nullptr;
  }
  std::vector<const Object*> vars_;
};

/// Writes `value` converted to `dtype` into `dst`; false for a dtype it cannot write.
bool write_scalar(double value, DataType dtype, char* dst) {
  if (dtype.lanes != 1) return false;
  if (dtype.is_float() && dtype.bits == 32) {
    float f = float(value);
    std::memcpy(dst, &f, 4);
    return true;
  }
  if (dtype.is_float() && dtype.bits == 64) {
    std::memcpy(dst, &value, 8);
    return true;
  }
  if ((dtype.is_int() || dtype.is_uint()) && dtype.bits % 8 == 0 && dtype.bits <= 64) {
    int64_t i = int64_t(value);
    std::memcpy(dst, &i, size_t(dtype.bits / 8));  // little-endian: the low bytes
    return true;
  }
  return false;
}

/// out[map(i)] = in[i], the other positions filled with pad_value; nullopt when not foldable.
std::optional<runtime::NDArray> layout_transform(const runtime::NDArray& in, const Call& call,
                                                 const std::vector<int64_t>& oshape) {
  std::vector<PrimExpr> vars = get_prim_exprs(call.attrs, "index_vars");
  std::vector<PrimExpr> map = get_prim_exprs(call.attrs, "index_map");
  if (vars.size() != in.shape().size() || map.size() != oshape.size()) return std::nullopt;
  IndexEval ev(vars);
  for (const PrimExpr& m : map)
    if (!ev.supported(m)) return std::nullopt;
  runtime::NDArray out = runtime::NDArray::empty(oshape, in.dtype());
  int64_t n = in.numel(), total = numel_of(oshape);
  if (n == 0 || total == 0) return out;
  size_t elem = in.nbytes() / size_t(n);
  char* dst = static_cast<char*>(out.data());
  std::memset(dst, 0, out.nbytes());
  double pad = get_float(call.attrs, "pad_value", 0.0);
  if (pad != 0.0 && total > n) {
    std::vector<char> bytes(elem);
    if (!write_scalar(pad, in.dtype(), bytes.data())) return std::nullopt;
    for (int64_t k = 0; k < total; ++k) std::memcpy(dst + size_t(k) * elem, bytes.data(), elem);
  }
  const char* src = static_cast<const char*>(in.data());
  std::vector<int64_t> ostride = strides_of(oshape);
  std::vector<int64_t> idx(vars.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = 0;
    for (size_t r = 0; r < map.size(); ++r) {
      int64_t v = ev.eval(map[r], idx);
      if (v < 0 || v >= oshape[r]) return std::nullopt;
      o += v * ostride[r];
    }
    std::memcpy(dst + size_t(o) * elem, src + size_t(k) * elem, elem);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < in.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/// relax.pad / relax.crop of a constant: every output position copies the input element at
/// (position - offset) when it lies inside, else holds `fill`.
std::optional<runtime::NDArray> shift_copy(const runtime::NDArray& in,
                                           const std::vector<int64_t>& oshape,
                                           const std::vector<int64_t>& offset, double fill) {
  runtime::NDArray out = runtime::NDArray::empty(oshape, in.dtype());
  int64_t total = numel_of(oshape);
  if (total == 0) return out;
  size_t elem = size_t(in.dtype().bytes());
  char* dst = static_cast<char*>(out.data());
  std::vector<char> bytes(elem, 0);
  if (fill != 0.0 && !write_scalar(fill, in.dtype(), bytes.data())) return std::nullopt;
  const char* src = static_cast<const char*>(in.data());
  std::vector<int64_t> istride = strides_of(in.shape()), idx(oshape.size(), 0);
  for (int64_t k = 0; k < total; ++k) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      int64_t j = idx[d] - offset[d];
      inside &= j >= 0 && j < in.shape()[d];
      off += j * istride[d];
    }
    std::memcpy(dst + size_t(k) * elem, inside ? src + size_t(off) * elem : bytes.data(), elem);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < oshape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/// The folded value of `call` (an op on one Constant), or nullopt.
std::optional<runtime::NDArray> fold(const Call& call, const std::string& name,
                                     const runtime::NDArray& in) {
  auto oshape = const_shape(Expr(&call));
  if (!oshape) return std::nullopt;
  if (name == "relax.permute_dims") {
    int ndim = in.ndim();
    Perm axes = get_opt_ints(call.attrs, "axes").value_or(Perm{});
    if (axes.empty())
      for (int i = ndim - 1; i >= 0; --i) axes.push_back(i);
    for (int64_t& a : axes)
      if (a < 0) a += ndim;
    return permute(in, axes);
  }
  if (name == "relax.layout_transform") return layout_transform(in, call, *oshape);
  if (name == "relax.pad" || name == "relax.crop") {
    if (in.dtype().bits % 8 != 0 || in.dtype().lanes != 1) return std::nullopt;
    std::vector<int64_t> offset;
    if (name == "relax.pad") {
      std::vector<int64_t> pw = get_ints(call.attrs, "pad_width", {});
      for (size_t k = 0; k < oshape->size(); ++k) offset.push_back(pw[2 * k]);
    } else {
      for (int64_t s : get_ints(call.attrs, "start_indices", {})) offset.push_back(-s);
    }
    return shift_copy(in, *oshape, offset, get_float(call.attrs, "pad_value", 0));
  }
  // The others keep the row-major element order: only the shape changes.
  if (numel_of(*oshape) != in.numel()) return std::nullopt;
  return runtime::NDArray::from_bytes(*oshape, in.dtype(), in.data());
}

class LayoutFolder : public ExprMutator {
 public:
  using ExprMutator::visit_;

  void visit_var_binding(const VarBinding* b) override {
    Expr value = visit_expr(b->value);
    // A constant is inlined; so is a variable a fold left, unless that would make an output of
    // a dataflow block a dataflow variable.
    if (value.is<Constant>() || (value.is<VarNode>() && (b->var.is<DataflowVar>() ||
                                                          !value.is<DataflowVar>()))) {
      var_remap_[b->var.get()] = value;
      return;
    }
    Ref<VarNode> v = emit_visited(b, value);
    if (auto* call = value.as<Call>()) bound_[v.get()] = Ref<Call>(call);
  }

  Expr visit_(const Call* op) override {
    // Normalised, so that the result's struct info (the folded shape) is known.
    Expr visited = builder_.normalize(ExprMutator::visit_(op));
    // Fold into the rewrite that computes the operand, as long as pairs keep folding.
    while (auto* call = visited.as<Call>()) {
      if (!is_rewrite(*call)) break;
      auto* arg = call->args[0].as<VarNode>();
      auto it = arg == nullptr ? bound_.end() : bound_.find(arg);
      if (it == bound_.end() || !is_rewrite(*it->second)) break;
      std::optional<Expr> folded = fold_pair(*call, *it->second);
      if (!folded) break;
      visited = builder_.normalize(*folded);
    }
    auto* call = visited.as<Call>();
    if (call == nullptr || call->args.empty()) return visited;
    auto* callee = call->op.as<Op>();
    auto* c = call->args[0].as<Constant>();
    if (callee == nullptr || c == nullptr || !c->data.is_contiguous()) return visited;
    static const char* kFolded[] = {"relax.permute_dims", "relax.layout_transform",
                                    "relax.reshape",      "relax.flatten",
                                    "relax.expand_dims",  "relax.squeeze",
                                    "relax.pad",          "relax.crop"};
    if (std::find(std::begin(kFolded), std::end(kFolded), callee->name) == std::end(kFolded))
      return visited;
    std::optional<runtime::NDArray> out = fold(*call, callee->name, c->data);
    if (!out) return visited;
    return make_constant(*out);
  }

 private:
  static bool is_rewrite(const Call& call) {
    std::string name = op_name(call);
    return !call.args.empty() &&
           (name == "relax.layout_transform" || name == "relax.permute_dims" ||
            name == "relax.pad" || name == "relax.crop");
  }

  /// The (visited) call each emitted variable is bound to.
  std::unordered_map<const VarNode*, Ref<Call>> bound_;
};

Ref<Function> fold_layout(const Ref<Function>& func, const PassArgs&) {
  return fold_layout_rewrites(func);
}

}  // namespace

Ref<Function> fold_layout_rewrites(const Ref<Function>& func) {
  LayoutFolder f;
  return f.visit_expr(func).as_ref<Function>();
}

void register_fold_layout(transform::PluginRegistrar& r) {
  r.add_pass({"fold-layout",
              "Compute permute_dims, layout_transform and reshapes of constants at compile time",
              transform::Granularity::kFunction,
              {}},
             transform::FunctionTransform(fold_layout));
}

}  // namespace relax::layout
