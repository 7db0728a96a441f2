// remove-unused-functions: drops the functions no entry function can reach.
//
// Entries are the functions named by the `entry` option (comma-separated) and every function
// with a "global_symbol" attribute (exported). Reachability follows GlobalVar references in
// Relax functions (calls, call_tir callees, functions passed as values). A module with no
// entry at all is left as it is. Guarantees: the kept functions are unchanged and in order.
#include <sstream>
#include <unordered_set>

#include "relax/ir/expr_functor.h"
#include "relax/transform/core_passes.h"

namespace relax::transform {

namespace {

IRModule remove_unused_functions(const IRModule& mod, const PassOptions& options, PassContext&) {
  return remove_unreachable_functions(mod, options.get_string("entry"));
}

}  // namespace

IRModule remove_unreachable_functions(const IRModule& mod, const std::string& entries,
                                      bool prim_funcs_are_entries) {
  std::vector<std::string> work;
  std::stringstream ss(entries);
  for (std::string name; std::getline(ss, name, ',');)
    if (mod.contains(name) && (prim_funcs_are_entries || mod.lookup(name).is<Function>()))
      work.push_back(name);
  for (const auto& e : mod.functions()) {
    if (!prim_funcs_are_entries && !e.func.is<Function>()) continue;
    if (e.func->attrs.defined() && e.func->attrs->has("global_symbol")) work.push_back(e.gv->name);
  }
  if (work.empty()) return mod;

  std::unordered_set<std::string> reached;
  while (!work.empty()) {
    std::string name = work.back();
    work.pop_back();
    if (!reached.insert(name).second) continue;
    BaseFunc f = mod.lookup(name);
    if (!f.is<Function>()) continue;
    post_order_visit(f, [&](const Expr& e) {
      if (auto* gv = e.as<GlobalVar>(); gv && mod.contains(gv->name) && !reached.count(gv->name))
        work.push_back(gv->name);
    });
  }
  if (reached.size() == mod.size()) return mod;
  IRModule out = mod;
  for (const auto& e : mod.functions())
    if (!reached.count(e.gv->name)) out.remove(e.gv->name);
  return out;
}

void register_remove_unused_functions(PassRegistry& registry) {
  registry.add({"remove-unused-functions",
                "Remove the functions that no entry function reaches",
                Granularity::kModule,
                {{"entry", OptionType::kString, std::string("main"),
                  "comma-separated entry functions (exported functions are entries too)"}}},
               ModuleTransform(remove_unused_functions));
}

}  // namespace relax::transform
