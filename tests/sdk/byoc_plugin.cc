// librelax-test-byoc.so: a BYOC codegen "testlib" for the SDK tests (tests/unit/sdk). It claims
// functions whose composite is "testlib.add_relu" (relu(a + b), float32, one shape) and
// replaces them with the packed function "testlib.add_relu", which it registers too and which
// counts its calls ("testlib.calls"). Any other composite is refused, naming the function.
#include <atomic>
#include <cstring>

#include "relax/sdk/byoc.h"
#include "relax/sdk/plugin.h"

namespace {

std::atomic<int64_t> g_calls{0};

relax::transform::CodegenOutput codegen(const std::vector<relax::transform::ClaimedFunction>& fns,
                                        const relax::IRModule& mod) {
  relax::transform::CodegenOutput out;
  for (const auto& f : fns) {
    std::string composite = relax::sdk::composite_of(f.func, mod);
    RX_CHECK(composite == "testlib.add_relu")
        << "codegen testlib: function '" << f.name << "' is a '" << composite
        << "' composite; testlib offloads only testlib.add_relu";
    out.symbols.push_back("testlib.add_relu");
  }
  return out;
}

void register_byoc(relax::transform::PluginRegistrar& r) {
  r.add_codegen({"testlib", "test offload of relu(a + b)", codegen, ""});
  r.add_function("testlib.add_relu", relax::sdk::dps_function("testlib.add_relu", [](
      const std::vector<const DLTensor*>& in, DLTensor* out) {  // NOLINT
    RX_CHECK(in.size() == 2) << "testlib.add_relu: 2 inputs expected";
    int64_t n = relax::sdk::num_elements(*out);
    const float* a = static_cast<const float*>(in[0]->data);
    const float* b = static_cast<const float*>(in[1]->data);
    float* y = static_cast<float*>(out->data);
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i] > 0 ? a[i] + b[i] : 0.0f;
    ++g_calls;
  }));
  r.add_function("testlib.calls", relax::runtime::PackedFunc(
      "testlib.calls", [](relax::runtime::Args) { return relax::runtime::Value(g_calls.load()); }));
}

}  // namespace

RELAX_PLUGIN("test-byoc", "0.1.0", register_byoc)
