// The GPU half of compile() (gpu_compile.h).
#include "gpu_compile.h"

#include <map>
#include <sstream>

#include "relax/ir/vdevice.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/gpu_rules.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/target/devices.h"
#include "relax/transform/plugin.h"

namespace relax::target {

namespace {

using transform::Granularity;
using transform::OptionType;
using transform::PassArgs;

/// True when `func` carries the attribute `key` set to true.
bool has_true_attr(const tir::PrimFunc& func, const std::string& key) {
  const AttrValue* v = func.attrs.defined() ? func.attrs->find(key) : nullptr;
  if (!v) return false;
  if (auto* b = std::get_if<bool>(v)) return *b;
  if (auto* i = std::get_if<int64_t>(v)) return *i != 0;
  return false;
}

Ref<tir::PrimFunc> with_func_attr(const Ref<tir::PrimFunc>& f, const std::string& key,
                                  AttrValue value) {
  return make_ref<tir::PrimFunc>(f->params, f->body, f->buffer_map,
                                 with_attr(f->attrs, key, std::move(value)), f->ret_type);
}

/// gpu-host-fallback: PrimFuncs the GPU rules would leave on one thread go to the host.
Ref<tir::PrimFunc> gpu_host_fallback(const Ref<tir::PrimFunc>& func, const PassArgs& args) {
  const std::string& target = args.options.get_string("target");
  if (target.empty() || has_true_attr(*func, "relax.host_only")) return func;
  tir::GpuLimits limits = gpu_limits(Target::parse(target));
  tir::GpuScheduled s = tir::apply_default_gpu_schedule(func, limits, args.function_name);
  return s.report.single_thread() ? with_func_attr(func, "relax.host_only", true) : func;
}

/// The index of the first vdevice of `kind` in `devices`, or -1.
int find_kind(const std::vector<VDevice>& devices, const std::string& kind, size_t from = 0) {
  for (size_t i = from; i < devices.size(); ++i)
    if (devices[i].kind() == kind) return int(i);
  return -1;
}

}  // namespace

void register_gpu_passes(transform::PassRegistry& registry) {
  registry.add({"gpu-host-fallback",
                "Mark the kernels the default GPU rules would run on a single thread "
                "relax.host_only, so that device-placement sends them to the host",
                Granularity::kPrimFunc,
                {{"target", OptionType::kString, std::string(),
                  "the GPU target (validated); empty: nothing is marked"}}},
               transform::PrimFuncTransform(gpu_host_fallback));
}

std::string GpuBuildReport::summary() const {
  std::ostringstream os;
  os << "gpu: " << kernels << " kernels scheduled by the default GPU rules";
  const char* sep = " (blocks per rule: ";
  for (const auto& [rule, n] : blocks_per_rule) {
    os << sep << rule << " " << n;
    sep = ", ";
  }
  if (!blocks_per_rule.empty()) os << ")";
  for (const std::string& w : warnings) os << "\ngpu: warning: " << w;
  return os.str();
}

IRModule add_gpu_vdevices(IRModule mod, const Target& gpu, const Target& host) {
  if (mod.vdevices().empty()) {
    mod.set_vdevices({VDevice{host.str()}, VDevice{gpu.str()}});
    // The memory planner aligns each device's storage as its target asks (buffer-alignment).
    if (!mod.attrs().defined() || !mod.attrs()->find("vdevice_alignment")) {
      mod.set_attr("vdevice_alignment", std::vector<int64_t>{gpu_limits(host).buffer_alignment,
                                                             gpu_limits(gpu).buffer_alignment});
    }
    return mod;
  }
  const std::vector<VDevice>& devices = mod.vdevices();
  // The host is vdevice 0; the GPU is the first other vdevice of the GPU target's kind.
  RX_CHECK(find_kind(devices, gpu.kind, 1) >= 0)
      << "target \"" << gpu.str() << "\": the module declares vdevices ("
      << describe_vdevices(devices) << ") but none after the host (vdevice 0) of kind "
      << gpu.kind;
  return mod;
}

std::vector<transform::Pass> with_gpu_passes(std::vector<transform::Pass> passes,
                                             const transform::PassRegistry& registry,
                                             const IRModule& mod, const Target& gpu) {
  const std::vector<VDevice>& devices = mod.vdevices();
  int index = find_kind(devices, gpu.kind, 1);
  RX_ICHECK(index > 0) << "with_gpu_passes before add_gpu_vdevices";
  std::vector<transform::Pass> gpu_passes = {
      registry.create("gpu-host-fallback", {{"target", gpu.str()}}),
      registry.create("device-placement", {{"device", vdevice_ref(devices, size_t(index))},
                                           {"host", vdevice_ref(devices, 0)}})};
  auto at = std::find_if(passes.begin(), passes.end(),
                         [](const transform::Pass& p) { return p.name() == "call-tir-rewrite"; });
  passes.insert(at, gpu_passes.begin(), gpu_passes.end());
  return passes;
}

std::vector<runtime::Library> build_device_libraries(const IRModule& lowered, const Target& gpu,
                                                     const Target& host,
                                                     transform::PluginManager& plugins,
                                                     GpuBuildReport& report) {
  std::vector<runtime::Library> libraries;
  tir::GpuLimits limits = gpu_limits(gpu);
  const transform::TargetKind& kind = find_target_kind(gpu.kind, plugins);
  for (auto& [device, kernels] : vm::kernels_by_device(lowered)) {
    if (device == 0) {
      runtime::Library lib = build_kernel_library(kernels, host, plugins);
      lib.device_index = 0;
      libraries.push_back(std::move(lib));
      continue;
    }
    // A plugin kind with schedule_rules "none" schedules its kernels itself: they go as they are.
    if (!kind.build_function.empty() && kind.schedule_rules == "none") {
      runtime::Library lib = build_kernel_library(kernels, gpu, plugins);
      lib.device_index = int32_t(device);
      libraries.push_back(std::move(lib));
      continue;
    }
    // A GPU device: schedule every kernel with the default rules.
    IRModule scheduled = kernels;
    std::vector<std::pair<std::string, tir::GpuProgram>> programs;
    for (const IRModule::Entry& e : kernels.functions()) {
      auto func = e.func.as_ref<tir::PrimFunc>();
      if (!func.defined()) continue;
      tir::GpuScheduled s = tir::apply_default_gpu_schedule(func, limits, e.gv->name);
      ++report.kernels;
      for (const auto& [block, rule] : s.report.blocks) ++report.blocks_per_rule[rule];
      report.warnings.insert(report.warnings.end(), s.report.warnings.begin(),
                             s.report.warnings.end());
      scheduled.update(e.gv, s.func);
      if (kind.build_function.empty())
        programs.emplace_back(e.gv->name, s.program ? *s.program : tir::lower_for_gpu(s.func, limits, e.gv->name));
    }
    if (kind.build_function.empty()) register_interp_gpu_device();
    runtime::Library lib = kind.build_function.empty()
                               ? make_interp_gpu_library(programs, int32_t(device))
                               : build_kernel_library(scheduled, gpu, plugins);
    lib.device_index = int32_t(device);
    libraries.push_back(std::move(lib));
  }
  return libraries;
}

vm::DeviceResolver device_resolver(transform::PluginManager& plugins) {
  return [&plugins](const VDevice& v) -> runtime::ExecDevice {
    Target t = resolve_target(v.target, plugins);
    const transform::TargetKind& kind = find_target_kind(t.kind, plugins);
    int32_t type = kind.device_type;
    if (t.kind == kTirInterpTarget && transform::is_gpu(t, kind)) type = kInterpGpuDeviceType;
    return {type, int32_t(v.device_id), v.target};
  };
}

}  // namespace relax::target
