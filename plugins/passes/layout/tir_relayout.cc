// transform_layout over PrimFunc parameters and the flow of a result rewrite to the operands
// through the writing block (tir_relayout.h).
#include "tir_relayout.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "relax/arith/analyzer.h"
#include "relax/kernel/block_regions.h"
#include "relax/tir/expr_functor.h"
#include "relax/tir/stmt_functor.h"

namespace relax::layout {

using arith::IndexMap;

namespace {

/// Rewrites the accesses of the relaid-out buffers.
class Relayout : public tir::StmtExprMutator {
 public:
  struct Entry {
    Ref<tir::Buffer> buffer;
    IndexMap map;
  };
  std::unordered_map<const tir::Buffer*, Entry> entries;

  using tir::StmtExprMutator::visit_;

  Ref<tir::Buffer> visit_buffer(const Ref<tir::Buffer>& b) override {
    auto it = entries.find(b.get());
    return it == entries.end() ? b : it->second.buffer;
  }
  PrimExpr visit_(const tir::BufferLoad* op) override {
    std::vector<PrimExpr> idx;
    for (const PrimExpr& i : op->indices) idx.push_back(visit_expr(i));
    auto it = entries.find(op->buffer.get());
    if (it == entries.end()) return tir::buffer_load(op->buffer, idx);
    return tir::buffer_load(it->second.buffer, it->second.map.apply(idx));
  }
  tir::Stmt visit_(const tir::BufferStore* op) override {
    std::vector<PrimExpr> idx;
    for (const PrimExpr& i : op->indices) idx.push_back(visit_expr(i));
    PrimExpr value = visit_expr(op->value);
    auto it = entries.find(op->buffer.get());
    if (it == entries.end()) return tir::buffer_store(op->buffer, value, idx);
    return tir::buffer_store(it->second.buffer, value, it->second.map.apply(idx));
  }
  tir::Stmt visit_(const tir::Block* op) override {
    // Rebuilt here, not by the base: its regions must be recomputed before the Block
    // constructor checks them against the new buffers' ranks.
    tir::Stmt body = (*this)(op->body);
    tir::Stmt init = op->init.defined() ? (*this)(op->init) : op->init;
    std::vector<Ref<tir::Buffer>> allocs;
    for (const auto& a : op->alloc_buffers) allocs.push_back(visit_buffer(a));
    std::vector<tir::BufferRegion> reads, writes;
    tir::infer_block_regions(body, init, allocs, &reads, &writes);
    return make_ref<tir::Block>(op->name, op->iter_vars, reads, writes, body, init, allocs,
                                op->match_buffers, op->annotations);
  }
};

/// The indices of every buffer access simplified with `analyzer`'s facts.
class IndexSimplifier : public tir::StmtExprMutator {
 public:
  arith::Analyzer analyzer;
  using tir::StmtExprMutator::visit_;
  std::vector<PrimExpr> simplified(const std::vector<PrimExpr>& idx) {
    std::vector<PrimExpr> out;
    for (const PrimExpr& i : idx) out.push_back(analyzer.simplify(visit_expr(i)));
    return out;
  }
  PrimExpr visit_(const tir::BufferLoad* op) override {
    return tir::buffer_load(op->buffer, simplified(op->indices));
  }
  tir::Stmt visit_(const tir::BufferStore* op) override {
    return tir::buffer_store(op->buffer, visit_expr(op->value), simplified(op->indices));
  }
};

/// Every load of `buffer` inside a statement.
class LoadCollector : public tir::StmtExprVisitor {
 public:
  explicit LoadCollector(const tir::Buffer* buffer) : buffer_(buffer) {}
  using tir::StmtExprVisitor::visit_;
  void visit_(const tir::BufferLoad* op) override {
    if (op->buffer.get() == buffer_) loads.push_back(op->indices);
    tir::StmtExprVisitor::visit_(op);
  }
  std::vector<std::vector<PrimExpr>> loads;

 private:
  const tir::Buffer* buffer_;
};

/// The blocks that store into `buffer`.
class WriterFinder : public tir::StmtExprVisitor {
 public:
  explicit WriterFinder(const tir::Buffer* buffer) : buffer_(buffer) {}
  using tir::StmtExprVisitor::visit_;
  void visit_(const tir::Block* op) override {
    const tir::Block* outer = current_;
    current_ = op;
    tir::StmtExprVisitor::visit_(op);
    current_ = outer;
  }
  void visit_(const tir::BufferStore* op) override {
    if (op->buffer.get() == buffer_) {
      if (current_ == nullptr || std::find(blocks.begin(), blocks.end(), current_) == blocks.end())
        blocks.push_back(current_);
      stores.push_back(op->indices);
    }
    tir::StmtExprVisitor::visit_(op);
  }
  std::vector<const tir::Block*> blocks;
  std::vector<std::vector<PrimExpr>> stores;

 private:
  const tir::Buffer* buffer_;
  const tir::Block* current_ = nullptr;
};

bool same_indices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!arith::prove_equal(a[k], b[k])) return false;
  return true;
}

/// The variables of out_map that `e` uses, as positions.
std::vector<size_t> deps_of(const PrimExpr& e, const IndexMap& m) {
  std::vector<size_t> out;
  tir::substitute(e, [&](const tir::Var* v) -> PrimExpr {
    for (size_t k = 0; k < m.vars.size(); ++k)
      if (m.vars[k].get() == v && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    return PrimExpr();
  });
  return out;
}

/// The operand map for one input read as `idx` (see flow_to_operands).
std::optional<IndexMap> operand_map(const std::vector<PrimExpr>& idx,
                                    const std::vector<PrimExpr>& shape,
                                    const std::vector<const tir::Var*>& out_vars,
                                    const IndexMap& out_map, std::string* why) {
  size_t n = out_vars.size(), m = idx.size();
  IndexMap res;
  std::vector<PrimExpr> sigma(n);  // out position -> operand expression (null: absent)
  std::vector<int64_t> var_pos(m, -1);  // operand dim -> out position it reads
  std::vector<size_t> own;              // operand dims of their own (reduction, slices)
  std::vector<bool> windowed(n, false);  // out position read through a window (h * 2 + kh)
  for (size_t d = 0; d < m; ++d) {
    res.vars.push_back(tir::var("i" + std::to_string(d)));
    // The output variables the index reads: one (bare, or in a window with other variables
    // and constants: a pooling or padding access) follows that output axis.
    std::vector<size_t> outs;
    tir::substitute(idx[d], [&](const tir::Var* v) -> PrimExpr {
      auto at = std::find(out_vars.begin(), out_vars.end(), v);
      size_t j = size_t(at - out_vars.begin());
      if (at != out_vars.end() && std::find(outs.begin(), outs.end(), j) == outs.end())
        outs.push_back(j);
      return PrimExpr();
    });
    if (outs.size() > 1) {
      if (why) *why = "an operand index reads two output indices: " + tir::to_string(idx[d]);
      return std::nullopt;
    }
    if (outs.empty()) continue;  // a constant, or an axis of the operand's own
    size_t j = outs[0];
    if (sigma[j].defined()) {
      if (why) *why = "an operand reads one output index on two axes";
      return std::nullopt;
    }
    sigma[j] = res.vars[d];
    var_pos[d] = int64_t(j);
    windowed[j] = idx[d].as<tir::Var>() == nullptr;
  }
  // Broadcast axes (constant index on an axis of extent 1) align from the right.
  for (size_t d = 0; d < m; ++d) {
    if (var_pos[d] >= 0) continue;
    int64_t j = int64_t(d) + int64_t(n) - int64_t(m);
    bool unit = tir::as_const_int(idx[d]) && tir::is_const_int(shape[d], 1);
    if (unit && j >= 0 && !sigma[size_t(j)].defined()) {
      sigma[size_t(j)] = tir::int_imm(0);
      continue;
    }
    own.push_back(d);
  }
  // Each result of the map over operand axes only is kept, over none dropped.
  std::vector<int64_t> first_result_of(m, -1);
  for (const PrimExpr& r : out_map.results) {
    std::vector<size_t> deps = deps_of(r, out_map);
    size_t present = 0;
    for (size_t j : deps) present += sigma[j].defined() ? 1 : 0;
    if (present == 0 && !deps.empty()) continue;
    if (present != deps.size()) {
      if (why) *why = "the result index " + tir::to_string(r) +
                      " mixes axes the operand has with axes it does not";
      return std::nullopt;
    }
    // A window moves with its axis, but a tiling of the axis would cut through it.
    for (size_t j : deps)
      if (windowed[j] && r.get() != out_map.vars[j].get()) {
        if (why) *why = "the result index " + tir::to_string(r) +
                        " splits or fuses an axis the operand reads through a window";
        return std::nullopt;
      }
    PrimExpr e = IndexMap{out_map.vars, {r}}.apply(sigma)[0];
    for (size_t d = 0; d < m; ++d)
      if (var_pos[d] >= 0 && first_result_of[d] < 0 &&
          std::find(deps.begin(), deps.end(), size_t(var_pos[d])) != deps.end())
        first_result_of[d] = int64_t(res.results.size());
    res.results.push_back(arith::simplify(e));
  }
  // The operand's own axes: before the first result of the next mapped axis, else after the
  // first result of the previous one, else at the end.
  for (size_t d : own) {
    int64_t pos = -1;
    for (size_t e = d + 1; e < m && pos < 0; ++e)
      if (first_result_of[e] >= 0) pos = first_result_of[e];
    if (pos < 0)
      for (size_t e = d; e-- > 0 && pos < 0;)
        if (first_result_of[e] >= 0) pos = first_result_of[e] + 1;
    if (pos < 0) pos = int64_t(res.results.size());
    res.results.insert(res.results.begin() + pos, res.vars[d]);
    for (int64_t& f : first_result_of)
      if (f >= pos) ++f;
    first_result_of[d] = pos;
  }
  bool padded = false;
  if (!arith::inverse_map(res, shape, &padded) || padded) {
    if (why) *why = "the operand map " + res.to_string() + " is not a padding-free rearrangement";
    return std::nullopt;
  }
  return res;
}

}  // namespace

std::optional<Ref<tir::PrimFunc>> relayout_prim_func(
    const Ref<tir::PrimFunc>& func, const std::vector<std::optional<IndexMap>>& maps,
    std::string* why, const std::vector<std::pair<Ref<tir::Buffer>, IndexMap>>& allocs) {
  Relayout r;
  for (const auto& [b, m] : allocs) {
    auto shape = arith::mapped_shape(m, b->shape);
    if (!shape) {
      if (why) *why = m.to_string() + " is not a rearrangement of " + tir::to_string(b);
      return std::nullopt;
    }
    r.entries[b.get()] = {tir::make_buffer(b->data, b->dtype, *shape, b->name, {}, {}, b->scope), m};
  }
  for (size_t i = 0; i < maps.size() && i < func->params.size(); ++i) {
    if (!maps[i]) continue;
    Ref<tir::Buffer> b = func->param_buffer(i);
    if (!b) {
      if (why) *why = "parameter " + std::to_string(i) + " is not a buffer";
      return std::nullopt;
    }
    bool padded = false;
    auto shape = arith::mapped_shape(*maps[i], b->shape);
    if (!shape || !arith::inverse_map(*maps[i], b->shape, &padded) || padded) {
      if (why) *why = maps[i]->to_string() + " is not a padding-free rearrangement of " +
                      tir::to_string(b);
      return std::nullopt;
    }
    r.entries[b.get()] = {tir::make_buffer(b->data, b->dtype, *shape, b->name), *maps[i]};
  }
  return tir::mutate_func(func, r);
}

tir::Stmt replace_buffers(const tir::Stmt& stmt,
                          const std::vector<std::pair<Ref<tir::Buffer>, Ref<tir::Buffer>>>& pairs) {
  Relayout r;
  for (const auto& [from, to] : pairs) {
    IndexMap id;
    for (size_t k = 0; k < from->shape.size(); ++k) {
      id.vars.push_back(tir::var("i" + std::to_string(k)));
      id.results.push_back(id.vars.back());
    }
    r.entries[from.get()] = {to, id};
  }
  return r(stmt);
}

namespace {

/// The buffers a function allocates (any block's alloc_buffers).
class AllocFinder : public tir::StmtExprVisitor {
 public:
  using tir::StmtExprVisitor::visit_;
  void visit_(const tir::Block* op) override {
    for (const auto& a : op->alloc_buffers) allocs.push_back(a);
    tir::StmtExprVisitor::visit_(op);
  }
  std::vector<Ref<tir::Buffer>> allocs;
};

/// Recursive state of flow_to_operands.
struct FlowState {
  const Ref<tir::PrimFunc>& func;
  size_t num_inputs;
  std::vector<Ref<tir::Buffer>> allocated;
  std::vector<std::optional<IndexMap>> params;
  std::vector<std::pair<Ref<tir::Buffer>, IndexMap>> allocs;
  std::string* why;

  bool fail(const std::string& m) {
    if (why) *why = m;
    return false;
  }

  static bool same_map(const IndexMap& a, const IndexMap& b) {
    if (a.results.size() != b.results.size() || a.vars.size() != b.vars.size()) return false;
    std::vector<PrimExpr> vs(b.vars.begin(), b.vars.end());
    std::vector<PrimExpr> ra = a.apply(vs);
    for (size_t k = 0; k < ra.size(); ++k)
      if (!arith::prove_equal(ra[k], b.results[k])) return false;
    return true;
  }

  /// Flows `map` on `buffer` through the block writing it.
  bool flow(const Ref<tir::Buffer>& buffer, const IndexMap& map, int depth) {
    if (depth > 64) return fail("too deep a chain of intermediate buffers");
    WriterFinder finder(buffer.get());
    tir::visit_func(func, finder);
    if (finder.blocks.size() != 1 || finder.blocks[0] == nullptr)
      return fail(buffer->name + " is written by " + std::to_string(finder.blocks.size()) +
                  " blocks (or outside a block)");
    const tir::Block* block = finder.blocks[0];
    const std::vector<PrimExpr>& w = finder.stores[0];
    std::vector<const tir::Var*> out_vars;
    for (const PrimExpr& i : w) {
      auto* v = i.as<tir::Var>();
      bool is_iter = false;
      for (const auto& iv : block->iter_vars) is_iter |= iv->var.get() == v;
      if (v == nullptr || !is_iter ||
          std::find(out_vars.begin(), out_vars.end(), v) != out_vars.end())
        return fail(buffer->name + " is stored at " + tir::to_string(i) +
                    ", not at distinct block variables");
      out_vars.push_back(v);
    }
    for (const auto& st : finder.stores)
      if (!same_indices(st, w)) return fail(buffer->name + " is stored at several index lists");
    if (map.vars.size() != out_vars.size())
      return fail("the rewrite's rank does not match " + buffer->name + "'s");
    auto read_map = [&](const Ref<tir::Buffer>& b) -> std::optional<std::optional<IndexMap>> {
      LoadCollector loads(b.get());
      loads(block->body);
      if (block->init.defined()) loads(block->init);
      if (loads.loads.empty()) return std::optional<IndexMap>();
      for (const auto& l : loads.loads)
        if (!same_indices(l, loads.loads[0])) {
          fail(b->name + " is read at several index lists");
          return std::nullopt;
        }
      auto m = operand_map(loads.loads[0], b->shape, out_vars, map, why);
      if (!m) return std::nullopt;
      return std::optional<IndexMap>(*m);
    };
    for (size_t i = 0; i < num_inputs; ++i) {
      Ref<tir::Buffer> b = func->param_buffer(i);
      if (!b) continue;
      auto m = read_map(b);
      if (!m) return false;
      if (!*m) continue;
      if (params[i] && !same_map(*params[i], **m))
        return fail(b->name + " would need two different layouts");
      params[i] = **m;
    }
    for (const auto& a : allocated) {
      if (a.get() == buffer.get()) continue;
      auto m = read_map(a);
      if (!m) return false;
      if (!*m) continue;
      bool seen = false;
      for (const auto& [b, bm] : allocs)
        if (b.get() == a.get()) {
          if (!same_map(bm, **m)) return fail(a->name + " would need two different layouts");
          seen = true;
        }
      if (seen) continue;
      allocs.emplace_back(a, **m);
      if (!flow(a, **m, depth + 1)) return false;
    }
    return true;
  }
};

}  // namespace

std::optional<std::vector<std::optional<IndexMap>>> flow_to_operands(
    const Ref<tir::PrimFunc>& func, size_t out_param, const IndexMap& out_map, std::string* why,
    std::vector<std::pair<Ref<tir::Buffer>, IndexMap>>* allocs) {
  Ref<tir::Buffer> out = func->param_buffer(out_param);
  if (!out) {
    if (why) *why = "the result is not a buffer";
    return std::nullopt;
  }
  AllocFinder finder;
  tir::visit_func(func, finder);
  FlowState st{func, out_param, finder.allocs, std::vector<std::optional<IndexMap>>(out_param), {}, why};
  if (!st.flow(out, out_map, 0)) return std::nullopt;
  if (allocs) *allocs = st.allocs;
  else if (!st.allocs.empty()) {
    if (why) *why = "the flow goes through intermediate buffers";
    return std::nullopt;
  }
  return st.params;
}

std::optional<Ref<tir::PrimFunc>> transform_block_layout(const Ref<tir::PrimFunc>& func,
                                                         const std::string& block,
                                                         const IndexMap& map, std::string* why) {
  auto fail = [&](const std::string& m) -> std::optional<Ref<tir::PrimFunc>> {
    if (why) *why = m;
    return std::nullopt;
  };
  auto* root = func->body.as<tir::BlockRealize>();
  if (root == nullptr) return fail("the function has no root block");
  std::vector<tir::Stmt> stmts;
  if (auto* seq = root->block->body.as<tir::SeqStmt>()) stmts = seq->seq;
  else stmts = {root->block->body};
  for (size_t k = 0; k < stmts.size(); ++k) {
    std::vector<const tir::For*> loops;
    tir::Stmt cur = stmts[k];
    while (auto* f = cur.as<tir::For>()) {
      loops.push_back(f);
      cur = f->body;
    }
    auto* br = cur.as<tir::BlockRealize>();
    if (br == nullptr || br->block->name != block) continue;
    const tir::Block& b = *br->block;
    if (!tir::is_const_int(br->predicate, 1) || map.vars.size() != b.iter_vars.size() ||
        loops.size() != b.iter_vars.size())
      return fail("block " + block + " is not alone in a perfect nest of its own loops");
    std::vector<PrimExpr> dom;
    for (size_t i = 0; i < b.iter_vars.size(); ++i) {
      const auto& iv = b.iter_vars[i];
      auto* lv = br->iter_values[i].as<tir::Var>();
      bool bound = false;
      for (const tir::For* f : loops)
        bound |= f->loop_var.get() == lv && tir::is_const_int(f->min, 0) &&
                 arith::prove_equal(f->extent, iv->dom.extent);
      if (!bound || !tir::is_const_int(iv->dom.min, 0))
        return fail("block " + block + "'s variables are not bound to its loops");
      dom.push_back(iv->dom.extent);
    }
    bool padded = false;
    auto inv = arith::inverse_map(map, dom, &padded);
    auto ext = arith::mapped_shape(map, dom);
    if (!inv || padded) return fail(map.to_string() + " does not rearrange block " + block);
    // New variables, loops and types.
    std::vector<Ref<tir::IterVar>> ivs;
    std::vector<Ref<tir::Var>> lvs;
    std::vector<PrimExpr> new_vars;
    for (size_t j = 0; j < map.results.size(); ++j) {
      std::optional<tir::IterVarType> type;
      for (size_t d : deps_of(map.results[j], map)) {
        if (type && *type != b.iter_vars[d]->type)
          return fail("a result of " + map.to_string() + " mixes spatial and reduce variables");
        type = b.iter_vars[d]->type;
      }
      Ref<tir::Var> w = tir::var("v" + std::to_string(j), (*ext)[j]->dtype);
      ivs.push_back(tir::make_iter_var(w, (*ext)[j], type.value_or(tir::IterVarType::kSpatial)));
      lvs.push_back(tir::var("l" + std::to_string(j), (*ext)[j]->dtype));
      new_vars.push_back(w);
    }
    std::vector<PrimExpr> old = inv->apply(new_vars);
    // A named std::function: VarSubstituter keeps a reference to it.
    std::function<PrimExpr(const tir::Var*)> sub = [&](const tir::Var* v) -> PrimExpr {
      for (size_t i = 0; i < b.iter_vars.size(); ++i)
        if (b.iter_vars[i]->var.get() == v) return arith::simplify(old[i]);
      return PrimExpr();
    };
    tir::VarSubstituter subst(sub);
    // The accesses simplified knowing the new variables' ranges: a tiled access c // 4 of
    // c = v1 * 4 + v4 reads v1.
    IndexSimplifier simp;
    for (size_t j = 0; j < ivs.size(); ++j)
      simp.analyzer.bind_range(ivs[j]->var, tir::int_imm(0, (*ext)[j]->dtype), (*ext)[j]);
    tir::Stmt body = simp(subst(b.body));
    tir::Stmt init = b.init.defined() ? simp(subst(b.init)) : b.init;
    std::vector<tir::BufferRegion> reads, writes;
    tir::infer_block_regions(body, init, b.alloc_buffers, &reads, &writes);
    auto nb = make_ref<tir::Block>(b.name, ivs, reads, writes, body, init, b.alloc_buffers,
                                   b.match_buffers, b.annotations);
    std::vector<PrimExpr> values(lvs.begin(), lvs.end());
    tir::Stmt nest = tir::block_realize(values, nb);
    for (size_t j = lvs.size(); j-- > 0;)
      nest = make_ref<tir::For>(lvs[j], tir::int_imm(0, (*ext)[j]->dtype), (*ext)[j],
                                tir::ForKind::kSerial, nest);
    stmts[k] = nest;
    const tir::Block& r = *root->block;
    auto nroot = make_ref<tir::Block>(r.name, r.iter_vars, r.reads, r.writes,
                                      tir::seq_stmt(stmts), r.init, r.alloc_buffers,
                                      r.match_buffers, r.annotations);
    return tir::with_body(func, tir::block_realize(root->iter_values, nroot));
  }
  return fail("no block " + block + " at the top of the function");
}

namespace {

/// The block writing `out` realigned after `out_map` (see realign_writers).
std::optional<Ref<tir::PrimFunc>> realign_buffer_writer(const Ref<tir::PrimFunc>& func,
                                                        const Ref<tir::PrimFunc>& relaid,
                                                        const tir::Buffer* out,
                                                        const IndexMap& out_map) {
  WriterFinder finder(out);
  tir::visit_func(func, finder);
  if (finder.blocks.size() != 1 || finder.blocks[0] == nullptr) return std::nullopt;
  const tir::Block& b = *finder.blocks[0];
  const std::vector<PrimExpr>& w = finder.stores[0];
  if (w.size() != out_map.vars.size()) return std::nullopt;
  IndexMap m;
  std::vector<PrimExpr> at_out(w.size());
  std::vector<PrimExpr> rest;
  for (const auto& iv : b.iter_vars) {
    Ref<tir::Var> v = tir::var(iv->var->name);
    m.vars.push_back(v);
    bool found = false;
    for (size_t j = 0; j < w.size(); ++j)
      if (w[j].get() == iv->var.get()) {
        at_out[j] = v;
        found = true;
      }
    if (!found) rest.push_back(v);
  }
  for (const PrimExpr& e : at_out)
    if (!e.defined()) return std::nullopt;
  m.results = out_map.apply(at_out);
  m.results.insert(m.results.end(), rest.begin(), rest.end());
  return transform_block_layout(relaid, b.name, m, nullptr);
}

/// The map an intermediate `a` takes from the relaid-out buffers its one writing block reads
/// axis by axis (index d of the load uses no block variable but the store's d-th): a padding
/// block's `pad[n, c, h, w] = x[n, c, h - 1, w - 1]` gives `pad` the map of `x`. Nothing when
/// the writer has another form, reads two such buffers with different maps, or the map does
/// not divide `a`.
std::optional<IndexMap> follow_map(
    const Ref<tir::PrimFunc>& func, const Ref<tir::Buffer>& a,
    const std::vector<std::pair<const tir::Buffer*, IndexMap>>& mapped) {
  WriterFinder finder(a.get());
  tir::visit_func(func, finder);
  if (finder.blocks.size() != 1 || finder.blocks[0] == nullptr) return std::nullopt;
  const tir::Block& b = *finder.blocks[0];
  const std::vector<PrimExpr>& w = finder.stores[0];
  for (const auto& st : finder.stores)
    if (!same_indices(st, w)) return std::nullopt;
  std::vector<const tir::Var*> store_vars;
  for (const PrimExpr& e : w) {
    auto* v = e.as<tir::Var>();
    if (v == nullptr || std::find(store_vars.begin(), store_vars.end(), v) != store_vars.end())
      return std::nullopt;
    store_vars.push_back(v);
  }
  std::optional<IndexMap> out;
  for (const auto& [buf, m] : mapped) {
    LoadCollector loads(buf);
    loads(b.body);
    for (const auto& idx : loads.loads) {
      if (idx.size() != w.size()) return std::nullopt;
      for (size_t d = 0; d < idx.size(); ++d) {
        bool other = false;
        tir::substitute(idx[d], [&](const tir::Var* v) -> PrimExpr {
          for (size_t j = 0; j < store_vars.size(); ++j) other |= j != d && store_vars[j] == v;
          for (const auto& iv : b.iter_vars)
            other |= iv->var.get() == v &&
                     std::find(store_vars.begin(), store_vars.end(), v) == store_vars.end();
          return PrimExpr();
        });
        if (other) return std::nullopt;
      }
      if (out && !FlowState::same_map(*out, m)) return std::nullopt;
      out = m;
    }
  }
  bool padded = false;
  if (!out || !arith::inverse_map(*out, a->shape, &padded) || padded) return std::nullopt;
  return out;
}

/// The map an intermediate `a` that no input map reaches takes from the result `out` (mapped
/// by `out_map`): when the blocks that read `a` are one block storing only into `out`, at the
/// indices it loads `a` at (an adaptive pool's `out[n, c, i, j] = sum[n, c, i, j] / area`),
/// and `a` has `out`'s shape. Frozen NHWC, the pool's sum then walks the channels innermost
/// too, instead of reading the NHWC input across channels.
std::optional<IndexMap> consumer_map(const Ref<tir::PrimFunc>& func, const Ref<tir::Buffer>& a,
                                     const Ref<tir::Buffer>& out, const IndexMap& out_map) {
  if (a->shape.size() != out->shape.size()) return std::nullopt;
  for (size_t d = 0; d < a->shape.size(); ++d)
    if (!arith::prove_equal(a->shape[d], out->shape[d])) return std::nullopt;
  struct Readers : tir::StmtExprVisitor {
    const tir::Buffer* a;
    std::vector<const tir::Block*> blocks;
    using tir::StmtExprVisitor::visit_;
    void visit_(const tir::Block* op) override {
      // Leaf blocks only (the root's body holds the others), the writers' own reads aside.
      bool leaf = true;
      tir::post_order_visit(op->body, [&](const tir::Stmt& st) {
        leaf &= st.as<tir::BlockRealize>() == nullptr;
      });
      WriterFinder writes(a);
      writes(op->body);
      LoadCollector loads(a);
      loads(op->body);
      if (leaf && writes.stores.empty() && !loads.loads.empty()) blocks.push_back(op);
      tir::StmtExprVisitor::visit_(op);
    }
  } readers;
  readers.a = a.get();
  tir::visit_func(func, readers);
  if (readers.blocks.size() != 1) return std::nullopt;
  const tir::Block& b = *readers.blocks[0];
  auto* store = b.body.as<tir::BufferStore>();  // the whole body: the block's only store
  if (!store || store->buffer.get() != out.get()) return std::nullopt;
  LoadCollector loads(a.get());
  loads(b.body);
  for (const auto& idx : loads.loads)
    if (!same_indices(idx, store->indices)) return std::nullopt;
  return out_map;
}

}  // namespace

Ref<tir::PrimFunc> realign_writers(
    const Ref<tir::PrimFunc>& func, Ref<tir::PrimFunc> relaid,
    const std::vector<std::pair<Ref<tir::Buffer>, IndexMap>>& allocs, size_t out_param,
    const std::optional<IndexMap>& out_map) {
  for (const auto& [a, m] : allocs)
    if (auto r = realign_buffer_writer(func, relaid, a.get(), m)) relaid = *r;
  if (Ref<tir::Buffer> out = func->param_buffer(out_param); out && out_map)
    if (auto r = realign_buffer_writer(func, relaid, out.get(), *out_map)) relaid = *r;
  return relaid;
}

std::optional<Ref<tir::PrimFunc>> relayout_frozen(
    const Ref<tir::PrimFunc>& func, const std::vector<std::optional<IndexMap>>& maps,
    size_t out_param, std::string* why) {
  std::vector<std::pair<const tir::Buffer*, IndexMap>> mapped;
  for (size_t i = 0; i < maps.size() && i < out_param; ++i)
    if (maps[i])
      if (Ref<tir::Buffer> b = func->param_buffer(i)) mapped.emplace_back(b.get(), *maps[i]);
  AllocFinder finder;
  tir::visit_func(func, finder);
  std::vector<std::pair<Ref<tir::Buffer>, IndexMap>> allocs;
  // Intermediates take their inputs' layouts, in program order (a chain follows along), or
  // else, read only where the result is written, the result's.
  Ref<tir::Buffer> out = func->param_buffer(out_param);
  for (const Ref<tir::Buffer>& a : finder.allocs) {
    std::optional<IndexMap> m = follow_map(func, a, mapped);
    if (!m && out.defined() && out_param < maps.size() && maps[out_param])
      m = consumer_map(func, a, out, *maps[out_param]);
    if (m) {
      allocs.emplace_back(a, *m);
      mapped.emplace_back(a.get(), *m);
    }
  }
  auto relaid = relayout_prim_func(func, maps, why, allocs);
  if (!relaid) return relaid;
  return realign_writers(func, *relaid, allocs, out_param,
                         out_param < maps.size() ? maps[out_param] : std::nullopt);
}

}  // namespace relax::layout
