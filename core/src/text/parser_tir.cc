// The TIR half of the parser: `@T.prim_func` definitions with T.Buffer / T.handle +
// T.match_buffer parameters, symbolic variables, loops (T.grid, range, T.serial, T.parallel,
// T.vectorized, T.unroll, T.thread_binding), blocks (T.block, T.axis.*, T.reads/T.writes —
// inferred when omitted —, T.where, T.block_attr, T.alloc_buffer, T.match_buffer, T.init),
// stores (also `+=`), lets, asserts, allocations and T.evaluate. A T.alloc_buffer at the top
// of a function creates the implicit "root" block, as in TVM.
#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "script_common.h"

namespace relax::script {

using namespace tir;
using tir::Block;
using tir::Call;
using tir::Var;

namespace {
NodeP kw(const text::Node& n, const std::string& key) {
  for (const auto& [k, v] : n.kwargs)
    if (k == key) return v;
  return nullptr;
}
std::string call_name(const NodeP& n) {
  return n && n->kind == NK::kCall ? text::dotted_name(n->a) : std::string();
}
}  // namespace

std::vector<PrimExpr> Parser::shape_dims(const NodeP& n) {
  if (n->kind != NK::kTuple && n->kind != NK::kList) {
    // T.Buffer(16, ...) : a one-dimensional shape.
    PrimExpr e = prim_as(n, kDefaultInt);
    if (!e->dtype.is_int()) error(n->pos, "a buffer dimension must be an integer");
    return {e};
  }
  std::vector<PrimExpr> out;
  for (const auto& d : n->items) {
    PrimExpr e = prim_as(d, kDefaultInt);
    if (!e->dtype.is_int() || e->dtype.lanes != 1)
      error(d->pos, "a buffer dimension must be an integer, got " + e->dtype.to_string());
    out.push_back(e);
  }
  return out;
}

Ref<Buffer> Parser::buffer_of(const NodeP& n) {
  if (n->kind == NK::kName) {
    const Entry* e = lookup(n->str);
    if (e && e->kind == Entry::kBuffer) return e->buf;
    if (!e) error(n->pos, "undefined buffer '" + n->str + "'");
  }
  error(n->pos, "expected a buffer, got '" + text::dotted_name(n) + "'");
}

Ref<Buffer> Parser::buffer_decl(const text::Node& call, size_t first, const std::string& name,
                                Ref<tir::Var> data) {
  const auto& a = call.items;
  NodeP shape = a.size() > first ? a[first] : kw(call, "shape");
  if (!shape) error(call.pos, text::dotted_name(call.a) + " needs a shape");
  NodeP dt = a.size() > first + 1 ? a[first + 1] : kw(call, "dtype");
  for (const auto& [k, v] : call.kwargs)
    if (k != "shape" && k != "dtype" && k != "strides" && k != "elem_offset" && k != "scope" &&
        k != "data" && k != "offset_factor" && k != "align")
      error(v->pos, text::dotted_name(call.a) + " has no keyword argument '" + k + "'");
  DataType t = dt ? dtype_of(dt) : DataType::Float(32);
  if (t.lanes != 1 || t.is_void()) error(dt ? dt->pos : call.pos, "a buffer needs a scalar dtype");
  std::vector<PrimExpr> dims = shape_dims(shape);
  std::vector<PrimExpr> strides;
  if (NodeP s = kw(call, "strides")) {
    strides = shape_dims(s);
    if (strides.size() != dims.size()) error(s->pos, "one stride per dimension is needed");
  }
  PrimExpr offset;
  if (NodeP o = kw(call, "elem_offset")) {
    offset = prim_as(o, kDefaultInt);
    if (!offset->dtype.is_int()) error(o->pos, "elem_offset must be an integer");
  }
  std::string scope = "global";
  if (NodeP s = kw(call, "scope")) scope = string_literal(s, "the storage scope");
  if (!is_valid_storage_scope(scope))
    error(call.pos, "unknown storage scope '" + scope + "'; valid: global, shared, local");
  if (NodeP d = kw(call, "data")) {
    PrimExpr dv = prim(d).e;
    auto* v = dv.as<tir::Var>();
    if (!v || !v->dtype.is_handle())
      error(d->pos, "data= must be a handle (a T.allocate result or buffer.data)");
    data = Ref<tir::Var>(v);
  }
  if (!data.defined()) data = make_ref<tir::Var>(name, DataType::Handle());
  return make_buffer(data, t, std::move(dims), name, std::move(strides), offset, scope);
}

BufferRegion Parser::region(const NodeP& n) {
  if (n->kind == NK::kName) return BufferRegion::full(buffer_of(n));
  if (n->kind != NK::kSubscript) error(n->pos, "expected a buffer region such as A[i, 0:n]");
  Ref<Buffer> buf = buffer_of(n->a);
  if (n->items.size() != buf->shape.size())
    error(n->pos, "buffer '" + buf->name + "' has " + std::to_string(buf->shape.size()) +
                      " dimension(s), the region names " + std::to_string(n->items.size()));
  BufferRegion r{buf, {}};
  arith::Analyzer ana;
  for (const auto& it : n->items) {
    if (it->kind == NK::kSlice) {
      PrimExpr lo = it->a ? prim_as(it->a, kDefaultInt) : PrimExpr(int_imm(0));
      PrimExpr hi = it->b ? prim(it->b).e : PrimExpr();
      if (!hi.defined()) error(it->pos, "a region slice needs an end");
      hi = coerce(Typed{hi, it->b->kind == NK::kInt}, lo->dtype, it->pos);
      if (hi->dtype != lo->dtype || !lo->dtype.is_int())
        error(it->pos, "slice bounds must be integers of one dtype");
      r.region.push_back(
          Range::from_min_extent(lo, ana.simplify(make_ref<Sub>(lo->dtype, hi, lo))));
    } else {
      PrimExpr p = prim_as(it, kDefaultInt);
      if (!p->dtype.is_int()) error(it->pos, "a region index must be an integer");
      r.region.push_back(Range::point(p));
    }
  }
  return r;
}

Ref<PrimFunc> Parser::prim_func(const text::Stmt& def) {
  for (const auto& d : def.decorators) {
    if (d->kind != NK::kCall) continue;
    for (const auto& [k, v] : d->kwargs)
      if (k != "private") error(v->pos, "@T.prim_func has no option '" + k + "'; valid: private");
  }
  in_tir_ = true;
  push_scope();
  // Symbolic variables declared in the body may appear in the signature's buffer shapes.
  for (const auto& s : def.body)
    if (s->kind == SK::kAssign && is_sym_decl(s->value)) declare_sym(*s);
  std::vector<Ref<tir::Var>> params;
  std::vector<std::pair<Ref<tir::Var>, Ref<Buffer>>> buffer_map;
  implicit_vars_ = true;
  for (const auto& p : def.params) {
    if (!p.annotation)
      error(p.pos,
            "parameter '" + p.name + "' needs a type (T.handle, T.Buffer(...), T.int32, ...)");
    for (const auto& q : params)
      if (q->name == p.name) error(p.pos, "parameter '" + p.name + "' is repeated");
    const NodeP& a = p.annotation;
    std::string an =
        text::dotted_name(a->kind == NK::kCall || a->kind == NK::kSubscript ? a->a : a);
    if (an == "T.Buffer") {
      Ref<Buffer> buf;
      if (a->kind == NK::kCall) {
        buf = buffer_decl(*a, 0, p.name, {});
      } else if (a->kind == NK::kSubscript) {
        // The older T.Buffer[(n, 4), "float32"].
        text::Node call;
        call.kind = NK::kCall;
        call.pos = a->pos;
        call.a = a->a;
        call.items = a->items;
        buf = buffer_decl(call, 0, p.name, {});
      } else {
        error(a->pos, "T.Buffer needs a shape and a dtype");
      }
      params.push_back(buf->data);
      buffer_map.emplace_back(buf->data, buf);
      define(p.name, Entry::buffer(buf));
    } else if (an == "T.handle" || an == "T.Ptr") {
      auto v = make_ref<tir::Var>(p.name, DataType::Handle());
      params.push_back(v);
      define(p.name, Entry::sym(v));
    } else {
      DataType t = dtype_of(a);
      auto v = make_ref<tir::Var>(p.name, t);
      params.push_back(v);
      define(p.name, Entry::sym(v));
    }
  }
  implicit_vars_ = false;
  DataType ret = DataType::Void();
  if (def.ret && def.ret->kind != NK::kNone) ret = dtype_of(def.ret);
  Attrs attrs;
  // Function-level statements: attributes and match_buffers, then the body.
  BlockCtx root;
  root.is_root = true;
  std::vector<StmtP> body;
  for (const auto& s : def.body) {
    if (s->kind == SK::kExpr && call_name(s->value) == "T.func_attr") {
      if (s->value->items.size() != 1) error(s->pos, "T.func_attr takes one dict");
      attrs = attr_dict(s->value->items[0]);
      continue;
    }
    if (s->kind == SK::kAssign && call_name(s->value) == "T.match_buffer" &&
        s->value->items.size() >= 1 && s->value->items[0]->kind == NK::kName) {
      if (s->target->kind != NK::kName) error(s->target->pos, "expected a buffer name");
      const NodeP& h = s->value->items[0];
      const Entry* e = lookup(h->str);
      Ref<tir::Var> handle;
      for (const auto& p : params)
        if (p->name == h->str && e && e->kind == Entry::kSymVar && e->tvar.same_as(p)) handle = p;
      if (!handle.defined() || !handle->dtype.is_handle())
        error(h->pos, "T.match_buffer binds a T.handle parameter; '" + h->str + "' is not one");
      for (const auto& [k, b] : buffer_map)
        if (k.same_as(handle))
          error(h->pos, "parameter '" + h->str + "' is already matched to a buffer");
      implicit_vars_ = true;
      Ref<Buffer> buf = buffer_decl(*s->value, 1, s->target->str, handle);
      implicit_vars_ = false;
      buffer_map.emplace_back(handle, buf);
      define(s->target->str, Entry::buffer(buf));
      continue;
    }
    if (s->kind == SK::kExpr && s->value->kind == NK::kStr) continue;  // docstring
    body.push_back(s);
  }
  // Keep buffer_map in parameter order.
  std::vector<std::pair<Ref<tir::Var>, Ref<Buffer>>> ordered;
  for (const auto& p : params)
    for (const auto& kv : buffer_map)
      if (kv.first.same_as(p)) ordered.push_back(kv);
  block_ctx_ = &root;
  Stmt s = tir_stmts(body, 0);
  block_ctx_ = nullptr;
  if (!root.allocs.empty()) {
    auto blk =
        make_ref<tir::Block>("root", std::vector<Ref<IterVar>>{}, std::vector<BufferRegion>{},
                             std::vector<BufferRegion>{}, s, Stmt(), root.allocs);
    s = block_realize({}, blk);
  }
  pop_scope();
  in_tir_ = false;
  return make_ref<PrimFunc>(params, s, ordered, attrs, ret);
}

Stmt Parser::tir_stmts(const std::vector<StmtP>& list, size_t from) {
  std::vector<Stmt> out;
  size_t i = from;
  while (i < list.size()) {
    Stmt s = tir_stmt(list, &i);
    if (s.defined()) out.push_back(s);
  }
  if (out.empty()) return no_op();
  if (out.size() == 1) return out[0];
  return make_ref<SeqStmt>(std::move(out));
}

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

Stmt Parser::tir_for(const text::Stmt& s) {
  const text::Node* it = s.value.get();
  std::string fn = call_name(s.value);
  std::vector<NodeP> targets;
  if (s.target->kind == NK::kTuple)
    targets = s.target->items;
  else
    targets.push_back(s.target);
  for (const auto& t : targets)
    if (t->kind != NK::kName) error(t->pos, "a loop variable must be a name");
  struct L {
    std::string name;
    PrimExpr min, extent;
    ForKind kind = ForKind::kSerial;
    std::string thread;
    Attrs annotations;
  };
  std::vector<L> loops;
  auto range_of = [&](const text::Node& c, size_t max_args) {
    L l;
    if (c.items.empty() || c.items.size() > max_args)
      error(c.pos, text::dotted_name(c.a) + " takes an extent, or a start and an end");
    if (c.items.size() == 1) {
      l.extent = prim(c.items[0]).e;
      l.min = make_ref<IntImm>(l.extent->dtype, 0);
    } else {
      Typed lo = prim(c.items[0]), hi = prim(c.items[1]);
      if (lo.untyped && !hi.untyped) lo.e = coerce(lo, hi.e->dtype, c.pos);
      if (hi.untyped && !lo.untyped) hi.e = coerce(hi, lo.e->dtype, c.pos);
      if (lo.e->dtype != hi.e->dtype) error(c.pos, "loop bounds have different dtypes");
      l.min = lo.e;
      l.extent = arith::simplify(make_ref<Sub>(lo.e->dtype, hi.e, lo.e));
    }
    if (!l.extent->dtype.is_int() || l.extent->dtype.lanes != 1)
      error(c.pos, "loop bounds must be integers");
    return l;
  };
  if (fn == "T.grid") {
    if (it->items.size() != targets.size())
      error(it->pos, "T.grid has " + std::to_string(it->items.size()) + " extent(s) for " +
                         std::to_string(targets.size()) + " loop variable(s)");
    if (!it->kwargs.empty()) error(it->kwargs[0].second->pos, "T.grid takes no keyword arguments");
    for (size_t k = 0; k < targets.size(); ++k) {
      L l;
      l.extent = prim(it->items[k]).e;
      if (!l.extent->dtype.is_int() || l.extent->dtype.lanes != 1)
        error(it->items[k]->pos, "loop extents must be integers");
      l.min = make_ref<IntImm>(l.extent->dtype, 0);
      loops.push_back(l);
    }
  } else {
    if (targets.size() != 1) error(s.target->pos, "only T.grid binds several loop variables");
    if (!it || it->kind != NK::kCall)
      error(s.value->pos, "expected range(...), T.grid(...), T.serial(...), T.parallel(...), ...");
    static const std::pair<const char*, ForKind> kinds[] = {
        {"range", ForKind::kSerial},        {"T.serial", ForKind::kSerial},
        {"T.parallel", ForKind::kParallel}, {"T.vectorized", ForKind::kVectorized},
        {"T.unroll", ForKind::kUnrolled},   {"T.thread_binding", ForKind::kThreadBinding}};
    bool found = false;
    L l;
    for (const auto& [name, kind] : kinds) {
      if (fn != name) continue;
      found = true;
      bool tb = kind == ForKind::kThreadBinding;
      text::Node c = *it;
      NodeP thread = kw(*it, "thread");
      if (tb && !thread && c.items.size() >= 2 && c.items.back()->kind == NK::kStr) {
        thread = c.items.back();
        c.items.pop_back();
      }
      for (const auto& [k, v] : it->kwargs)
        if (k != "annotations" && !(tb && k == "thread"))
          error(v->pos, fn + " has no keyword argument '" + k + "'");
      l = range_of(c, 2);
      l.kind = kind;
      if (tb) {
        if (!thread)
          error(it->pos, "T.thread_binding needs thread=\"threadIdx.x\" (or another thread tag)");
        l.thread = string_literal(thread, "the thread tag");
      }
      if (NodeP a = kw(*it, "annotations")) l.annotations = attr_dict(a);
    }
    if (!found)
      error(s.value->pos,
            "expected range(...), T.grid(...), T.serial(...), T.parallel(...), T.vectorized(...), "
            "T.unroll(...) or T.thread_binding(...), got '" +
                fn + "'");
    loops.push_back(l);
  }
  push_scope();
  std::vector<Ref<tir::Var>> vars;
  for (size_t k = 0; k < loops.size(); ++k) {
    auto v = make_ref<tir::Var>(targets[k]->str, loops[k].extent->dtype);
    if (loops[k].min->dtype != v->dtype) error(s.pos, "loop bounds have different dtypes");
    vars.push_back(v);
    define(v->name, Entry::sym(v));
    loops_.push_back(LoopInfo{v, loops[k].min, loops[k].extent});
  }
  BlockCtx* saved = block_ctx_;
  block_ctx_ = nullptr;
  Stmt body = tir_stmts(s.body, 0);
  block_ctx_ = saved;
  loops_.resize(loops_.size() - loops.size());
  pop_scope();
  for (size_t k = loops.size(); k-- > 0;)
    body = make_ref<For>(vars[k], loops[k].min, loops[k].extent, loops[k].kind, body,
                         loops[k].thread, loops[k].annotations);
  return body;
}

Stmt Parser::tir_block(const text::Stmt& s, const NodeP& call) {
  std::string name;
  if (!call->items.empty())
    name = string_literal(call->items[0], "the block name");
  else if (NodeP n = kw(*call, "name_hint"))
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

Stmt Parser::tir_stmt(const std::vector<StmtP>& list, size_t* index) {
  const text::Stmt& s = *list[*index];
  ++*index;
  try {
    if (tir_header(s)) return Stmt();
    std::string fn = call_name(s.value);
    switch (s.kind) {
      case SK::kPass:
        return Stmt();
      case SK::kExpr: {
        if (s.value->kind == NK::kStr) return Stmt();
        if (fn == "T.evaluate") {
          if (s.value->items.size() != 1) error(s.pos, "T.evaluate takes one expression");
          return make_ref<Evaluate>(prim(s.value->items[0]).e);
        }
        if (fn == "T.reads" || fn == "T.writes" || fn == "T.where" || fn == "T.block_attr")
          error(s.pos, fn + " is only valid at the top of a T.block");
        if (fn == "T.func_attr") error(s.pos, "T.func_attr is only valid at the top of a function");
        return make_ref<Evaluate>(prim(s.value).e);
      }
      case SK::kAssign: {
        if (!s.value) error(s.pos, "expected '= value'");
        if (s.target->kind == NK::kSubscript) {
          if (s.annotation) error(s.annotation->pos, "a buffer store takes no annotation");
          Ref<Buffer> buf = buffer_of(s.target->a);
          PrimExpr load = prim(s.target).e;  // checks indices
          const auto& idx = load.as<BufferLoad>()->indices;
          Typed v = prim(s.value);
          PrimExpr value = coerce(v, buf->dtype.with_lanes(load->dtype.lanes), s.value->pos);
          if (value->dtype != load->dtype)
            error(s.value->pos, "storing a " + value->dtype.to_string() + " value into '" +
                                    buf->name + "', a " + load->dtype.to_string() +
                                    " buffer access");
          return make_ref<BufferStore>(buf, value, idx);
        }
        if (is_sym_decl(s.value)) {
          declare_sym(s);
          return Stmt();
        }
        if (s.target->kind != NK::kName)
          error(s.target->pos, "expected a name or a buffer element on the left of '='");
        const std::string& name = s.target->str;
        if (fn == "T.Buffer" || fn == "T.decl_buffer") {
          Ref<Buffer> buf = buffer_decl(*s.value, 0, name, {});
          define(name, Entry::buffer(buf));
          return Stmt();
        }
        if (fn == "T.alloc_buffer")
          error(s.pos, "T.alloc_buffer is only valid at the top of a block or of the function");
        if (fn == "T.match_buffer")
          error(s.pos, "T.match_buffer is only valid at the top of a block or of the function");
        if (fn.rfind("T.axis.", 0) == 0)
          error(s.pos, fn + " is only valid at the top of a T.block");
        if (fn == "T.allocate") {
          const text::Node& c = *s.value;
          if (c.items.size() < 2) error(c.pos, "T.allocate takes extents, a dtype and a scope");
          std::vector<PrimExpr> ext = shape_dims(c.items[0]);
          DataType t = dtype_of(c.items[1]);
          std::string scope =
              c.items.size() > 2 ? string_literal(c.items[2], "the storage scope") : "global";
          if (!is_valid_storage_scope(scope)) error(c.pos, "unknown storage scope '" + scope + "'");
          Attrs ann;
          if (NodeP a = kw(c, "annotations")) ann = attr_dict(a);
          auto v = make_ref<tir::Var>(name, DataType::Handle());
          push_scope();
          define(name, Entry::sym(v));
          Stmt body = tir_stmts(list, *index);
          pop_scope();
          *index = list.size();
          return make_ref<Allocate>(v, t, ext, scope, body, ann);
        }
        // `x: T.int32 = value` (or `x = value`): a LetStmt over the rest of the block.
        Typed v = prim(s.value);
        PrimExpr value = v.e;
        if (s.annotation) {
          DataType t = dtype_of(s.annotation);
          value = coerce(v, t, s.value->pos);
          if (value->dtype != t)
            error(s.value->pos,
                  "the value is " + value->dtype.to_string() + ", annotated " + t.to_string());
        }
        auto var = make_ref<tir::Var>(name, value->dtype);
        push_scope();
        define(name, Entry::sym(var));
        BlockCtx* saved = block_ctx_;
        block_ctx_ = nullptr;
        Stmt body = tir_stmts(list, *index);
        block_ctx_ = saved;
        pop_scope();
        *index = list.size();
        return make_ref<LetStmt>(var, value, body);
      }
      case SK::kAugAssign: {
        if (s.target->kind != NK::kSubscript)
          error(s.target->pos, "augmented assignment needs a buffer element");
        Ref<Buffer> buf = buffer_of(s.target->a);
        Typed load{prim(s.target).e, false};
        const auto& idx = load.e.as<BufferLoad>()->indices;
        PrimExpr value = binary(s.op, load, prim(s.value), s.pos);
        if (value->dtype != load.e->dtype)
          error(s.pos, "the updated value changes the buffer's dtype");
        return make_ref<BufferStore>(buf, value, idx);
      }
      case SK::kFor:
        return tir_for(s);
      case SK::kWith: {
        if (fn == "T.block") return tir_block(s, s.value);
        if (fn == "T.init") error(s.pos, "T.init() is only valid at the top of a T.block");
        BlockCtx* saved = block_ctx_;
        block_ctx_ = nullptr;
        Stmt r;
        if (fn == "T.LetStmt" || fn == "T.let") {
          if (!s.target || s.target->kind != NK::kName || s.value->items.size() != 1)
            error(s.pos, "expected `with T.LetStmt(value) as x:`");
          PrimExpr value = prim(s.value->items[0]).e;
          auto var = make_ref<tir::Var>(s.target->str, value->dtype);
          push_scope();
          define(var->name, Entry::sym(var));
          r = make_ref<LetStmt>(var, value, tir_stmts(s.body, 0));
          pop_scope();
        } else if (fn == "T.Assert") {
          if (s.value->items.size() != 2)
            error(s.pos, "expected `with T.Assert(condition, \"message\"):`");
          PrimExpr c = prim(s.value->items[0]).e;
          if (!c->dtype.is_bool())
            error(s.value->items[0]->pos, "an assertion needs a bool condition");
          r = make_ref<AssertStmt>(c, string_literal(s.value->items[1], "the message"),
                                   tir_stmts(s.body, 0));
        } else if (fn == "T.allocate") {
          if (!s.target || s.target->kind != NK::kName)
            error(s.pos, "expected `with T.allocate(...) as name:`");
          const text::Node& c = *s.value;
          if (c.items.size() < 2) error(c.pos, "T.allocate takes extents, a dtype and a scope");
          std::vector<PrimExpr> ext = shape_dims(c.items[0]);
          DataType t = dtype_of(c.items[1]);
          std::string scope =
              c.items.size() > 2 ? string_literal(c.items[2], "the storage scope") : "global";
          if (!is_valid_storage_scope(scope)) error(c.pos, "unknown storage scope '" + scope + "'");
          Attrs ann;
          if (NodeP a = kw(c, "annotations")) ann = attr_dict(a);
          auto v = make_ref<tir::Var>(s.target->str, DataType::Handle());
          push_scope();
          define(v->name, Entry::sym(v));
          r = make_ref<Allocate>(v, t, ext, scope, tir_stmts(s.body, 0), ann);
          pop_scope();
        } else {
          error(s.value->pos,
                "expected `with T.block(...)`, `with T.init()`, `with T.LetStmt(...)`, `with "
                "T.Assert(...)` or "
                "`with T.allocate(...)`");
        }
        block_ctx_ = saved;
        return r;
      }
      case SK::kIf: {
        PrimExpr c = prim(s.value).e;
        if (!c->dtype.is_bool())
          error(s.value->pos, "an if condition must be bool, got " + c->dtype.to_string());
        BlockCtx* saved = block_ctx_;
        block_ctx_ = nullptr;
        push_scope();
        Stmt t = tir_stmts(s.body, 0);
        pop_scope();
        Stmt e;
        if (!s.orelse.empty()) {
          push_scope();
          e = tir_stmts(s.orelse, 0);
          pop_scope();
        }
        block_ctx_ = saved;
        return make_ref<IfThenElse>(c, t, e);
      }
      case SK::kAssert: {
        PrimExpr c = prim(s.value).e;
        if (!c->dtype.is_bool()) error(s.value->pos, "an assertion needs a bool condition");
        std::string msg = s.msg ? string_literal(s.msg, "the assertion message") : "";
        BlockCtx* saved = block_ctx_;
        block_ctx_ = nullptr;
        Stmt body = tir_stmts(list, *index);
        block_ctx_ = saved;
        *index = list.size();
        return make_ref<AssertStmt>(c, msg, body);
      }
      case SK::kReturn:
        error(s.pos, "a PrimFunc returns nothing; write its results into output buffers");
      default:
        error(s.pos, "this statement is not valid in a PrimFunc");
    }
  } catch (const InternalError& e) {
    error(s.pos, "invalid program: " + e.detail());
  }
}

}  // namespace relax::script
