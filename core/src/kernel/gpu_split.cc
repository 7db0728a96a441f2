// Host/device split (kernel/gpu_lower.h): each outermost thread-bound loop nest of a lowered
// function becomes a device kernel, the host keeps the rest and launches the kernels.
//
// Expects a lowered function (tir::lower) whose thread-bound loops are the outermost loops;
// guarantees a host body of asserts, scalar lets, global allocations and launch_kernel calls
// only, and kernels that reuse the input's variables and buffers unchanged (so a kernel's
// body is the input nest itself) with parameters: the host parameter buffers it accesses, then
// the scalars it reads that those buffers do not define, then the global workspaces it
// accesses (as flat buffers).
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "relax/kernel/gpu_lower.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/intrin.h"

namespace relax::tir {

namespace {

/// Variables a statement uses but does not define, in order of first use, and the data vars
/// of the buffers it accesses (also those inside buffer shapes).
struct FreeVars : StmtExprVisitor {
  std::vector<const Var*> order;
  std::unordered_set<const Var*> seen, defined;
  using StmtExprVisitor::visit_;

  void use(const Var* v) {
    if (!defined.count(v) && seen.insert(v).second) order.push_back(v);
  }
  void visit_(const Var* v) override { use(v); }
  void visit_buffer(const Ref<Buffer>& b) override {
    use(b->data.get());
    for (const auto& d : b->shape) visit_expr(d);
    for (const auto& d : b->strides) visit_expr(d);
    if (b->elem_offset.defined()) visit_expr(b->elem_offset);
  }
  void visit_(const For* op) override {
    defined.insert(op->loop_var.get());
    StmtVisitor::visit_(op);
  }
  void visit_(const LetStmt* op) override {
    visit_expr(op->value);
    defined.insert(op->var.get());
    visit_stmt(op->body);
  }
  void visit_(const Let* op) override {
    visit_expr(op->value);
    defined.insert(op->var.get());
    visit_expr(op->body);
  }
  void visit_(const Allocate* op) override {
    defined.insert(op->buffer_var.get());
    StmtVisitor::visit_(op);
  }
};

/// Thread tags and extents of a nest; shared bytes.
struct NestInfo : StmtVisitor {
  std::array<PrimExpr, 3> grid, block;
  int64_t shared_bytes = 0;
  std::string kernel;
  using StmtVisitor::visit_;
  void visit_(const For* op) override {
    if (op->kind == ForKind::kThreadBinding) {
      const std::string& t = op->thread_tag;
      bool is_block = t.rfind("blockIdx.", 0) == 0, is_thread = t.rfind("threadIdx.", 0) == 0;
      RX_CHECK((is_block || is_thread) && t.size() == (is_block ? 10u : 11u) && t.back() >= 'x' &&
               t.back() <= 'z')
          << "kernel " << kernel << ": loop " << op->loop_var->name << " is bound to '" << t
          << "', expected blockIdx.x/y/z or threadIdx.x/y/z";
      RX_CHECK(is_const_int(op->min, 0)) << "kernel " << kernel << ": thread-bound loop "
                                         << op->loop_var->name << " must start at 0";
      auto& slot = (is_block ? grid : block)[t.back() - 'x'];
      if (!slot.defined()) slot = op->extent;  // verify_gpu checks later bindings agree
    }
    StmtVisitor::visit_(op);
  }
  void visit_(const Allocate* op) override {
    if (op->scope == "shared") {
      int64_t n = op->dtype.bytes();
      for (const auto& e : op->extents) {
        const int64_t* c = as_const_int(e);
        RX_CHECK(c) << "kernel " << kernel << ": shared allocation " << op->buffer_var->name
                    << " has the non-constant extent " << to_string(e);
        n *= *c;
      }
      shared_bytes += n;
    }
    StmtVisitor::visit_(op);
  }
};

class Splitter {
 public:
  Splitter(const Ref<PrimFunc>& func, std::string name) : func_(func), name_(std::move(name)) {
    for (const auto& p : func->params) host_vars_.insert(p.get());
    for (const auto& [p, b] : func->buffer_map)
      for (const auto& d : b->shape)
        if (auto* v = d.as<Var>()) host_vars_.insert(v);
  }

  Stmt host(const Stmt& s) {
    if (auto* op = s.as<SeqStmt>()) {
      std::vector<Stmt> seq;
      for (const auto& c : op->seq) seq.push_back(host(c));
      return seq_stmt(std::move(seq));
    }
    if (auto* op = s.as<AssertStmt>())
      return make_ref<AssertStmt>(op->condition, op->message, host(op->body));
    if (auto* op = s.as<LetStmt>()) {
      host_vars_.insert(op->var.get());
      return make_ref<LetStmt>(op->var, op->value, host(op->body));
    }
    if (auto* op = s.as<Allocate>()) {
      if (op->scope != "global") {
        // Per-block or per-thread memory allocated above the nests (a root block's
        // alloc_buffer): it moves into each kernel that uses it.
        device_allocs_.push_back(op);
        Stmt body = host(op->body);
        device_allocs_.pop_back();
        return body;
      }
      workspaces_[op->buffer_var.get()] = op;
      return make_ref<Allocate>(op->buffer_var, op->dtype, op->extents, op->scope, host(op->body),
                                op->annotations);
    }
    if (auto* op = s.as<For>(); op && op->kind == ForKind::kThreadBinding) return kernel(op);
    if (is_no_op(s)) return s;
    std::string text = to_string(s);
    if (text.size() > 200) text = text.substr(0, 200) + "...";
    RX_THROW() << "split_host_device: function " << name_ << ", before kernel " << next_name()
               << ": statement outside any thread-bound loop (the GPU schedule must bind the "
                  "outermost loops):\n"
               << text;
  }

  std::vector<GpuKernel> kernels;

 private:
  std::string next_name() const { return name_ + "_kernel" + std::to_string(kernels.size()); }

  Stmt kernel(const For* nest) {
    GpuKernel k;
    k.name = next_name();
    Stmt body = with_device_allocs(nest);
    NestInfo info;
    info.kernel = k.name;
    info.visit_stmt(body);
    for (int d = 0; d < 3; ++d) {
      k.grid[d] = info.grid[d].defined() ? info.grid[d] : int_imm(1);
      k.block[d] = info.block[d].defined() ? info.block[d] : int_imm(1);
      for (const PrimExpr* e : {&k.grid[d], &k.block[d]}) {
        FreeVars fv;
        fv.visit_expr(*e);
        for (const Var* v : fv.order)
          RX_CHECK(host_vars_.count(v))
              << "kernel " << k.name << ": the launch size " << to_string(*e) << " uses " << v->name
              << ", which the host does not know (thread extents must depend only "
              << "on parameters and shape variables)";
      }
    }
    k.shared_bytes = info.shared_bytes;

    FreeVars fv;
    fv.visit_stmt(body);
    std::unordered_set<const Var*> used(fv.order.begin(), fv.order.end());
    std::vector<Ref<Var>> params;
    std::vector<std::pair<Ref<Var>, Ref<Buffer>>> bmap;
    std::unordered_set<const Var*> defined_by_buffers;
    for (const auto& p : func_->params) {
      Ref<Buffer> b = func_->buffer_of(p);
      if (!b.defined() || !used.count(p.get())) continue;
      params.push_back(p);
      bmap.emplace_back(p, b);
      k.args.push_back({p, {}});
      for (const auto& d : b->shape)
        if (auto* v = d.as<Var>()) defined_by_buffers.insert(v);
    }
    for (const Var* v : fv.order) {
      if (!v->dtype.is_handle()) continue;
      if (func_->buffer_of(Ref<Var>(v)).defined()) continue;
      auto it = workspaces_.find(v);
      RX_CHECK(it != workspaces_.end()) << "kernel " << k.name << " accesses memory " << v->name
                                        << " that is neither a parameter nor a global workspace";
      const Allocate* a = it->second;
      PrimExpr n = int_imm(1);
      for (const auto& e : a->extents) n = n * cast(DataType::Int(64), e);
      Ref<Var> rv(v);
      params.push_back(rv);
      bmap.emplace_back(rv, make_buffer(rv, a->dtype, {n}, v->name));
      k.args.push_back({rv, {}});
    }
    // Then the scalars: those the host passes, then the shape variables of the kernel's buffers
    // that its body uses (a device reads no shapes from its buffers: every backend gets them
    // as arguments, in this order).
    std::vector<Ref<Var>> shape_vars;
    for (const Var* v : fv.order) {
      if (v->dtype.is_handle()) continue;
      Ref<Var> rv(v);
      if (defined_by_buffers.count(v)) {
        shape_vars.push_back(rv);
        continue;
      }
      RX_CHECK(host_vars_.count(v)) << "kernel " << k.name << " uses the variable " << v->name
                                    << ", which is defined nowhere";
      params.push_back(rv);
      k.args.push_back({{}, rv});
    }
    for (const Ref<Var>& v : shape_vars) {
      params.push_back(v);
      k.args.push_back({{}, v});
    }
    k.func = make_ref<PrimFunc>(params, body, bmap,
                                make_attrs({{kAttrGlobalSymbol, AttrValue(k.name)}}));
    std::vector<PrimExpr> sizes = {k.grid[0],  k.grid[1],  k.grid[2],
                                   k.block[0], k.block[1], k.block[2]};
    std::vector<PrimExpr> args;
    for (const auto& a : k.args) args.push_back(a.buffer.defined() ? PrimExpr(a.buffer) : a.scalar);
    Stmt launch = make_ref<Evaluate>(launch_kernel(k.name, sizes, args));
    kernels.push_back(std::move(k));
    return launch;
  }

  /// The nest with the device allocations above it that it uses placed inside its blockIdx
  /// loops (one buffer per block), or around it when it starts with threadIdx loops.
  Stmt with_device_allocs(const For* nest) {
    std::vector<const Allocate*> used;
    FreeVars fv;
    fv.visit_stmt(Stmt(nest));
    for (const Allocate* a : device_allocs_)
      if (fv.seen.count(a->buffer_var.get())) used.push_back(a);
    if (used.empty()) return Stmt(nest);
    std::function<Stmt(const Stmt&)> place = [&](const Stmt& s) -> Stmt {
      auto* f = s.as<For>();
      if (f && f->kind == ForKind::kThreadBinding && f->thread_tag.rfind("blockIdx.", 0) == 0 &&
          f->body.is<For>() && f->body.as<For>()->kind == ForKind::kThreadBinding &&
          f->body.as<For>()->thread_tag.rfind("blockIdx.", 0) == 0)
        return make_ref<For>(f->loop_var, f->min, f->extent, f->kind, place(f->body), f->thread_tag,
                             f->annotations);
      Stmt inner = f && f->thread_tag.rfind("blockIdx.", 0) == 0 ? f->body : s;
      for (size_t i = used.size(); i-- > 0;)
        inner = make_ref<Allocate>(used[i]->buffer_var, used[i]->dtype, used[i]->extents,
                                   used[i]->scope, inner, used[i]->annotations);
      if (f && f->thread_tag.rfind("blockIdx.", 0) == 0)
        return make_ref<For>(f->loop_var, f->min, f->extent, f->kind, inner, f->thread_tag,
                             f->annotations);
      return inner;
    };
    return place(Stmt(nest));
  }

  Ref<PrimFunc> func_;
  std::string name_;
  std::vector<const Allocate*> device_allocs_;
  std::unordered_set<const Var*> host_vars_;
  std::unordered_map<const Var*, const Allocate*> workspaces_;
};

}  // namespace

GpuProgram split_host_device(const Ref<PrimFunc>& func, const std::vector<HostCheck>& checks,
                             const std::string& name) {
  std::string n = name;
  if (n.empty()) n = get_string(func->attrs, kAttrGlobalSymbol, "main");
  Splitter splitter(func, n);
  Stmt body = splitter.host(func->body);
  for (size_t i = checks.size(); i-- > 0;)
    body = make_ref<AssertStmt>(checks[i].condition, checks[i].message, body);
  GpuProgram program;
  program.host = with_body(func, body);
  program.kernels = std::move(splitter.kernels);
  return program;
}

}  // namespace relax::tir
