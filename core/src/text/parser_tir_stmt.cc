// TIR statements for the parser: loops (range, T.grid, T.serial, T.parallel, T.vectorized,
// T.unroll, T.thread_binding), buffer stores (also `+=`), T.evaluate, lets (`x: T.int32 = v`
// and `with T.LetStmt`), asserts, if/else, T.allocate and local T.Buffer declarations. Blocks
// are in parser_tir_block.cc.
#include "parser_internal.h"
#include "relax/arith/analyzer.h"
#include "script_common.h"

namespace relax::script {

using namespace tir;
using tir::Block;
using tir::Call;
using tir::Var;

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
      NodeP thread = kwarg(*it, "thread");
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
      if (NodeP a = kwarg(*it, "annotations")) l.annotations = attr_dict(a);
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
          return allocate(*s.value, name, [&] {
            Stmt body = tir_stmts(list, *index);
            *index = list.size();
            return body;
          });
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
          r = allocate(*s.value, s.target->str, [&] { return tir_stmts(s.body, 0); });
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

/// `T.allocate(extents, dtype, scope?, annotations=?)` binding `name` (a handle) over the
/// statements `body` parses; the two spellings (an assignment, a `with ... as name`) share it.
Stmt Parser::allocate(const text::Node& c, const std::string& name,
                      const std::function<Stmt()>& body) {
  if (c.items.size() < 2) error(c.pos, "T.allocate takes extents, a dtype and a scope");
  std::vector<PrimExpr> ext = shape_dims(c.items[0]);
  DataType t = dtype_of(c.items[1]);
  std::string scope =
      c.items.size() > 2 ? string_literal(c.items[2], "the storage scope") : "global";
  if (!is_valid_storage_scope(scope)) error(c.pos, "unknown storage scope '" + scope + "'");
  Attrs ann;
  if (NodeP a = kwarg(c, "annotations")) ann = attr_dict(a);
  auto v = make_ref<tir::Var>(name, DataType::Handle());
  push_scope();
  define(name, Entry::sym(v));
  Stmt stmts = body();
  pop_scope();
  return make_ref<Allocate>(v, t, ext, scope, stmts, ann);
}

}  // namespace relax::script
