// The TIR half of the script printer: PrimFuncs as `@T.prim_func` definitions with
// `T.Buffer` parameters (or `T.handle` + `T.match_buffer`), loops (`T.grid`, `range`,
// `T.parallel`, ...), blocks (`T.block`, `T.axis.remap`, `T.reads/T.writes`, `T.init`,
// `T.alloc_buffer`), stores, lets, asserts, allocations and evaluations.
#include <unordered_set>

#include "printer_internal.h"
#include "relax/arith/analyzer.h"
#include "relax/text/printer.h"
#include "relax/ir/structural_equal.h"
#include "relax/tir/intrin.h"
#include "relax/tir/stmt_functor.h"

namespace relax::script {

using namespace tir;
using tir::Block;
using tir::Call;
using tir::Var;

std::string print_attr_value(const AttrValue& v, PrimPrinter* prims) {
  return std::visit(
      [&](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) {
          return "None";
        } else if constexpr (std::is_same_v<X, bool>) {
          return x ? "True" : "False";
        } else if constexpr (std::is_same_v<X, int64_t>) {
          return std::to_string(x);
        } else if constexpr (std::is_same_v<X, double>) {
          std::string f = format_float(x);
          return (f == "nan" || f == "inf" || f == "-inf") ? "float(" + quote(f) + ")" : f;
        } else if constexpr (std::is_same_v<X, std::string>) {
          return quote(x);
        } else if constexpr (std::is_same_v<X, DataType>) {
          return quote(x.to_string());
        } else if constexpr (std::is_same_v<X, Ref<Object>>) {
          // A nested dict; other objects have no text form.
          if (auto* d = x.template as<AttrsNode>()) return print_attr_dict(Attrs(d), prims);
          return "None";
        } else {
          std::string s = "[";
          for (size_t i = 0; i < x.size(); ++i) {
            if (i) s += ", ";
            using E = std::decay_t<decltype(x[i])>;
            if constexpr (std::is_same_v<E, int64_t>) {
              s += std::to_string(x[i]);
            } else if constexpr (std::is_same_v<E, double>) {
              s += format_float(x[i]);
            } else if constexpr (std::is_same_v<E, std::string>) {
              s += quote(x[i]);
            } else {
              s += prims->print(x[i]);
            }
          }
          return s + "]";
        }
      },
      v);
}

std::string print_attr_dict(const Attrs& attrs, PrimPrinter* prims) {
  std::string s = "{";
  if (attrs.defined()) {
    for (size_t i = 0; i < attrs->fields.size(); ++i)
      s += (i ? ", " : "") + quote(attrs->fields[i].first) + ": " +
           print_attr_value(attrs->fields[i].second, prims);
  }
  return s + "}";
}

namespace {

/// Collects the variables and buffers a PrimFunc uses and defines.
class Scan : public StmtVisitor {
 public:
  std::vector<const Var*> used;
  std::unordered_set<const Var*> used_set, defined;
  std::vector<Ref<Buffer>> buffers;
  std::unordered_set<const Buffer*> buffer_set, declared;

  void use_expr(const PrimExpr& e) {
    struct V : ExprVisitor {
      Scan* s;
      using ExprVisitor::visit_;
      void visit_(const Var* v) override {
        if (s->used_set.insert(v).second) s->used.push_back(v);
      }
      void visit_(const Let* op) override {
        s->defined.insert(op->var.get());
        ExprVisitor::visit_(op);
      }
      void visit_(const BufferLoad* op) override {
        s->visit_buffer(op->buffer);
        ExprVisitor::visit_(op);
      }
    } v;
    v.s = this;
    v.visit_expr(e);
  }
  void visit_expr(const PrimExpr& e) override { use_expr(e); }
  void visit_buffer(const Ref<Buffer>& b) override {
    if (!buffer_set.insert(b.get()).second) return;
    buffers.push_back(b);
    for (const auto& d : b->shape) use_expr(d);
    for (const auto& d : b->strides) use_expr(d);
    if (b->elem_offset.defined()) use_expr(b->elem_offset);
  }
  using StmtVisitor::visit_;
  void visit_(const For* op) override {
    defined.insert(op->loop_var.get());
    StmtVisitor::visit_(op);
  }
  void visit_(const LetStmt* op) override {
    defined.insert(op->var.get());
    StmtVisitor::visit_(op);
  }
  void visit_(const Allocate* op) override {
    defined.insert(op->buffer_var.get());
    StmtVisitor::visit_(op);
  }
  void visit_(const Block* op) override {
    for (const auto& iv : op->iter_vars) defined.insert(iv->var.get());
    for (const auto& b : op->alloc_buffers) declared.insert(b.get());
    for (const auto& m : op->match_buffers) declared.insert(m.buffer.get());
    StmtVisitor::visit_(op);
  }
};

bool is_zero(const PrimExpr& e) { return !e.defined() || is_const_int(e, 0); }

class TirPrinter : public PrimPrinter {
 public:
  TirPrinter(NameTable* names, Writer* w) : PrimPrinter(names), w_(w) {}

  void func(const Ref<PrimFunc>& f, const std::string& name, int ind) {
    Scan scan;
    for (const auto& [p, b] : f->buffer_map) scan.visit_buffer(b);
    scan.visit_stmt(f->body);
    for (const auto& p : f->params) scan.defined.insert(p.get());
    for (const auto& b : scan.buffers) scan.defined.insert(b->data.get());

    // Names: parameters, then buffers, then the symbolic variables no statement defines.
    std::vector<std::string> params;
    std::vector<std::string> match_lines;
    for (const auto& p : f->params) {
      Ref<Buffer> b = f->buffer_of(p);
      if (b.defined() && b->name == p->name && b->is_compact() && is_zero(b->elem_offset) &&
          b->scope == "global") {
        const std::string& n = names_->define(b.get(), b->name);
        data_names_[p.get()] = n + ".data";
        names_->alias(p.get(), n + ".data");
        declared_.insert(b.get());
      } else {
        names_->define(p.get(), p->name);
        if (b.defined()) names_->define(b.get(), b->name), declared_.insert(b.get());
      }
    }
    for (const Var* v : scan.used)
      if (!scan.defined.count(v)) names_->define(v, v->name);
    for (const auto& p : f->params) {
      Ref<Buffer> b = f->buffer_of(p);
      std::string pname;
      if (auto it = data_names_.find(p.get()); it != data_names_.end()) {
        params.push_back(*names_->find(b.get()) + ": " + buffer_decl("T.Buffer", b, ""));
      } else if (b.defined()) {
        params.push_back(var_name(p.get()) + ": T.handle");
        match_lines.push_back(*names_->find(b.get()) + " = " +
                              buffer_decl("T.match_buffer", b, var_name(p.get())));
      } else {
        params.push_back(var_name(p.get()) + ": " + dtype_annotation(p->dtype));
      }
    }
    w_->line(ind, "@T.prim_func");
    std::string sig = "def " + name + "(";
    for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
    sig += ")";
    if (!f->ret_type.is_void()) sig += " -> " + dtype_annotation(f->ret_type);
    w_->line(ind, sig + ":");
    int b = ind + 1;
    if (f->attrs.defined() && !f->attrs->fields.empty())
      w_->line(b, "T.func_attr(" + print_attr_dict(f->attrs, this) + ")");
    for (const Var* v : scan.used)
      if (!scan.defined.count(v))
        w_->line(b, var_name(v) + " = " + dtype_annotation(v->dtype) + "()");
    for (const auto& l : match_lines) w_->line(b, l);
    // Buffers viewing a parameter's memory.
    for (const auto& buf : scan.buffers) {
      if (declared_.count(buf.get()) || scan.declared.count(buf.get())) continue;
      bool over_param = false;
      for (const auto& p : f->params) over_param |= p.same_as(buf->data);
      if (over_param) declare_view(buf, b);
    }
    pending_ = &scan;
    stmt(f->body, b, true);
    pending_ = nullptr;
  }

  void stmt(const Stmt& s, int ind, bool last) {
    switch (StmtKind(s->kind())) {
      case StmtKind::kFor:
        return for_loop(s.as<For>(), ind);
      case StmtKind::kBufferStore: {
        auto* op = s.as<BufferStore>();
        w_->line(ind, access(op->buffer.get(), op->indices) + " = " +
                          print(op->value, op->buffer->dtype));
        return;
      }
      case StmtKind::kLetStmt: {
        auto* op = s.as<LetStmt>();
        std::string v = print(op->value, op->var->dtype);
        const std::string& n = names_->define(op->var.get(), op->var->name);
        if (last) {
          w_->line(ind, n + ": " + dtype_annotation(op->var->dtype) + " = " + v);
          stmt(op->body, ind, true);
        } else {
          w_->line(ind, "with T.LetStmt(" + v + ") as " + n + ":");
          stmt(op->body, ind + 1, true);
        }
        return;
      }
      case StmtKind::kAssertStmt: {
        auto* op = s.as<AssertStmt>();
        if (last) {
          w_->line(ind, "assert " + print(op->condition) + ", " + quote(op->message));
          stmt(op->body, ind, true);
        } else {
          w_->line(ind, "with T.Assert(" + print(op->condition) + ", " + quote(op->message) + "):");
          stmt(op->body, ind + 1, true);
        }
        return;
      }
      case StmtKind::kIfThenElse: {
        auto* op = s.as<IfThenElse>();
        w_->line(ind, "if " + print(op->condition) + ":");
        stmt(op->then_case, ind + 1, true);
        if (op->else_case.defined()) {
          w_->line(ind, "else:");
          stmt(op->else_case, ind + 1, true);
        }
        return;
      }
      case StmtKind::kSeqStmt: {
        auto* op = s.as<SeqStmt>();
        for (size_t i = 0; i < op->seq.size(); ++i)
          stmt(op->seq[i], ind, last && i + 1 == op->seq.size());
        return;
      }
      case StmtKind::kAllocate: {
        auto* op = s.as<Allocate>();
        std::string ext = "[";
        for (size_t i = 0; i < op->extents.size(); ++i)
          ext += (i ? ", " : "") + print(op->extents[i]);
        ext += "]";
        const std::string& n = names_->define(op->buffer_var.get(), op->buffer_var->name);
        std::string call =
            "T.allocate(" + ext + ", " + quote(op->dtype.to_string()) + ", " + quote(op->scope);
        if (op->annotations.defined() && !op->annotations->fields.empty())
          call += ", annotations=" + print_attr_dict(op->annotations, this);
        call += ")";
        int body_ind = ind;
        if (last) {
          w_->line(ind, n + " = " + call);
        } else {
          w_->line(ind, "with " + call + " as " + n + ":");
          body_ind = ind + 1;
        }
        if (pending_) {
          for (const auto& buf : pending_->buffers)
            if (buf->data.same_as(op->buffer_var) && !declared_.count(buf.get()) &&
                !pending_->declared.count(buf.get()))
              declare_view(buf, body_ind);
        }
        stmt(op->body, body_ind, true);
        return;
      }
      case StmtKind::kEvaluate:
        if (is_storage_sync(s.as<Evaluate>()->value))  // TVM prints the barrier bare
          w_->line(ind, print(s.as<Evaluate>()->value));
        else
          w_->line(ind, "T.evaluate(" + print(s.as<Evaluate>()->value) + ")");
        return;
      case StmtKind::kBlockRealize:
        return block(s.as<BlockRealize>(), ind);
      case StmtKind::kBlock: {
        // A Block outside a BlockRealize: print it as realized unconditionally.
        auto* blk = s.as<Block>();
        std::vector<PrimExpr> values;
        for (const auto& iv : blk->iter_vars) values.push_back(iv->var);
        auto realize = make_ref<BlockRealize>(values, bool_imm(true), Ref<Block>(blk));
        return block(realize.get(), ind);
      }
      default:
        w_->line(ind, "T.evaluate(0)");
    }
  }

 protected:
  std::string buffer_name(const Buffer* b) override {
    if (const std::string* n = names_->find(b)) return *n;
    return b->name;
  }

 private:
  static std::string dtype_annotation(DataType t) {
    if (t.is_handle()) return "T.handle";
    return "T." + t.to_string();
  }

  std::string tuple(const std::vector<PrimExpr>& xs) {
    std::string s = "(";
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + print(xs[i]);
    if (xs.size() == 1) s += ",";
    return s + ")";
  }

  /// `T.Buffer((n, 4), "float32", ...)` / `T.match_buffer(x, ...)` / `T.alloc_buffer(...)`.
  std::string buffer_decl(const std::string& fn, const Ref<Buffer>& b, const std::string& first) {
    std::string s = fn + "(" + (first.empty() ? "" : first + ", ") + tuple(b->shape) + ", " +
                    quote(b->dtype.to_string());
    if (!b->strides.empty()) s += ", strides=" + tuple(b->strides);
    if (!is_zero(b->elem_offset)) s += ", elem_offset=" + print(b->elem_offset);
    if (b->scope != "global") s += ", scope=" + quote(b->scope);
    return s + ")";
  }

  std::string data_name(const Var* v) {
    if (auto it = data_names_.find(v); it != data_names_.end()) return it->second;
    return var_name(v);
  }

  void declare_view(const Ref<Buffer>& buf, int ind) {
    const std::string& n = names_->define(buf.get(), buf->name);
    declared_.insert(buf.get());
    std::string decl = buffer_decl("T.Buffer", buf, "");
    decl.pop_back();
    w_->line(ind, n + " = " + decl + ", data=" + data_name(buf->data.get()) + ")");
  }

  std::string access(const Buffer* b, const std::vector<PrimExpr>& idx) {
    std::string s = buffer_name(b) + "[";
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + print(idx[i]);
    return s + (idx.empty() ? "()]" : "]");  // buf[()]: a zero-dimensional buffer
  }

  std::string region(const BufferRegion& r) {
    std::string s = buffer_name(r.buffer.get()) + "[";
    arith::Analyzer ana;
    for (size_t i = 0; i < r.region.size(); ++i) {
      const Range& rg = r.region[i];
      if (i) s += ", ";
      if (is_const_int(rg.extent, 1)) {
        s += print(rg.min);
      } else {
        s += print(rg.min) + ":" + print(ana.simplify(rg.min + rg.extent), rg.min->dtype);
      }
    }
    return s + (r.region.empty() ? "()]" : "]");
  }

  std::string regions(const char* fn, const std::vector<BufferRegion>& rs) {
    std::string s = std::string(fn) + "(";
    for (size_t i = 0; i < rs.size(); ++i) s += (i ? ", " : "") + region(rs[i]);
    return s + ")";
  }

  static bool uses_any(const PrimExpr& e, const std::vector<const Var*>& vars) {
    bool found = false;
    struct V : ExprVisitor {
      const std::vector<const Var*>* vars;
      bool* found;
      using ExprVisitor::visit_;
      void visit_(const Var* v) override {
        for (const Var* x : *vars) *found |= x == v;
      }
    } v;
    v.vars = &vars;
    v.found = &found;
    v.visit_expr(e);
    return found;
  }

  static bool plain_serial(const For* f) {
    return f->kind == ForKind::kSerial && is_zero(f->min) &&
           !(f->annotations.defined() && !f->annotations->fields.empty());
  }

  void for_loop(const For* op, int ind) {
    std::vector<const For*> chain{op};
    std::vector<const Var*> vars{op->loop_var.get()};
    if (plain_serial(op)) {
      while (true) {
        auto* next = chain.back()->body.as<For>();
        if (!next || !plain_serial(next) || uses_any(next->extent, vars)) break;
        chain.push_back(next);
        vars.push_back(next->loop_var.get());
      }
    }
    for (const For* f : chain) names_->define(f->loop_var.get(), f->loop_var->name);
    std::string head;
    if (chain.size() > 1) {
      std::string names, exts;
      for (size_t i = 0; i < chain.size(); ++i) {
        names += (i ? ", " : "") + var_name(chain[i]->loop_var.get());
        exts += (i ? ", " : "") + print(chain[i]->extent, chain[i]->loop_var->dtype);
      }
      head = "for " + names + " in T.grid(" + exts + "):";
    } else {
      DataType t = op->loop_var->dtype;
      std::string range_args =
          is_zero(op->min)
              ? print(op->extent, t)
              : print(op->min, t) + ", " + print(arith::simplify(op->min + op->extent), t);
      std::string fn;
      switch (op->kind) {
        case ForKind::kSerial:
          fn = "T.serial";
          break;
        case ForKind::kParallel:
          fn = "T.parallel";
          break;
        case ForKind::kVectorized:
          fn = "T.vectorized";
          break;
        case ForKind::kUnrolled:
          fn = "T.unroll";
          break;
        case ForKind::kThreadBinding:
          fn = "T.thread_binding";
          break;
      }
      std::string extra;
      if (op->kind == ForKind::kThreadBinding) extra += ", thread=" + quote(op->thread_tag);
      if (op->annotations.defined() && !op->annotations->fields.empty())
        extra += ", annotations=" + print_attr_dict(op->annotations, this);
      if (op->kind == ForKind::kSerial && extra.empty()) fn = "range";
      head = "for " + var_name(op->loop_var.get()) + " in " + fn + "(" + range_args + extra + "):";
    }
    w_->line(ind, head);
    for (const For* f : chain) loops_.push_back(f);
    stmt(chain.back()->body, ind + 1, true);
    loops_.resize(loops_.size() - chain.size());
  }

  const For* loop_of(const PrimExpr& e) {
    auto* v = e.as<Var>();
    if (!v) return nullptr;
    for (const For* f : loops_)
      if (f->loop_var.get() == v) return f;
    return nullptr;
  }

  void block(const BlockRealize* realize, int ind) {
    const Block* blk = realize->block.get();
    w_->line(ind, "with T.block(" + quote(blk->name) + "):");
    int b = ind + 1;
    for (const auto& iv : blk->iter_vars) names_->define(iv->var.get(), iv->var->name);
    // T.axis.remap when every iteration variable is bound to a distinct loop variable over the
    // loop's domain.
    bool remap = !blk->iter_vars.empty() && realize->iter_values.size() == blk->iter_vars.size();
    std::unordered_set<const For*> seen;
    for (size_t i = 0; remap && i < blk->iter_vars.size(); ++i) {
      const For* f = loop_of(realize->iter_values[i]);
      const IterVar& iv = *blk->iter_vars[i];
      remap = f && seen.insert(f).second && iv.var->dtype == f->loop_var->dtype &&
              structural_equal(iv.dom.min, f->min, false) &&
              structural_equal(iv.dom.extent, f->extent, false);
    }
    if (remap) {
      std::string lhs, letters, rhs;
      for (size_t i = 0; i < blk->iter_vars.size(); ++i) {
        lhs += (i ? ", " : "") + var_name(blk->iter_vars[i]->var.get());
        letters += iter_var_type_letter(blk->iter_vars[i]->type);
        rhs += (i ? ", " : "") + print(realize->iter_values[i]);
      }
      w_->line(b, lhs + " = T.axis.remap(" + quote(letters) + ", [" + rhs + "])");
    } else {
      for (size_t i = 0; i < blk->iter_vars.size(); ++i) {
        const IterVar& iv = *blk->iter_vars[i];
        DataType t = iv.var->dtype;
        std::string dom = is_zero(iv.dom.min)
                              ? print(iv.dom.extent, t)
                              : "(" + print(iv.dom.min, t) + ", " +
                                    print(arith::simplify(iv.dom.min + iv.dom.extent), t) + ")";
        std::string value =
            i < realize->iter_values.size() ? print(realize->iter_values[i], t) : "None";
        w_->line(b, var_name(iv.var.get()) + " = T.axis." + iter_var_type_name(iv.type) + "(" +
                        dom + ", " + value + ")");
      }
    }
    if (!is_const_int(realize->predicate, 1))
      w_->line(b, "T.where(" + print(realize->predicate) + ")");
    std::vector<BufferRegion> in_reads, in_writes;
    infer_block_regions(blk->body, blk->init, blk->alloc_buffers, &in_reads, &in_writes);
    bool print_regions =
        !blk->reads.empty() || !blk->writes.empty() || !in_reads.empty() || !in_writes.empty();
    for (const auto& b2 : blk->alloc_buffers) names_->define(b2.get(), b2->name);
    for (const auto& m : blk->match_buffers) names_->define(m.buffer.get(), m.buffer->name);
    if (print_regions) {
      w_->line(b, regions("T.reads", blk->reads));
      w_->line(b, regions("T.writes", blk->writes));
    }
    if (blk->annotations.defined() && !blk->annotations->fields.empty())
      w_->line(b, "T.block_attr(" + print_attr_dict(blk->annotations, this) + ")");
    for (const auto& a : blk->alloc_buffers) {
      declared_.insert(a.get());
      w_->line(b, buffer_name(a.get()) + " = " + buffer_decl("T.alloc_buffer", a, ""));
    }
    for (const auto& m : blk->match_buffers) {
      declared_.insert(m.buffer.get());
      w_->line(b, buffer_name(m.buffer.get()) + " = " +
                      buffer_decl("T.match_buffer", m.buffer, region(m.source)));
    }
    if (blk->init.defined()) {
      w_->line(b, "with T.init():");
      stmt(blk->init, b + 1, true);
    }
    stmt(blk->body, b, true);
  }

  Writer* w_;
  std::unordered_map<const Var*, std::string> data_names_;
  std::unordered_set<const Buffer*> declared_;
  std::vector<const For*> loops_;
  Scan* pending_ = nullptr;
};

}  // namespace

void print_prim_func_into(const Ref<PrimFunc>& func, const std::string& name, int indent,
                          Writer* w) {
  NameTable names;
  names.reserve(name);
  TirPrinter p(&names, w);
  p.func(func, name, indent);
}

}  // namespace relax::script

namespace relax {

std::string print_prim_func(const Ref<tir::PrimFunc>& func, const std::string& name) {
  script::Writer w;
  script::print_prim_func_into(func, name, 0, &w);
  return w.out;
}

std::string print_prim_expr(const PrimExpr& expr) {
  script::NameTable names;
  script::PrimPrinter p(&names);
  return p.print(expr);
}

std::string print_stmt(const tir::Stmt& stmt) {
  script::NameTable names;
  script::Writer w;
  script::TirPrinter p(&names, &w);
  p.stmt(stmt, 0, true);
  return w.out;
}

}  // namespace relax
