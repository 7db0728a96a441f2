// The TIR half of the parser: `@T.prim_func` definitions with T.Buffer / T.handle +
// T.match_buffer parameters, symbolic variables, buffer declarations and regions, and the
// statement list of a body. Statements (loops, stores, lets, asserts, allocations,
// T.evaluate) are read in parser_tir_stmt.cc, blocks (T.block, T.axis.*, T.reads/T.writes,
// T.where, T.init, ...) in parser_tir_block.cc. A T.alloc_buffer at the top of a function
// creates the implicit "root" block, as in TVM.
#include <unordered_map>

#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "script_common.h"

namespace relax::script {

using namespace tir;
using tir::Block;
using tir::Call;
using tir::Var;

std::vector<PrimExpr> Parser::shape_dims(const NodeP& n) {
  if (n->kind != NK::kTuple && n->kind != NK::kList) {
    // T.Buffer(16, ...) : a one-dimensional shape.
    return {int_dim(n, "a buffer dimension")};
  }
  std::vector<PrimExpr> out;
  for (const auto& d : n->items) out.push_back(int_dim(d, "a buffer dimension"));
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
  NodeP shape = a.size() > first ? a[first] : kwarg(call, "shape");
  if (!shape) error(call.pos, text::dotted_name(call.a) + " needs a shape");
  NodeP dt = a.size() > first + 1 ? a[first + 1] : kwarg(call, "dtype");
  for (const auto& [k, v] : call.kwargs)
    if (k != "shape" && k != "dtype" && k != "strides" && k != "elem_offset" && k != "scope" &&
        k != "data" && k != "offset_factor" && k != "align")
      error(v->pos, text::dotted_name(call.a) + " has no keyword argument '" + k + "'");
  DataType t = dt ? dtype_of(dt) : DataType::Float(32);
  if (t.lanes != 1 || t.is_void()) error(dt ? dt->pos : call.pos, "a buffer needs a scalar dtype");
  std::vector<PrimExpr> dims = shape_dims(shape);
  std::vector<PrimExpr> strides;
  if (NodeP s = kwarg(call, "strides")) {
    strides = shape_dims(s);
    if (strides.size() != dims.size()) error(s->pos, "one stride per dimension is needed");
  }
  PrimExpr offset;
  if (NodeP o = kwarg(call, "elem_offset")) {
    offset = prim_as(o, kDefaultInt);
    if (!offset->dtype.is_int()) error(o->pos, "elem_offset must be an integer");
  }
  std::string scope = "global";
  if (NodeP s = kwarg(call, "scope")) scope = string_literal(s, "the storage scope");
  if (!is_valid_storage_scope(scope))
    error(call.pos, "unknown storage scope '" + scope + "'; valid: global, shared, local");
  if (NodeP d = kwarg(call, "data")) {
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
    // s_tir=True (TVM 0.22) marks a schedulable function with blocks; every PrimFunc here may
    // hold blocks, so it is accepted and changes nothing. check_well_formed likewise.
    for (const auto& [k, v] : d->kwargs) {
      if (k != "private" && k != "s_tir" && k != "check_well_formed")
        error(v->pos,
              "@T.prim_func has no option '" + k + "'; valid: private, s_tir, check_well_formed");
      if (k != "private" && v->kind != NK::kTrue && v->kind != NK::kFalse)
        error(v->pos, "@T.prim_func option '" + k + "' takes True or False");
    }
  }
  in_tir_ = true;
  push_scope();
  // Symbolic variables declared in the body may appear in the signature's buffer shapes.
  for (const auto& s : def.body)
    if (s->kind == SK::kAssign && is_sym_decl(s->value)) declare_sym(*s);
  std::vector<Ref<tir::Var>> params;
  std::vector<std::pair<Ref<tir::Var>, Ref<Buffer>>> buffer_map;
  // Scalar parameters are in scope for the whole signature: a buffer's shape may use one
  // declared after it (`A: T.Buffer((n, (0 - h % 8) % 8)), h: T.int64`, as create_prim_func
  // puts the symbolic variables no buffer dimension binds last).
  std::unordered_map<std::string, Ref<tir::Var>> scalar_params;
  for (const auto& p : def.params) {
    if (!p.annotation) continue;
    const NodeP& a = p.annotation;
    std::string an =
        text::dotted_name(a->kind == NK::kCall || a->kind == NK::kSubscript ? a->a : a);
    if (an == "T.Buffer" || an == "T.handle" || an == "T.Ptr" || scalar_params.count(p.name))
      continue;
    auto v = make_ref<tir::Var>(p.name, dtype_of(a));
    scalar_params.emplace(p.name, v);
    define(p.name, Entry::sym(v));
  }
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
      params.push_back(scalar_params.at(p.name));
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

}  // namespace relax::script
