// TIR blocks for the parser: `with T.block("name"):` and its header statements — iteration
// variables (T.axis.spatial/reduce/opaque/remap), T.reads/T.writes (inferred from the body when
// both are omitted), T.where, T.block_attr, T.alloc_buffer, T.match_buffer and T.init().
// A T.alloc_buffer at the top of a function lands in the implicit root block (parser_tir.cc).
#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "script_common.h"

namespace relax::script {

using namespace tir;
using tir::Block;
using tir::Call;
using tir::Var;

bool Parser::tir_header(const text::Stmt& s) {
  BlockCtx* b = block_ctx_;
  if (!b) return false;
  std::string fn = call_name(s.value);
  if (s.kind == SK::kExpr) {
    if (b->is_root) return false;
    const text::Node* c = s.value.get();
    if (fn == "T.reads" || fn == "T.writes") {
      std::vector<BufferRegion> rs;
      for (const auto& it : c->items) {
        if (it->kind == NK::kList || it->kind == NK::kTuple) {
          for (const auto& x : it->items) rs.push_back(region(x));
        } else {
          rs.push_back(region(it));
        }
      }
      (fn == "T.reads" ? b->reads : b->writes) = std::move(rs);
      return true;
    }
    if (fn == "T.where") {
      if (c->items.size() != 1) error(s.pos, "T.where takes one condition");
      PrimExpr p = prim(c->items[0]).e;
      if (!p->dtype.is_bool() || p->dtype.lanes != 1)
        error(c->items[0]->pos, "T.where needs a bool condition");
      b->predicate = p;
      return true;
    }
    if (fn == "T.block_attr") {
      if (c->items.size() != 1) error(s.pos, "T.block_attr takes one dict");
      b->annotations = attr_dict(c->items[0]);
      return true;
    }
    return false;
  }
  if (s.kind == SK::kAssign && s.value) {
    if (fn == "T.alloc_buffer") {
      if (s.target->kind != NK::kName) error(s.target->pos, "expected a buffer name");
      Ref<Buffer> buf = buffer_decl(*s.value, 0, s.target->str, {});
      b->allocs.push_back(buf);
      define(s.target->str, Entry::buffer(buf));
      return true;
    }
    if (b->is_root) return false;
    if (fn == "T.match_buffer") {
      if (s.target->kind != NK::kName) error(s.target->pos, "expected a buffer name");
      if (s.value->items.empty()) error(s.pos, "T.match_buffer needs a source region");
      BufferRegion src = region(s.value->items[0]);
      Ref<Buffer> buf = buffer_decl(*s.value, 1, s.target->str, {});
      b->match_buffers.push_back({buf, src});
      define(s.target->str, Entry::buffer(buf));
      return true;
    }
    if (fn.rfind("T.axis.", 0) == 0) {
      std::string kind = fn.substr(7);
      const text::Node& c = *s.value;
      if (kind == "remap") {
        if (c.items.size() != 2)
          error(c.pos, "T.axis.remap takes the kinds (\"SSR\") and a list of loop variables");
        std::string letters = string_literal(c.items[0], "the iteration kinds");
        const NodeP& vals = c.items[1];
        if (vals->kind != NK::kList && vals->kind != NK::kTuple)
          error(vals->pos, "expected a list of loop variables");
        std::vector<NodeP> targets;
        if (s.target->kind == NK::kTuple)
          targets = s.target->items;
        else
          targets.push_back(s.target);
        if (letters.size() != vals->items.size() || targets.size() != letters.size())
          error(c.pos, "T.axis.remap: " + std::to_string(letters.size()) + " kind(s), " +
                           std::to_string(vals->items.size()) + " loop variable(s) and " +
                           std::to_string(targets.size()) + " name(s) must agree");
        for (size_t k = 0; k < letters.size(); ++k) {
          IterVarType t;
          if (letters[k] == 'S')
            t = IterVarType::kSpatial;
          else if (letters[k] == 'R')
            t = IterVarType::kReduce;
          else if (letters[k] == 'O')
            t = IterVarType::kOpaque;
          else
            error(c.items[0]->pos,
                  std::string("unknown iteration kind '") + letters[k] + "'; expected S, R or O");
          const NodeP& v = vals->items[k];
          PrimExpr lv = prim(v).e;
          const LoopInfo* loop = nullptr;
          for (const auto& l : loops_)
            if (l.var.get() == lv.get()) loop = &l;
          if (!loop)
            error(v->pos,
                  "T.axis.remap binds loop variables; '" + text::dotted_name(v) + "' is not one");
          if (targets[k]->kind != NK::kName) error(targets[k]->pos, "expected a name");
          auto iv = make_ref<tir::Var>(targets[k]->str, loop->var->dtype);
          b->iter_vars.push_back(
              make_ref<IterVar>(iv, Range::from_min_extent(loop->min, loop->extent), t));
          b->values.push_back(lv);
          define(iv->name, Entry::sym(iv));
        }
        return true;
      }
      IterVarType t;
      if (kind == "spatial" || kind == "S")
        t = IterVarType::kSpatial;
      else if (kind == "reduce" || kind == "R")
        t = IterVarType::kReduce;
      else if (kind == "opaque" || kind == "O")
        t = IterVarType::kOpaque;
      else
        error(c.a->pos,
              "unknown block axis '" + fn +
                  "'; expected T.axis.spatial, T.axis.reduce, T.axis.opaque or T.axis.remap");
      if (c.items.size() != 2) error(c.pos, fn + " takes a domain and a value");
      if (s.target->kind != NK::kName) error(s.target->pos, "expected one name");
      PrimExpr value = prim(c.items[1]).e;
      if (!value->dtype.is_int() || value->dtype.lanes != 1)
        error(c.items[1]->pos, "a block axis value must be an integer");
      DataType vt = value->dtype;
      const NodeP& dom = c.items[0];
      Range r;
      if (dom->kind == NK::kTuple || dom->kind == NK::kList) {
        if (dom->items.size() != 2) error(dom->pos, "a domain is an extent or (min, end)");
        PrimExpr lo = prim_as(dom->items[0], vt), hi = prim_as(dom->items[1], vt);
        if (lo->dtype != vt || hi->dtype != vt)
          error(dom->pos, "the domain must have the value's dtype " + vt.to_string());
        r = Range::from_min_extent(lo, arith::simplify(make_ref<Sub>(vt, hi, lo)));
      } else {
        PrimExpr ext = prim_as(dom, vt);
        if (ext->dtype != vt)
          error(dom->pos, "the domain must have the value's dtype " + vt.to_string());
        r = Range::from_min_extent(make_ref<IntImm>(vt, 0), ext);
      }
      auto iv = make_ref<tir::Var>(s.target->str, vt);
      b->iter_vars.push_back(make_ref<IterVar>(iv, r, t));
      b->values.push_back(value);
      define(iv->name, Entry::sym(iv));
      return true;
    }
  }
  if (s.kind == SK::kWith && fn == "T.init" && !b->is_root) {
    if (b->init.defined()) error(s.pos, "a block has one T.init()");
    BlockCtx* saved = block_ctx_;
    block_ctx_ = nullptr;
    push_scope();
    b->init = tir_stmts(s.body, 0);
    pop_scope();
    block_ctx_ = saved;
    return true;
  }
  return false;
}

Stmt Parser::tir_block(const text::Stmt& s, const NodeP& call) {
  std::string name;
  if (!call->items.empty())
    name = string_literal(call->items[0], "the block name");
  else if (NodeP n = kwarg(*call, "name_hint"))
    name = string_literal(n, "the block name");
  BlockCtx ctx;
  BlockCtx* saved = block_ctx_;
  block_ctx_ = &ctx;
  push_scope();
  std::vector<StmtP> body;
  size_t i = 0;
  // Header statements first (iteration variables, regions, buffers, init), then the body.
  for (; i < s.body.size(); ++i) {
    if (!tir_header(*s.body[i])) break;
  }
  std::vector<StmtP> rest(s.body.begin() + long(i), s.body.end());
  Stmt b = tir_stmts(rest, 0);
  block_ctx_ = saved;
  pop_scope();
  std::vector<BufferRegion> reads, writes;
  if (!ctx.reads && !ctx.writes) {
    infer_block_regions(b, ctx.init, ctx.allocs, &reads, &writes);
  } else {
    if (ctx.reads) reads = *ctx.reads;
    if (ctx.writes) writes = *ctx.writes;
  }
  auto blk = make_ref<tir::Block>(name, ctx.iter_vars, reads, writes, b, ctx.init, ctx.allocs,
                                  ctx.match_buffers, ctx.annotations);
  PrimExpr pred = ctx.predicate.defined() ? ctx.predicate : bool_imm(true);
  return make_ref<BlockRealize>(ctx.values, pred, blk);
}

}  // namespace relax::script
