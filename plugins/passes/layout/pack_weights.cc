// pack-weights: stores the right operand of matmul- and convolution-like kernels in column
// panels, transforming a constant at compile time and a large activation at run time.
//
// A register-blocked micro-kernel (the LLVM backend's schedule_rules.h) reads the right operand
// B[k, j] one panel of P consecutive columns per k step: in row-major B those rows are N
// elements apart (4 KiB for N = 1024 floats, the same L1 set and a new page for every k). When
// every call site passes B as a Relax Constant, the pass rewrites the kernel to read
//   B'[j // P, k, j % P]        (B'[j // P, ..., j % P] for more leading dimensions)
// and replaces the constant by B' (shape [ceil(N / P), ..., P], the padding zero), computed
// natively here: a panel's k rows are then contiguous. The kernel gets the attribute
// `weight_panel` = P, which makes the backend use exactly P as its column panel, so the
// indices simplify to B'[jo, k, ji].
//
// A large right operand that is not a constant (a GEMM of two activations: half a MiB or more,
// read by 256 rows or more) is packed at run time instead, by a relax.layout_transform into the
// same panels emitted before the call (option runtime, on): the copy is a few percent of the
// kernel, which then reads contiguous panels. (A 1024^3 GEMM with B a parameter: 59% of the
// FMA peak on two threads unpacked, see bench/README.)
//
// A parameter is packed when every call_tir of the PrimFunc passes a Constant (or such an
// operand) for it and every access to it is a load in a block with two or more spatial and one
// or more reduce iteration variables whose last index is the block's last spatial variable, used
// by no other index (matmul's B[k, j], batch matmul's B[b, k, j], an NHWC convolution's HWIO
// weight W[kh, kw, ic, oc]), in a block that reads another operand the column does not index (a
// depthwise convolution, whose input follows the channel too, is left alone). A PrimFunc with
// call sites that disagree (a weight at one, a small activation at another) keeps that
// parameter unpacked; one constant passed to several calls is packed once.
//
// Option `panel` (default -1: the backend's column panel for the host's vectors, 64 with
// AVX-512, 16 with AVX2): the widest P; a kernel with N columns gets the panel_for(N) below, a
// width that divides N where one exists; 0 turns the pass off (as does leaving it out of the
// pipeline). The vectors are the host's, at most half the panel (panel 16 on an AVX-512 host
// sizes for 8 lanes: give 16 when compiling for AVX2 elsewhere). Expects: after fuse-tir,
// before call-tir-rewrite (the PrimFuncs still have their blocks). Guarantees: the same values.
#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relax/ir/expr_functor.h"
#include "relax/ir/op.h"
#include "relax/op/op.h"
#include "relax/sdk/plugin.h"
#include "relax/ir/prim_func.h"
#include "relax/tir/stmt_functor.h"
#include "rewrite_util.h"

namespace relax::layout {

namespace {

/// pack_at_run_time's thresholds: the operand's elements and the kernel's output rows.
constexpr int64_t kMinElementsToPackAtRunTime = int64_t(1) << 17;
constexpr int64_t kMinRowsToPackAtRunTime = 256;
/// A kernel whose output has fewer constant rows than this (a row tile) is a matrix-vector
/// product for panel_for.
constexpr int64_t kFewRows = 4;

using transform::PassContext;
using transform::PassOptions;

const Call* as_call_tir(const Expr& e) {
  auto* call = e.as<Call>();
  if (call == nullptr || call->args.size() < 2) return nullptr;
  auto* op = call->op.as<Op>();
  if (op == nullptr || op->name != "relax.call_tir") return nullptr;
  if (!call->args[0].is<GlobalVar>() || !call->args[1].is<Tuple>()) return nullptr;
  return call;
}

/// The call_tir argument tuples of every PrimFunc, and the PrimFuncs referenced other than as
/// a call_tir callee (left alone).
struct CallSites : ExprVisitor {
  std::map<std::string, std::vector<const Tuple*>> calls;
  std::unordered_set<std::string> other_uses;
  using ExprVisitor::visit_;
  void visit_(const Call* op) override {
    if (const Call* call = as_call_tir(Expr(op))) {
      calls[call->args[0].as<GlobalVar>()->name].push_back(call->args[1].as<Tuple>());
      for (size_t i = 1; i < call->args.size(); ++i) visit_expr(call->args[i]);
      visit_expr(call->op);
      return;
    }
    ExprVisitor::visit_(op);
  }
  void visit_(const GlobalVar* op) override { other_uses.insert(op->name); }
};

/// Which of the candidate buffers are accessed only as the header describes.
class AccessCheck : public tir::StmtExprVisitor {
 public:
  explicit AccessCheck(std::unordered_set<const tir::Buffer*> candidates)
      : ok_(std::move(candidates)) {}
  const std::unordered_set<const tir::Buffer*>& ok() const { return ok_; }

  using tir::StmtExprVisitor::visit_;
  void visit_(const tir::Block* op) override {
    for (const auto& m : op->match_buffers) {
      ok_.erase(m.buffer.get());
      ok_.erase(m.source.buffer.get());
    }
    for (const auto& b : op->alloc_buffers) ok_.erase(b.get());
    for (const auto& w : op->writes) ok_.erase(w.buffer.get());
    const tir::Block* outer = block_;
    block_ = op;
    tir::StmtExprVisitor::visit_(op);
    block_ = outer;
  }
  void visit_(const tir::BufferStore* op) override {
    ok_.erase(op->buffer.get());
    tir::StmtExprVisitor::visit_(op);
  }
  void visit_(const tir::BufferLoad* op) override {
    if (ok_.count(op->buffer.get()) && !column_indexed(*op)) ok_.erase(op->buffer.get());
    tir::StmtExprVisitor::visit_(op);
  }

 private:
  bool column_indexed(const tir::BufferLoad& load) const {
    if (block_ == nullptr || load.indices.size() < 2) return false;
    const tir::Var* column = nullptr;
    int spatial = 0, reduce = 0;
    for (const auto& iv : block_->iter_vars) {
      if (iv->type == tir::IterVarType::kSpatial) ++spatial, column = iv->var.get();
      if (iv->type == tir::IterVarType::kReduce) ++reduce;
      if (iv->type == tir::IterVarType::kOpaque) return false;
    }
    if (spatial < 2 || reduce < 1) return false;
    if (load.indices.back().get() != column) return false;
    for (size_t i = 0; i + 1 < load.indices.size(); ++i)
      if (tir::uses_var(load.indices[i], column)) return false;
    return has_row_operand(load, column);
  }

  /// Whether the block reads an operand other than `load`'s buffer and its own outputs that
  /// the column does not index (a matmul's left operand, broadcast along a tile row). Without
  /// one (a depthwise convolution: the input follows the channel too) the backend vectorises
  /// every operand along the column with the channel-wise rule, which wants the weight's
  /// channel contiguous and unpacked.
  bool has_row_operand(const tir::BufferLoad& load, const tir::Var* column) const {
    bool found = false;
    struct Loads : tir::StmtExprVisitor {
      std::vector<const tir::BufferLoad*> loads;
      using tir::StmtExprVisitor::visit_;
      void visit_(const tir::BufferLoad* op) override {
        loads.push_back(op);
        tir::StmtExprVisitor::visit_(op);
      }
    } loads;
    loads.visit_stmt(block_->body);
    for (const tir::BufferLoad* other : loads.loads) {
      if (other->buffer.get() == load.buffer.get()) continue;
      bool written = std::any_of(block_->writes.begin(), block_->writes.end(),
                                 [&](const auto& w) { return w.buffer.get() == other->buffer.get(); });
      if (written) continue;
      found |= std::none_of(other->indices.begin(), other->indices.end(),
                            [&](const tir::PrimExpr& e) { return tir::uses_var(e, column); });
    }
    return found;
  }

  std::unordered_set<const tir::Buffer*> ok_;
  const tir::Block* block_ = nullptr;
};

/// Rewrites the accesses to each packed buffer B (old -> new) as B'[j // P, ..., j % P].
class PanelRewriter : public tir::StmtExprMutator {
 public:
  PanelRewriter(std::unordered_map<const tir::Buffer*, Ref<tir::Buffer>> packed, int64_t panel)
      : packed_(std::move(packed)), panel_(panel) {}

  using tir::StmtExprMutator::visit_;
  Ref<tir::Buffer> visit_buffer(const Ref<tir::Buffer>& b) override {
    auto it = packed_.find(b.get());
    return it == packed_.end() ? b : it->second;
  }
  tir::PrimExpr visit_(const tir::BufferLoad* op) override {
    auto it = packed_.find(op->buffer.get());
    if (it == packed_.end()) return tir::StmtExprMutator::visit_(op);
    std::vector<tir::PrimExpr> indices;
    for (const auto& i : op->indices) indices.push_back(visit_expr(i));
    return tir::buffer_load(it->second, panel_indices(indices));
  }
  tir::Stmt visit_(const tir::Block* op) override {
    // The read regions are rewritten here (the base class would only swap their buffer).
    std::vector<tir::BufferRegion> reads;
    bool changed = false;
    for (const auto& r : op->reads) {
      auto it = packed_.find(r.buffer.get());
      if (it == packed_.end()) {
        reads.push_back(r);
        continue;
      }
      changed = true;
      std::vector<tir::Range> region;
      const tir::Range& last = r.region.back();
      bool point = tir::is_const_int(last.extent, 1);
      region.push_back(point ? tir::Range::point(tir::floordiv(last.min, panel_))
                             : tir::Range::upto(it->second->shape[0]));
      region.insert(region.end(), r.region.begin(), r.region.end() - 1);
      region.push_back(point ? tir::Range::point(tir::floormod(last.min, panel_))
                             : tir::Range::upto(it->second->shape.back()));
      reads.push_back({it->second, std::move(region)});
    }
    if (!changed) return tir::StmtExprMutator::visit_(op);
    auto block =
        make_ref<tir::Block>(op->name, op->iter_vars, std::move(reads), op->writes, op->body,
                             op->init, op->alloc_buffers, op->match_buffers, op->annotations);
    return tir::StmtExprMutator::visit_(block.get());
  }

 private:
  std::vector<tir::PrimExpr> panel_indices(const std::vector<tir::PrimExpr>& old) const {
    std::vector<tir::PrimExpr> out{tir::floordiv(old.back(), panel_)};
    out.insert(out.end(), old.begin(), old.end() - 1);
    out.push_back(tir::floormod(old.back(), panel_));
    return out;
  }

  std::unordered_map<const tir::Buffer*, Ref<tir::Buffer>> packed_;
  int64_t panel_;
};

/// `data` ([..., N], row-major) as panels [ceil(N / P), ..., P], zero-padded.
runtime::NDArray pack_constant(const runtime::NDArray& data, int64_t panel) {
  runtime::NDArray src = data.is_contiguous() ? data : data.copy();
  const std::vector<int64_t>& shape = src.shape();
  int64_t n = shape.back(), rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  int64_t panels = (n + panel - 1) / panel;
  std::vector<int64_t> packed_shape{panels};
  packed_shape.insert(packed_shape.end(), shape.begin(), shape.end() - 1);
  packed_shape.push_back(panel);
  runtime::NDArray out = runtime::NDArray::empty(packed_shape, src.dtype());
  size_t elem = size_t(src.dtype().bytes());
  auto* from = static_cast<const char*>(src.data());
  auto* to = static_cast<char*>(out.data());
  std::memset(to, 0, size_t(panels * rows * panel) * elem);
  for (int64_t p = 0; p < panels; ++p) {
    int64_t width = std::min(panel, n - p * panel);
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(to + size_t((p * rows + r) * panel) * elem,
                  from + size_t(r * n + p * panel) * elem, size_t(width) * elem);
  }
  return out;
}

/// The buffer shape of a packable parameter: constant, compact, at offset 0, matching `data`.
bool matches(const tir::Buffer& b, const runtime::NDArray& data) {
  if (!b.strides.empty() || !tir::is_const_int(b.elem_offset, 0) || b.dtype != data.dtype() ||
      b.ndim() != size_t(data.ndim()) || b.ndim() < 2 || b.dtype.bytes() < 1)
    return false;
  for (size_t i = 0; i < b.ndim(); ++i) {
    const int64_t* d = tir::as_const_int(b.shape[i]);
    if (d == nullptr || *d != data.shape()[i]) return false;
  }
  return true;
}

/// The panel width for N columns, at most `panel`, for vectors of `lanes`: the widest panel of
/// a power-of-two count of whole vectors that divides N (64, 32, 16 at 16 lanes); else, for N
/// a whole number of half vectors just short of such a panel, that panel, zero-padded (24 ->
/// 32, 40 -> 64): the backend masks the columns past N (codegen_promote.cc keeps the tile in
/// registers), and two whole vectors of which 24 lanes count beat three half vectors
/// (MobileNetV2's 144 -> 24 projection 0.198 -> 0.134 ms on one thread); else, with 16 lanes or
/// more, sized as for half-width vectors (two of them at most); else the largest divisor of N
/// from one vector to the panel (36 -> 12 at 8 lanes: a vector and a half); else the panel, the
/// last one padded. Panels of three vectors (48) or of three half vectors (24 at 16 lanes)
/// measured up to 2.4x slower than narrower ones on MobileNetV2's projections (5-row tiles with
/// a guard, or 24 accumulators), and a <24 x float> tile 12x slower.
///
/// A kernel of `few_rows` (a matrix-vector product: its output's constant dims, the batch left
/// out, are fewer than a row tile) takes first the widest panel of more than one vector that
/// divides N, in whole vectors (1008 -> 48) or else in half vectors (1000 -> 40): a one-row
/// tile's accumulators are its panel's vectors, each one chain of dependent multiply-adds
/// (a classifier 1280 -> 1000 at batch 1 in 8-wide panels: 0.20 ms on one thread, 0.13 in
/// 40-wide ones).
int64_t panel_for(int64_t n, int64_t panel, int64_t lanes, bool few_rows) {
  if (few_rows) {
    for (int64_t step : {lanes, lanes / 2}) {
      if (step <= 0) continue;
      for (int64_t d = panel - panel % step; d > lanes; d -= step)
        if (n % d == 0) return d;
    }
  }
  int64_t d = lanes;
  while (d * 2 <= panel) d *= 2;
  for (; d >= lanes; d /= 2)
    if (n % d == 0) return d;
  // Half vectors short of a power-of-two count of whole vectors: one panel of those,
  // zero-padded (24 -> 32).
  for (d = lanes * 2; d <= panel && lanes >= 2; d *= 2)
    if (n < d && n > d / 2 && n % (lanes / 2) == 0) return d;
  if (lanes >= 16) {
    panel = lanes;
    lanes /= 2;
    if (n % lanes == 0) return lanes;
  }
  for (d = panel; d >= lanes; --d)
    if (n % d == 0) return d;
  return panel;
}

/// Whether the non-constant operand `arg` of a kernel is worth packing at run time into the
/// buffer `b` (a layout_transform before the call): its shape is static and `b`'s, and it is
/// large (half a MiB of floats or more) and read by many rows (`rows`, the output's elements
/// over its columns), so the copy is a few percent of the kernel: a 1024^3 GEMM with B a
/// parameter reads each panel's k rows N floats apart (4 KiB: one L1 set, a page per row).
bool pack_at_run_time(const tir::Buffer& b, const Expr& arg, int64_t rows) {
  if (arg.is<Constant>() || rows < kMinRowsToPackAtRunTime) return false;
  auto shape = shape_of(arg);
  if (!shape || shape->size() != b.ndim() || b.ndim() < 2 || !b.strides.empty() ||
      !tir::is_const_int(b.elem_offset, 0))
    return false;
  int64_t elems = 1;
  for (size_t i = 0; i < b.ndim(); ++i) {
    const int64_t* d = tir::as_const_int(b.shape[i]);
    const int64_t* a = tir::as_const_int((*shape)[i]);
    if (d == nullptr || a == nullptr || *d != *a) return false;
    elems *= *d;
  }
  auto* t = get_struct_info(arg).as<TensorStructInfo>();
  return t != nullptr && t->dtype == b.dtype && elems >= kMinElementsToPackAtRunTime;
}

/// A packed PrimFunc's packed parameters and their panel width.
struct Packing {
  std::vector<size_t> params;
  int64_t width = 0;
};

/// The packed copies of constants, by constant and panel width (one copy for several calls).
using PackedConstants = std::map<std::pair<const Constant*, int64_t>, Expr>;

/// Replaces the packed operands in the call_tir calls of the packed PrimFuncs: a constant by
/// its packed copy, any other operand by a layout_transform into panels emitted before the
/// call.
class CallRewriter : public ExprMutator {
 public:
  CallRewriter(IRModule mod, const std::map<std::string, Packing>& packings,
               PackedConstants* cache)
      : ExprMutator(std::move(mod)), packings_(packings), cache_(cache) {}
  using ExprMutator::visit_;

  Expr visit_(const Call* op) override {
    Expr visited = ExprMutator::visit_(op);
    const Call* call = as_call_tir(visited);
    if (call == nullptr) return visited;
    auto it = packings_.find(call->args[0].as<GlobalVar>()->name);
    if (it == packings_.end()) return visited;
    int64_t width = it->second.width;
    std::vector<Expr> fields = call->args[1].as<Tuple>()->fields;
    for (size_t i : it->second.params) {
      auto* c = fields.at(i).as<Constant>();
      if (c == nullptr) {
        // Legalised here: the pass runs after legalize-ops (the PrimFunc joins the module).
        Expr packed = builder_.normalize(panels_of(fields[i], width));
        auto* pc = packed.as<Call>();
        const Op* op = pc->op.as<Op>();
        RX_ICHECK(op->info->legalize) << "pack-weights: relax.layout_transform has no legalisation";
        fields[i] = builder_.emit(op->info->legalize(builder_, *pc), "packed");
        continue;
      }
      auto cached = cache_->find({c, width});
      if (cached == cache_->end())
        cached = cache_->emplace(std::pair{c, width}, make_constant(pack_constant(c->data, width)))
                     .first;
      fields[i] = cached->second;
    }
    std::vector<Expr> args = call->args;
    args[1] = make_tuple(std::move(fields));
    return make_ref<Call>(call->op, std::move(args), call->attrs, call->sinfo_args);
  }

 private:
  /// `x` ([..., N]) as panels [ceil(N / P), ..., P] (zero-padded): what pack_constant computes,
  /// as a relax.layout_transform run before the kernel.
  static Expr panels_of(const Expr& x, int64_t width) {
    std::vector<PrimExpr> shape = *shape_of(x);
    int64_t n = *tir::as_const_int(shape.back());
    std::vector<Ref<tir::Var>> vars;
    for (size_t i = 0; i < shape.size(); ++i)
      vars.push_back(make_ref<tir::Var>("i" + std::to_string(i), DataType::Int(64)));
    PrimExpr last = vars.back();
    std::vector<PrimExpr> map{tir::floordiv(last, width)};
    for (size_t i = 0; i + 1 < vars.size(); ++i) map.push_back(vars[i]);
    map.push_back(tir::floormod(last, width));
    return op::layout_transform(x, vars, map, n % width == 0 ? std::nullopt
                                                             : std::optional<double>(0.0));
  }

  const std::map<std::string, Packing>& packings_;
  PackedConstants* cache_;
};

IRModule pack_weights(const IRModule& mod, const PassOptions& options, PassContext&) {
  int64_t panel = options.get_int("panel");
  RX_CHECK(panel >= -1) << "pack-weights: option panel must be -1 (the host's), 0 (off) or a "
                           "width, got " << panel;
  if (panel == 0) return mod;
  bool runtime = options.get_bool("runtime");
  // The backend's column panel for the host's vectors (llvm_backend::cpu_schedule_options_for:
  // four 16-lane vectors at AVX-512, two 8-lane ones at AVX2, two of four lanes elsewhere).
  if (panel == -1) panel = host_lanes() == 16 ? 64 : 2 * host_lanes();
  int64_t lanes = std::max<int64_t>(1, std::min(host_lanes(), panel / 2));
  CallSites sites;
  for (const auto& e : mod.functions())
    if (e.func.is<Function>()) sites.visit_expr(e.func);

  IRModule out = mod;
  std::map<std::string, Packing> packings;
  for (const auto& [name, calls] : sites.calls) {
    if (sites.other_uses.count(name)) continue;
    auto prim = mod.find(name).as_ref<tir::PrimFunc>();
    if (!prim.defined()) continue;
    // Candidates: parameters given a constant of the buffer's shape at every call site, or
    // (runtime on) an operand worth packing at run time (pack_at_run_time) at some.
    // The output's rows (its elements over its columns; 0 when symbolic) and their constant
    // part (a symbolic batch left out).
    int64_t rows = 0, constant_rows = 0;
    if (Ref<tir::Buffer> result = prim->param_buffer(prim->params.size() - 1); result.defined()) {
      rows = constant_rows = 1;
      for (size_t d = 0; d + 1 < result->ndim(); ++d) {
        const int64_t* e = tir::as_const_int(result->shape[d]);
        rows = e ? rows * *e : 0;
        constant_rows *= e ? *e : 1;
      }
    }
    bool few_rows = constant_rows > 0 && constant_rows < kFewRows;
    std::unordered_map<const tir::Buffer*, size_t> candidates;
    for (size_t i = 0; i < prim->params.size(); ++i) {
      Ref<tir::Buffer> b = prim->param_buffer(i);
      if (!b.defined()) continue;
      bool all_packable = true;
      for (const Tuple* args : calls) {
        if (i >= args->fields.size()) {
          all_packable = false;
          continue;
        }
        auto* c = args->fields[i].as<Constant>();
        all_packable &= c != nullptr ? matches(*b, c->data)
                                     : runtime && pack_at_run_time(*b, args->fields[i], rows);
      }
      if (all_packable) candidates.emplace(b.get(), i);
    }
    if (candidates.empty()) continue;
    std::unordered_set<const tir::Buffer*> keys;
    for (const auto& [b, i] : candidates) keys.insert(b);
    AccessCheck check(std::move(keys));
    tir::visit_func(prim, check);
    if (check.ok().empty()) continue;
    std::unordered_map<const tir::Buffer*, Ref<tir::Buffer>> packed;
    Packing& packing = packings[name];
    // Every packed operand's last index is the block's column variable: one N, one width.
    int64_t& width = packing.width;
    for (size_t i = 0; i < prim->params.size(); ++i) {
      Ref<tir::Buffer> b = prim->param_buffer(i);
      if (!b.defined() || !check.ok().count(b.get())) continue;
      int64_t n = *tir::as_const_int(b->shape.back());
      if (width == 0) width = panel_for(n, panel, lanes, few_rows);
      RX_ICHECK(panel_for(n, panel, lanes, few_rows) == width)
          << "pack-weights: kernel " << name << " packs operands of different widths";
      std::vector<tir::PrimExpr> shape{tir::int_imm((n + width - 1) / width)};
      shape.insert(shape.end(), b->shape.begin(), b->shape.end() - 1);
      shape.push_back(tir::int_imm(width));
      packed.emplace(b.get(), tir::make_buffer(b->data, b->dtype, shape, b->name));
      packing.params.push_back(i);
    }
    PanelRewriter rewriter(std::move(packed), width);
    Ref<tir::PrimFunc> body = tir::mutate_func(prim, rewriter);
    out.update(name, make_ref<tir::PrimFunc>(body->params, body->body, body->buffer_map,
                                             with_attr(body->attrs, kAttrWeightPanel, width),
                                             body->ret_type));
  }
  if (packings.empty()) return mod;
  PackedConstants cache;
  for (const auto& e : mod.functions()) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined()) continue;
    CallRewriter rewriter(out, packings, &cache);
    Expr rewritten = rewriter.visit_expr(func);
    if (rewritten.same_as(func)) continue;
    out = rewriter.builder().module();  // with the run-time packings' PrimFuncs
    out.update(e.gv, rewritten.as_ref<Function>());
  }
  return out;
}

}  // namespace

void register_pack_weights(transform::PluginRegistrar& r) {
  r.add_pass({"pack-weights",
              "Store matmul/conv right operands in column panels [N/P, ..., P]: constants at "
              "compile time, large other operands at run time",
              transform::Granularity::kModule,
              {{"panel", transform::OptionType::kInt, int64_t(-1),
                "the widest panel (the backend's register-tile width); -1: the host's (64 with "
                "AVX-512, 16 with AVX2), 0 turns the pass off"},
               {"runtime", transform::OptionType::kBool, true,
                "also pack large non-constant right operands read by many rows, with a "
                "layout_transform before the kernel"}}},
             transform::ModuleTransform(pack_weights));
}

}  // namespace relax::layout
