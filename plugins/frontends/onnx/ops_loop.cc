// ONNX converters: Loop and Scan, both through one recursive Relax function (build_loop), the
// body imported with import_subgraph (ops_control.cc, which describes subgraph import).
//  - Loop: a private recursive Relax function per node,
//      loop(i, [M,] cond, v..., captured..., scans...) =
//        if (i < M and cond): loop(i + 1, [M,] body(i, cond, v...), captured..., scans ++ s)
//        else: (v..., scans...)
//    The body is imported inline into the then-branch. Outer values the body reads become
//    parameters (`captured`), except constants and values folded at import time. A loop-carried
//    value keeps its struct info when the body maps it to the same shape (found by importing
//    the body once into a scratch builder); otherwise its parameter keeps dtype and rank with
//    fresh symbolic dims, so it may change shape across iterations. Scan outputs are accumulated
//    along a new axis 0 by concatenation; the first iteration starts the accumulator, so its
//    parameter is an opaque object until then (match_cast to a tensor of the body's element type
//    where it is grown). After the call, the results get fresh symbolic dims through match_cast
//    (they depend on the iteration count). A loop that runs zero times yields scan outputs of shape
//    (0, 1, ..., 1): their element shape is unknown without an iteration.
//  - Scan: the same recursion with M = the scan inputs' (static) length; iteration i takes
//    element i (or L-1-i for a reverse scan input) along each input's scan axis, and scan
//    outputs are reversed / moved to their scan_output_axes afterwards. Scan-8 (a batch axis 0
//    everywhere, sequence_lens first) runs one such scan per batch entry of a static batch and
//    stacks the results; sequence_lens is refused.
//  - A Loop carrying a sequence is unrolled at import instead (unroll_loop): the trip count and
//    the condition must then be known there.
#include <algorithm>

#include "importer.h"
#include "relax/arith/analyzer.h"
#include "relax/ir/struct_info.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;
using Graph = onnx::GraphProto;

/// What varies between Loop and Scan.
struct LoopParts {
  std::string name;
  std::optional<Expr> trip_count;  ///< int64 scalar; none: until the condition fails
  Expr cond;                       ///< bool scalar (true when the node has none)
  std::vector<Expr> carried;       ///< initial loop-carried values
  std::vector<Expr> pass_through;  ///< values every iteration reads unchanged (scan inputs)
  size_t scans = 0;                ///< the number of scan outputs
  const Graph* body = nullptr;
  /// The body's inputs from the iteration number, the condition, the carried values and the
  /// pass-through values (as parameters).
  std::function<std::vector<Expr>(BlockBuilder& bb, Expr i, Expr cond,
                                  const std::vector<Expr>& carried, const std::vector<Expr>& pass)>
      body_inputs;
  /// Whether the body's outputs start with the next condition (Loop) or not (Scan).
  bool body_yields_cond = true;
};

/// Whether `e` provably has the shape and dtype of `like`.
bool same_tensor(const Expr& e, const Expr& like, arith::Analyzer& ana) {
  const TensorStructInfo* a = tensor_info(e);
  const TensorStructInfo* b = tensor_info(like);
  if (!a || !b || !a->shape || !b->shape || a->dtype != b->dtype || a->ndim != b->ndim)
    return false;
  for (size_t d = 0; d < a->shape->size(); ++d) {
    if (!ana.can_prove(tir::eq((*a->shape)[d], (*b->shape)[d]))) return false;
  }
  return true;
}

/// A parameter struct info for a loop-carried value: its dtype and rank, fresh symbolic dims.
StructInfo loose_sinfo(const StructInfo& s, const std::string& hint) {
  const auto* t = s.as<TensorStructInfo>();
  if (!t || t->ndim < 0) return s;
  std::vector<PrimExpr> dims;
  for (int d = 0; d < t->ndim; ++d) dims.push_back(tir::var(hint + "_d" + std::to_string(d)));
  return tensor_sinfo(dims, t->dtype);
}

/// Emits the recursive function for `p` and its call; returns the final carried values then the
/// scan outputs (tensors with symbolic dims).
std::vector<Expr> build_loop(Context& ctx, const Node& node, const LoopParts& p) {
  BlockBuilder& bb = ctx.bb();
  std::string where = ctx.where(node);
  // Outer values the body reads that are run-time values become parameters.
  std::vector<std::string> captured_names;
  std::vector<Expr> captured;
  for (const std::string& name : free_names(*p.body)) {
    if (!ctx.has(name)) continue;
    const OnnxValue& v = ctx.value(name);
    if (!v.expr.defined() || v.expr.is<Constant>()) continue;
    captured_names.push_back(name);
    captured.push_back(v.expr);
  }
  // The parameters; exact[k]: loop-carried value k keeps its struct info (the body maps it to
  // the same shape), else it gets fresh symbolic dims.
  auto i64 = tensor_sinfo(std::vector<PrimExpr>{}, DataType::Int(64));
  auto boolean = tensor_sinfo(std::vector<PrimExpr>{}, DataType::Bool());
  size_t first_carried = p.trip_count ? 3 : 2;
  size_t first_pass = first_carried + p.carried.size();
  size_t first_captured = first_pass + p.pass_through.size();
  size_t first_scan = first_captured + captured.size();
  auto make_params = [&](const std::vector<bool>& exact) {
    std::vector<Ref<Var>> ps = {make_var("i", i64)};
    if (p.trip_count) ps.push_back(make_var("trip_count", i64));
    ps.push_back(make_var("cond", boolean));
    for (size_t k = 0; k < p.carried.size(); ++k) {
      std::string n = "v" + std::to_string(k);
      const StructInfo& s = get_struct_info(p.carried[k]);
      ps.push_back(make_var(n, exact[k] ? s : loose_sinfo(s, n)));
    }
    for (size_t k = 0; k < p.pass_through.size(); ++k) {
      ps.push_back(make_var("x" + std::to_string(k), get_struct_info(p.pass_through[k])));
    }
    for (size_t k = 0; k < captured.size(); ++k) {
      ps.push_back(make_var(binding_name(captured_names[k]), get_struct_info(captured[k])));
    }
    for (size_t k = 0; k < p.scans; ++k)
      ps.push_back(make_var("scan" + std::to_string(k), object_sinfo()));
    return ps;
  };
  auto slice = [](const std::vector<Ref<Var>>& ps, size_t first, size_t n) {
    return std::vector<Expr>(ps.begin() + std::ptrdiff_t(first),
                             ps.begin() + std::ptrdiff_t(first + n));
  };
  size_t first_out = p.body_yields_cond ? 1 : 0;
  auto import_body = [&](BlockBuilder& b, const std::vector<Ref<Var>>& ps) {
    std::map<std::string, Expr> replaced;
    for (size_t k = 0; k < captured.size(); ++k)
      replaced[captured_names[k]] = ps[first_captured + k];
    std::vector<Expr> in =
        p.body_inputs(b, ps[0], ps[first_carried - 1], slice(ps, first_carried, p.carried.size()),
                      slice(ps, first_pass, p.pass_through.size()));
    return import_subgraph(ctx, b, *p.body, in, replaced);
  };
  // Probe the body in a scratch builder: which loop-carried values keep their shape? Loosening
  // one may change others, hence the rounds.
  std::vector<bool> exact(p.carried.size(), true);
  for (size_t round = 0; round <= p.carried.size(); ++round) {
    BlockBuilder probe;
    std::vector<Ref<Var>> ps = make_params(exact);
    probe.begin_function(p.name, ps);
    probe.begin_binding_block();
    std::vector<Expr> outs;
    try {
      outs = import_body(probe, ps);
    } catch (const Error&) {
      // The import below reports the error, or succeeds with symbolic shapes.
      std::fill(exact.begin(), exact.end(), false);
      break;
    }
    bool changed = false;
    for (size_t k = 0; k < p.carried.size(); ++k) {
      if (exact[k] && !same_tensor(outs[first_out + k], ps[first_carried + k], probe.analyzer())) {
        exact[k] = false;
        changed = true;
      }
    }
    if (!changed) break;
  }
  std::vector<Ref<Var>> params = make_params(exact);
  std::vector<StructInfo> param_sinfo, ret_fields;
  for (const auto& v : params) param_sinfo.push_back(v->struct_info);
  for (size_t k = 0; k < p.carried.size(); ++k) {
    const StructInfo& s = params[first_carried + k]->struct_info;
    const auto* t = s.as<TensorStructInfo>();
    ret_fields.push_back(t && !exact[k] ? tensor_sinfo(t->dtype, t->ndim) : s);
  }
  for (size_t k = 0; k < p.scans; ++k) ret_fields.push_back(object_sinfo());
  StructInfo ret = tuple_sinfo(ret_fields);
  std::string name = p.name;
  while (bb.module().contains(name)) name += "_";
  Ref<GlobalVar> gv = bb.declare_function(name, func_sinfo(param_sinfo, ret));

  bb.begin_function(name, params);
  bb.begin_binding_block();
  Expr i = params[0];
  Expr cond = params[first_carried - 1];
  Expr go = cond;
  if (p.trip_count) go = bb.emit(op::logical_and(bb.emit(op::less(i, params[1])), cond), "go");
  std::vector<Expr> carried = slice(params, first_carried, p.carried.size());
  std::vector<Expr> pass = slice(params, first_pass, p.pass_through.size());
  std::vector<Expr> scans = slice(params, first_scan, p.scans);

  // Then: one iteration, then the recursive call.
  bb.begin_scope();
  bb.begin_binding_block();
  std::vector<Expr> outs = import_body(bb, params);
  size_t n_carried = p.carried.size();
  RX_ICHECK(outs.size() == (p.body_yields_cond ? 1 : 0) + n_carried + p.scans) << "body outputs";
  std::vector<Expr> args = {bb.emit(op::add(i, scalar_constant(1, DataType::Int(64))), "next_i")};
  if (p.trip_count) args.push_back(params[1]);
  if (p.body_yields_cond) {
    Expr c = as_scalar(ctx, node, outs[0], "the body's condition output");
    RX_CHECK(ctx.tensor(node, c).dtype.is_bool())
        << where << ": the body's condition output must be bool, got "
        << ctx.tensor(node, c).dtype.to_string();
    args.push_back(c);
  } else {
    args.push_back(cond);
  }
  for (size_t k = 0; k < n_carried; ++k) {
    const Expr& v = outs[first_out + k];
    const auto* got = tensor_info(v);
    const auto* want = params[first_carried + k]->struct_info.as<TensorStructInfo>();
    RX_CHECK(!got || !want || (got->ndim == want->ndim && got->dtype == want->dtype))
        << where << ": loop-carried value " << k << " ('"
        << p.body->output(int(first_out + k)).name() << "') is " << to_string(get_struct_info(v))
        << " after an iteration but " << to_string(get_struct_info(p.carried[k]))
        << " before: its dtype and rank must stay";
    args.push_back(v);
  }
  args.insert(args.end(), pass.begin(), pass.end());
  for (size_t k = 0; k < captured.size(); ++k) args.push_back(params[first_captured + k]);
  Expr first_iter = bb.emit(op::equal(i, scalar_constant(0, DataType::Int(64))), "first");
  std::vector<StructInfo> scan_sinfo;  // of the accumulated scan outputs
  for (size_t k = 0; k < p.scans; ++k) {
    const Expr& s = outs[first_out + n_carried + k];
    const auto* got = tensor_info(s);
    RX_CHECK(got) << where << ": scan output " << k << " ('"
                  << p.body->output(int(first_out + n_carried + k)).name()
                  << "') must be a tensor, got " << to_string(get_struct_info(s));
    scan_sinfo.push_back(tensor_sinfo(got->dtype, got->ndim < 0 ? -1 : got->ndim + 1));
    Expr elem = bb.emit(op::expand_dims(s, {0}));
    // The first iteration starts the accumulator (its element shape is unknown before).
    bb.begin_scope();
    bb.begin_binding_block();
    Expr acc_so_far =
        bb.emit_match_cast(scans[k], loose_sinfo(scan_sinfo.back(), "acc" + std::to_string(k)),
                           "acc" + std::to_string(k));
    Expr grown = bb.emit(op::concat({acc_so_far, elem}, 0));
    std::vector<Block> blocks;
    for (auto& b : bb.end_scope()) {
      if (!b->bindings.empty()) blocks.push_back(b);
    }
    Expr acc = bb.emit(make_ref<If>(first_iter, make_ref<SeqExpr>(std::vector<Block>{}, elem),
                                    make_ref<SeqExpr>(std::move(blocks), grown)),
                       "scan" + std::to_string(k));
    args.push_back(acc);
  }
  Expr recurse = bb.emit(make_ref<Call>(gv, args), "rest");
  std::vector<Block> then_blocks;
  for (auto& b : bb.end_scope()) {
    if (!b->bindings.empty()) then_blocks.push_back(b);
  }
  Expr then_branch = make_ref<SeqExpr>(std::move(then_blocks), recurse);
  // Else: the state as it is.
  std::vector<Expr> done = carried;
  done.insert(done.end(), scans.begin(), scans.end());
  bb.begin_scope();
  bb.begin_binding_block();
  Expr done_tuple = bb.normalize(make_tuple(done));
  std::vector<Block> else_blocks;
  for (auto& b : bb.end_scope()) {
    if (!b->bindings.empty()) else_blocks.push_back(b);
  }
  Expr else_branch = make_ref<SeqExpr>(std::move(else_blocks), done_tuple);
  Expr result = bb.emit(make_ref<If>(go, then_branch, else_branch), "result");
  bb.end_function(result, ret);

  // The call, from the enclosing scope.
  std::vector<Expr> call_args = {scalar_constant(0, DataType::Int(64))};
  if (p.trip_count) call_args.push_back(*p.trip_count);
  call_args.push_back(p.cond);
  call_args.insert(call_args.end(), p.carried.begin(), p.carried.end());
  call_args.insert(call_args.end(), p.pass_through.begin(), p.pass_through.end());
  call_args.insert(call_args.end(), captured.begin(), captured.end());
  for (const StructInfo& s : scan_sinfo) {
    const auto& t = *s.as<TensorStructInfo>();
    // Only dim 0 is 0: a kernel indexing a (0, 0) tensor would divide by its dims.
    std::vector<PrimExpr> dims(size_t(std::max(t.ndim, 1)), tir::int_imm(1));
    dims[0] = tir::int_imm(0);
    call_args.push_back(op::zeros(dims, t.dtype));
  }
  Expr returned = bb.emit(make_ref<Call>(gv, call_args), p.name + "_out");
  std::vector<Expr> outs_main;
  for (size_t k = 0; k < p.carried.size() + p.scans; ++k) {
    std::string hint = k < size_t(node.output_size()) ? binding_name(node.output(int(k))) : "v";
    Expr e = bb.emit(make_ref<TupleGetItem>(returned, int(k)));
    if (k >= p.carried.size()) {
      e = bb.emit_match_cast(e, scan_sinfo[k - p.carried.size()], hint + "_t");
    }
    outs_main.push_back(with_symbolic_shape(bb, e, hint));
  }
  return outs_main;
}

/// A one-element value's truth when known at import; none otherwise.
std::optional<bool> known_truth(const OnnxValue& v) {
  std::optional<std::vector<double>> c = const_floats(v);
  if (!c || c->size() != 1) return std::nullopt;
  return (*c)[0] != 0;
}

/// The most iterations a Loop is unrolled to.
constexpr int64_t kMaxUnrolledIterations = 1024;

/// A Loop that carries a sequence, unrolled at import: the sequence's length changes every
/// iteration, which no parameter of the recursive loop function can express (a tuple has a
/// fixed arity), so the body is imported once per iteration with the iteration number as a
/// constant. That needs the trip count and the condition at import: M a constant (or absent),
/// the condition input a constant, and the body's condition output a constant after each
/// iteration's import (the usual `cond_out = Identity(cond_in)` or a folded comparison);
/// otherwise an error naming the node says which. Scan outputs are stacked along axis 0.
std::vector<OnnxValue> unroll_loop(Context& ctx, const Node& node, const LoopParts& p,
                                   const std::string& sequence_input) {
  BlockBuilder& bb = ctx.bb();
  std::string where = ctx.where(node);
  std::string why = " (it carries the sequence '" + sequence_input +
                    "', so it is unrolled at import: a sequence's length is fixed at import)";
  std::optional<int64_t> trips;  // none: until the condition fails
  if (p.trip_count) {
    std::optional<std::vector<PrimExpr>> m = ctx.known_ints(node, 0);
    const int64_t* c = m && m->size() == 1 ? tir::as_const_int((*m)[0]) : nullptr;
    RX_CHECK(c) << where << ": the trip count M (input '" << node.input(0)
                << "') must be a constant" << why;
    trips = *c;
  }
  std::optional<bool> go = true;
  if (Context::has_input(node, 1)) go = known_truth(ctx.value(node.input(1)));
  RX_CHECK(go) << where << ": the condition (input '" << node.input(1) << "') must be a constant"
               << why;
  std::vector<OnnxValue> carried;
  for (int k = 2; k < node.input_size(); ++k) carried.push_back(ctx.value(node.input(k)));
  std::vector<std::vector<Expr>> scans(p.scans);
  int64_t i = 0;
  for (; *go && (!trips || i < *trips); ++i) {
    RX_CHECK(i < kMaxUnrolledIterations)
        << where << ": the loop runs more than " << kMaxUnrolledIterations
        << " iterations, the most it is unrolled to" << why;
    std::vector<OnnxValue> in = {
        Context::tensor_value(scalar_constant(double(i), DataType::Int(64))),
        Context::tensor_value(scalar_constant(1, DataType::Bool()))};
    in.insert(in.end(), carried.begin(), carried.end());
    std::vector<OnnxValue> values;
    std::vector<Expr> outs = import_subgraph(ctx, bb, *p.body, in, {}, &values);
    RX_ICHECK(outs.size() == 1 + carried.size() + p.scans) << "body outputs";
    go = known_truth(values[0]);
    RX_CHECK(go) << where << ": the body's condition output ('" << p.body->output(0).name()
                 << "') must be a constant after iteration " << i << why;
    for (size_t k = 0; k < carried.size(); ++k) {
      bool was_seq = carried[k].sequence.has_value();
      RX_CHECK(was_seq == values[1 + k].sequence.has_value())
          << where << ": loop-carried value " << k << " ('" << p.body->output(int(1 + k)).name()
          << "') is " << (was_seq ? "a sequence" : "a tensor") << " before iteration " << i
          << " and " << (was_seq ? "not a sequence" : "a sequence") << " after it";
      carried[k] = values[1 + k];
    }
    for (size_t k = 0; k < p.scans; ++k) {
      const Expr& s = outs[1 + carried.size() + k];
      RX_CHECK(tensor_info(s)) << where << ": scan output " << k << " ('"
                               << p.body->output(int(1 + carried.size() + k)).name()
                               << "') must be a tensor, got " << to_string(get_struct_info(s));
      scans[k].push_back(s);
    }
  }
  RX_CHECK(p.scans == 0 || i > 0)
      << where << ": the loop runs no iteration, so its scan outputs' element shape is unknown"
      << why;
  std::vector<OnnxValue> outs = carried;
  for (size_t k = 0; k < p.scans; ++k) {
    std::string hint = binding_name(node.output(int(carried.size() + k)));
    outs.push_back(Context::tensor_value(bb.emit(op::stack(scans[k], 0), hint)));
  }
  return outs;
}

std::vector<OnnxValue> convert_loop(Context& ctx, const Node& node) {
  const Graph* body = graph_attr(node, "body");
  RX_ICHECK(body) << "check_control_node admitted a Loop without a body";
  LoopParts p;
  p.name = "loop_" + binding_name(node.name().empty() ? node.output(0) : node.name());
  p.body = body;
  if (Context::has_input(node, 0)) {
    Expr m = as_scalar(ctx, node, ctx.input(node, 0), "the trip count M");
    if (!ctx.tensor(node, m).dtype.is_int() || ctx.tensor(node, m).dtype.bits != 64) {
      m = ctx.bb().emit(op::astype(m, DataType::Int(64)));
    }
    p.trip_count = m;
  }
  p.cond = Context::has_input(node, 1) ? as_scalar(ctx, node, ctx.input(node, 1), "the condition")
                                       : scalar_constant(1, DataType::Bool());
  for (int k = 2; k < node.input_size(); ++k) p.carried.push_back(ctx.input(node, k));
  p.scans = size_t(body->output_size()) - 1 - p.carried.size();
  p.body_inputs = [](BlockBuilder&, Expr i, Expr cond, const std::vector<Expr>& carried,
                     const std::vector<Expr>&) {
    std::vector<Expr> in = {i, cond};
    in.insert(in.end(), carried.begin(), carried.end());
    return in;
  };
  for (int k = 2; k < node.input_size(); ++k) {
    if (ctx.value(node.input(k)).sequence) return unroll_loop(ctx, node, p, node.input(k));
  }
  std::vector<OnnxValue> outs;
  for (const Expr& e : build_loop(ctx, node, p)) outs.push_back(Context::tensor_value(e));
  return outs;
}

/// One scan over `states` and `inputs` (their scan axes and directions given): the final
/// states, then the scan outputs accumulated along a new axis 0.
std::vector<Expr> scan_once(Context& ctx, const Node& node, const std::string& name,
                            const std::vector<Expr>& states, const std::vector<Expr>& inputs,
                            std::vector<int64_t> in_axes, const std::vector<int64_t>& in_dirs,
                            size_t n_scan_out) {
  LoopParts p;
  p.name = name;
  p.body = graph_attr(node, "body");
  RX_ICHECK(p.body) << "check_control_node admitted a Scan without a body";
  p.body_yields_cond = false;
  p.cond = scalar_constant(1, DataType::Bool());
  p.carried = states;
  std::optional<int64_t> length;
  for (size_t k = 0; k < inputs.size(); ++k) {
    int rank = ctx.ndim(node, inputs[k]);
    in_axes[k] = normalize_axis(in_axes[k], rank, ctx.where(node));
    PrimExpr len = ctx.shape_of(node, inputs[k], "Scan")[size_t(in_axes[k])];
    const int64_t* c = tir::as_const_int(len);
    RX_CHECK(c) << ctx.where(node) << ": the scan length of scan input " << k << " ("
                << tir::to_string(len) << ") must be static";
    RX_CHECK(!length || *length == *c) << ctx.where(node) << ": scan input " << k << " has length "
                                       << *c << ", the earlier ones " << *length;
    length = *c;
  }
  RX_CHECK(length) << ctx.where(node) << ": a Scan needs at least one scan input";
  p.pass_through = inputs;
  p.trip_count = scalar_constant(double(*length), DataType::Int(64));
  p.scans = n_scan_out;
  int64_t last = *length - 1;
  p.body_inputs = [&, last](BlockBuilder& b, Expr i, Expr, const std::vector<Expr>& carried,
                            const std::vector<Expr>& pass) {
    std::vector<Expr> in = carried;
    for (size_t k = 0; k < pass.size(); ++k) {
      Expr idx =
          in_dirs[k]
              ? Expr(b.emit(op::subtract(scalar_constant(double(last), DataType::Int(64)), i)))
              : i;
      in.push_back(b.emit(op::take(pass[k], idx, in_axes[k])));
    }
    return in;
  };
  return build_loop(ctx, node, p);
}

std::vector<OnnxValue> convert_scan(Context& ctx, const Node& node) {
  BlockBuilder& bb = ctx.bb();
  // Scan-8 has sequence_lens first, and a batch axis 0 on every input and output.
  bool batched = ctx.opset() < 9;
  int first_input = batched ? 1 : 0;
  int64_t n_scan_in = attr_int(node, "num_scan_inputs", 0);
  int64_t n_state = node.input_size() - first_input - n_scan_in;
  int64_t n_scan_out = node.output_size() - n_state;
  auto per_input = [&](const std::string& name, int64_t count) {
    std::vector<int64_t> v = attr_ints(node, name).value_or(std::vector<int64_t>(size_t(count), 0));
    RX_CHECK(int64_t(v.size()) == count)
        << ctx.where(node) << ": " << name << " has " << v.size() << " values; expected " << count;
    return v;
  };
  std::string name = "scan_" + binding_name(node.name().empty() ? node.output(0) : node.name());
  std::vector<Expr> states, inputs;
  // Every scan input has a scan axis, and with Scan-8 every state and scan input also has the
  // batch axis 0 before it: check the ranks here, naming the input, before any dim is read.
  auto need_rank = [&](int index, int min_rank, const char* role, const char* axes) {
    Expr x = ctx.input(node, index);
    int rank = ctx.ndim(node, x);
    RX_CHECK(rank >= min_rank) << ctx.where(node) << ": " << role << " '" << node.input(index)
                               << "' has rank " << rank << "; expected rank >= " << min_rank
                               << " (" << axes << ")";
    return x;
  };
  for (int64_t k = 0; k < n_state; ++k) {
    int index = int(first_input + k);
    states.push_back(batched ? need_rank(index, 1, "state input", "a batch axis 0")
                             : ctx.input(node, index));
  }
  for (int64_t k = 0; k < n_scan_in; ++k) {
    inputs.push_back(need_rank(int(first_input + n_state + k), batched ? 2 : 1, "scan input",
                               batched ? "a batch axis 0 and a scan axis 1" : "a scan axis"));
  }
  std::vector<OnnxValue> outs;
  if (batched) {
    RX_CHECK(!Context::has_input(node, 0))
        << ctx.where(node) << ": sequence_lens is not supported (every sequence must have the "
        << "full length)";
    std::vector<int64_t> dirs = per_input("directions", n_scan_in);
    PrimExpr batch = ctx.shape_of(node, inputs.at(0), "Scan")[0];
    const int64_t* b = tir::as_const_int(batch);
    RX_CHECK(b) << ctx.where(node) << ": the batch size (" << tir::to_string(batch)
                << ") must be static";
    // One scan per batch entry (the body sees no batch axis), stacked back.
    std::vector<std::vector<Expr>> per_batch(size_t(n_state + n_scan_out));
    for (int64_t e = 0; e < *b; ++e) {
      auto entry = [&](const Expr& x) {
        return Expr(bb.emit(op::take(x, scalar_constant(double(e), DataType::Int(64)), 0)));
      };
      std::vector<Expr> st, in;
      for (const Expr& x : states) st.push_back(entry(x));
      for (const Expr& x : inputs) in.push_back(entry(x));
      std::vector<Expr> r =
          scan_once(ctx, node, name, st, in, std::vector<int64_t>(size_t(n_scan_in), 0), dirs,
                    size_t(n_scan_out));
      for (size_t k = 0; k < r.size(); ++k) per_batch[k].push_back(r[k]);
    }
    for (int64_t k = 0; k < n_state + n_scan_out; ++k) {
      std::string hint = binding_name(node.output(int(k)));
      Expr s = bb.emit(op::stack(per_batch[size_t(k)], 0));
      outs.push_back(Context::tensor_value(with_symbolic_shape(bb, s, hint)));
    }
    return outs;
  }
  std::vector<int64_t> out_axes = per_input("scan_output_axes", n_scan_out);
  std::vector<int64_t> out_dirs = per_input("scan_output_directions", n_scan_out);
  std::vector<Expr> results =
      scan_once(ctx, node, name, states, inputs, per_input("scan_input_axes", n_scan_in),
                per_input("scan_input_directions", n_scan_in), size_t(n_scan_out));
  for (int64_t k = 0; k < n_state; ++k) outs.push_back(Context::tensor_value(results[size_t(k)]));
  for (int64_t k = 0; k < n_scan_out; ++k) {
    std::string hint = binding_name(node.output(int(n_state + k)));
    Expr s = results[size_t(n_state + k)];
    if (out_dirs[size_t(k)]) s = bb.emit(op::flip(s, 0));
    int rank = ctx.ndim(node, s);
    int64_t axis = normalize_axis(out_axes[size_t(k)], rank, ctx.where(node));
    if (axis != 0) {
      std::vector<int64_t> perm;
      for (int64_t d = 1; d < rank; ++d) perm.push_back(d);
      perm.insert(perm.begin() + axis, 0);
      s = bb.emit(op::permute_dims(s, perm));
    }
    outs.push_back(Context::tensor_value(with_symbolic_shape(bb, s, hint)));
  }
  return outs;
}

}  // namespace

void register_loop_ops(std::map<std::string, ConverterEntry>& t) {
  t["Loop"] = {convert_loop, 1};
  t["Scan"] = {convert_scan, 8};
}

}  // namespace relax::onnx_frontend
