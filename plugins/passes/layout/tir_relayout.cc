// transform_layout over PrimFunc parameters and the flow of a result rewrite to the operands
// through the writing block (tir_relayout.h).
#include "tir_relayout.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

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
  for (size_t d = 0; d < m; ++d) {
    res.vars.push_back(tir::var("i" + std::to_string(d)));
    auto* v = idx[d].as<tir::Var>();
    auto at = v == nullptr ? out_vars.end() : std::find(out_vars.begin(), out_vars.end(), v);
    if (at != out_vars.end()) {
      size_t j = size_t(at - out_vars.begin());
      if (sigma[j].defined()) {
        if (why) *why = "an operand reads one output index on two axes";
        return std::nullopt;
      }
      sigma[j] = res.vars[d];
      var_pos[d] = int64_t(j);
    } else if (v == nullptr && !tir::as_const_int(idx[d])) {
      if (why) *why = "an operand index is neither a block variable nor a constant: " +
                      tir::to_string(idx[d]);
      return std::nullopt;
    }
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
    tir::Stmt body = subst(b.body);
    tir::Stmt init = b.init.defined() ? subst(b.init) : b.init;
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

std::optional<Ref<tir::PrimFunc>> realign_writer(const Ref<tir::PrimFunc>& func,
                                                 const Ref<tir::PrimFunc>& relaid,
                                                 size_t out_param, const IndexMap& out_map) {
  Ref<tir::Buffer> out = func->param_buffer(out_param);
  if (!out) return std::nullopt;
  WriterFinder finder(out.get());
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

}  // namespace relax::layout
