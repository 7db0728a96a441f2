// compile --stats and --upper-bound (relax/target/compile.h): the kernel launches and memory
// plan of a lowered module, and upper bounds for symbolic variables.
#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "relax/ir/expr_functor.h"
#include "relax/ir/prim_func.h"
#include "relax/support/diagnostic.h"
#include "relax/target/compile.h"

namespace relax {

/// `compile --stats`: per Relax function of the lowered module, the kernel launches it makes
/// (R.vm.call_dps of a PrimFunc; the generated shape_func* computations counted apart) and the
/// memory plan's statistics when static-plan-block-memory recorded them.
std::string compile_stats(const IRModule& lowered) {
  std::ostringstream os;
  // device-placement's statistics (module attributes device_copies, host_kernels).
  if (int64_t copies = get_int(lowered.attrs(), "device_copies", -1); copies >= 0) {
    const AttrValue* host = lowered.attrs()->find("host_kernels");
    auto* names = host ? std::get_if<std::vector<std::string>>(host) : nullptr;
    size_t n = names ? names->size() : 0;
    os << "stats: devices: " << copies << " copies inserted; " << n << " ops sent to host";
    for (size_t i = 0; i < n; ++i) os << (i ? ", " : ": ") << (*names)[i];
    if (const AttrValue* ops = lowered.attrs()->find("host_ops")) {
      if (auto* list = std::get_if<std::vector<std::string>>(ops)) {
        os << "; data-dependent ops on the host";
        for (size_t i = 0; i < list->size(); ++i) os << (i ? ", " : ": ") << (*list)[i];
      }
    }
    os << "\n";
  }
  for (const IRModule::Entry& e : lowered.functions()) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined()) continue;
    int64_t kernels = 0, shape_funcs = 0;
    post_order_visit(func->body, [&](const Expr& x) {
      auto* call = x.as<Call>();
      auto* op = call ? call->op.as<Op>() : nullptr;
      if (!op || op->name != "relax.vm.call_dps" || call->args.empty()) return;
      auto* gv = call->args[0].as<GlobalVar>();
      if (!gv || !lowered.contains(gv->name) || !lowered.lookup(gv->name).is<tir::PrimFunc>()) return;
      (gv->name.rfind("shape_func", 0) == 0 ? shape_funcs : kernels) += 1;
    });
    os << "stats: " << e.gv->name << ": " << kernels << " kernel launches (+" << shape_funcs
       << " shape computations)";
    const Attrs& a = func->attrs;
    int64_t planned = get_int(a, "memory_planned_bytes", -1);
    if (planned >= 0) {
      int64_t unplanned = get_int(a, "memory_unplanned_bytes", -1);
      int64_t bound = get_int(a, "memory_live_bytes_bound", -1);
      os << "; memory: planned " << planned << " B, unplanned " << unplanned
         << " B, liveness lower bound " << bound << " B";
      if (bound > 0)
        os << " (planned/bound " << std::fixed << std::setprecision(2) << double(planned) / double(bound)
           << ")";
    }
    os << "\n";
  }
  return os.str();
}

/// `compile --upper-bound NAME=BOUND`: adds "NAME=BOUND" to the `tir_var_upper_bound`
/// attribute (the list form static-plan-block-memory reads) of every Relax function of `mod`,
/// replacing an entry of the same name.
void set_upper_bounds(IRModule& mod, const std::vector<std::string>& bounds) {
  std::map<std::string, std::string> given;
  for (const std::string& b : bounds) {
    size_t eq = b.find('=');
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < b.size() &&
              std::all_of(b.begin() + long(eq) + 1, b.end(),
                          [](char c) { return c >= '0' && c <= '9'; });
    RX_CHECK(ok) << "compile: --upper-bound " << b
                 << ": expected NAME=BOUND with a non-negative integer BOUND (e.g. batch=16)";
    given[b.substr(0, eq)] = b;
  }
  if (given.empty()) return;
  for (const IRModule::Entry& e : std::vector<IRModule::Entry>(mod.functions())) {
    auto func = e.func.as_ref<Function>();
    if (!func.defined()) continue;
    std::vector<std::string> items;
    const AttrValue* old =
        func->attrs.defined() ? func->attrs->find("tir_var_upper_bound") : nullptr;
    if (auto* list = old ? std::get_if<std::vector<std::string>>(old) : nullptr) {
      for (const std::string& item : *list)
        if (!given.count(item.substr(0, item.find('=')))) items.push_back(item);
    } else if (auto* obj = old ? std::get_if<Ref<Object>>(old) : nullptr;
               obj && obj->as<AttrsNode>()) {
      for (const auto& [k, v] : obj->as<AttrsNode>()->fields)
        if (!given.count(k)) items.push_back(k + "=" + to_string(v));
    } else {
      RX_CHECK(old == nullptr) << "compile: --upper-bound: function '" << e.gv->name
                               << "' has a tir_var_upper_bound that is neither a list nor a dict: "
                               << to_string(*old);
    }
    for (const auto& [name, item] : given) items.push_back(item);
    Attrs attrs = with_attr(func->attrs, "tir_var_upper_bound", items);
    mod.update(e.gv->name, make_ref<Function>(func->params, func->body, func->ret_struct_info,
                                              func->is_pure, attrs));
  }
}

}  // namespace relax
