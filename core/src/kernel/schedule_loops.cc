// Loop transformations: split, reorder, fuse (tir/schedule.h).
//
// Each rewrites one loop nest and substitutes the old loop variables in the statements below
// (block bindings, inner loop bounds, plain statements); blocks and their iteration domains
// stay as they are, so a block computes the same elements in a different order. Expects a
// function whose loops are For statements with unique loop variables (what create_prim_func
// and the parser make); guarantees the same set of block instances executes, and for split
// with a non-dividing factor, a predicate that masks the extra iterations.
#include <unordered_map>

#include "relax/arith/analyzer.h"
#include "relax/support/diagnostic.h"
#include "schedule_internal.h"

namespace relax::tir {

namespace {

using sched::find_loop;
using sched::LoopLoc;
using sched::replace_stmt;

/// Adds `cond` to the predicate of each block directly under `s` (not to nested ones); a
/// body without blocks is wrapped in `if cond`.
Stmt add_predicate(const Stmt& s, const PrimExpr& cond) {
  struct M : StmtMutator {
    PrimExpr cond;
    bool found = false;
    using StmtMutator::visit_;
    Stmt visit_(const BlockRealize* op) override {
      found = true;
      PrimExpr p = is_const_int(op->predicate, 1) ? cond : logical_and(op->predicate, cond);
      return make_ref<BlockRealize>(op->iter_values, p, op->block);
    }
  } m;
  m.cond = cond;
  Stmt out = m.visit_stmt(s);
  return m.found ? out : make_ref<IfThenElse>(cond, s);
}

Stmt make_loop(const For* like, Stmt body) {
  return make_ref<For>(like->loop_var, like->min, like->extent, like->kind, std::move(body),
                       like->thread_tag, like->annotations);
}

}  // namespace

std::vector<LoopRV> Schedule::split(const LoopRV& loop, const std::vector<int64_t>& factors) {
  std::vector<PrimExpr> exprs;
  DataType dt = find_loop(func_->body, loop, "split").loop->loop_var->dtype;
  for (int64_t x : factors) {
    RX_CHECK(x == -1 || x > 0) << "split: loop " << loop.var->name << ": factor " << x
                               << " must be positive (or -1 to infer it)";
    exprs.push_back(x == -1 ? PrimExpr() : int_imm(x, dt));
  }
  return split_exprs(loop, exprs);
}

std::vector<LoopRV> Schedule::split_exprs(const LoopRV& loop,
                                          const std::vector<PrimExpr>& factors) {
  LoopLoc loc = find_loop(func_->body, loop, "split");
  const For* f = loc.loop;
  const std::string& name = f->loop_var->name;
  RX_CHECK(f->kind == ForKind::kSerial)
      << "split: loop " << name << " is " << for_kind_name(f->kind)
      << "; only serial loops can be split (split before annotating)";
  RX_CHECK(factors.size() >= 2) << "split: loop " << name << ": needs at least two factors, got "
                                << factors.size();
  DataType dt = f->loop_var->dtype;
  arith::Analyzer ana(arith::AnalyzerOptions{true});
  int infer = -1;
  PrimExpr known = int_imm(1, dt);
  std::vector<PrimExpr> extents(factors.size());
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!factors[i].defined()) {
      RX_CHECK(infer < 0) << "split: loop " << name << ": at most one factor may be -1";
      infer = int(i);
      continue;
    }
    RX_CHECK(ana.can_prove(gt(factors[i], int_imm(0, dt))))
        << "split: loop " << name << ": factor " << to_string(factors[i])
        << " must be positive (or -1 to infer it)";
    extents[i] = factors[i];
    known = ana.simplify(known * factors[i]);
  }
  bool exact = false;
  if (infer >= 0) {
    extents[size_t(infer)] = ana.simplify(floordiv(f->extent + known - int_imm(1, dt), known));
    exact = ana.can_prove(eq(floormod(f->extent, known), int_imm(0, dt)));
  } else {
    const int64_t* ce = as_const_int(f->extent);
    const int64_t* ck = as_const_int(known);
    if (ce && ck)
      RX_CHECK(*ck >= *ce) << "split: loop " << name << ": the factors' product " << *ck
                           << " is less than the extent " << *ce;
    else
      RX_CHECK(ana.can_prove(ge(known, f->extent)))
          << "split: loop " << name << ": cannot prove that the factors' product "
          << to_string(known) << " covers the extent " << to_string(f->extent)
          << "; give -1 for one factor";
    exact = ana.prove_equal(known, f->extent);
  }

  std::vector<Ref<Var>> vars;
  PrimExpr fused;
  for (size_t i = 0; i < factors.size(); ++i) {
    vars.push_back(var(name + "_" + std::to_string(i), dt));
    fused = i == 0 ? PrimExpr(vars[0]) : fused * extents[i] + vars[i];
  }
  PrimExpr value = is_const_int(f->min, 0) ? fused : f->min + fused;
  const Var* old = f->loop_var.get();
  Stmt body = substitute(f->body, [&](const Var* v) { return v == old ? value : PrimExpr(); });
  if (!exact) body = add_predicate(body, lt(fused, f->extent));
  for (size_t i = factors.size(); i-- > 0;)
    body = make_ref<For>(vars[i], int_imm(0, dt), extents[i], ForKind::kSerial, body);
  func_ = with_body(func_, replace_stmt(func_->body, f, body));
  std::vector<LoopRV> out;
  for (auto& v : vars) out.push_back(LoopRV{v});
  return out;
}

void Schedule::reorder(const std::vector<LoopRV>& order) {
  RX_CHECK(!order.empty()) << "reorder: no loops given";
  std::vector<LoopLoc> locs;
  std::unordered_set<const Var*> named;
  for (const auto& l : order) {
    locs.push_back(find_loop(func_->body, l, "reorder"));
    RX_CHECK(named.insert(l.var.get()).second)
        << "reorder: loop " << l.var->name << " is given twice";
  }
  // The outermost and innermost of the loops; all must lie on the path between them.
  const LoopLoc* top = &locs[0];
  const LoopLoc* bottom = &locs[0];
  for (const auto& l : locs) {
    if (l.outer.size() < top->outer.size()) top = &l;
    if (l.outer.size() > bottom->outer.size()) bottom = &l;
  }
  auto encloses = [](const LoopLoc& outer, const LoopLoc& inner) {
    if (outer.loop == inner.loop) return true;
    for (const For* f : inner.outer)
      if (f == outer.loop) return true;
    return false;
  };
  for (const auto& l : locs)
    RX_CHECK(encloses(l, *bottom))
        << "reorder: loops " << l.loop->loop_var->name << " and " << bottom->loop->loop_var->name
        << " are not in one nest (neither encloses the other)";
  // The chain from top to bottom must be a perfect nest.
  std::vector<const For*> chain{top->loop};
  while (chain.back() != bottom->loop) {
    const For* f = chain.back();
    auto* next = f->body.as<For>();
    RX_CHECK(next) << "reorder: loop " << f->loop_var->name << " has a "
                   << stmt_kind_name(f->body->kind())
                   << " as its body, not a single loop; the loops from "
                   << top->loop->loop_var->name << " to " << bottom->loop->loop_var->name
                   << " must form a perfect nest";
    chain.push_back(next);
  }
  std::unordered_set<const Var*> chain_vars;
  for (const For* f : chain) chain_vars.insert(f->loop_var.get());
  for (const For* f : chain)
    RX_CHECK(!sched::uses_any(f->min, chain_vars) && !sched::uses_any(f->extent, chain_vars))
        << "reorder: the range of loop " << f->loop_var->name
        << " depends on another loop of the nest (" << to_string(f->min) << ", "
        << to_string(f->extent) << ")";
  std::vector<size_t> positions;
  for (size_t i = 0; i < chain.size(); ++i)
    if (named.count(chain[i]->loop_var.get())) positions.push_back(i);
  std::vector<const For*> reordered = chain;
  for (size_t t = 0; t < positions.size(); ++t) reordered[positions[t]] = locs[t].loop;
  Stmt body = chain.back()->body;
  for (size_t i = reordered.size(); i-- > 0;) body = make_loop(reordered[i], body);
  func_ = with_body(func_, replace_stmt(func_->body, chain[0], body));
}

LoopRV Schedule::fuse(const std::vector<LoopRV>& loops) {
  RX_CHECK(loops.size() >= 2) << "fuse: needs at least two loops, got " << loops.size();
  std::vector<const For*> fs;
  std::unordered_set<const Var*> vars;
  for (const auto& l : loops) {
    const For* f = find_loop(func_->body, l, "fuse").loop;
    RX_CHECK(vars.insert(f->loop_var.get()).second)
        << "fuse: loop " << f->loop_var->name << " is given twice";
    RX_CHECK(f->kind == ForKind::kSerial)
        << "fuse: loop " << f->loop_var->name << " is " << for_kind_name(f->kind)
        << "; only serial loops can be fused";
    if (!fs.empty()) {
      RX_CHECK(fs.back()->body.get() == f)
          << "fuse: loop " << f->loop_var->name << " is not the body of loop "
          << fs.back()->loop_var->name
          << "; fused loops must be adjacent, each the only child of the one before";
      RX_CHECK(f->loop_var->dtype == fs.back()->loop_var->dtype)
          << "fuse: loops " << fs.back()->loop_var->name << " and " << f->loop_var->name
          << " have different dtypes";
    }
    fs.push_back(f);
  }
  for (const For* f : fs)
    RX_CHECK(!sched::uses_any(f->min, vars) && !sched::uses_any(f->extent, vars))
        << "fuse: the range of loop " << f->loop_var->name << " depends on a fused loop";
  DataType dt = fs[0]->loop_var->dtype;
  std::string name;
  PrimExpr extent;
  for (const For* f : fs) {
    name += f->loop_var->name + "_";
    extent = extent.defined() ? extent * f->extent : f->extent;
  }
  Ref<Var> fused = var(name + "fused", dt);
  std::unordered_map<const Var*, PrimExpr> vmap;
  // A loop of constant extent 0 makes the fused loop empty: its body never runs, so each
  // variable maps to its loop's min (recovering it by division would divide by zero).
  bool empty = false;
  for (const For* f : fs) empty = empty || is_const_int(f->extent, 0);
  PrimExpr inner = int_imm(1, dt);  // product of the extents inside loop k
  for (size_t k = fs.size(); k-- > 0;) {
    if (empty) {
      vmap[fs[k]->loop_var.get()] = fs[k]->min;
      continue;
    }
    PrimExpr v = fused;
    if (k + 1 < fs.size()) v = floordiv(v, inner);
    if (k > 0) v = floormod(v, fs[k]->extent);
    if (!is_const_int(fs[k]->min, 0)) v = fs[k]->min + v;
    vmap[fs[k]->loop_var.get()] = v;
    inner = k + 1 < fs.size() ? inner * fs[k]->extent : fs[k]->extent;
  }
  Stmt body = substitute(fs.back()->body, [&](const Var* v) {
    auto it = vmap.find(v);
    return it == vmap.end() ? PrimExpr() : it->second;
  });
  Stmt loop = make_ref<For>(fused, int_imm(0, dt), extent, ForKind::kSerial, body);
  func_ = with_body(func_, replace_stmt(func_->body, fs[0], loop));
  return LoopRV{fused};
}

}  // namespace relax::tir
