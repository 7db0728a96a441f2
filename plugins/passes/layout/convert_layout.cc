// convert-layout: rewrites convolutions to the layouts of the `layouts` option (default
// "relax.nn.conv2d=NHWC:HWIO") and lets the new layout flow through the ops that follow.
//
//   y = R.nn.conv2d(x, w)                       y_t = R.nn.conv2d(R.permute_dims(x, [0, 2, 3, 1]),
//   z = R.nn.relu(R.add(y, b))        becomes         R.permute_dims(w, [2, 3, 1, 0]),
//                                                     data_layout="NHWC", kernel_layout="HWIO",
//                                                     out_layout="NHWC")
//                                              z_t = R.nn.relu(R.add(y_t, permuted b))
//                                              z = R.permute_dims(z_t, [0, 3, 1, 2])
//
// Each dataflow variable may carry a permutation (layout_util.h): its value is held, permuted,
// by another variable, and its own binding is emitted (as the inverse permute_dims) only when
// something needs the original layout: an op the pass does not know, a tuple, a match_cast, or
// the block's end for an output variable. Known consumers take the permuted operand and adapt
// instead: elementwise and broadcasting ops (lower-rank operands are expanded and permuted;
// constants, so fold-layout folds them), reductions and softmax (axes remapped), pooling and
// resize2d (layout attributes), concat, pad, split and batch_norm (axis and widths remapped;
// the fields of a tuple result carry their own permutations through tuple[i]), permute_dims
// (composed; a pair that cancels leaves no op) and further convolutions. Permutes of the same
// value to the same layout are emitted once per block.
//
// Expects: normalized IR, before legalize-ops; run fold-layout after it to fold the permutes of
// constant weights and biases. Guarantees: the same values; only dataflow blocks change.
#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

#include "layout_util.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/op/op.h"
#include "relax/sdk/plugin.h"
#include "relax/support/diagnostic.h"

namespace relax::layout {

namespace {

using transform::PassArgs;

/// The layouts a convolution op is converted to.
struct Desired {
  std::string data;
  std::string kernel;
};

/// The default data and kernel layouts of the convolution ops the option may name.
bool conv_defaults(const std::string& op, std::string* data, std::string* kernel) {
  static const std::map<std::string, std::pair<std::string, std::string>> kConvs = {
      {"relax.nn.conv1d", {"NCW", "OIW"}},
      {"relax.nn.conv2d", {"NCHW", "OIHW"}},
      {"relax.nn.conv3d", {"NCDHW", "OIDHW"}},
      {"relax.nn.conv1d_transpose", {"NCW", "IOW"}},
      {"relax.nn.conv2d_transpose", {"NCHW", "IOHW"}},
      {"relax.nn.conv3d_transpose", {"NCDHW", "IODHW"}}};
  auto it = kConvs.find(op);
  if (it == kConvs.end()) return false;
  *data = it->second.first;
  *kernel = it->second.second;
  return true;
}

bool same_letters(std::string a, std::string b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b && std::adjacent_find(a.begin(), a.end()) == a.end();
}

/// Parses "OP=DATA:KERNEL[,OP=DATA:KERNEL...]"; throws a relax::Error naming the option.
std::unordered_map<std::string, Desired> parse_layouts(const std::string& text) {
  std::unordered_map<std::string, Desired> out;
  auto fail = [&](const std::string& why) {
    RX_THROW() << "convert-layout: option layouts: " << why
               << "; expected OP=DATA:KERNEL[,OP=DATA:KERNEL...], e.g. "
                  "\"relax.nn.conv2d=NHWC:HWIO\", got \""
               << text << "\"";
  };
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) continue;
    size_t eq = item.find('='), colon = item.find(':');
    if (eq == std::string::npos || colon == std::string::npos || colon < eq)
      fail("entry \"" + item + "\" is not OP=DATA:KERNEL");
    std::string op = item.substr(0, eq);
    Desired d{item.substr(eq + 1, colon - eq - 1), item.substr(colon + 1)};
    std::string data, kernel;
    if (!conv_defaults(op, &data, &kernel))
      fail("\"" + op + "\" is not a convolution op (relax.nn.conv1d/2d/3d or their _transpose)");
    if (!same_letters(d.data, data))
      fail("data layout \"" + d.data + "\" of " + op + " is not a permutation of " + data);
    if (!same_letters(d.kernel, kernel))
      fail("kernel layout \"" + d.kernel + "\" of " + op + " is not a permutation of " + kernel);
    if (out.count(op)) fail(op + " is given twice");
    out[op] = d;
  }
  return out;
}

/// Collects the variables an expression uses.
class VarCollector : public ExprVisitor {
 public:
  using ExprVisitor::visit_;
  void visit_(const Var* op) override { vars.push_back(op); }
  void visit_(const DataflowVar* op) override { vars.push_back(op); }
  std::vector<const VarNode*> vars;
};

std::vector<int64_t> normalized_axes(std::vector<int64_t> axes, int ndim) {
  for (int64_t& a : axes)
    if (a < 0) a += ndim;
  return axes;
}

/// Ops whose result element depends only on the elements at the same (broadcast) position.
bool is_elementwise(const Op& op) {
  if (op.info->pattern != OpPattern::kElemWise && op.info->pattern != OpPattern::kBroadcast)
    return false;
  // An axis attribute (prelu's channel axis) ties an operand to one axis of the result.
  for (const AttrSpec& a : op.info->attrs)
    if (a.name == "axis" || a.name == "axes") return false;
  return true;
}

bool is_reduction(const std::string& name) {
  return name == "relax.sum" || name == "relax.mean" || name == "relax.max" ||
         name == "relax.min" || name == "relax.prod" || name == "relax.variance" ||
         name == "relax.std" || name == "relax.argmax" || name == "relax.argmin";
}

bool is_pool(const std::string& name) {
  for (const char* p : {"relax.nn.max_pool", "relax.nn.avg_pool", "relax.nn.adaptive_avg_pool"})
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

class LayoutConverter : public ExprMutator {
 public:
  explicit LayoutConverter(const std::unordered_map<std::string, Desired>& desired)
      : desired_(desired) {}
  using ExprMutator::visit_;

  Block visit_binding_block(const Block& block) override {
    if (!block->is_dataflow()) return ExprMutator::visit_binding_block(block);
    builder_.begin_dataflow_block();
    for (const Binding& b : block->bindings) {
      auto* vb = b.as<VarBinding>();
      if (vb != nullptr && convert(vb)) continue;
      materialize_uses(vb != nullptr ? vb->value : b.as<MatchCast>()->value);
      visit_binding(b);
    }
    for (const VarNode* v : order_)
      if (!Expr(v).is<DataflowVar>()) materialize(v);
    deferred_.clear();
    order_.clear();
    permuted_.clear();
    return builder_.pop_block();
  }

 private:
  /// A variable whose binding is deferred: `value` holds it permuted by `perm`.
  struct Deferred {
    Expr value;
    Perm perm;
    bool materialized = false;
    /// For a tuple (batch_norm, split): each field's permutation; `perm` is then unused.
    std::vector<Perm> fields;
    bool is_tuple = false;
  };

  // ---- values in a layout

  /// `e` (an expression of the input program) permuted by `p` relative to its original layout.
  Expr as_layout(const Expr& e, const Perm& p) {
    Expr base = visit_expr(e);
    Perm rel = p;
    if (auto it = deferred_.find(e.get()); it != deferred_.end()) {
      Perm inv = inverse(it->second.perm);
      for (size_t i = 0; i < p.size(); ++i) rel[i] = inv[size_t(p[i])];
      base = it->second.value;
    }
    if (is_identity(rel)) return base;
    auto key = std::make_pair(base.get(), rel);
    auto it = permuted_.find(key);
    if (it != permuted_.end()) return it->second;
    Expr out = builder_.emit(op::permute_dims(base, rel), "pt");
    permuted_[key] = out;
    return out;
  }

  /// The perm of `e` when it is a deferred variable; null otherwise.
  const Perm* perm_of(const Expr& e) const {
    auto it = deferred_.find(e.get());
    return it == deferred_.end() || it->second.is_tuple ? nullptr : &it->second.perm;
  }

  /// Emits the deferred binding of `v`: its value permuted back.
  void materialize(const VarNode* v) {
    auto it = deferred_.find(v);
    if (it == deferred_.end() || it->second.materialized) return;
    it->second.materialized = true;
    const Deferred& d = it->second;
    Expr back;
    if (d.is_tuple) {
      std::vector<Expr> fields;
      for (size_t i = 0; i < d.fields.size(); ++i) {
        Expr f = builder_.emit(make_ref<TupleGetItem>(d.value, int(i)), "f");
        if (!is_identity(d.fields[i]))
          f = builder_.emit(op::permute_dims(f, inverse(d.fields[i])), "f");
        fields.push_back(f);
      }
      back = builder_.normalize(make_tuple(std::move(fields)));
    } else {
      back = builder_.normalize(op::permute_dims(d.value, inverse(d.perm)));
    }
    builder_.emit_binding(make_ref<VarBinding>(Ref<VarNode>(v), back));
  }

  void materialize_uses(const Expr& e) {
    VarCollector c;
    c.visit_expr(e);
    for (const VarNode* v : c.vars) materialize(v);
  }

  /// Binds the result of the rewritten call `value` for `vb`: directly when `perm` is the
  /// identity, else to a new variable, deferring `vb`'s own binding.
  void bind(const VarBinding* vb, const Expr& value, const Perm& perm) {
    if (is_identity(perm)) {
      builder_.emit_binding(make_ref<VarBinding>(vb->var, builder_.normalize(value)));
      return;
    }
    Expr nv = builder_.emit(value, vb->var->name);
    Deferred d;
    d.value = nv;
    d.perm = perm;
    deferred_[vb->var.get()] = std::move(d);
    order_.push_back(vb->var.get());
  }

  // ---- rules

  /// True when `vb` was rewritten (and emitted).
  bool convert(const VarBinding* vb) {
    if (auto* item = vb->value.as<TupleGetItem>()) {
      auto it = deferred_.find(item->tuple.get());
      if (it == deferred_.end() || !it->second.is_tuple) return false;
      bind(vb, make_ref<TupleGetItem>(it->second.value, item->index),
           it->second.fields.at(size_t(item->index)));
      return true;
    }
    auto* call = vb->value.as<Call>();
    if (call == nullptr) return false;
    auto* op = call->op.as<Op>();
    if (op == nullptr) return false;
    if (auto it = desired_.find(op->name); it != desired_.end())
      return convert_conv(vb, *call, it->second);
    // The first argument (or tuple field) in a converted layout decides the layout to flow.
    const Perm* p = nullptr;
    for (const Expr& a : call->args) {
      if (auto* t = a.as<Tuple>()) {
        for (const Expr& f : t->fields)
          if (!p) p = perm_of(f);
      } else if (!p) {
        p = perm_of(a);
      }
    }
    if (p == nullptr) return false;
    Perm perm = *p;
    const std::string& name = op->name;
    if (name == "relax.permute_dims") return convert_permute(vb, *call, perm);
    if (is_elementwise(*op)) return convert_elementwise(vb, *call, perm);
    if (name == "relax.concat") return convert_concat(vb, *call, perm);
    if (perm_of(call->args[0]) == nullptr) return false;
    if (is_reduction(name)) return convert_reduction(vb, *call, perm);
    if (name == "relax.nn.softmax" || name == "relax.nn.log_softmax")
      return convert_axis(vb, *call, perm);
    if (is_pool(name) || name == "relax.image.resize2d") return convert_pool(vb, *call, perm);
    if (name == "relax.nn.pad") return convert_pad(vb, *call, perm);
    if (name == "relax.nn.batch_norm" || name == "relax.split")
      return convert_tuple_axis(vb, *call, perm);
    return false;
  }

  bool convert_conv(const VarBinding* vb, const Call& call, const Desired& want) {
    std::string data_default, kernel_default;
    conv_defaults(call.op.as<Op>()->name, &data_default, &kernel_default);
    std::string data = get_string(call.attrs, "data_layout", data_default);
    std::string kernel = get_string(call.attrs, "kernel_layout", kernel_default);
    std::string out = get_string(call.attrs, "out_layout", data);
    if (tensor_ndim(call.args[0]) != int(data.size()) ||
        tensor_ndim(call.args[1]) != int(kernel.size()))
      return false;
    if (data == want.data && kernel == want.kernel && out == want.data) return false;
    Attrs attrs = with_attr(call.attrs, "data_layout", want.data);
    attrs = with_attr(attrs, "kernel_layout", want.kernel);
    attrs = with_attr(attrs, "out_layout", want.data);
    Expr x = as_layout(call.args[0], layout_perm(data, want.data));
    Expr w = as_layout(call.args[1], layout_perm(kernel, want.kernel));
    bind(vb, make_ref<Call>(call.op, std::vector<Expr>{x, w}, attrs, call.sinfo_args),
         layout_perm(out, want.data));
    return true;
  }

  bool convert_permute(const VarBinding* vb, const Call& call, const Perm& perm) {
    int ndim = int(perm.size());
    Perm axes = normalized_axes(get_opt_ints(call.attrs, "axes").value_or(Perm{}), ndim);
    if (axes.empty())
      for (int i = ndim - 1; i >= 0; --i) axes.push_back(i);
    // out[i] = x[axes[i]] and x[k] = x_t[inv[k]] for the converted x_t.
    Perm inv = inverse(perm), composed;
    for (int64_t a : axes) composed.push_back(inv[size_t(a)]);
    Expr xt = deferred_.at(call.args[0].get()).value;
    if (is_identity(composed)) {
      if (vb->var.is<DataflowVar>()) {
        var_remap_[vb->var.get()] = xt;
      } else {
        builder_.emit_binding(make_ref<VarBinding>(vb->var, xt));
      }
      return true;
    }
    bind(vb, op::permute_dims(xt, composed), Perm{});
    return true;
  }

  bool convert_elementwise(const VarBinding* vb, const Call& call, const Perm& perm) {
    int ndim = int(perm.size());
    if (tensor_ndim(vb->value) != ndim) return false;
    // Tensors of at most the result's rank and scalars only: a shape argument (broadcast_to)
    // would name the original layout's dims.
    for (const Expr& a : call.args) {
      const StructInfo& s = get_struct_info(a);
      if (s.is<PrimStructInfo>()) continue;
      int r = tensor_ndim(a);
      if (!s.is<TensorStructInfo>() || r < 0 || r > ndim) return false;
    }
    std::vector<Expr> args;
    for (const Expr& a : call.args) {
      int r = tensor_ndim(a);
      if (r <= 0) {
        args.push_back(visit_expr(a));
      } else if (r == ndim) {
        args.push_back(as_layout(a, perm));
      } else {
        // A broadcast operand ([C, 1, 1] against NCHW) gets the leading axes it implies, then
        // the result's permutation.
        materialize_uses(a);
        Perm lead;
        for (int i = 0; i < ndim - r; ++i) lead.push_back(i);
        Expr full = builder_.emit(op::expand_dims(visit_expr(a), lead), "ex");
        args.push_back(as_layout(full, perm));
      }
    }
    bind(vb, make_ref<Call>(call.op, std::move(args), call.attrs, call.sinfo_args), perm);
    return true;
  }

  bool convert_reduction(const VarBinding* vb, const Call& call, const Perm& perm) {
    int ndim = int(perm.size());
    bool keepdims = get_bool(call.attrs, "keepdims", false);
    auto axis = get_opt_ints(call.attrs, "axis");
    bool single =
        call.op.as<Op>()->name == "relax.argmax" || call.op.as<Op>()->name == "relax.argmin";
    if (!axis) {
      // argmax over the flattened tensor depends on the element order.
      if (single) return false;
      Expr x = as_layout(call.args[0], perm);
      bind(vb, make_ref<Call>(call.op, std::vector<Expr>{x}, call.attrs), keepdims ? perm : Perm{});
      return true;
    }
    std::vector<bool> reduced(size_t(ndim), false);
    for (int64_t a : normalized_axes(*axis, ndim)) {
      if (a < 0 || a >= ndim) return false;
      reduced[size_t(a)] = true;
    }
    Perm new_axes;
    for (int i = 0; i < ndim; ++i)
      if (reduced[size_t(perm[size_t(i)])]) new_axes.push_back(i);
    Perm out = perm;
    if (!keepdims) {
      // The kept axes, in the converted order, renumbered among the kept original axes.
      std::vector<int64_t> rank(size_t(ndim), -1);
      for (int a = 0, k = 0; a < ndim; ++a)
        if (!reduced[size_t(a)]) rank[size_t(a)] = k++;
      out.clear();
      for (int64_t a : perm)
        if (!reduced[size_t(a)]) out.push_back(rank[size_t(a)]);
    }
    Expr x = as_layout(call.args[0], perm);
    bind(vb, make_ref<Call>(call.op, std::vector<Expr>{x}, with_attr(call.attrs, "axis", new_axes)),
         out);
    return true;
  }

  bool convert_axis(const VarBinding* vb, const Call& call, const Perm& perm) {
    int ndim = int(perm.size());
    int64_t axis = get_int(call.attrs, "axis", -1);
    if (axis < 0) axis += ndim;
    if (axis < 0 || axis >= ndim) return false;
    Expr x = as_layout(call.args[0], perm);
    bind(vb,
         make_ref<Call>(call.op, std::vector<Expr>{x},
                        with_attr(call.attrs, "axis", inverse(perm)[size_t(axis)])),
         perm);
    return true;
  }

  bool convert_pool(const VarBinding* vb, const Call& call, const Perm& perm) {
    std::string layout = layout_attr(call);
    if (layout.size() != perm.size()) return false;
    std::string now = permute_layout(layout, perm);
    Attrs attrs = with_attr(call.attrs, "layout", now);
    Perm out = perm;
    if (call.op.as<Op>()->name == "relax.image.resize2d") {
      if (now != "NCHW" && now != "NHWC") return false;
    } else {
      out = layout_perm(get_string(call.attrs, "out_layout", layout), now);
      attrs = with_attr(attrs, "out_layout", now);
    }
    std::vector<Expr> args{as_layout(call.args[0], perm)};
    for (size_t i = 1; i < call.args.size(); ++i) {
      materialize_uses(call.args[i]);
      args.push_back(visit_expr(call.args[i]));
    }
    bind(vb, make_ref<Call>(call.op, std::move(args), attrs, call.sinfo_args), out);
    return true;
  }

  bool convert_pad(const VarBinding* vb, const Call& call, const Perm& perm) {
    size_t ndim = perm.size();
    std::vector<int64_t> width = get_ints(call.attrs, "pad_width", {});
    if (width.size() != 2 * ndim) return false;
    std::vector<int64_t> now(2 * ndim);
    for (size_t i = 0; i < ndim; ++i) {
      now[i] = width[size_t(perm[i])];
      now[ndim + i] = width[ndim + size_t(perm[i])];
    }
    Expr x = as_layout(call.args[0], perm);
    bind(vb, make_ref<Call>(call.op, std::vector<Expr>{x}, with_attr(call.attrs, "pad_width", now)),
         perm);
    return true;
  }

  bool convert_concat(const VarBinding* vb, const Call& call, const Perm& perm) {
    auto* tuple = call.args[0].as<Tuple>();
    int ndim = int(perm.size());
    if (tuple == nullptr) return false;
    for (const Expr& f : tuple->fields)
      if (tensor_ndim(f) != ndim) return false;
    int64_t axis = get_int(call.attrs, "axis", 0);
    if (axis < 0) axis += ndim;
    if (axis < 0 || axis >= ndim) return false;
    std::vector<Expr> fields;
    for (const Expr& f : tuple->fields) fields.push_back(as_layout(f, perm));
    bind(vb,
         make_ref<Call>(call.op, std::vector<Expr>{make_tuple(std::move(fields))},
                        with_attr(call.attrs, "axis", inverse(perm)[size_t(axis)])),
         perm);
    return true;
  }

  /// batch_norm (its channel axis) and split (its axis): ops returning a tuple whose fields
  /// in the input's layout carry its permutation (batch_norm's mean and variance do not).
  bool convert_tuple_axis(const VarBinding* vb, const Call& call, const Perm& perm) {
    int ndim = int(perm.size());
    bool bn = call.op.as<Op>()->name == "relax.nn.batch_norm";
    int64_t axis = get_int(call.attrs, "axis", bn ? 1 : 0);
    if (axis < 0) axis += ndim;
    auto* out = get_struct_info(vb->value).as<TupleStructInfo>();
    if (axis < 0 || axis >= ndim || out == nullptr) return false;
    std::vector<Expr> args{as_layout(call.args[0], perm)};
    for (size_t i = 1; i < call.args.size(); ++i) {
      materialize_uses(call.args[i]);
      args.push_back(visit_expr(call.args[i]));
    }
    Attrs attrs = with_attr(call.attrs, "axis", inverse(perm)[size_t(axis)]);
    Expr nv = builder_.emit(make_ref<Call>(call.op, std::move(args), attrs), vb->var->name);
    Deferred d;
    d.value = nv;
    d.is_tuple = true;
    for (size_t i = 0; i < out->fields.size(); ++i) d.fields.push_back(bn && i > 0 ? Perm{} : perm);
    deferred_[vb->var.get()] = std::move(d);
    order_.push_back(vb->var.get());
    return true;
  }

  const std::unordered_map<std::string, Desired>& desired_;
  std::unordered_map<const Object*, Deferred> deferred_;
  std::vector<const VarNode*> order_;
  std::map<std::pair<const Object*, Perm>, Expr> permuted_;
};

Ref<Function> convert_layout(const Ref<Function>& func, const PassArgs& args) {
  auto desired = parse_layouts(args.options.get_string("layouts"));
  if (desired.empty()) return func;
  LayoutConverter c(desired);
  return c.visit_expr(func).as_ref<Function>();
}

}  // namespace

void register_convert_layout(transform::PluginRegistrar& r) {
  r.add_pass({"convert-layout",
              "Convert convolutions to the given layouts and flow the layout to their consumers",
              transform::Granularity::kFunction,
              {{"layouts", transform::OptionType::kString, std::string("relax.nn.conv2d=NHWC:HWIO"),
                "OP=DATA:KERNEL[,...]: the data and kernel layouts per convolution op"}}},
             transform::FunctionTransform(convert_layout));
}

}  // namespace relax::layout
