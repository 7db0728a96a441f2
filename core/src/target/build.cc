// build() over compile(), and the kernel library of a target (relax/target/build.h).
#include "relax/target/build.h"

#include "relax/ir/prim_func.h"
#include "relax/runtime/registry.h"
#include "relax/support/diagnostic.h"
#include "relax/support/progress.h"
#include "relax/target/compile.h"
#include "relax/target/target.h"
#include "relax/target/targets.h"
#include "relax/transform/plugin.h"

namespace relax {

runtime::Library build_kernel_library(const IRModule& mod, const Target& target,
                                      transform::PluginManager& plugins) {
  Target valid = resolve_target(target.str(), plugins);
  const transform::TargetKind& kind = find_target_kind(target.kind, plugins);
  if (kind.build_function.empty()) {
    RX_ICHECK(kind.name == kTirInterpTarget)
        << "target kind " << kind.name << " names no build function";
    target::register_tir_interp_loader();
    return {"tir-interp", target::make_tir_interp_library(mod)};
  }
  runtime::PackedFunc build = runtime::Registry::get(kind.build_function);
  RX_CHECK(build.defined()) << "target \"" << target.str() << "\": plugin '" << kind.plugin
                            << "' registered target kind " << kind.name
                            << " but not its build function " << kind.build_function;
  std::vector<runtime::Value> args{runtime::Value(valid.attr_string())};
  for (const IRModule::Entry& e : mod.functions()) {
    if (!e.func.is<tir::PrimFunc>()) continue;
    args.emplace_back(e.gv->name);
    args.push_back(runtime::Value::from_object(e.func));
  }
  // The backend calls progress::item_done() per function it finishes.
  progress::Step step("codegen " + kind.name + ": kernels", (args.size() - 1) / 2);
  runtime::Value result = build(runtime::Args(args.data(), args.size()));
  runtime::Tuple t = result.as_tuple();
  RX_CHECK(t.size() == 2 && t[0].is(runtime::ValueKind::kString) &&
           t[1].is(runtime::ValueKind::kString))
      << kind.build_function << " returned " << result.describe()
      << "; expected a (format, bytes) tuple of strings";
  const std::string& bytes = t[1].as_string();
  return {t[0].as_string(), std::vector<uint8_t>(bytes.begin(), bytes.end())};
}

Ref<runtime::Executable> build(const IRModule& mod, const BuildOptions& options) {
  CompileOptions o;
  o.module = mod;
  o.target = options.target;
  o.pipeline = options.pipeline;
  if (options.verify_each) o.verify_each = true;
  return compile(o).executable;
}

}  // namespace relax
