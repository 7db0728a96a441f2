// The structural walk over the kernel IR (see structural_equal_impl.h): statements, buffers,
// block iteration variables and PrimFuncs. Loop, let, allocate, block-iteration and buffer
// data variables and buffers themselves are definitions; symbolic dimensions first met in a
// buffer's shape are defined there (the first buffer mentioning one defines it).

#include <sstream>

#include "structural_equal_impl.h"

namespace relax::sequal {

namespace {
const char* iter_type_name(tir::IterVarType t) { return tir::iter_var_type_name(t); }
}  // namespace

bool Walker::tir_object(const Object* a, const Object* b) {
  if (int settled = check_head(r_, a, b); settled >= 0) return settled == 1;
  if (a->kind() == tir::Buffer::kKind) {
    return buffer_def(Ref<tir::Buffer>(static_cast<const tir::Buffer*>(a)),
                      Ref<tir::Buffer>(static_cast<const tir::Buffer*>(b)));
  }
  if (a->kind() == tir::IterVar::kKind) {
    return iter_var_def(Ref<tir::IterVar>(static_cast<const tir::IterVar*>(a)),
                        Ref<tir::IterVar>(static_cast<const tir::IterVar*>(b)));
  }
  return stmt(tir::Stmt(static_cast<const tir::StmtNode*>(a)),
              tir::Stmt(static_cast<const tir::StmtNode*>(b)));
}

// ---- Buffers, ranges, regions.

bool Walker::buffer_fields(const tir::Buffer* a, const tir::Buffer* b) {
  auto prims = [&](const PrimExpr& x, const PrimExpr& y) { return prim(x, y); };
  if (!field("data", [&] { return tir_var_def(a->data, b->data); })) return false;
  if (!field("dtype", [&] { return r_.leaf(a->dtype, b->dtype); })) return false;
  {
    DefineScope def(r_);
    if (!list("shape", a->shape, b->shape, prims) ||
        !list("strides", a->strides, b->strides, prims) ||
        !field("elem_offset", [&] { return prim(a->elem_offset, b->elem_offset); })) {
      return false;
    }
  }
  return field("scope", [&] { return r_.leaf(a->scope, b->scope); });
}

bool Walker::buffer_def(const Ref<tir::Buffer>& a, const Ref<tir::Buffer>& b) {
  if (int settled = check_head(r_, a.get(), b.get()); settled >= 0) return settled == 1;
  switch (r_.lookup(a.get(), b.get())) {
    case Reducer::VarState::kBound:
      return true;
    case Reducer::VarState::kConflict:
      return false;
    case Reducer::VarState::kUnbound:
      break;
  }
  return buffer_fields(a.get(), b.get()) && r_.bind(a.get(), b.get());
}

bool Walker::buffer_use(const Ref<tir::Buffer>& a, const Ref<tir::Buffer>& b) {
  if (int settled = check_head(r_, a.get(), b.get()); settled >= 0) return settled == 1;
  switch (r_.lookup(a.get(), b.get())) {
    case Reducer::VarState::kBound:
      return true;
    case Reducer::VarState::kConflict:
      return false;
    case Reducer::VarState::kUnbound:
      break;
  }
  if (!r_.may_bind()) return r_.free_var(a.get(), b.get());
  return buffer_fields(a.get(), b.get()) && r_.bind(a.get(), b.get());
}

bool Walker::range(const tir::Range& a, const tir::Range& b) {
  return field("min", [&] { return prim(a.min, b.min); }) &&
         field("extent", [&] { return prim(a.extent, b.extent); });
}

bool Walker::buffer_region(const tir::BufferRegion& a, const tir::BufferRegion& b) {
  return field("buffer", [&] { return buffer_use(a.buffer, b.buffer); }) &&
         list("region", a.region, b.region,
              [&](const tir::Range& x, const tir::Range& y) { return range(x, y); });
}

bool Walker::iter_var_def(const Ref<tir::IterVar>& a, const Ref<tir::IterVar>& b) {
  if (int settled = check_head(r_, a.get(), b.get()); settled >= 0) return settled == 1;
  return field("dom", [&] { return range(a->dom, b->dom); }) &&
         field("type", [&] { return r_.leaf(iter_type_name(a->type), iter_type_name(b->type)); }) &&
         field("var", [&] { return tir_var_def(a->var, b->var); });
}

// ---- Statements.

bool Walker::block_node(const tir::Block* a, const tir::Block* b) {
  auto regions = [&](const tir::BufferRegion& x, const tir::BufferRegion& y) {
    return buffer_region(x, y);
  };
  auto buffers = [&](const Ref<tir::Buffer>& x, const Ref<tir::Buffer>& y) {
    return buffer_def(x, y);
  };
  auto iters = [&](const Ref<tir::IterVar>& x, const Ref<tir::IterVar>& y) {
    return iter_var_def(x, y);
  };
  auto match = [&](const tir::MatchBufferRegion& x, const tir::MatchBufferRegion& y) {
    return field("source", [&] { return buffer_region(x.source, y.source); }) &&
           field("buffer", [&] { return buffer_def(x.buffer, y.buffer); });
  };
  return field("name", [&] { return r_.leaf(a->name, b->name); }) &&
         list("iter_vars", a->iter_vars, b->iter_vars, iters) &&
         list("alloc_buffers", a->alloc_buffers, b->alloc_buffers, buffers) &&
         list("match_buffers", a->match_buffers, b->match_buffers, match) &&
         list("reads", a->reads, b->reads, regions) &&
         list("writes", a->writes, b->writes, regions) &&
         field("init", [&] { return stmt(a->init, b->init); }) &&
         field("body", [&] { return stmt(a->body, b->body); }) &&
         field("annotations", [&] { return attrs(a->annotations, b->annotations); });
}

bool Walker::stmt(const tir::Stmt& sa, const tir::Stmt& sb) {
  if (int settled = check_head(r_, sa.get(), sb.get()); settled >= 0) return settled == 1;
  const Object* a = sa.get();
  const Object* b = sb.get();
  auto prims = [&](const PrimExpr& x, const PrimExpr& y) { return prim(x, y); };
  auto stmts = [&](const tir::Stmt& x, const tir::Stmt& y) { return stmt(x, y); };
  using tir::StmtKind;
  switch (StmtKind(a->kind())) {
    case StmtKind::kLetStmt: {
      auto* x = static_cast<const tir::LetStmt*>(a);
      auto* y = static_cast<const tir::LetStmt*>(b);
      return field("value", [&] { return prim(x->value, y->value); }) &&
             field("var", [&] { return tir_var_def(x->var, y->var); }) &&
             field("body", [&] { return stmt(x->body, y->body); });
    }
    case StmtKind::kAssertStmt: {
      auto* x = static_cast<const tir::AssertStmt*>(a);
      auto* y = static_cast<const tir::AssertStmt*>(b);
      return field("condition", [&] { return prim(x->condition, y->condition); }) &&
             field("message", [&] { return r_.leaf(x->message, y->message); }) &&
             field("body", [&] { return stmt(x->body, y->body); });
    }
    case StmtKind::kFor: {
      auto* x = static_cast<const tir::For*>(a);
      auto* y = static_cast<const tir::For*>(b);
      return field("loop_var", [&] { return tir_var_def(x->loop_var, y->loop_var); }) &&
             field("min", [&] { return prim(x->min, y->min); }) &&
             field("extent", [&] { return prim(x->extent, y->extent); }) &&
             field("kind",
                   [&] {
                     return r_.leaf(tir::for_kind_name(x->kind), tir::for_kind_name(y->kind));
                   }) &&
             field("thread_tag", [&] { return r_.leaf(x->thread_tag, y->thread_tag); }) &&
             field("annotations", [&] { return attrs(x->annotations, y->annotations); }) &&
             field("body", [&] { return stmt(x->body, y->body); });
    }
    case StmtKind::kBufferStore: {
      auto* x = static_cast<const tir::BufferStore*>(a);
      auto* y = static_cast<const tir::BufferStore*>(b);
      return field("buffer", [&] { return buffer_use(x->buffer, y->buffer); }) &&
             list("indices", x->indices, y->indices, prims) &&
             field("value", [&] { return prim(x->value, y->value); });
    }
    case StmtKind::kIfThenElse: {
      auto* x = static_cast<const tir::IfThenElse*>(a);
      auto* y = static_cast<const tir::IfThenElse*>(b);
      return field("condition", [&] { return prim(x->condition, y->condition); }) &&
             field("then_case", [&] { return stmt(x->then_case, y->then_case); }) &&
             field("else_case", [&] { return stmt(x->else_case, y->else_case); });
    }
    case StmtKind::kSeqStmt:
      return list("seq", static_cast<const tir::SeqStmt*>(a)->seq,
                  static_cast<const tir::SeqStmt*>(b)->seq, stmts);
    case StmtKind::kAllocate: {
      auto* x = static_cast<const tir::Allocate*>(a);
      auto* y = static_cast<const tir::Allocate*>(b);
      return field("buffer_var", [&] { return tir_var_def(x->buffer_var, y->buffer_var); }) &&
             field("dtype", [&] { return r_.leaf(x->dtype, y->dtype); }) &&
             list("extents", x->extents, y->extents, prims) &&
             field("scope", [&] { return r_.leaf(x->scope, y->scope); }) &&
             field("annotations", [&] { return attrs(x->annotations, y->annotations); }) &&
             field("body", [&] { return stmt(x->body, y->body); });
    }
    case StmtKind::kEvaluate:
      return field("value", [&] {
        return prim(static_cast<const tir::Evaluate*>(a)->value,
                    static_cast<const tir::Evaluate*>(b)->value);
      });
    case StmtKind::kBlock:
      return block_node(static_cast<const tir::Block*>(a), static_cast<const tir::Block*>(b));
    case StmtKind::kBlockRealize: {
      auto* x = static_cast<const tir::BlockRealize*>(a);
      auto* y = static_cast<const tir::BlockRealize*>(b);
      return list("iter_values", x->iter_values, y->iter_values, prims) &&
             field("predicate", [&] { return prim(x->predicate, y->predicate); }) &&
             field("block", [&] { return stmt(x->block, y->block); });
    }
    default:
      return r_.fail(a, b, "unknown statement kind");
  }
}

// ---- PrimFunc.

bool Walker::prim_func(const tir::PrimFunc* a, const tir::PrimFunc* b) {
  using Entry = std::pair<Ref<tir::Var>, Ref<tir::Buffer>>;
  auto params = [&](const Ref<tir::Var>& x, const Ref<tir::Var>& y) { return tir_var_def(x, y); };
  auto entries = [&](const Entry& x, const Entry& y) {
    return field("param", [&] { return prim(x.first, y.first); }) &&
           field("buffer", [&] { return buffer_def(x.second, y.second); });
  };
  return list("params", a->params, b->params, params) &&
         list("buffer_map", a->buffer_map, b->buffer_map, entries) &&
         field("ret_type", [&] { return r_.leaf(a->ret_type, b->ret_type); }) &&
         field("attrs", [&] { return attrs(a->attrs, b->attrs); }) &&
         field("body", [&] { return stmt(a->body, b->body); });
}

// ---- Renderings.

std::string render_tir(const Object* obj) {
  if (obj->kind() == tir::Buffer::kKind)
    return tir::to_string(Ref<tir::Buffer>(static_cast<const tir::Buffer*>(obj)));
  if (obj->kind() == tir::IterVar::kKind) {
    auto* iv = static_cast<const tir::IterVar*>(obj);
    return std::string(iter_type_name(iv->type)) + " " + iv->var->name + " in " +
           render_item(iv->dom);
  }
  if (obj->kind() == tir::PrimFunc::kKind) {
    auto* f = static_cast<const tir::PrimFunc*>(obj);
    std::string name = get_string(f->attrs, tir::kAttrGlobalSymbol, "");
    return name.empty() ? "PrimFunc" : "PrimFunc " + name;
  }
  // The first line of a statement, enough to recognise it.
  std::string text = tir::to_string(tir::Stmt(static_cast<const tir::StmtNode*>(obj)));
  size_t start = text.find_first_not_of(" \n");
  if (start == std::string::npos) return tir::stmt_kind_name(obj->kind());
  size_t end = text.find('\n', start);
  std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (end != std::string::npos && text.find_first_not_of(" \n", end) != std::string::npos)
    line += " ...";
  return line;
}

std::string render_item(const tir::Range& r) {
  return "[" + tir::to_string(r.min) + ", " + tir::to_string(r.min) + " + " +
         tir::to_string(r.extent) + ")";
}

std::string render_item(const tir::BufferRegion& r) {
  std::ostringstream os;
  os << (r.buffer.defined() ? r.buffer->name : "(null)") << "[";
  for (size_t i = 0; i < r.region.size(); ++i) {
    if (i) os << ", ";
    os << tir::to_string(r.region[i].min) << ":+" << tir::to_string(r.region[i].extent);
  }
  os << "]";
  return os.str();
}

std::string render_item(const tir::MatchBufferRegion& r) {
  return (r.buffer.defined() ? r.buffer->name : "(null)") + std::string(" = match_buffer(") +
         render_item(r.source) + ")";
}

std::string render_item(const std::pair<Ref<tir::Var>, Ref<tir::Buffer>>& entry) {
  return (entry.first.defined() ? entry.first->name : "(null)") + std::string(": ") +
         (entry.second.defined() ? tir::to_string(entry.second) : "(null)");
}

}  // namespace relax::sequal
