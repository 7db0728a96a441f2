// freeze-layout: the design's "tune layout-critical operations and freeze", with the layouts
// chosen by the user (or by a backend that knows what its fast kernels want).
//
//   y = R.nn.conv2d(x, w)                x_t = R.layout_transform(x, NCHW -> NCHW4c)
//                             becomes    w_t = R.layout_transform(w, OIHW -> OIHW4i4o)
//                                        y_t = R.call_tir(conv2d_frozen, (x_t, w_t), ...)
//                                        y   = R.layout_transform(y_t, NCHW4c -> NCHW)
//
// The layouts come from the `layouts` option, `OP=L0:L1[:OUT];OP=...`, or from a YAML file
// (`file` option) of `OP: L0:L1[:OUT]` lines. Each L is a layout over the letters of the
// operand's current layout: for convolutions the data_layout / kernel_layout / out_layout
// attributes (NCHW, OIHW by default), for other ops A, B, C... per axis. An upper-case letter
// is that axis (or its outer part, when a lower-case factor of it follows), `16c` the inner 16
// of axis C: NCHW16c, OIHW16i16o, NHWC. OUT defaults to L0 when the result has L0's rank;
// `_` keeps an operand as it is. Each layout becomes an arith::IndexMap; the op is legalised,
// its PrimFunc's buffers transformed by the maps (relayout_frozen: an intermediate such as the
// padded input follows its input's layout, and each block's loops are reordered to walk its
// result in memory order — the loop nest a kernel written for those layouts has, which the
// backend's schedule rules then tile) and marked "layout_frozen", and the rewrites go on its
// operands and result — the input flow-layout and fold-layout minimise. `vector-width=N`
// (N > 1) asks, for every conv2d not listed, the layouts the CPU rules vectorise along:
// NCHW{N}c, OIHW{N}i{N}o.
//
// A backend requests layouts through the same mechanism: with `request=KIND`, every op not
// listed is offered to the packed function "layout.request.KIND" (runtime::Registry; a backend
// plugin registers it), called with the op name and the operand shapes ("1x64x56x56;64x64x3x3")
// and answering a spec "L0:L1[:OUT]" or "" (none). A request that does not divide is skipped.
// For KIND llvm with no such function, the built-in request is the host's float32 vector
// width w (16 with AVX-512, 8 with AVX2, else 4), halved until it divides the channels:
// conv2d in NCHW{w}c / OIHW{w}i{w}o (a depthwise one, one input channel per group, OIHW{w}o),
// matmul's weight [K, N] packed as [N / w, K, w].
//
// With `narrow-input=K` (the default pipeline's 4: an image's RGB; default 0, off), a
// convolution whose data has at most K channels keeps its data in its own layout whatever
// the spec says (the result still takes the spec's
// layout): each of its reads of the data is one element broadcast along the output channels
// in any layout, and the transpose of the image into NHWC was a pass of its own before the
// first convolution (MobileNetV2 -3.5%, ResNet-18 -1% on 2 threads; the stem itself faster).
//
// Errors (relax::Error) name the op, the variable and the layout: a letter the operand does
// not have, a factor that does not divide the axis.
#include <fstream>
#include <map>
#include <sstream>

#include "relax/ir/block_builder.h"
#include "relax/runtime/registry.h"
#include "relax/op/op.h"
#include "relax/sdk/plugin.h"
#include "relax/support/diagnostic.h"
#include "rewrite_util.h"
#include "tir_relayout.h"

namespace relax::layout {

using arith::IndexMap;

namespace {

/// The layouts of one op: per operand (empty: unchanged), and of the result.
struct OpLayouts {
  std::vector<std::string> operands;
  std::string out;
  /// The LLVM rules' `weight_panel` attribute for the frozen PrimFunc (0: none): the built-in
  /// llvm request packs a matmul's weight in panels of this width, the layout pack-weights
  /// gives, and the register-blocked rule must then take exactly that panel.
  int64_t weight_panel = 0;
};

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\"'"), e = s.find_last_not_of(" \t\"'\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void parse_entry(const std::string& op, const std::string& spec, std::map<std::string, OpLayouts>& out) {
  RX_CHECK(!op.empty() && !spec.empty())
      << "freeze-layout: an entry needs OP=LAYOUTS, got '" << op << "=" << spec << "'";
  OpLayouts l;
  std::stringstream ss(spec);
  std::string part;
  while (std::getline(ss, part, ':')) l.operands.push_back(trim(part) == "_" ? "" : trim(part));
  if (l.operands.size() >= 3) {
    l.out = l.operands.back();
    l.operands.pop_back();
  } else {
    l.out = l.operands[0];
  }
  out[op] = l;
}

std::map<std::string, OpLayouts> parse_layouts(const std::string& option, const std::string& file) {
  std::map<std::string, OpLayouts> out;
  std::stringstream ss(option);
  std::string entry;
  while (std::getline(ss, entry, ';')) {
    if (trim(entry).empty()) continue;
    size_t eq = entry.find('=');
    RX_CHECK(eq != std::string::npos)
        << "freeze-layout: the entry '" << entry << "' of layouts is not OP=L0:L1[:OUT]";
    parse_entry(trim(entry.substr(0, eq)), trim(entry.substr(eq + 1)), out);
  }
  if (!file.empty()) {
    std::ifstream in(file);
    RX_CHECK(in.good()) << "freeze-layout: cannot read the layouts file " << file;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::string t = trim(line.substr(0, line.find('#')));
      if (t.empty()) continue;
      size_t colon = t.find(": ");
      RX_CHECK(colon != std::string::npos)
          << "freeze-layout: " << file << ":" << n << ": expected 'OP: L0:L1[:OUT]', got '"
          << line << "'";
      parse_entry(trim(t.substr(0, colon)), trim(t.substr(colon + 2)), out);
    }
  }
  return out;
}

/// The index map from a tensor in layout `from` (one upper-case letter per axis) to `to`.
IndexMap layout_map(const std::string& from, const std::string& to, const std::string& where) {
  IndexMap m;
  for (char c : from) m.vars.push_back(tir::var(std::string(1, char(std::tolower(c)))));
  std::map<char, int64_t> inner;  // axis letter -> factor of its inner part
  for (size_t k = 0; k < to.size();) {
    if (std::isdigit(static_cast<unsigned char>(to[k]))) {
      size_t e = k;
      while (e < to.size() && std::isdigit(static_cast<unsigned char>(to[e]))) ++e;
      RX_CHECK(e < to.size() && std::islower(static_cast<unsigned char>(to[e])))
          << "freeze-layout: " << where << ": in layout " << to
          << " a factor must be followed by a lower-case axis letter";
      inner[char(std::toupper(to[e]))] = std::stoll(to.substr(k, e - k));
      k = e + 1;
    } else {
      ++k;
    }
  }
  auto var_of = [&](char upper) -> PrimExpr {
    size_t p = from.find(upper);
    RX_CHECK(p != std::string::npos) << "freeze-layout: " << where << ": layout " << to
                                     << " names axis " << upper << ", which " << from
                                     << " does not have";
    return m.vars[p];
  };
  for (size_t k = 0; k < to.size(); ++k) {
    char c = to[k];
    if (std::isdigit(static_cast<unsigned char>(c))) continue;
    if (std::isupper(static_cast<unsigned char>(c))) {
      auto it = inner.find(c);
      m.results.push_back(it == inner.end() ? var_of(c) : tir::floordiv(var_of(c), it->second));
    } else {
      char u = char(std::toupper(c));
      m.results.push_back(tir::floormod(var_of(u), inner.at(u)));
    }
  }
  return m;
}

/// The current layout letters of operand `k` (k == npos: the result) of `call`.
std::string base_letters(const Call& call, size_t k, size_t rank) {
  std::string name = op_name(call);
  if (name.rfind("relax.nn.conv", 0) == 0 && rank >= 3) {
    std::string spatial = std::string("DHW").substr(3 - std::min<size_t>(3, rank - 2));
    std::string data = get_string(call.attrs, "data_layout", "NC" + spatial);
    if (k == 0) return data;
    if (k == 1) return get_string(call.attrs, "kernel_layout", "OI" + spatial);
    if (k == std::string::npos) return get_string(call.attrs, "out_layout", data);
  }
  return std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZ").substr(0, rank);
}

/// The built-in llvm request (see the file comment), or "".
std::string llvm_request(const std::string& op, const std::vector<std::vector<PrimExpr>>& shapes,
                         int64_t* weight_panel) {
  auto dim = [&](size_t a, size_t d) -> int64_t {
    if (a >= shapes.size() || d >= shapes[a].size()) return 0;
    const int64_t* c = tir::as_const_int(shapes[a][d]);
    return c ? *c : 0;
  };
  auto fit = [](int64_t w, std::vector<int64_t> dims) {
    for (; w >= 2; w /= 2) {
      bool ok = true;
      for (int64_t d : dims) ok &= d > 0 && d % w == 0;
      if (ok) return w;
    }
    return int64_t(0);
  };
  if (op == "relax.nn.conv2d" && shapes.size() >= 2 && shapes[0].size() == 4) {
    if (dim(1, 1) == 1 && dim(0, 1) > 1) {
      // Depthwise (one input channel per group): the weight's output channels take the tile.
      int64_t w = fit(host_lanes(), {dim(0, 1), dim(1, 0)});
      if (w == 0) return "";
      std::string n = std::to_string(w);
      return "NCHW" + n + "c:OIHW" + n + "o:NCHW" + n + "c";
    }
    int64_t w = fit(host_lanes(), {dim(0, 1), dim(1, 0), dim(1, 1)});
    if (w == 0) return "";
    std::string n = std::to_string(w);
    return "NCHW" + n + "c:OIHW" + n + "i" + n + "o:NCHW" + n + "c";
  }
  if (op == "relax.matmul" && shapes.size() >= 2 && shapes[1].size() == 2) {
    int64_t w = fit(host_lanes(), {dim(1, 1)});
    if (w == 0) return "";
    *weight_panel = w;
    return "_:BA" + std::to_string(w) + "b:_";
  }
  return "";
}

class Freezer {
 public:
  Freezer(IRModule& mod, std::map<std::string, OpLayouts> layouts, int64_t vector_width,
          std::string request, int64_t narrow_input)
      : mod_(mod), layouts_(std::move(layouts)), width_(vector_width), request_(std::move(request)),
        narrow_input_(narrow_input) {}

  Ref<Function> run(const Ref<Function>& func) {
    auto* seq = func->body.as<SeqExpr>();
    if (seq == nullptr) return func;
    std::vector<Block> blocks;
    bool changed = false;
    for (const Block& b : seq->blocks) {
      std::vector<Binding> out;
      for (const Binding& bind : b->bindings) {
        auto* call = bind->value.as<Call>();
        if (b->is_dataflow() && call != nullptr && bind.is<VarBinding>() &&
            freeze(*call, bind->var, &out)) {
          changed = true;
          continue;
        }
        out.push_back(bind);
      }
      blocks.push_back(make_block(out, b->is_dataflow()));
    }
    if (!changed) return func;
    return make_ref<Function>(func->params, make_ref<SeqExpr>(blocks, seq->body),
                              func->ret_struct_info, func->is_pure, func->attrs, func->span);
  }

 private:
  /// The layouts for `call`; `requested` says they came from a backend request (advisory).
  std::optional<OpLayouts> layouts_for(const Call& call, bool* requested) const {
    std::string name = op_name(call);
    *requested = false;
    auto it = layouts_.find(name);
    if (it != layouts_.end()) return it->second;
    if (width_ > 1 && name == "relax.nn.conv2d") {
      std::string w = std::to_string(width_);
      return OpLayouts{{"NCHW" + w + "c", "OIHW" + w + "i" + w + "o"}, "NCHW" + w + "c"};
    }
    if (request_.empty()) return std::nullopt;
    std::vector<std::vector<PrimExpr>> shapes;
    std::string text;
    for (const Expr& a : call.args) {
      auto s = shape_of(a);
      shapes.push_back(s.value_or(std::vector<PrimExpr>{}));
      if (!text.empty()) text += ";";
      for (size_t d = 0; s && d < s->size(); ++d) text += (d ? "x" : "") + tir::to_string((*s)[d]);
    }
    std::string spec;
    int64_t weight_panel = 0;
    runtime::PackedFunc f = runtime::Registry::get("layout.request." + request_);
    if (f.defined()) {
      spec = f.call(name, text).as_string();
    } else if (request_ == "llvm") {
      spec = llvm_request(name, shapes, &weight_panel);
    }
    if (spec.empty()) return std::nullopt;
    std::map<std::string, OpLayouts> one;
    parse_entry(name, spec, one);
    *requested = true;
    one.begin()->second.weight_panel = weight_panel;
    return one.begin()->second;
  }

  bool freeze(const Call& call, const Ref<VarNode>& var, std::vector<Binding>* out) {
    std::string name = op_name(call);
    bool requested = false;
    auto* op = call.op.as<Op>();
    if (op == nullptr || !op->info->legalize) return false;
    auto spec = layouts_for(call, &requested);
    if (!spec) return false;
    if (!spec->operands.empty() && narrow_data(call)) spec->operands[0].clear();
    std::string where = name + " at " + var->name;
    // A backend's request is advisory: one that does not fit the tensors is skipped.
    if (requested && !fits(call, *spec)) return false;
    auto* res = get_struct_info(Expr(&call)).as<TensorStructInfo>();
    RX_CHECK(res != nullptr && res->shape) << "freeze-layout: " << where
                                           << ": the result is not a tensor of known shape";
    RX_CHECK(spec->operands.size() <= call.args.size())
        << "freeze-layout: " << where << ": " << spec->operands.size()
        << " operand layouts given for " << call.args.size() << " operands";
    BlockBuilder bb(mod_);
    Expr legal = op->info->legalize(bb, call);
    auto* lc = legal.as<Call>();
    RX_CHECK(lc != nullptr && op_name(*lc) == "relax.call_tir" &&
             (lc->args.size() == 2 || (lc->args.size() == 3 && lc->args[2].is<ShapeExpr>())))
        << "freeze-layout: " << where << " does not legalise to one call_tir";
    // Symbolic shapes: the values of the PrimFunc's extra shape parameters go along.
    std::optional<std::vector<PrimExpr>> tir_vars;
    if (lc->args.size() == 3) tir_vars = lc->args[2].as<ShapeExpr>()->values;
    auto* gv = lc->args[0].as<GlobalVar>();
    auto* args = lc->args[1].as<Tuple>();
    Ref<tir::PrimFunc> prim = bb.module().lookup(gv->name).as_ref<tir::PrimFunc>();
    RX_CHECK(prim && args->fields.size() == call.args.size())
        << "freeze-layout: " << where << ": its PrimFunc does not take the op's operands";
    std::vector<std::optional<IndexMap>> maps(prim->params.size());
    std::vector<Expr> inputs;
    for (size_t k = 0; k < call.args.size(); ++k) {
      auto shape = shape_of(call.args[k]);
      std::string to = k < spec->operands.size() ? spec->operands[k] : "";
      if (to.empty() || !shape) {
        inputs.push_back(call.args[k]);
        continue;
      }
      maps[k] = layout_map(base_letters(call, k, shape->size()), to, where);
      check_map(*maps[k], *shape, to, where);
      if (arith::is_identity_map(*maps[k], *shape)) {  // already in that layout
        maps[k].reset();
        inputs.push_back(call.args[k]);
        continue;
      }
      Expr value = bb.normalize(apply_map(call.args[k], *maps[k]));
      auto* v = call.args[k].as<VarNode>();
      Ref<VarNode> t = make_dataflow_var((v ? v->name : std::string("c")) + "_" + to, get_struct_info(value));
      out->push_back(make_ref<VarBinding>(t, value));
      inputs.push_back(t);
    }
    IndexMap out_map;
    bool keep_out = spec->out.empty();
    if (!keep_out) {
      out_map = layout_map(base_letters(call, std::string::npos, res->shape->size()), spec->out,
                           where);
      check_map(out_map, *res->shape, spec->out, where);
      keep_out = arith::is_identity_map(out_map, *res->shape);
    }
    if (!keep_out) maps[call.args.size()] = out_map;
    std::string why;
    auto relaid = relayout_frozen(prim, maps, call.args.size(), &why);
    RX_CHECK(relaid.has_value()) << "freeze-layout: " << where << ": " << why;
    Attrs attrs = with_attr((*relaid)->attrs, "layout_frozen", true);
    if (spec->weight_panel > 0) attrs = with_attr(attrs, kAttrWeightPanel, spec->weight_panel);
    Ref<tir::PrimFunc> frozen = make_ref<tir::PrimFunc>((*relaid)->params, (*relaid)->body,
                                                        (*relaid)->buffer_map, attrs,
                                                        (*relaid)->ret_type);
    Ref<GlobalVar> fgv = mod_.add(fresh_name(gv->name + "_frozen"), frozen);
    std::vector<PrimExpr> out_shape =
        keep_out ? *res->shape : *arith::mapped_shape(out_map, *res->shape);
    Expr y = bb.normalize(
        op::call_tir(fgv, inputs, {tensor_sinfo(out_shape, res->dtype, res->vdevice)}, tir_vars));
    if (keep_out) {
      out->push_back(make_ref<VarBinding>(var, y));
      return true;
    }
    Ref<VarNode> yt = make_dataflow_var(var->name + "_" + spec->out, get_struct_info(y));
    out->push_back(make_ref<VarBinding>(yt, y));
    auto inv = arith::inverse_map(out_map, *res->shape);
    out->push_back(make_ref<VarBinding>(var, bb.normalize(apply_map(yt, *inv))));
    return true;
  }

  /// A convolution whose data has at most narrow_input_ channels (see the file comment).
  bool narrow_data(const Call& call) const {
    std::string name = op_name(call);
    if (narrow_input_ <= 0 || name.rfind("relax.nn.conv", 0) != 0 ||
        name.find("transpose") != std::string::npos)
      return false;
    auto shape = shape_of(call.args.at(0));
    size_t c = shape ? base_letters(call, 0, shape->size()).find('C') : std::string::npos;
    const int64_t* channels =
        shape && c < shape->size() ? tir::as_const_int((*shape)[c]) : nullptr;
    return channels != nullptr && *channels <= narrow_input_;
  }

  static bool fits(const Call& call, const OpLayouts& spec) {
    try {
      auto* res = get_struct_info(Expr(&call)).as<TensorStructInfo>();
      if (res == nullptr || !res->shape || spec.operands.size() > call.args.size()) return false;
      for (size_t k = 0; k < spec.operands.size(); ++k) {
        auto shape = shape_of(call.args[k]);
        if (spec.operands[k].empty()) continue;
        if (!shape) return false;
        check_map(layout_map(base_letters(call, k, shape->size()), spec.operands[k], ""), *shape,
                  spec.operands[k], "");
      }
      if (!spec.out.empty())
        check_map(layout_map(base_letters(call, std::string::npos, res->shape->size()), spec.out, ""),
                  *res->shape, spec.out, "");
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  static void check_map(const IndexMap& m, const std::vector<PrimExpr>& shape,
                        const std::string& layout, const std::string& where) {
    RX_CHECK(m.vars.size() == shape.size())
        << "freeze-layout: " << where << ": layout " << layout << " is over " << m.vars.size()
        << " axes but the tensor has rank " << shape.size();
    bool padded = false;
    RX_CHECK(arith::inverse_map(m, shape, &padded) && !padded)
        << "freeze-layout: " << where << ": layout " << layout << " (" << m.to_string()
        << ") does not divide the tensor of shape " << shape_text(shape)
        << " or names an axis twice";
  }
  static std::string shape_text(const std::vector<PrimExpr>& s) {
    std::string t = "(";
    for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + tir::to_string(s[k]);
    return t + ")";
  }
  std::string fresh_name(const std::string& base) {
    for (int k = 0;; ++k) {
      std::string n = k == 0 ? base : base + std::to_string(k);
      bool taken = false;
      for (const auto& e : mod_.functions()) taken |= e.gv->name == n;
      if (!taken) return n;
    }
  }

  IRModule& mod_;
  std::map<std::string, OpLayouts> layouts_;
  int64_t width_;
  std::string request_;
  int64_t narrow_input_;
};

IRModule freeze_layout(const IRModule& in, const transform::PassOptions& opts,
                       transform::PassContext&) {
  IRModule mod = in;
  Freezer f(mod, parse_layouts(opts.get_string("layouts"), opts.get_string("file")),
            opts.get_int("vector-width"), opts.get_string("request"), opts.get_int("narrow-input"));
  for (const auto& e : in.functions())
    if (auto* fn = e.func.as<Function>()) mod.update(e.gv, f.run(Ref<Function>(fn)));
  return mod;
}

}  // namespace

void register_freeze_layout(transform::PluginRegistrar& r) {
  r.add_pass({"freeze-layout",
              "Run layout-critical ops in user-chosen (tiled) layouts, frozen, with rewrites around",
              transform::Granularity::kModule,
              {{"layouts", transform::OptionType::kString, std::string(""),
                "OP=L0:L1[:OUT];...: operand and result layouts per op (NCHW16c, OIHW16i16o, _)"},
               {"file", transform::OptionType::kString, std::string(""),
                "a YAML file of 'OP: L0:L1[:OUT]' lines, read after `layouts`"},
               {"vector-width", transform::OptionType::kInt, int64_t(0),
                "N > 1: conv2d not listed runs in NCHW{N}c / OIHW{N}i{N}o"},
               {"request", transform::OptionType::kString, std::string(""),
                "a target kind: ops not listed take the layouts its layout.request.KIND asks"},
               {"narrow-input", transform::OptionType::kInt, int64_t(0),
                "a convolution whose data has at most this many channels keeps the data's "
                "layout (0: off; the default pipeline gives 4)"}}},
             transform::ModuleTransform(freeze_layout));
}

}  // namespace relax::layout
