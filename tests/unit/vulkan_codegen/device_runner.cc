// The device runner of the Vulkan codegen tests (device_runner.h).
#include "device_runner.h"

#include <cmath>
#include <cstring>

#include "relax/runtime/module.h"
#include "relax/runtime/ndarray.h"
#include "relax/runtime/registry.h"
#include "relax/target/targets.h"
#include "vulkan_runtime/vk_test_util.h"

namespace relax::vulkan::test {

transform::PluginManager& vulkan_plugins() {
  static transform::PassRegistry registry;
  static transform::PluginManager manager(registry);
  static bool loaded = [] {
    manager.load_path(std::string(RELAX_PLUGIN_DIR) + "/librelax-vulkan.so");
    return true;
  }();
  (void)loaded;
  return manager;
}

std::string feature_attrs(const SpirvFeatures& f) {
  auto flag = [](const char* name, bool on) { return std::string(name) + (on ? "=1" : "=0"); };
  return flag("float16", f.float16) + "," + flag("float64", f.float64) + "," +
         flag("int8", f.int8) + "," + flag("int16", f.int16) + "," + flag("int64", f.int64) +
         "," + flag("storage8", f.storage8) + "," + flag("storage16", f.storage16);
}

std::vector<tir::InterpArg> copy_args(const std::vector<tir::InterpArg>& args) {
  std::vector<tir::InterpArg> out;
  for (const auto& a : args) {
    if (auto* nd = std::get_if<runtime::NDArray>(&a)) {
      runtime::NDArray c = runtime::NDArray::empty(nd->shape(), nd->dtype());
      std::memcpy(c.data(), nd->data(), nd->nbytes());
      out.emplace_back(c);
    } else {
      out.push_back(a);
    }
  }
  return out;
}

std::string run_on_vulkan(const Ref<tir::PrimFunc>& scheduled,
                          const std::vector<tir::InterpArg>& args, const SpirvFeatures& features) {
  if (std::string why = vktest::no_device_reason(); !why.empty()) return why;
  Target target = resolve_target("vulkan," + feature_attrs(features), vulkan_plugins());
  runtime::PackedFunc build = runtime::Registry::get("relax.backend.vulkan.build");
  std::vector<runtime::Value> build_args{runtime::Value(target.attr_string()),
                                         runtime::Value("k"),
                                         runtime::Value::from_object(scheduled)};
  runtime::Tuple lib = build(runtime::Args(build_args.data(), build_args.size())).as_tuple();
  const std::string& bytes = lib[1].as_string();
  runtime::Module module =
      runtime::load_module(lib[0].as_string(), std::vector<uint8_t>(bytes.begin(), bytes.end()));
  std::vector<runtime::NDArray> on_device(args.size());
  std::vector<runtime::Value> call;
  for (size_t i = 0; i < args.size(); ++i) {
    if (auto* nd = std::get_if<runtime::NDArray>(&args[i])) {
      on_device[i] = nd->copy_to(vktest::kVk);
      call.emplace_back(on_device[i]);
    } else if (auto* iv = std::get_if<int64_t>(&args[i])) {
      call.emplace_back(*iv);
    } else {
      call.emplace_back(std::get<double>(args[i]));
    }
  }
  module->get_function("k")(runtime::Args(call.data(), call.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (auto* nd = std::get_if<runtime::NDArray>(&args[i])) nd->copy_from(on_device[i]);
  return "";
}

std::string compare_args(const std::vector<tir::InterpArg>& a, const std::vector<tir::InterpArg>& b,
                         double rtol, double atol) {
  for (size_t i = 0; i < a.size(); ++i) {
    auto* x = std::get_if<runtime::NDArray>(&a[i]);
    auto* y = std::get_if<runtime::NDArray>(&b[i]);
    if (!x || !y) continue;
    DataType t = x->dtype();
    int64_t n = x->numel();
    for (int64_t e = 0; e < n; ++e) {
      const char* px = static_cast<const char*>(x->data()) + e * t.bytes();
      const char* py = static_cast<const char*>(y->data()) + e * t.bytes();
      double u, v;
      if (t.code == DataType::kFloat && t.bits == 32) {
        float fu, fv;
        std::memcpy(&fu, px, 4);
        std::memcpy(&fv, py, 4);
        u = fu, v = fv;
      } else if (t.code == DataType::kFloat && t.bits == 64) {
        std::memcpy(&u, px, 8);
        std::memcpy(&v, py, 8);
      } else if (t.is_float()) {  // 16-bit floats (the tolerance at least 1e-3: fp16 steps): compare the bits' values via the interpreter's
        uint16_t hu, hv;          // encodings (bfloat16: high half of a float32)
        std::memcpy(&hu, px, 2);
        std::memcpy(&hv, py, 2);
        auto dec = [&](uint16_t h) -> double {
          if (t.code == DataType::kBFloat) {
            uint32_t w = uint32_t(h) << 16;
            float f;
            std::memcpy(&f, &w, 4);
            return f;
          }
          int ex = (h >> 10) & 31, m = h & 1023;
          double s = (h & 0x8000) ? -1 : 1;
          if (ex == 31) return m ? NAN : s * INFINITY;
          return ex ? s * std::ldexp(1024 + m, ex - 25) : s * std::ldexp(m, -24);
        };
        u = dec(hu), v = dec(hv);
      } else {
        if (std::memcmp(px, py, size_t(t.bytes())) != 0)
          return "argument " + std::to_string(i) + " (" + t.to_string() + ") element " +
                 std::to_string(e) + " differs";
        continue;
      }
      double rt = rtol, at = atol;
      if (t.bits == 16) rt = std::max(rt, 1e-3), at = std::max(at, 1e-3);
      bool same = (std::isnan(u) && std::isnan(v)) || u == v ||
                  std::fabs(u - v) <= at + rt * std::fabs(v);
      if (!same)
        return "argument " + std::to_string(i) + " (" + t.to_string() + ") element " +
               std::to_string(e) + ": vulkan " + std::to_string(u) + ", interpreter " +
               std::to_string(v);
    }
  }
  return "";
}

}  // namespace relax::vulkan::test
