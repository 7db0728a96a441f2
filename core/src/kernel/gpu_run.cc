// run_gpu_program (kernel/gpu_lower.h): a GpuProgram in the reference interpreter.
//
// The host body holds only asserts, scalar lets, global allocations and launch_kernel calls
// (split_host_device guarantees it), so it is evaluated here directly: integer expressions
// over the bound shape variables and scalar parameters are substituted and folded; each
// launch runs its kernel's PrimFunc with tir::interpret on the host's NDArrays (workspaces as
// flat NDArrays).
#include <unordered_map>

#include "relax/arith/analyzer.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/support/diagnostic.h"

namespace relax::tir {

namespace {

class HostRunner {
 public:
  HostRunner(const GpuProgram& program, const std::vector<InterpArg>& args) : program_(program) {
    const PrimFunc& f = *program.host;
    RX_CHECK(args.size() == f.params.size())
        << "the program takes " << f.params.size() << " arguments, got " << args.size();
    for (size_t i = 0; i < args.size(); ++i) {
      const Ref<Var>& p = f.params[i];
      if (const auto* a = std::get_if<runtime::NDArray>(&args[i])) {
        arrays_[p.get()] = *a;
        if (Ref<Buffer> b = f.buffer_of(p); b.defined() && b->ndim() == a->shape().size())
          for (size_t d = 0; d < b->ndim(); ++d)
            if (auto* v = b->shape[d].as<Var>(); v && !values_.count(v)) values_[v] = a->shape()[d];
      } else if (const auto* x = std::get_if<int64_t>(&args[i])) {
        values_[p.get()] = *x;
      }
    }
  }

  void run(const Stmt& s) {
    if (auto* op = s.as<SeqStmt>()) {
      for (const auto& c : op->seq) run(c);
    } else if (auto* op = s.as<AssertStmt>()) {
      RX_CHECK(eval(op->condition) != 0) << op->message;
      run(op->body);
    } else if (auto* op = s.as<LetStmt>()) {
      values_[op->var.get()] = eval(op->value);
      run(op->body);
    } else if (auto* op = s.as<Allocate>()) {
      int64_t n = 1;
      for (const auto& e : op->extents) n *= eval(e);
      RX_CHECK(n >= 0) << "workspace " << op->buffer_var->name << " has a negative size " << n;
      arrays_[op->buffer_var.get()] = runtime::NDArray::empty({n}, op->dtype);
      run(op->body);
      arrays_.erase(op->buffer_var.get());
    } else if (auto* op = s.as<Evaluate>()) {
      auto* call = op->value.as<Call>();
      if (call && call->op == Intrinsic::kLaunchKernel) return launch(*call);
      RX_ICHECK(is_no_op(s)) << "host statement the runner does not know: " << to_string(s);
    } else {
      RX_IFAIL() << "host statement the runner does not know: " << to_string(s);
    }
  }

 private:
  int64_t eval(const PrimExpr& e) {
    PrimExpr v = arith::simplify(substitute_vars(e));
    const int64_t* c = as_const_int(v);
    RX_ICHECK(c) << "host expression " << to_string(e) << " does not evaluate to a constant";
    return *c;
  }
  PrimExpr substitute_vars(const PrimExpr& e) {
    struct Sub : ExprMutator {
      HostRunner* self;
      using ExprMutator::visit_;
      PrimExpr visit_(const Var* v) override {
        auto it = self->values_.find(v);
        return it == self->values_.end() ? PrimExpr(v) : int_imm(it->second, v->dtype);
      }
    } sub;
    sub.self = this;
    return sub.visit_expr(e);
  }

  void launch(const Call& call) {
    const GpuKernel* k = nullptr;
    for (const auto& c : program_.kernels)
      if (c.name == call.name) k = &c;
    RX_ICHECK(k) << "launch of an unknown kernel " << call.name;
    RX_ICHECK(call.args.size() == 6 + k->args.size()) << "launch of " << k->name;
    for (int i = 0; i < 6; ++i)
      RX_CHECK(eval(call.args[i]) >= 0) << "kernel " << k->name << ": negative launch size";
    std::vector<InterpArg> args;
    for (size_t i = 0; i < k->args.size(); ++i) {
      const PrimExpr& a = call.args[6 + i];
      if (a->dtype.is_handle()) {
        auto* v = a.as<Var>();
        RX_ICHECK(v && arrays_.count(v)) << "kernel " << k->name << ": unknown memory argument";
        args.push_back(arrays_.at(v));
      } else {
        args.push_back(eval(a));
      }
    }
    interpret(k->func, args);
  }

  const GpuProgram& program_;
  std::unordered_map<const Var*, int64_t> values_;
  std::unordered_map<const Var*, runtime::NDArray> arrays_;
};

}  // namespace

void run_gpu_program(const GpuProgram& program, const std::vector<InterpArg>& args) {
  HostRunner runner(program, args);
  runner.run(program.host->body);
}

}  // namespace relax::tir
