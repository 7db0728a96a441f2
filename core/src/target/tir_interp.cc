// The "tir-interp" kernel path: PrimFuncs executed by the reference interpreter, so that a
// module compiles and runs with no code generator at all.
//
// Library bytes: magic "RXTI", version u32 (2), count u32, then per function: name length
// u32, name, form u32, then for form 0 (a CPU kernel) the text of the lowered PrimFunc
// (print_prim_func), for form 1 (a GPU program, kernel/gpu_lower.h) the host function's text,
// a kernel count u32 and per kernel its name and text (each string: length u32, bytes). The
// loader parses each text back (parse_prim_func) once, at load, and checks every length.
// Version 1 libraries (form-0 entries without the form word) still load.
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "relax/text/parser.h"
#include "relax/text/printer.h"
#include "relax/runtime/module.h"
#include "relax/support/diagnostic.h"
#include "relax/target/build.h"
#include "relax/kernel/gpu_lower.h"
#include "relax/kernel/interpreter.h"
#include "relax/kernel/lower.h"

namespace relax::target {

namespace {

constexpr char kMagic[4] = {'R', 'X', 'T', 'I'};
constexpr uint32_t kVersion = 2;
enum Form : uint32_t { kCpuKernel = 0, kGpuProgram = 1 };

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put_u32(out, uint32_t(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint32_t u32(const char* what) {
    need(4, what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(bytes_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return v;
  }
  std::string string(const char* what) {
    uint32_t n = u32(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  void need(size_t n, const char* what) {
    RX_CHECK(bytes_.size() - pos_ >= n)
        << "tir-interp library: truncated at byte " << pos_ << " while reading " << what;
  }
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

/// Converts the VM's arguments to the interpreter's, expanding Shape arguments into scalars.
std::vector<tir::InterpArg> to_interp_args(const std::string& name, const tir::PrimFunc& func,
                                           runtime::Args args) {
  std::vector<tir::InterpArg> out;
  for (const runtime::Value& v : args) {
    switch (v.kind()) {
      case runtime::ValueKind::kTensor:
        out.emplace_back(v.as_tensor());
        break;
      case runtime::ValueKind::kInt:
      case runtime::ValueKind::kBool:
        out.emplace_back(v.as_int());
        break;
      case runtime::ValueKind::kFloat:
        out.emplace_back(v.as_float());
        break;
      case runtime::ValueKind::kShape:
        for (int64_t d : v.as_shape().dims()) out.emplace_back(d);
        break;
      default:
        RX_THROW() << "kernel " << name << ": argument " << out.size() << " is " << v.describe()
                   << "; expected a tensor, a number or a shape";
    }
  }
  RX_CHECK(out.size() == func.params.size())
      << "kernel " << name << " takes " << func.params.size() << " arguments, got " << out.size();
  return out;
}

/// A function of the library: a lowered PrimFunc, or a GPU program (host + kernels).
struct InterpFunction {
  Ref<tir::PrimFunc> func;
  std::optional<tir::GpuProgram> program;
};

class TirInterpModule : public runtime::ModuleObj {
 public:
  explicit TirInterpModule(std::unordered_map<std::string, std::shared_ptr<InterpFunction>> funcs)
      : ModuleObj("tir-interp"), funcs_(std::move(funcs)) {}
  runtime::PackedFunc get_function(std::string_view name) const override {
    auto it = funcs_.find(std::string(name));
    if (it == funcs_.end()) return {};
    std::shared_ptr<InterpFunction> f = it->second;
    std::string fname(name);
    // The closure keeps the module's function alive, not the module itself: nothing else is needed.
    return runtime::PackedFunc("tir-interp:" + fname, [f, fname](runtime::Args args) -> runtime::Value {
      if (f->program)
        tir::run_gpu_program(*f->program, to_interp_args(fname, *f->program->host, args));
      else
        tir::interpret(f->func, to_interp_args(fname, *f->func, args));
      return {};
    });
  }

 private:
  const std::unordered_map<std::string, std::shared_ptr<InterpFunction>> funcs_;
};

Ref<tir::PrimFunc> read_func(Reader& r, const std::string& name, const char* what) {
  std::string text = r.string(what);
  return parse_prim_func(text, "<tir-interp:" + name + ">");
}

runtime::Module load_tir_interp(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  RX_CHECK(bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0)
      << "tir-interp library: bad magic (not a tir-interp library)";
  r.u32("magic");
  uint32_t version = r.u32("version");
  RX_CHECK(version == 1 || version == kVersion)
      << "tir-interp library: version " << version << ", expected 1 to " << kVersion;
  uint32_t count = r.u32("function count");
  std::unordered_map<std::string, std::shared_ptr<InterpFunction>> funcs;
  for (uint32_t i = 0; i < count; ++i) {
    std::string name = r.string("function name");
    auto f = std::make_shared<InterpFunction>();
    uint32_t form = version == 1 ? kCpuKernel : r.u32("function form");
    if (form == kCpuKernel) {
      f->func = read_func(r, name, "function text");
    } else {
      RX_CHECK(form == kGpuProgram) << "tir-interp library: function " << name << " has form "
                                    << form << "; expected 0 (kernel) or 1 (GPU program)";
      tir::GpuProgram p;
      p.host = read_func(r, name, "host function text");
      uint32_t kernels = r.u32("kernel count");
      for (uint32_t k = 0; k < kernels; ++k) {
        tir::GpuKernel kernel;
        kernel.name = r.string("kernel name");
        kernel.func = read_func(r, kernel.name, "kernel text");
        // The runner passes one argument per kernel parameter (the launch call lists them).
        kernel.args.resize(kernel.func->params.size());
        p.kernels.push_back(std::move(kernel));
      }
      f->program = std::move(p);
    }
    RX_CHECK(funcs.emplace(name, f).second)
        << "tir-interp library: function " << name << " appears twice";
  }
  RX_CHECK(r.at_end()) << "tir-interp library: trailing bytes after " << count << " functions";
  return make_ref<TirInterpModule>(std::move(funcs));
}

std::vector<uint8_t> library_header(uint32_t count) {
  std::vector<uint8_t> out(kMagic, kMagic + 4);
  put_u32(out, kVersion);
  put_u32(out, count);
  return out;
}

}  // namespace

std::vector<uint8_t> make_tir_interp_library(const IRModule& mod) {
  std::vector<std::pair<std::string, std::string>> funcs;
  for (const auto& entry : mod.functions()) {
    auto func = entry.func.as_ref<tir::PrimFunc>();
    if (!func.defined()) continue;
    Ref<tir::PrimFunc> lowered = tir::lower(func);
    funcs.emplace_back(entry.gv->name, print_prim_func(lowered, entry.gv->name));
  }
  std::vector<uint8_t> out = library_header(uint32_t(funcs.size()));
  for (const auto& [name, text] : funcs) {
    put_string(out, name);
    put_u32(out, kCpuKernel);
    put_string(out, text);
  }
  return out;
}

std::vector<uint8_t> make_tir_interp_gpu_library(
    const std::vector<std::pair<std::string, tir::GpuProgram>>& programs) {
  std::vector<uint8_t> out = library_header(uint32_t(programs.size()));
  for (const auto& [name, p] : programs) {
    put_string(out, name);
    put_u32(out, kGpuProgram);
    put_string(out, print_prim_func(p.host, name));
    put_u32(out, uint32_t(p.kernels.size()));
    for (const tir::GpuKernel& k : p.kernels) {
      put_string(out, k.name);
      put_string(out, print_prim_func(k.func, k.name));
    }
  }
  return out;
}

void register_tir_interp_loader() {
  static std::once_flag once;
  std::call_once(once, [] { runtime::register_module_loader("tir-interp", load_tir_interp); });
}

}  // namespace relax::target
