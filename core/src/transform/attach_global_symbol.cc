// attach-global-symbol: gives every function without a "global_symbol" attribute one equal
// to its name in the module, so that backends export it under that name.
//
// Expects: any module. Guarantees: the chosen kinds of function carry "global_symbol";
// functions that had one keep it. A module-level pass: it needs each function's module name.
#include "relax/ir/prim_func.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

constexpr const char* kGlobalSymbol = "global_symbol";

IRModule attach_global_symbol(const IRModule& mod, const PassOptions& options, PassContext&) {
  bool relax_funcs = options.get_bool("relax-funcs");
  bool prim_funcs = options.get_bool("prim-funcs");
  IRModule out = mod;
  for (const auto& e : mod.functions()) {
    if (e.func->attrs.defined() && e.func->attrs->has(kGlobalSymbol)) continue;
    Attrs attrs = with_attr(e.func->attrs, kGlobalSymbol, e.gv->name);
    if (auto* f = e.func.as<Function>(); f && relax_funcs) {
      out.update(e.gv->name,
                 make_ref<Function>(f->params, f->body, f->ret_struct_info, f->is_pure, attrs));
    } else if (auto* p = e.func.as<tir::PrimFunc>(); p && prim_funcs) {
      out.update(e.gv->name,
                 make_ref<tir::PrimFunc>(p->params, p->body, p->buffer_map, attrs, p->ret_type));
    }
  }
  return out;
}

}  // namespace

void register_attach_global_symbol(PassRegistry& registry) {
  registry.add({"attach-global-symbol",
                "Set the global_symbol attribute of each function that lacks one to its name",
                Granularity::kModule,
                {{"relax-funcs", OptionType::kBool, true, "attach to Relax functions"},
                 {"prim-funcs", OptionType::kBool, true, "attach to TIR PrimFuncs"}}},
               ModuleTransform(attach_global_symbol));
}

}  // namespace relax::transform
