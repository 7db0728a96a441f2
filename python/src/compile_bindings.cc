// The compile API for Python: running pipelines over a module (relax.transform.run), compiling
// to an executable (relax.compile), and what the session offers (passes, plugins, targets,
// devices). Everything goes through the one process-wide session (bindings.h).
#include <pybind11/stl.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "bindings.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/support/diagnostic.h"
#include "relax/target/devices.h"
#include "relax/target/targets.h"
#include "relax/transform/plugin.h"

namespace relax::python {

namespace {

/// The instruments a Python caller may set (keyword arguments of run and compile).
struct Instruments {
  bool time_passes = false;
  std::optional<bool> verify_each;
  std::vector<std::string> dump_ir_before;
  std::vector<std::string> dump_ir_after;
  std::string dump_dir;
  std::vector<std::string> upper_bounds;
  int jobs = 0;
};

void apply(const Instruments& in, CompileOptions& o) {
  o.time_passes = in.time_passes;
  o.verify_each = in.verify_each;
  o.dump_ir_before = in.dump_ir_before;
  o.dump_ir_after = in.dump_ir_after;
  o.dump_dir = in.dump_dir;
  o.upper_bounds = in.upper_bounds;
  o.jobs = in.jobs;
}

/// What a compile reports besides its module or executable, for Python.
py::dict report(const CompileResult& r) {
  py::dict d;
  d["target"] = r.target;
  d["host"] = r.host;
  d["pipeline"] = r.pipeline;
  d["warnings"] = r.warnings;
  d["total_ms"] = r.total_ms;
  if (r.time_passes) {
    std::ostringstream os;
    r.report_timing(os);
    d["timing"] = os.str();
  }
  return d;
}

/// Options of a module-or-path input.
CompileOptions input_options(py::handle mod) {
  CompileOptions o;
  if (py::isinstance<IRModule>(mod))
    o.module = mod.cast<IRModule>();
  else if (py::isinstance<py::str>(mod) || py::hasattr(mod, "__fspath__"))
    o.input = py::str(mod).cast<std::string>();
  else
    RX_THROW() << "expected a relax.IRModule or a path to a model (.rx, .onnx), got "
               << py::str(py::type::of(mod).attr("__name__")).cast<std::string>();
  return o;
}

py::list list_passes() {
  session().plugins().load_all();
  py::list out;
  for (const auto& reg : session().registry().list()) {
    py::dict d;
    d["name"] = reg->info.name;
    d["summary"] = reg->info.summary;
    d["granularity"] = transform::to_string(reg->info.granularity);
    d["plugin"] = reg->plugin;
    py::dict options;
    for (const transform::PassOption& o : reg->info.options)
      options[py::str(o.name)] = transform::to_string(o.default_value);
    d["options"] = options;
    out.append(d);
  }
  return out;
}

py::list list_plugins() {
  py::list out;
  for (const transform::AvailablePlugin& a : session().plugins().scan(true)) {
    py::dict d;
    d["name"] = a.info.name;
    d["path"] = a.path;
    d["version"] = a.info.version;
    d["loaded"] = a.loaded;
    d["refused"] = a.refused;
    d["provides"] = a.refused.empty() ? a.info.provides() : "";
    out.append(d);
  }
  return out;
}

py::list list_targets() {
  py::list out;
  for (const transform::TargetKind& k : available_target_kinds(session().plugins())) {
    py::dict d;
    d["name"] = k.name;
    d["device"] = transform::device_type_name(k.device_type);
    d["gpu"] = k.gpu;
    d["plugin"] = k.plugin;
    d["help"] = k.help;
    out.append(d);
  }
  return out;
}

/// The devices of the CPU and of every device runtime the runtime plugins on the search path
/// register, as {"device": "vulkan:0", "runtime": name, "description": text}.
py::list list_devices() {
  target::register_interp_gpu_device();  // the core's own device: the interpreter's GPU
  std::vector<std::string> dirs = session().plugins().search_dirs();
  for (const std::string& d : runtime::runtime_plugin_search_dirs())
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      if (name.starts_with("librelax-") && name.ends_with("-runtime.so"))
        runtime::load_runtime_plugin(e.path().string());  // a failure just lists no device
    }
  }
  py::list out;
  py::dict cpu;
  cpu["device"] = "cpu:0";
  cpu["runtime"] = "cpu";
  cpu["description"] = "host CPU";
  out.append(cpu);
  for (int type = 2; type <= 32; ++type) {
    runtime::DeviceAPI* api = runtime::DeviceAPI::find(type);
    if (api == nullptr) continue;
    DLDevice first{DLDeviceType(type), 0};
    // Runtimes of C ABI 1.1 lack kRxDeviceCount: one device when kRxDeviceExists says so.
    auto attr_int = [&](RxDeviceAttr a, int64_t fallback) {
      try {
        runtime::Value v = api->attribute(first, a);
        return v.kind() == runtime::ValueKind::kInt ? v.as_int() : fallback;
      } catch (const Error&) {
        return fallback;
      }
    };
    int64_t count = attr_int(kRxDeviceCount, attr_int(kRxDeviceExists, 0));
    for (int64_t id = 0; id < count; ++id) {
      DLDevice d{DLDeviceType(type), int32_t(id)};
      py::dict entry;
      entry["device"] = runtime::device_to_string(d);
      entry["runtime"] = api->name();
      std::string text;
      try {
        runtime::Value v = api->attribute(d, kRxDeviceDescription);
        if (v.kind() == runtime::ValueKind::kString) text = v.as_string();
      } catch (const Error&) {
      }
      entry["description"] = text;
      out.append(entry);
    }
  }
  return out;
}

}  // namespace

void bind_compile(py::module_& m) {
  m.def("run_pipeline",
        [](const IRModule& mod, const std::string& pipeline, bool time_passes,
           std::optional<bool> verify_each, std::vector<std::string> dump_ir_before,
           std::vector<std::string> dump_ir_after, std::string dump_dir, int jobs) {
          CompileOptions o;
          o.module = mod;
          o.pipeline = pipeline;
          o.passes_only = true;
          apply({time_passes, verify_each, std::move(dump_ir_before), std::move(dump_ir_after),
                 std::move(dump_dir), {}, jobs},
                o);
          CompileResult r;
          {
            py::gil_scoped_release release;  // Python passes take the GIL back themselves
            r = session().compile(o);
          }
          return py::make_tuple(r.lowered, report(r));
        },
        py::arg("mod"), py::arg("pipeline"), py::arg("time_passes") = false,
        py::arg("verify_each") = py::none(), py::arg("dump_ir_before") = std::vector<std::string>{},
        py::arg("dump_ir_after") = std::vector<std::string>{}, py::arg("dump_dir") = "",
        py::arg("jobs") = 0);
  m.def("compile",
        [](py::handle mod, const std::string& target, const std::string& pipeline,
           const std::string& host, bool jit, bool time_passes, std::optional<bool> verify_each,
           std::vector<std::string> upper_bounds, int jobs) {
          CompileOptions o = input_options(mod);
          o.target = target;
          o.pipeline = pipeline;
          o.host = host;
          o.jit = jit;
          apply({time_passes, verify_each, {}, {}, "", std::move(upper_bounds), jobs}, o);
          CompileResult r;
          {
            py::gil_scoped_release release;
            r = session().compile(o);
          }
          return py::make_tuple(PyExecutable{r.executable}, r.lowered, report(r));
        },
        py::arg("mod"), py::arg("target") = "", py::arg("pipeline") = "", py::arg("host") = "",
        py::arg("jit") = false, py::arg("time_passes") = false,
        py::arg("verify_each") = py::none(), py::arg("upper_bounds") = std::vector<std::string>{},
        py::arg("jobs") = 0);
  m.def("import_model",
        [](const std::string& path) { return session().import(path); }, py::arg("path"),
        "Reads a model file through its frontend (.rx by the parser, .onnx by the ONNX plugin)");
  m.def("pipeline_passes",
        [](const std::string& spec) {
          std::vector<std::string> names;
          for (const auto& p : session().pipeline(spec).build(session().registry()))
            names.push_back(p.to_string());
          return names;
        },
        py::arg("spec"), "The passes pipeline `spec` runs, each with its options");
  m.def("builtin_pipelines", &builtin_pipeline_names);
  m.def("load_plugin", [](const std::string& p) { session().load_plugin(p); }, py::arg("path"));
  m.def("list_passes", &list_passes);
  m.def("list_plugins", &list_plugins);
  m.def("list_targets", &list_targets);
  m.def("list_devices", &list_devices);
}

}  // namespace relax::python
