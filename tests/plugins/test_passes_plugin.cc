// librelax-test-passes.so: a plugin registering real passes, for the driver and loader tests.
//
//   rename-vars{prefix=v,start=0}      renames every binding variable to prefix<N>, N counting
//                                      from `start` in each function (function-level)
//   count-bindings{attr=num_bindings}  records each function's binding count in an attribute
//   test-fail{function=,message=,internal=false}  fails on the named function (all when
//                                      empty), with a user or an internal error
//   test-break-well-formed             returns a module whose first function uses an
//                                      undefined variable (for --verify-each)
#include <string>
#include <unordered_map>

#include "relax/ir/var_rename_mutator.h"
#include "relax/sdk/plugin.h"

namespace {

using namespace relax;
using namespace relax::transform;

/// Renames binding variables; rebuilt expressions keep their struct info (it cannot change:
/// each variable is replaced by one of the same struct info).
class Renamer : public VarRenameMutator {
 public:
  Renamer(std::string prefix, int64_t start) : prefix_(std::move(prefix)), next_(start) {}
  using VarRenameMutator::visit_;

  Binding visit_binding(const Binding& b) override {
    Expr value = visit_expr(b->value);
    std::string name = prefix_ + std::to_string(next_++);
    Ref<VarNode> var = b->var.is<DataflowVar>()
                           ? Ref<VarNode>(make_dataflow_var(name, b->var->struct_info))
                           : Ref<VarNode>(make_var(name, b->var->struct_info));
    var_remap_[b->var.get()] = var;
    if (auto* mc = b.as<MatchCast>()) return make_ref<MatchCast>(var, value, mc->struct_info);
    return make_ref<VarBinding>(var, value);
  }

 private:
  std::string prefix_;
  int64_t next_;
};

Ref<Function> rename_vars(const Ref<Function>& f, const PassArgs& args) {
  Renamer r(args.options.get_string("prefix"), args.options.get_int("start"));
  return r.visit_expr(f).as_ref<Function>();
}

Ref<Function> count_bindings(const Ref<Function>& f, const PassArgs& args) {
  int64_t n = 0;
  struct Counter : ExprVisitor {
    int64_t* n;
    void visit_binding(const Binding& b) override {
      ++*n;
      ExprVisitor::visit_binding(b);
    }
  } counter;
  counter.n = &n;
  counter.visit_expr(f);
  Attrs attrs = with_attr(f->attrs, args.options.get_string("attr"), n);
  return make_ref<Function>(f->params, f->body, f->ret_struct_info, f->is_pure, attrs);
}

Ref<Function> test_fail(const Ref<Function>& f, const PassArgs& args) {
  const std::string& which = args.options.get_string("function");
  if (!which.empty() && which != args.function_name) return f;
  if (args.options.get_bool("internal"))
    RX_IFAIL() << "test-fail internal error in '" << args.function_name << "'";
  RX_THROW() << args.options.get_string("message") << " (in function '" << args.function_name
             << "')";
}

IRModule break_well_formed(const IRModule& mod, const PassOptions&, PassContext&) {
  IRModule out = mod;
  for (const auto& e : mod.functions()) {
    auto* f = e.func.as<Function>();
    if (!f) continue;
    auto ghost = make_var("ghost", f->ret_struct_info);
    out.update(e.gv->name,
               make_ref<Function>(f->params, make_ref<SeqExpr>(std::vector<Block>{}, ghost),
                                  f->ret_struct_info, f->is_pure, f->attrs));
    break;
  }
  return out;
}

void register_passes(PluginRegistrar& r) {
  r.add_pass({"rename-vars",
              "Rename every binding variable to <prefix><N>",
              Granularity::kFunction,
              {{"prefix", OptionType::kString, std::string("v"), "the new names' prefix"},
               {"start", OptionType::kInt, int64_t(0), "the first number in each function"}}},
             FunctionTransform(rename_vars));
  r.add_pass({"count-bindings",
              "Record the number of bindings of each function in an attribute",
              Granularity::kFunction,
              {{"attr", OptionType::kString, std::string("num_bindings"), "the attribute's name"}}},
             FunctionTransform(count_bindings));
  r.add_pass(
      {"test-fail",
       "Fail on a function (for reproducer tests)",
       Granularity::kFunction,
       {{"function", OptionType::kString, std::string(),
         "the function to fail on; empty: every one"},
        {"message", OptionType::kString, std::string("test-fail was asked to fail"), "the error"},
        {"internal", OptionType::kBool, false, "fail with an internal error (a bug)"}}},
      FunctionTransform(test_fail));
  r.add_pass({"test-break-well-formed",
              "Make the first function return an undefined variable (for verify-each tests)",
              Granularity::kModule,
              {}},
             ModuleTransform(break_well_formed));
}

}  // namespace

RELAX_PLUGIN("test-passes", "1.2.3", register_passes)
