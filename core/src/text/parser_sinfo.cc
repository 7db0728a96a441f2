// The parser's struct-info annotations (R.Tensor, R.Shape, R.Tuple, R.Callable, ...) and
// constants (R.const, metadata references). Split from parser_relax.cc.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/op.h"
#include "relax/kernel/interpreter.h"
#include "relax/runtime/ndarray.h"
#include "relax/text/printer.h"
#include "script_common.h"

namespace relax::script {

// ---- Struct info.

StructInfo Parser::sinfo(const NodeP& n) {
  auto dims = [&](const NodeP& t) {
    if (t->kind != NK::kTuple && t->kind != NK::kList)
      error(t->pos, "expected a shape such as (n, 4)");
    std::vector<PrimExpr> out;
    for (const auto& d : t->items) out.push_back(int_dim(d, "a shape dimension"));
    return out;
  };
  // A tensor's constant dimensions are >= 0 and its size in bytes fits int64_t, or the
  // program cannot be allocated (and its executable would not load again).
  auto tensor_dims = [&](const NodeP& t, DataType dtype) {
    std::vector<PrimExpr> out = dims(t);
    int64_t bytes = std::max<int64_t>(1, (int64_t(dtype.bits) * dtype.lanes + 7) / 8);
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t* c = as_const_int(out[i]);
      if (!c) continue;
      if (*c < 0)
        error(t->items[i]->pos, "dimension " + std::to_string(i) + " of R.Tensor is " +
                                    std::to_string(*c) + "; a tensor dimension must be >= 0");
      if (__builtin_mul_overflow(bytes, *c, &bytes)) {
        std::string shape;
        for (const PrimExpr& d : out) shape += (shape.empty() ? "" : ", ") + tir::to_string(d);
        error(t->pos, "R.Tensor((" + shape + "), \"" + dtype.to_string() +
                          "\") is too large: its size in bytes does not fit in int64");
      }
    }
    return out;
  };
  auto opt_dtype = [&](const NodeP& d) {
    if (!d || d->kind == NK::kNone || (d->kind == NK::kName && d->str == "_"))
      return DataType::Void();
    return dtype_of(d);
  };
  std::string name =
      text::dotted_name(n->kind == NK::kCall || n->kind == NK::kSubscript ? n->a : n);
  if (name.rfind("R.", 0) == 0)
    name = name.substr(2);
  else if (name.rfind("relax.", 0) == 0)
    name = name.substr(6);
  if (n->kind == NK::kName || n->kind == NK::kAttr) {
    if (name == "Object" || name == "Any") return object_sinfo();  // R.Any: TVM's newer name
    if (name == "Tensor") return tensor_sinfo(DataType::Void(), -1);
    if (name == "Shape") return shape_sinfo(-1);
    if (name == "Tuple") return tuple_sinfo({});
    error(n->pos, "expected a struct info annotation such as R.Tensor((n, 4), \"float32\"), got '" +
                      text::dotted_name(n) + "'");
  }
  if (n->kind == NK::kSubscript) {
    // RFC spelling: R.Tensor[(n, k), "float32"], R.Tensor[_, "float32"], R.Tensor[(n, m)].
    if (name != "Tensor") error(n->pos, "expected R.Tensor[...]");
    const NodeP& shp = n->items[0];
    DataType t = n->items.size() > 1 ? opt_dtype(n->items[1]) : DataType::Void();
    if (n->items.size() > 2) error(n->items[2]->pos, "R.Tensor[shape, dtype] takes two items");
    if (shp->kind == NK::kName && shp->str == "_") return tensor_sinfo(t, -1);
    return tensor_sinfo(tensor_dims(shp, t), t);
  }
  if (n->kind != NK::kCall)
    error(n->pos, "expected a struct info annotation such as R.Tensor((n, 4), \"float32\")");
  const auto& args = n->items;
  auto check_kwargs = [&](std::initializer_list<const char*> allowed) {
    for (const auto& [k, v] : n->kwargs) {
      bool ok = false;
      for (const char* a : allowed) ok |= k == a;
      if (!ok) error(v->pos, "R." + name + " has no keyword argument '" + k + "'");
    }
  };
  if (name == "Tensor") {
    check_kwargs({"shape", "dtype", "ndim", "vdevice"});
    if (args.size() > 2) error(args[2]->pos, "R.Tensor takes a shape and a dtype");
    NodeP shp = args.size() > 0 ? args[0] : kwarg(*n, "shape");
    NodeP dt = args.size() > 1 ? args[1] : kwarg(*n, "dtype");
    // R.Tensor("float32"): a dtype alone.
    if (shp && shp->kind == NK::kStr && !dt) dt = shp, shp = nullptr;
    DataType t = opt_dtype(dt);
    std::string vdev;
    if (NodeP v = kwarg(*n, "vdevice")) {
      vdev = string_literal(v, "vdevice");
      check_vdevice(v->pos, vdev, "R.Tensor");
    }
    int ndim = -1;
    if (const Entry* e = shp && shp->kind == NK::kName ? lookup(shp->str) : nullptr;
        e && e->kind == Entry::kRelaxVar) {
      // R.Tensor(sh, ...) with `sh` a shape value: its dimensions (or only its rank).
      auto* ss = e->rvar->struct_info.as<ShapeStructInfo>();
      if (!ss)
        error(shp->pos, "the shape of R.Tensor must be a shape value, but '" + shp->str + "' is " +
                            print_struct_info(e->rvar->struct_info));
      if (ss->values) return tensor_sinfo(*ss->values, t, vdev);
      if (kwarg(*n, "ndim")) error(kwarg(*n, "ndim")->pos, "R.Tensor takes a shape or an ndim");
      return tensor_sinfo(t, ss->ndim, vdev);
    }
    if (shp && shp->kind != NK::kNone) return tensor_sinfo(tensor_dims(shp, t), t, vdev);
    if (NodeP nd = kwarg(*n, "ndim"))
      ndim = int(std::max<int64_t>(-1, std::min<int64_t>(int_literal(nd, "ndim"), 1 << 20)));
    return tensor_sinfo(t, ndim, vdev);
  }
  if (name == "Shape") {
    check_kwargs({"ndim", "values"});
    NodeP vals = args.size() > 0 ? args[0] : kwarg(*n, "values");
    if (vals && vals->kind != NK::kNone) return shape_sinfo(dims(vals));
    int ndim = -1;
    if (NodeP nd = kwarg(*n, "ndim"))
      ndim = int(std::max<int64_t>(-1, std::min<int64_t>(int_literal(nd, "ndim"), 1 << 20)));
    return shape_sinfo(ndim);
  }
  if (name == "Prim") {
    check_kwargs({"dtype", "value"});
    NodeP dt = args.size() > 0 ? args[0] : kwarg(*n, "dtype");
    NodeP val = kwarg(*n, "value");
    PrimExpr v;
    DataType t = dt ? dtype_of(dt) : DataType::Void();
    if (val) v = prim_as(val, t.is_void() ? kDefaultInt : t);
    if (t.is_void()) {
      if (!v.defined()) error(n->pos, "R.Prim needs a dtype or a value");
      t = v->dtype;
    }
    return prim_sinfo(t, v);
  }
  if (name == "Tuple") {
    check_kwargs({});
    std::vector<StructInfo> fs;
    // R.Tuple([a, b]) is R.Tuple(a, b).
    bool listed = args.size() == 1 && args[0]->kind == NK::kList;
    for (const auto& a : listed ? args[0]->items : args) fs.push_back(sinfo(a));
    return tuple_sinfo(std::move(fs));
  }
  if (name == "Object" || name == "Any") return object_sinfo();
  if (name == "Callable") {
    check_kwargs({"params", "ret", "purity"});
    NodeP params = args.size() > 0 ? args[0] : kwarg(*n, "params");
    NodeP ret = args.size() > 1 ? args[1] : kwarg(*n, "ret");
    NodeP pur = args.size() > 2 ? args[2] : kwarg(*n, "purity");
    bool purity = !pur || pur->kind != NK::kFalse;
    StructInfo r = ret ? sinfo(ret) : object_sinfo();
    if (!params || params->kind == NK::kNone) return opaque_func_sinfo(r, purity);
    if (params->kind != NK::kTuple && params->kind != NK::kList)
      error(params->pos, "expected a tuple of parameter struct infos");
    std::vector<StructInfo> ps;
    for (const auto& p : params->items) ps.push_back(sinfo(p));
    return func_sinfo(std::move(ps), r, purity);
  }
  error(n->pos,
        "expected a struct info annotation (R.Tensor, R.Shape, R.Prim, R.Tuple, R.Object, "
        "R.Callable), got 'R." +
            name + "'");
}

// ---- Expressions.

Expr Parser::constant(const text::Node& n) {
  if (n.items.empty()) error(n.pos, "R.const needs a value");
  NodeP value = n.items[0];
  NodeP dt = n.items.size() > 1 ? n.items[1] : kwarg(n, "dtype");
  for (const auto& [k, v] : n.kwargs)
    if (k != "dtype" && k != "shape" && k != "bits")
      error(v->pos, "R.const has no keyword argument '" + k + "'");
  // bits=True: float16/bfloat16 elements are given as raw bit patterns (how the printer keeps
  // NaN payloads); otherwise they are values, rounded to nearest even.
  NodeP bits_kw = kwarg(n, "bits");
  bool raw_bits = bits_kw && bits_kw->kind == NK::kTrue;
  if (bits_kw && !raw_bits && bits_kw->kind != NK::kFalse)
    error(bits_kw->pos, "R.const bits= takes True or False");
  std::vector<int64_t> shape;
  std::vector<NodeP> leaves;
  bool shape_known = false;
  std::function<void(const NodeP&, size_t)> walk = [&](const NodeP& x, size_t depth) {
    if (depth > 32) error(x->pos, "constant is nested too deeply");
    if (x->kind == NK::kList || x->kind == NK::kTuple) {
      if (!shape_known && shape.size() == depth)
        shape.push_back(int64_t(x->items.size()));
      else if (depth >= shape.size() || shape[depth] != int64_t(x->items.size()))
        error(x->pos, "R.const: the nested lists are not rectangular");
      if (x->items.empty()) shape_known = true;
      for (const auto& it : x->items) walk(it, depth + 1);
      return;
    }
    if (depth != shape.size()) error(x->pos, "R.const: the nested lists are not rectangular");
    shape_known = true;
    leaves.push_back(x);
  };
  walk(value, 0);
  if (NodeP s = kwarg(n, "shape")) {
    if (s->kind != NK::kTuple && s->kind != NK::kList)
      error(s->pos, "R.const shape must be a tuple of integers");
    std::vector<int64_t> given;
    for (const auto& d : s->items) {
      int64_t v = int_literal(d, "a dimension");
      if (v < 0 || v > (1 << 24)) error(d->pos, "invalid dimension");
      given.push_back(v);
    }
    int64_t count = 1;
    for (int64_t d : given) count *= d;
    if (count != int64_t(leaves.size()))
      error(s->pos, "R.const shape does not match the number of values");
    shape = given;
  }
  auto num = [&](const NodeP& x, double* f, int64_t* i, bool* is_float) {
    AttrValue v = attr_value(x);
    if (auto* b = std::get_if<bool>(&v))
      *i = *b, *f = *b, *is_float = false;
    else if (auto* iv = std::get_if<int64_t>(&v))
      *i = *iv, *f = double(*iv), *is_float = false;
    else if (auto* dv = std::get_if<double>(&v))
      // The integer reading only where it exists (1e300 has none: converting it is UB).
      *f = *dv, *i = std::fabs(*dv) < 9.2e18 ? int64_t(*dv) : 0, *is_float = true;
    else
      error(x->pos, "R.const values must be numbers or bools");
  };
  DataType t;
  if (dt) {
    t = dtype_of(dt);
  } else {
    bool any_float = false, all_bool = !leaves.empty();
    for (const auto& l : leaves) {
      any_float |= l->kind == NK::kFloat ||
                   (l->kind == NK::kUnary && l->a && l->a->kind == NK::kFloat) ||
                   l->kind == NK::kCall;
      all_bool &= l->kind == NK::kTrue || l->kind == NK::kFalse;
    }
    t = any_float ? DataType::Float(32) : all_bool ? DataType::Bool() : DataType::Int(32);
  }
  if (t.lanes != 1 || !(t.is_float() || t.is_integer_like()) ||
      (t.is_float() && t.bits != 32 && t.bits != 64 && t.bits != 16) ||
      (t.is_integer_like() && !t.is_bool() && t.bits != 8 && t.bits != 16 && t.bits != 32 &&
       t.bits != 64))
    error(n.pos, "R.const does not support dtype " + t.to_string());
  bool half = t.is_float() && t.bits == 16;
  if (raw_bits && !half)
    error(bits_kw->pos, "R.const bits=True is only for float16 and bfloat16 constants");
  std::vector<unsigned char> bytes(leaves.size() * size_t(t.bytes()));
  for (size_t k = 0; k < leaves.size(); ++k) {
    double f = 0;
    int64_t i = 0;
    bool is_float = false;
    num(leaves[k], &f, &i, &is_float);
    if (raw_bits && (is_float || i < 0 || i > 0xFFFF))
      error(leaves[k]->pos, "R.const with bits=True takes 16-bit patterns (0 to 65535)");
    unsigned char* p = bytes.data() + k * size_t(t.bytes());
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof v); };
    if (t.is_bool())
      *p = is_float ? f != 0 : i != 0;
    else if (t == DataType::Float(32))
      put(float(f));
    else if (t == DataType::Float(64))
      put(f);
    else if (half && raw_bits)
      put(uint16_t(i));
    else if (t.code == DataType::kBFloat)
      put(tir::float_to_bfloat16(float(f)));
    else if (half)
      put(tir::float_to_half(float(f)));
    else if (t.bits == 8)
      put(uint8_t(i));
    else if (t.bits == 16)
      put(uint16_t(i));
    else if (t.bits == 32)
      put(uint32_t(i));
    else
      put(uint64_t(i));
  }
  return make_constant(runtime::NDArray::from_bytes(shape, t, bytes.data()));
}

Expr Parser::elided_constant(const text::Node& n) {
  if (n.items.size() != 2 || !n.kwargs.empty())
    error(n.pos, "expected R.const_elided((dims...), \"dtype\")");
  const NodeP& s = n.items[0];
  if (s->kind != NK::kTuple && s->kind != NK::kList)
    error(s->pos, "R.const_elided: the shape must be a tuple of integers");
  DataType t = dtype_of(n.items[1]);
  if (t.lanes != 1 || (t.bits % 8 != 0 && !t.is_bool()))
    error(n.items[1]->pos, "R.const_elided does not support dtype " + t.to_string());
  // A placeholder is allocated: its size is bounded like any constant the parser reads.
  constexpr int64_t kMaxBytes = int64_t(1) << 32;
  std::vector<int64_t> shape;
  int64_t bytes = t.bytes();
  for (const auto& d : s->items) {
    int64_t v = int_literal(d, "a dimension");
    if (v < 0) error(d->pos, "R.const_elided: negative dimension " + std::to_string(v));
    if (v > 0 && bytes > kMaxBytes / v)
      error(d->pos, "R.const_elided: the placeholder would exceed 4 GiB");
    bytes *= v;
    shape.push_back(v);
  }
  std::vector<unsigned char> zeros(size_t(bytes), 0);
  return make_constant(runtime::NDArray::from_bytes(shape, t, zeros.data()));
}

}  // namespace relax::script
