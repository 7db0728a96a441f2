// build() over compile(), and the kernel library of a target (relax/target/build.h).
#include "relax/target/build.h"

#include <mutex>

#include "relax/ir/prim_func.h"
#include "relax/runtime/registry.h"
#include "relax/support/diagnostic.h"
#include "relax/target/compile.h"
#include "relax/target/target.h"
#include "relax/transform/plugin.h"

namespace relax {

namespace {

/// The backend's build function, loading its plugin by short name when it is not registered.
runtime::PackedFunc backend_build(const Target& target, transform::PluginManager& plugins) {
  std::string fname = backend_build_function(target.kind);
  runtime::PackedFunc f = runtime::Registry::get(fname);
  if (f.defined()) return f;
  static std::mutex load_mutex;
  std::lock_guard lock(load_mutex);
  try {
    plugins.load(target.kind);
  } catch (const Error& e) {
    RX_THROW() << "target \"" << target.str() << "\": no backend registered " << fname
               << ", and its plugin could not be loaded: " << e.message();
  }
  f = runtime::Registry::get(fname);
  RX_CHECK(f.defined()) << "target \"" << target.str() << "\": plugin \"" << target.kind
                        << "\" loaded but did not register " << fname;
  return f;
}

}  // namespace

runtime::Library build_kernel_library(const IRModule& mod, const Target& target,
                                      transform::PluginManager& plugins) {
  if (target.kind == "tir-interp") {
    RX_CHECK(target.attrs.empty()) << "target \"" << target.str()
                                   << "\": tir-interp takes no attributes";
    target::register_tir_interp_loader();
    return {"tir-interp", target::make_tir_interp_library(mod)};
  }
  runtime::PackedFunc build = backend_build(target, plugins);
  std::vector<runtime::Value> args{runtime::Value(target.attr_string())};
  for (const IRModule::Entry& e : mod.functions()) {
    if (!e.func.is<tir::PrimFunc>()) continue;
    args.emplace_back(e.gv->name);
    args.push_back(runtime::Value::from_object(e.func));
  }
  runtime::Value result = build(runtime::Args(args.data(), args.size()));
  runtime::Tuple t = result.as_tuple();
  RX_CHECK(t.size() == 2 && t[0].is(runtime::ValueKind::kString) &&
           t[1].is(runtime::ValueKind::kString))
      << backend_build_function(target.kind) << " returned " << result.describe()
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
