// librelax-count-ops.so: the smallest useful pass plugin. The module pass `count-ops{prefix}`
// counts the op calls of every Relax function whose op name starts with `prefix` and records
// the count in the module attribute `op_count` (printed with the module). Everything it uses
// is the public SDK: relax/sdk/plugin.h and the core's headers.
#include "relax/ir/expr_functor.h"
#include "relax/sdk/plugin.h"

namespace {

using namespace relax;

IRModule count_ops(const IRModule& mod, const transform::PassOptions& options,
                   transform::PassContext&) {
  struct Counter : ExprVisitor {
    std::string prefix;
    int64_t count = 0;
    using ExprVisitor::visit_;
    void visit_(const Call* call) override {
      ExprVisitor::visit_(call);
      if (auto* op = call->op.as<Op>(); op && op->name.rfind(prefix, 0) == 0) ++count;
    }
  } counter;
  counter.prefix = options.get_string("prefix");
  for (const auto& e : mod.functions())
    if (e.func.is<Function>()) counter.visit_expr(e.func);
  IRModule out = mod;
  out.set_attr("op_count", counter.count);
  return out;
}

void register_passes(transform::PluginRegistrar& r) {
  r.add_pass({"count-ops", "Count the op calls (module attribute op_count)",
              transform::Granularity::kModule,
              {{"prefix", transform::OptionType::kString, std::string("relax."),
                "count the ops whose name starts with this"}}},
             transform::ModuleTransform(count_ops));
}

}  // namespace

RELAX_PLUGIN("count-ops", "1.0.0", register_passes)
