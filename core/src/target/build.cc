// build(): the minimum pipeline, VM codegen and the kernel library (relax/target/build.h).
#include "relax/target/build.h"

#include <memory>

#include "relax/support/diagnostic.h"
#include "relax/target/vm_ops.h"
#include "relax/transform/core_passes.h"
#include "relax/transform/instruments.h"
#include "relax/transform/pipeline.h"

namespace relax {

const char* minimum_build_pipeline() {
  return "normalize,legalize-ops,call-tir-rewrite,to-non-dataflow,vm-shape-lower,kill-after-last-"
         "use";
}

Ref<runtime::Executable> build(const IRModule& mod, const BuildOptions& options) {
  RX_CHECK(options.target == "tir-interp")
      << "relax::build: unknown kernel target \"" << options.target
      << "\" (core knows tir-interp; other targets come from backend plugins)";
  target::register_vm_ops();
  target::register_tir_interp_loader();
  transform::PassRegistry registry = transform::make_core_registry();
  std::vector<transform::Pass> passes;
  if (!options.extra_passes.empty()) {
    passes = transform::parse_pipeline_line(options.extra_passes, registry).build(registry);
  }
  for (transform::Pass& p :
       transform::parse_pipeline_line(minimum_build_pipeline(), registry).build(registry)) {
    passes.push_back(std::move(p));
  }
  transform::PassContext ctx;
  if (options.verify_each) ctx.add_instrument(std::make_shared<transform::VerifyInstrument>());
  IRModule lowered = transform::run_passes(passes, mod, ctx);
  std::vector<runtime::Library> libraries;
  libraries.push_back({"tir-interp", target::make_tir_interp_library(lowered)});
  return target::vm_codegen(lowered, std::move(libraries));
}

}  // namespace relax
