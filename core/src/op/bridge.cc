// The bridges of RFC D0: call_tir, call_dps_packed, call_packed and call_pure_packed.
//
// Representation (as in TVM):
//   call_tir:        Call(relax.call_tir, [gv, Tuple(args), ShapeExpr(tir_vars)?], sinfo_args=[out])
//   call_dps_packed: Call(relax.call_dps_packed, [ExternFunc, Tuple(args)], sinfo_args=[out])
//   call_packed:     Call(relax.call_packed, [ExternFunc, args...], sinfo_args=[ret]?)
// where `out` is a TensorStructInfo or a TupleStructInfo of them, each with a known shape
// (destination-passing style needs it to allocate the outputs).
#include "infer_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo pack_out_sinfo(std::vector<StructInfo> out) {
  if (out.size() == 1) return out[0];
  return tuple_sinfo(std::move(out));
}

void check_dps_output(const Call& call, const StructInfo& s) {
  if (auto* t = s.as<TupleStructInfo>()) {
    for (const auto& f : t->fields) check_dps_output(call, f);
    return;
  }
  auto* t = s.as<TensorStructInfo>();
  RX_CHECK(t != nullptr) << op_name(call) << ": out_sinfo must be tensors, got " << to_string(s);
  RX_CHECK(t->shape.has_value()) << op_name(call) << ": out_sinfo " << to_string(s)
                                 << " needs a shape to allocate the output; use R.match_cast to give a "
                                    "data-dependent shape symbolic dimensions first";
  RX_CHECK(!t->dtype.is_void()) << op_name(call) << ": out_sinfo " << to_string(s) << " needs a dtype";
}

StructInfo infer_dps(const Call& call, BlockBuilder&) {
  RX_CHECK(call.sinfo_args.size() == 1) << op_name(call) << " needs exactly one out_sinfo, got " << call.sinfo_args.size();
  const StructInfo& args = get_struct_info(call.args[1]);
  RX_CHECK(args.is<TupleStructInfo>()) << op_name(call) << ": arguments must be a tuple, got " << to_string(args);
  check_dps_output(call, call.sinfo_args[0]);
  return call.sinfo_args[0];
}

StructInfo infer_call_tir(const Call& call, BlockBuilder& ctx) {
  RX_CHECK(call.args[0].is<GlobalVar>()) << "relax.call_tir: the callee must be a PrimFunc of the module (a GlobalVar), got "
                                          << describe(call.args[0]);
  auto* gv = call.args[0].as<GlobalVar>();
  if (BaseFunc f = ctx.module().find(gv->name); f.defined()) {
    RX_CHECK(!f.is<Function>()) << "relax.call_tir: @" << gv->name
                                << " is a Relax function; call_tir calls PrimFuncs (call it directly instead)";
  }
  if (call.args.size() == 3) {
    const StructInfo& tv = get_struct_info(call.args[2]);
    RX_CHECK(tv.is<ShapeStructInfo>()) << "relax.call_tir: tir_vars must be a shape, got " << to_string(tv);
  }
  RX_CHECK(call.args.size() <= 3) << "relax.call_tir takes at most 3 arguments (func, args, tir_vars)";
  return infer_dps(call, ctx);
}

StructInfo infer_call_dps_packed(const Call& call, BlockBuilder& ctx) {
  RX_CHECK(call.args[0].is<ExternFunc>()) << "relax.call_dps_packed: the callee must be an external function, got "
                                           << describe(call.args[0]);
  return infer_dps(call, ctx);
}

StructInfo infer_call_packed(const Call& call, BlockBuilder&) {
  RX_CHECK(call.args[0].is<ExternFunc>()) << op_name(call) << ": the callee must be an external function, got "
                                           << describe(call.args[0]);
  RX_CHECK(call.sinfo_args.size() <= 1) << op_name(call) << " takes at most one sinfo_args entry";
  return call.sinfo_args.empty() ? object_sinfo() : call.sinfo_args[0];
}

}  // namespace

void register_bridge_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.call_tir");
    op.summary = "Call a TIR PrimFunc in destination-passing style.";
    op.arg_names = {"func", "args", "tir_vars"};
    op.variadic = true;  // tir_vars is optional
    op.infer = infer_call_tir;
    op.pure = true;
    op.pattern = OpPattern::kOpaque;
  }
  {
    OpInfo& op = reg.register_op("relax.call_dps_packed");
    op.summary = "Call a packed function in destination-passing style.";
    op.arg_names = {"func", "args"};
    op.infer = infer_call_dps_packed;
    op.pure = true;
  }
  {
    OpInfo& op = reg.register_op("relax.call_packed");
    op.summary = "Call a packed function that returns its result; may have side effects.";
    op.arg_names = {"func", "args"};
    op.variadic = true;
    op.infer = infer_call_packed;
    op.pure = false;
  }
  {
    OpInfo& op = reg.register_op("relax.call_pure_packed");
    op.summary = "Call a packed function that returns its result, promised free of side effects.";
    op.arg_names = {"func", "args"};
    op.variadic = true;
    op.infer = infer_call_packed;
    op.pure = true;
  }
}

}  // namespace op_detail

namespace op {

Expr call_tir(const Expr& gv, std::vector<Expr> args, std::vector<StructInfo> out_sinfo,
              std::optional<std::vector<PrimExpr>> tir_vars) {
  std::vector<Expr> call_args{gv, make_tuple(std::move(args))};
  if (tir_vars) call_args.push_back(make_shape(std::move(*tir_vars)));
  return call_op("relax.call_tir", std::move(call_args), {}, {op_detail::pack_out_sinfo(std::move(out_sinfo))});
}

Expr call_dps_packed(const std::string& func, std::vector<Expr> args, std::vector<StructInfo> out_sinfo) {
  return call_op("relax.call_dps_packed", {make_extern(func), make_tuple(std::move(args))}, {},
                 {op_detail::pack_out_sinfo(std::move(out_sinfo))});
}

Expr call_packed(const std::string& func, std::vector<Expr> args, std::vector<StructInfo> sinfo_args) {
  args.insert(args.begin(), make_extern(func));
  return call_op("relax.call_packed", std::move(args), {}, std::move(sinfo_args));
}

Expr call_pure_packed(const std::string& func, std::vector<Expr> args, std::vector<StructInfo> sinfo_args) {
  args.insert(args.begin(), make_extern(func));
  return call_op("relax.call_pure_packed", std::move(args), {}, std::move(sinfo_args));
}

}  // namespace op
}  // namespace relax
