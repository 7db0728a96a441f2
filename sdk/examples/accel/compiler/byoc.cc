// The accel BYOC codegen: claims the functions fuse-ops-by-pattern{annotate-codegen=true} makes
// from the patterns
//   accel.conv2d_bias_relu = relax.nn.relu(relax.add(relax.nn.conv2d($x, $w), $b))
//   accel.conv2d_bias      = relax.add(relax.nn.conv2d($x, $w), $b)
// (with bind-constants=false, so that the weights are arguments) and replaces each by one call
// of the vendor routine in the runtime plugin. The library it returns, format "accel-byoc", is
// text: one line per function, "<symbol> <relu> <stride h w> <pad top left bottom right>
// <dilation h w>"; the runtime's loader turns each line into a function running the routine
// with those parameters. Float32, NCHW data, OIHW weights, groups 1; anything else is refused
// naming the function.
#include <sstream>

#include "relax/sdk/byoc.h"
#include "relax/sdk/plugin.h"

namespace accel {
namespace {

using namespace relax;

std::vector<int64_t> pad4(const std::vector<int64_t>& p) {
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  RX_CHECK(p.size() == 4) << "accel: conv2d padding of " << p.size() << " values";
  return p;
}

transform::CodegenOutput codegen(const std::vector<transform::ClaimedFunction>& funcs,
                                 const IRModule& mod) {
  transform::CodegenOutput out;
  std::ostringstream lib;
  int index = 0;
  for (const auto& f : funcs) {
    std::string pattern = sdk::composite_of(f.func, mod);
    bool relu = pattern == "accel.conv2d_bias_relu";
    RX_CHECK(relu || pattern == "accel.conv2d_bias")
        << "accel codegen: function '" << f.name << "' is a '" << pattern
        << "' composite; accel offloads accel.conv2d_bias_relu and accel.conv2d_bias";
    Ref<Call> conv;
    for (const auto& c : sdk::composite_calls(sdk::composite_function(f.func, mod)))
      if (c->op.as<Op>()->name == "relax.nn.conv2d") conv = c;
    RX_CHECK(conv.defined()) << "accel codegen: function '" << f.name << "' has no conv2d";
    auto* x = conv->args[0]->struct_info.as<TensorStructInfo>();
    bool ok = x && x->dtype == DataType::Float(32) &&
              get_string(conv->attrs, "data_layout", "NCHW") == "NCHW" &&
              get_string(conv->attrs, "kernel_layout", "OIHW") == "OIHW" &&
              get_int(conv->attrs, "groups", 1) == 1;
    RX_CHECK(ok) << "accel codegen: function '" << f.name
                 << "': the library takes float32 NCHW data, OIHW weights and groups 1";
    std::vector<int64_t> s = get_ints(conv->attrs, "strides", {1, 1});
    std::vector<int64_t> p = pad4(get_ints(conv->attrs, "padding", {0, 0, 0, 0}));
    std::vector<int64_t> d = get_ints(conv->attrs, "dilation", {1, 1});
    std::string symbol = "accel_conv2d_" + std::to_string(index++);
    lib << symbol << " " << relu << " " << s[0] << " " << s[1] << " " << p[0] << " " << p[1]
        << " " << p[2] << " " << p[3] << " " << d[0] << " " << d[1] << "\n";
    out.symbols.push_back(symbol);
  }
  std::string text = lib.str();
  out.library_format = "accel-byoc";
  out.library.assign(text.begin(), text.end());
  return out;
}

}  // namespace

void register_byoc(transform::PluginRegistrar& r) {
  r.add_codegen({"accel", "conv2d + bias (+ relu) in the accel vendor library", codegen, ""});
}

}  // namespace accel
