// Whole programs of the OpenCL code generator (opencl_codegen.h): target attributes, shape
// scalars for the kernels, and the program source of a set of functions.
#include <algorithm>
#include <sstream>

#include "codegen_internal.h"
#include "relax/support/diagnostic.h"
#include "relax/target/targets.h"
#include "relax/tir/intrin.h"

namespace relax::opencl {

using namespace relax::tir;
using tir::Buffer;
using tir::Call;
using tir::Evaluate;
using tir::Let;
using tir::PrimFunc;
using tir::Var;

void parse_target_attrs(const std::string& attrs, GpuLimits* limits, CodegenOptions* options) {
  Target t = Target::parse(attrs.empty() ? "opencl" : "opencl," + attrs);
  if (limits) *limits = gpu_limits(t);
  auto flag = [&](const char* name, bool dflt) {
    std::optional<std::string> v = t.attr(name);
    if (!v) return dflt;
    RX_CHECK(*v == "0" || *v == "1" || *v == "true" || *v == "false")
        << "target \"" << t.str() << "\": attribute " << name << "=" << *v
        << ": expected a bool (0 or 1)";
    return *v == "1" || *v == "true";
  };
  if (options) {
    options->fp16 = flag("fp16", false);
    options->fp64 = flag("fp64", true);
  }
}

namespace {

/// Every variable an expression of a statement, or a buffer it accesses, mentions.
struct UsedVars : StmtVisitor {
  std::unordered_set<const Var*> vars;
  struct Exprs : ExprVisitor {
    std::unordered_set<const Var*>* out;
    using ExprVisitor::visit_;
    void visit_(const Var* op) override { out->insert(op); }
    void visit_(const BufferLoad* op) override {
      for (const PrimExpr& e : op->buffer->strides) visit_expr(e);
      if (op->buffer->elem_offset.defined()) visit_expr(op->buffer->elem_offset);
      if (op->buffer->ndim() > 1)
        for (const PrimExpr& e : op->buffer->shape) visit_expr(e);
      ExprVisitor::visit_(op);
    }
  };
  using StmtVisitor::visit_;
  void visit_expr(const PrimExpr& e) override {
    Exprs x;
    x.out = &vars;
    x.visit_expr(e);
  }
  void visit_buffer(const Ref<Buffer>& b) override {
    for (const PrimExpr& e : b->strides) visit_expr(e);
    if (b->elem_offset.defined()) visit_expr(b->elem_offset);
    if (b->ndim() > 1)
      for (const PrimExpr& e : b->shape) visit_expr(e);
  }
};

/// The host body with the launch of `kernel` passing `args` instead of its arguments.
struct SetLaunchArgs : StmtMutator {
  std::string kernel;
  std::vector<PrimExpr> args;
  using StmtMutator::visit_;
  Stmt visit_(const Evaluate* op) override {
    auto* call = op->value.as<Call>();
    if (!call || call->op != Intrinsic::kLaunchKernel || call->name != kernel)
      return StmtMutator::visit_(op);
    std::vector<PrimExpr> sizes(call->args.begin(), call->args.begin() + 6);
    return make_ref<Evaluate>(launch_kernel(kernel, sizes, args));
  }
};

}  // namespace

void pass_shape_scalars(GpuProgram& program) {
  for (GpuKernel& k : program.kernels) {
    Ref<PrimFunc> old = k.func;
    const PrimFunc& f = *old;
    UsedVars used;
    used.visit_stmt(f.body);
    std::unordered_set<const Var*> params;
    for (const Ref<Var>& p : f.params) params.insert(p.get());
    std::vector<Ref<Var>> extra;
    std::unordered_set<const Var*> added;
    for (const auto& [p, b] : f.buffer_map)
      for (const PrimExpr& d : b->shape)
        if (auto* v = d.as<Var>();
            v && used.vars.count(v) && !params.count(v) && added.insert(v).second)
          extra.emplace_back(v);
    // The calling convention: buffers, then scalars (split_host_device puts the workspaces
    // last), then the shape variables.
    RX_ICHECK(k.args.size() == f.params.size()) << "kernel " << k.name << ": arguments and "
                                                << "parameters differ in number";
    std::vector<Ref<Var>> new_params, scalar_params;
    std::vector<KernelArg> args, scalar_args;
    for (size_t i = 0; i < f.params.size(); ++i) {
      bool buffer = f.buffer_of(f.params[i]).defined();
      (buffer ? new_params : scalar_params).push_back(f.params[i]);
      (buffer ? args : scalar_args).push_back(k.args[i]);
    }
    if (extra.empty() && scalar_params.size() + new_params.size() == f.params.size() &&
        std::equal(new_params.begin(), new_params.end(), f.params.begin()))
      continue;  // already in order, nothing to add
    new_params.insert(new_params.end(), scalar_params.begin(), scalar_params.end());
    args.insert(args.end(), scalar_args.begin(), scalar_args.end());
    for (const Ref<Var>& v : extra) {
      new_params.push_back(v);
      args.push_back({{}, PrimExpr(v)});
    }
    k.func = make_ref<PrimFunc>(new_params, f.body, f.buffer_map, f.attrs);
    SetLaunchArgs set;
    set.kernel = k.name;
    for (const KernelArg& a : args)
      set.args.push_back(a.buffer.defined() ? PrimExpr(a.buffer) : a.scalar);
    k.args = std::move(args);
    Ref<PrimFunc> host = program.host;
    const PrimFunc& h = *host;
    program.host = make_ref<PrimFunc>(h.params, set.visit_stmt(h.body), h.buffer_map, h.attrs);
  }
}

std::string program_source(const std::vector<std::pair<std::string, Ref<PrimFunc>>>& funcs,
                           const GpuLimits& limits, const CodegenOptions& options) {
  std::string kernels;
  KernelFeatures used;
  for (const auto& [name, f] : funcs) {
    GpuProgram p = lower_for_gpu(f, limits, name);
    pass_shape_scalars(p);
    for (const GpuKernel& k : p.kernels) {
      KernelFeatures kf;
      kernels += "\n" + kernel_source(k, options, &kf);
      used.fp16 |= kf.fp16;
      used.fp64 |= kf.fp64;
    }
  }
  return prelude(enabled_options(options, used)) + kernels;
}

CodegenOptions enabled_options(const CodegenOptions& options, const KernelFeatures& used) {
  CodegenOptions o = options;
  o.fp16 = options.fp16 && used.fp16;
  o.fp64 = options.fp64 && used.fp64;
  return o;
}

}  // namespace relax::opencl
