// librelax-accel.so: the compiler half of the example backend for "accel", an imaginary
// accelerator (README.md). It registers
//   - the target kind "accel": a device of its own (DLPack device type 33, gpu=1 so that the
//     core places tensors on it and inserts the copies), no default schedule rules, attributes
//     `cc` (the C compiler) and `opt-level`;
//   - its build function "relax.backend.accel.build": every kernel as C (c_emitter.h), compiled
//     by `cc -shared` into one shared object, carried as library format "accel-so";
//   - the BYOC codegen "accel" (byoc.cc).
// The runtime half (runtime/accel_runtime.c) loads "accel-so" and "accel-byoc" libraries and
// is the device runtime.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "c_emitter.h"
#include "relax/runtime/value.h"
#include "relax/sdk/plugin.h"

namespace accel {

void register_byoc(relax::transform::PluginRegistrar& r);  // byoc.cc

namespace {

using relax::runtime::Args;
using relax::runtime::Value;

constexpr int kAccelDeviceType = 33;  // kept in step with runtime/accel_runtime.c

/// The value of `key` in "k=v,k=v" (the validated attribute string), or `dflt`.
std::string attr(const std::string& attrs, const std::string& key, const std::string& dflt) {
  std::stringstream ss(attrs);
  for (std::string kv; std::getline(ss, kv, ',');) {
    auto eq = kv.find('=');
    if (eq != std::string::npos && kv.substr(0, eq) == key) return kv.substr(eq + 1);
  }
  return dflt;
}

/// Compiles `source` with `cc` into a shared object and returns its bytes.
std::string compile_c(const std::string& source, const std::string& cc, const std::string& opt) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/relax-accel-XXXXXX";
  RX_CHECK(mkdtemp(tmpl) != nullptr) << "accel: cannot make a temporary directory";
  fs::path dir(tmpl);
  std::ofstream(dir / "kernels.c") << source;
  std::string cmd = cc + " -std=gnu99 -O" + opt + " -fPIC -shared -o " + (dir / "kernels.so").string() +
                    " " + (dir / "kernels.c").string() + " -lm 2> " + (dir / "log.txt").string();
  int rc = std::system(cmd.c_str());
  std::ifstream so(dir / "kernels.so", std::ios::binary), log(dir / "log.txt");
  std::string bytes((std::istreambuf_iterator<char>(so)), std::istreambuf_iterator<char>());
  std::string why((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  std::error_code ec;
  fs::remove_all(dir, ec);
  RX_CHECK(rc == 0 && !bytes.empty()) << "accel: the C compiler failed (" << cmd << "): " << why;
  return bytes;
}

Value build(Args args) {
  RX_CHECK(args.size() % 2 == 1) << "relax.backend.accel.build: (attrs, name, PrimFunc, ...) expected";
  std::string attrs = args[0].as_string();
  std::string source = c_prelude();
  for (size_t i = 1; i < args.size(); i += 2) {
    auto f = args[i + 1].as_object_of<relax::tir::PrimFunc>();
    RX_CHECK(f.defined()) << "relax.backend.accel.build: argument " << i + 1 << " is not a PrimFunc";
    source += "\n" + emit_kernel(args[i].as_string(), f);
  }
  if (std::getenv("ACCEL_DUMP_C")) std::fputs(source.c_str(), stderr);
  std::string so = compile_c(source, attr(attrs, "cc", "cc"), attr(attrs, "opt-level", "2"));
  return relax::runtime::Tuple({Value("accel-so"), Value(so)});
}

void register_accel(relax::transform::PluginRegistrar& r) {
  using relax::transform::TargetAttrType;
  relax::transform::TargetKind k;
  k.name = "accel";
  k.device_type = kAccelDeviceType;
  k.device_name = "accel";
  k.gpu = true;  // a device beside the host: placement and copies as for a GPU
  k.help = "the SDK example accelerator: kernels as C, compiled by cc, in a device arena";
  k.build_function = "relax.backend.accel.build";
  k.schedule_rules = "none";
  k.attrs = {{"cc", TargetAttrType::kString, "cc", "the C compiler building the kernels"},
             {"opt-level", TargetAttrType::kInt, "2", "its optimisation level, 0 to 3"}};
  r.add_target_kind(k);
  r.add_function("relax.backend.accel.build", relax::runtime::PackedFunc("relax.backend.accel.build", build));
  register_byoc(r);
}

}  // namespace
}  // namespace accel

RELAX_PLUGIN("accel", "0.1.0", accel::register_accel)
