// The compiler half of the GPU kernel library (launch_encode.h): a lowered GpuProgram's host
// function -> a launch table, a kernel -> its KernelInfo, and the whole build loop.
//
// The host functions split_host_device produces hold, outside the kernels: AssertStmts (the
// index-narrowing and grid checks), LetStmts of integer scalars, "global" Allocates (the
// workspaces) and Evaluate(launch_kernel(...)), nested through SeqStmt and the bodies. Integer
// expressions become postfix Exprs over slots: one slot per shape variable / scalar parameter
// (by identity) and per let. Casts to narrower integer types wrap as the IR says; anything
// that is not integer arithmetic is a relax::Error naming the function and the construct.
#include "launch_encode.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "relax/support/diagnostic.h"
#include "relax/support/progress.h"
#include "relax/tir/buffer.h"
#include "relax/tir/expr.h"
#include "relax/tir/stmt.h"

namespace relax::gpu {

namespace {

using tir::PrimExpr;

DLDataType dl(DataType t) { return DLDataType{t.code, t.bits, t.lanes}; }

/// Encodes one host function.
class HostEncoder {
 public:
  HostEncoder(const tir::GpuProgram& program, const std::string& name, int32_t first_kernel)
      : program_(program), first_kernel_(first_kernel) {
    table_.name = name;
  }

  FunctionTable run() {
    const tir::PrimFunc& host = *program_.host;
    std::vector<std::pair<PrimExpr, int32_t>> dim_checks;
    // Slots of the shape variables first (so a scalar parameter that is also a dimension shares
    // its slot), then the parameters in order.
    for (size_t i = 0; i < host.params.size(); ++i) {
      const Ref<tir::Var>& p = host.params[i];
      ParamSpec spec;
      spec.name = p->name;
      Ref<tir::Buffer> buf = host.buffer_of(p);
      if (!buf.defined()) {
        RX_CHECK(p->dtype.is_integer_like() || p->dtype.is_bool())
            << where() << ": scalar parameter " << p->name << " has dtype " << p->dtype.to_string()
            << "; GPU kernels take integer scalars only";
        spec.kind = ParamSpec::Kind::kScalar;
        spec.dtype = dl(p->dtype);
        spec.slot = slot_of(p.get(), p->name);
        table_.params.push_back(std::move(spec));
        continue;
      }
      spec.name = buf->name;
      spec.kind = ParamSpec::Kind::kBuffer;
      spec.dtype = dl(buf->dtype);
      RX_CHECK(buf->strides.empty() && is_zero(buf->elem_offset))
          << where() << ": buffer " << buf->name
          << " has strides or an element offset; GPU kernels take compact buffers";
      params_[p.get()] = int32_t(i);
      for (size_t k = 0; k < buf->shape.size(); ++k) {
        const PrimExpr& d = buf->shape[k];
        DimSpec dim;
        if (const int64_t* c = tir::as_const_int(d)) {
          dim.value = *c;
        } else if (auto* v = d.as<tir::Var>()) {
          dim.slot = slot_of(v, v->name);
        } else {
          // A compound dimension binds a slot of its own, checked against its expression once
          // every parameter is bound.
          dim.slot = new_slot(buf->name + ".shape[" + std::to_string(k) + "]");
          dim_checks.emplace_back(d, dim.slot);
        }
        spec.shape.push_back(dim);
      }
      table_.params.push_back(std::move(spec));
    }
    bound_params_ = true;
    for (const auto& [expr, s] : dim_checks) {
      Step st;
      st.kind = Step::Kind::kAssert;
      st.value = encode(expr);
      st.value.code.push_back({ExprOp::kSlot, s});
      st.value.code.push_back({ExprOp::kEQ, 0});
      st.message = table_.slot_names[size_t(s)] + " must equal " + tir::to_string(expr);
      table_.steps.push_back(std::move(st));
    }
    stmt(host.body);
    table_.num_slots = int32_t(table_.slot_names.size());
    table_.num_workspaces = int32_t(workspaces_.size());
    return std::move(table_);
  }

 private:
  std::string where() const { return "GPU launch table of function \"" + table_.name + "\""; }

  static bool is_zero(const PrimExpr& e) {
    const int64_t* c = e.defined() ? tir::as_const_int(e) : nullptr;
    return !e.defined() || (c && *c == 0);
  }

  int32_t new_slot(const std::string& name) {
    table_.slot_names.push_back(name);
    return int32_t(table_.slot_names.size() - 1);
  }

  int32_t slot_of(const tir::Var* v, const std::string& name) {
    auto it = slots_.find(v);
    if (it != slots_.end()) return it->second;
    RX_CHECK(!bound_params_) << where() << ": the expression uses variable " << name
                             << ", which is not a parameter, shape variable or let";
    int32_t s = new_slot(name);
    slots_[v] = s;
    return s;
  }

  // ---- expressions --------------------------------------------------------------------

  Expr encode(const PrimExpr& e) {
    Expr out;
    expr(e, out);
    return out;
  }

  void push(Expr& out, ExprOp op, int64_t value = 0) { out.code.push_back({op, value}); }

  void binary(const tir::BinaryOp& b, ExprOp op, Expr& out) {
    expr(b.a, out);
    expr(b.b, out);
    push(out, op);
  }

  /// Wraps the value on the stack to `bits` (signed or not), as a cast to that type does.
  void wrap_to(Expr& out, int bits, bool is_signed) {
    if (bits >= 64) return;
    int64_t m = int64_t(1) << bits;
    if (is_signed) {
      push(out, ExprOp::kConst, m / 2);
      push(out, ExprOp::kAdd);
    }
    push(out, ExprOp::kConst, m);
    push(out, ExprOp::kFloorMod);
    if (is_signed) {
      push(out, ExprOp::kConst, m / 2);
      push(out, ExprOp::kSub);
    }
  }

  /// True when every value of `from` is a value of `to` (the cast changes nothing).
  static bool cast_keeps_value(DataType from, DataType to) {
    if (from.is_bool() || (to.bits >= 64 && to.is_int())) return true;
    if (from.is_uint()) return to.bits > from.bits || (to.is_uint() && to.bits >= from.bits);
    return to.is_int() && to.bits >= from.bits;
  }

  void expr(const PrimExpr& e, Expr& out) {
    RX_CHECK(e->dtype.is_scalar() && (e->dtype.is_integer_like() || e->dtype.is_bool()))
        << where() << ": expression " << tir::to_string(e) << " of dtype " << e->dtype.to_string()
        << " is not integer arithmetic";
    using K = tir::PrimExprKind;
    switch (K(e->kind())) {
      case K::kIntImm:
        push(out, ExprOp::kConst, e.as<tir::IntImm>()->value);
        return;
      case K::kVar: {
        auto* v = e.as<tir::Var>();
        push(out, ExprOp::kSlot, slot_of(v, v->name));
        return;
      }
      // clang-format off
#define RELAX_X(Name, Symbol) \
  case K::k##Name: binary(*e.as<tir::Name>(), ExprOp::k##Name, out); return;
      RELAX_PRIM_EXPR_BINARY_NODES(RELAX_X)
#undef RELAX_X
        // clang-format on
      case K::kNot:
        expr(e.as<tir::Not>()->a, out);
        push(out, ExprOp::kNot);
        return;
      case K::kSelect: {
        auto* s = e.as<tir::Select>();
        expr(s->condition, out);
        expr(s->true_value, out);
        expr(s->false_value, out);
        push(out, ExprOp::kSelect);
        return;
      }
      case K::kCast: {
        auto* c = e.as<tir::Cast>();
        expr(c->value, out);
        DataType to = c->dtype, from = c->value->dtype;
        if (to.is_bool()) {
          push(out, ExprOp::kConst, 0);
          push(out, ExprOp::kNE);
        } else if (to.is_uint() && to.bits == 64) {
          RX_THROW() << where() << ": expression " << tir::to_string(e)
                     << " casts to uint64, which launch tables do not represent";
        } else if (!cast_keeps_value(from, to)) {
          wrap_to(out, to.bits, to.is_int());
        }
        return;
      }
      case K::kCall: {
        auto* c = e.as<tir::Call>();
        if (c->op == tir::Intrinsic::kLikely && c->args.size() == 1) {
          expr(c->args[0], out);
          return;
        }
        if (c->op == tir::Intrinsic::kIfThenElse && c->args.size() == 3) {
          for (const PrimExpr& a : c->args) expr(a, out);
          push(out, ExprOp::kSelect);
          return;
        }
        break;
      }
      default:
        break;
    }
    RX_THROW() << where() << ": expression " << tir::to_string(e)
               << " is not integer arithmetic over parameters, shape variables and lets";
  }

  // ---- statements ---------------------------------------------------------------------

  void stmt(const tir::Stmt& s) {
    if (!s.defined() || tir::is_no_op(s)) return;
    if (auto* seq = s.as<tir::SeqStmt>()) {
      for (const tir::Stmt& c : seq->seq) stmt(c);
    } else if (auto* a = s.as<tir::AssertStmt>()) {
      Step st;
      st.kind = Step::Kind::kAssert;
      st.value = encode(a->condition);
      st.message = a->message;
      table_.steps.push_back(std::move(st));
      stmt(a->body);
    } else if (auto* l = s.as<tir::LetStmt>()) {
      RX_CHECK(l->var->dtype.is_integer_like() || l->var->dtype.is_bool())
          << where() << ": let " << l->var->name << " of dtype " << l->var->dtype.to_string()
          << " on the host; launch tables hold integer lets only";
      Step st;
      st.kind = Step::Kind::kLet;
      st.value = encode(l->value);
      st.slot = new_slot(l->var->name);
      slots_[l->var.get()] = st.slot;
      table_.steps.push_back(std::move(st));
      stmt(l->body);
    } else if (auto* al = s.as<tir::Allocate>()) {
      alloc(*al);
      stmt(al->body);
    } else if (auto* ev = s.as<tir::Evaluate>()) {
      auto* call = ev->value.as<tir::Call>();
      RX_CHECK(call && call->op == tir::Intrinsic::kLaunchKernel)
          << where() << ": statement " << tir::to_string(s) << " outside any kernel";
      launch(*call);
    } else {
      RX_THROW() << where() << ": statement " << tir::to_string(s) << " outside any kernel";
    }
  }

  void alloc(const tir::Allocate& al) {
    RX_CHECK(al.scope == "global" || al.scope.empty())
        << where() << ": a \"" << al.scope << "\" allocation " << al.buffer_var->name
        << " on the host (only global workspaces stay outside the kernels)";
    Step st;
    st.kind = Step::Kind::kAlloc;
    int64_t elem = al.dtype.is_bool() ? int64_t(al.dtype.lanes) : int64_t(al.dtype.bytes());
    st.value.code.push_back({ExprOp::kConst, elem});
    for (const PrimExpr& x : al.extents) {
      expr(x, st.value);
      push(st.value, ExprOp::kMul);
    }
    st.slot = int32_t(workspaces_.size());
    workspaces_[al.buffer_var.get()] = st.slot;
    table_.steps.push_back(std::move(st));
  }

  void launch(const tir::Call& call) {
    auto it = std::find_if(program_.kernels.begin(), program_.kernels.end(),
                           [&](const tir::GpuKernel& k) { return k.name == call.name; });
    RX_CHECK(it != program_.kernels.end())
        << where() << ": launch of kernel " << call.name << ", which the program does not hold";
    RX_CHECK(call.args.size() >= 6)
        << where() << ": launch of kernel " << call.name << " without its grid and block";
    RX_ICHECK(call.args.size() == 6 + it->func->params.size())
        << where() << ": launch of kernel " << call.name << " with " << call.args.size() - 6
        << " arguments for " << it->func->params.size() << " parameters";
    Step st;
    st.kind = Step::Kind::kLaunch;
    st.kernel = first_kernel_ + int32_t(it - program_.kernels.begin());
    for (size_t d = 0; d < 3; ++d) st.grid[d] = encode(call.args[d]);
    for (size_t i = 6; i < call.args.size(); ++i) {
      const PrimExpr& a = call.args[i];
      LaunchArg arg;
      if (a->dtype.is_handle()) {
        auto* v = a.as<tir::Var>();
        RX_CHECK(v) << where() << ": kernel " << call.name << " argument " << tir::to_string(a)
                    << " is not a buffer";
        if (auto p = params_.find(v); p != params_.end()) {
          arg.kind = LaunchArg::Kind::kParam;
          arg.index = p->second;
        } else if (auto w = workspaces_.find(v); w != workspaces_.end()) {
          arg.kind = LaunchArg::Kind::kWorkspace;
          arg.index = w->second;
        } else {
          RX_THROW() << where() << ": kernel " << call.name << " argument " << v->name
                     << " is neither a buffer parameter nor a workspace";
        }
      } else {
        arg.kind = LaunchArg::Kind::kScalar;
        arg.value = encode(a);
      }
      st.args.push_back(std::move(arg));
    }
    table_.steps.push_back(std::move(st));
  }

  const tir::GpuProgram& program_;
  int32_t first_kernel_;
  FunctionTable table_;
  bool bound_params_ = false;
  std::unordered_map<const tir::Var*, int32_t> slots_;
  std::unordered_map<const tir::Var*, int32_t> params_;      ///< data var -> parameter index
  std::unordered_map<const tir::Var*, int32_t> workspaces_;  ///< data var -> workspace index
};

}  // namespace

KernelInfo kernel_info(const tir::GpuKernel& kernel) {
  KernelInfo info;
  info.name = kernel.name;
  for (size_t d = 0; d < 3; ++d) {
    const int64_t* b = kernel.block[d].defined() ? tir::as_const_int(kernel.block[d]) : nullptr;
    RX_CHECK(b && *b >= 1 && *b <= int64_t(UINT32_MAX))
        << "kernel " << kernel.name << ": block dimension " << d << " is "
        << (kernel.block[d].defined() ? tir::to_string(kernel.block[d]) : "undefined")
        << "; GPU kernels need a constant work-group size";
    info.block[d] = uint32_t(*b);
  }
  RX_CHECK(kernel.shared_bytes >= 0) << "kernel " << kernel.name << ": negative shared bytes";
  info.shared_bytes = uint64_t(kernel.shared_bytes);
  bool scalars = false;
  for (const Ref<tir::Var>& p : kernel.func->params) {
    Ref<tir::Buffer> buf = kernel.func->buffer_of(p);
    if (buf.defined()) {
      RX_ICHECK(!scalars) << "kernel " << kernel.name << ": a buffer parameter after a scalar";
      DataType t = buf->dtype;
      info.buffer_dtypes.push_back(t.is_bool() ? DLDataType{kDLUInt, 8, t.lanes} : dl(t));
      continue;
    }
    scalars = true;
    RX_CHECK(p->dtype.is_int() && p->dtype.is_scalar() &&
             (p->dtype.bits == 32 || p->dtype.bits == 64))
        << "kernel " << kernel.name << ": scalar parameter " << p->name << " has dtype "
        << p->dtype.to_string() << ", expected int32 or int64";
    info.scalar_dtypes.push_back(dl(p->dtype));
  }
  return info;
}

FunctionTable encode_host(const tir::GpuProgram& program, const std::string& name,
                          int32_t first_kernel) {
  RX_ICHECK(program.host.defined()) << "encode_host of a program without a host function";
  return HostEncoder(program, name, first_kernel).run();
}

Library build_library(const std::string& format,
                      const std::vector<std::pair<std::string, Ref<tir::PrimFunc>>>& funcs,
                      const tir::GpuLimits& limits, const KernelCodegen& codegen) {
  Library lib;
  lib.format = format;
  uint64_t max_threads = 1, max_shared = 0;
  for (const auto& [name, func] : funcs) {
    tir::GpuProgram program = tir::lower_for_gpu(func, limits, name);
    int32_t first = int32_t(lib.kernels.size());
    for (tir::GpuKernel& k : program.kernels) {
      // Device code divides without trapping (a zero divisor gives a value), so the index
      // divisions a loop repeats can move out of it.
      k.func = tir::hoist_invariant_index_arithmetic(k.func);
      KernelInfo info = kernel_info(k);
      max_threads =
          std::max<uint64_t>(max_threads, uint64_t(info.block[0]) * info.block[1] * info.block[2]);
      max_shared = std::max(max_shared, info.shared_bytes);
      if (codegen) codegen(k, info, lib);
      lib.kernels.push_back(std::move(info));
    }
    lib.functions.push_back(encode_host(program, name, first));
    progress::item_done();
  }
  lib.requirements["max-threads-per-block"] = std::to_string(max_threads);
  lib.requirements["shared-bytes"] = std::to_string(max_shared);
  return lib;
}

}  // namespace relax::gpu
