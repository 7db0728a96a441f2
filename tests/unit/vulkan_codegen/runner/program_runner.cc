// The test-only program runner (program_runner.h).
#include "program_runner.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "../../../../plugins/backends/vulkan/spirv_abi.h"
#include "lavapipe_runner.h"
#include "relax/runtime/ndarray.h"
#include "relax/tir/stmt.h"

namespace relax::vulkan::test {

namespace {

using Env = std::unordered_map<const tir::Var*, int64_t>;

/// Integer evaluation of a launch size or scalar argument; false when it cannot.
bool eval(const PrimExpr& e, const Env& env, int64_t* out) {
  using namespace tir;
  if (auto* c = e.as<IntImm>()) return *out = c->value, true;
  if (auto* v = e.as<tir::Var>()) {
    auto it = env.find(v);
    if (it == env.end()) return false;
    return *out = it->second, true;
  }
  if (auto* c = e.as<tir::Cast>()) return eval(c->value, env, out);
  if (e->kind() < BinaryOp::kKindFirst || e->kind() > BinaryOp::kKindLast) return false;
  auto* b = static_cast<const BinaryOp*>(e.get());
  int64_t x, y;
  if (!eval(b->a, env, &x) || !eval(b->b, env, &y)) return false;
  switch (PrimExprKind(e->kind())) {
    case PrimExprKind::kAdd: *out = x + y; return true;
    case PrimExprKind::kSub: *out = x - y; return true;
    case PrimExprKind::kMul: *out = x * y; return true;
    case PrimExprKind::kDiv: if (!y) return false; *out = x / y; return true;
    case PrimExprKind::kMod: if (!y) return false; *out = x % y; return true;
    case PrimExprKind::kFloorDiv: {
      if (!y) return false;
      int64_t q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      *out = q;
      return true;
    }
    case PrimExprKind::kFloorMod: {
      if (!y) return false;
      int64_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      *out = r;
      return true;
    }
    case PrimExprKind::kMin: *out = std::min(x, y); return true;
    case PrimExprKind::kMax: *out = std::max(x, y); return true;
    default: return false;
  }
}

/// The launches of the host body in order; false (with `why`) for a statement it cannot run.
struct Workspace {
  const tir::Var* var;
  uint64_t bytes;
};

bool collect(const tir::Stmt& s, Env& env, std::vector<const tir::Call*>& launches,
             std::vector<Workspace>& workspaces, std::string& why) {
  using namespace tir;
  if (auto* o = s.as<SeqStmt>()) {
    for (const auto& c : o->seq)
      if (!collect(c, env, launches, workspaces, why)) return false;
    return true;
  }
  if (auto* o = s.as<AssertStmt>()) return collect(o->body, env, launches, workspaces, why);
  if (auto* o = s.as<LetStmt>()) {
    int64_t v;
    if (!eval(o->value, env, &v)) return why = "a host let it cannot evaluate", false;
    env[o->var.get()] = v;
    return collect(o->body, env, launches, workspaces, why);
  }
  if (auto* o = s.as<Evaluate>()) {
    if (auto* c = o->value.as<tir::Call>(); c && c->op == Intrinsic::kLaunchKernel) launches.push_back(c);
    return true;
  }
  if (auto* o = s.as<Allocate>()) {
    if (o->scope != "global") return why = "a " + o->scope + " allocation on the host", false;
    int64_t n = 1;
    for (const auto& x : o->extents) {
      int64_t v;
      if (!eval(x, env, &v)) return why = "a workspace size it cannot evaluate", false;
      n *= v;
    }
    workspaces.push_back({o->buffer_var.get(), uint64_t(n) * uint64_t(o->dtype.bytes())});
    return collect(o->body, env, launches, workspaces, why);
  }
  return why = std::string("the host statement ") + stmt_kind_name(s->kind()), false;
}

}  // namespace

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

std::string run_on_vulkan(const tir::GpuProgram& program, const std::vector<tir::InterpArg>& args,
                          const SpirvFeatures& features) {
  VulkanRunner& runner = VulkanRunner::get();
  if (!runner.available()) return runner.why();
  const tir::PrimFunc& host = *program.host;
  Env env;
  std::unordered_map<const tir::Var*, int> buffer_index;
  std::vector<std::pair<void*, size_t>> buffers;
  for (size_t i = 0; i < host.params.size() && i < args.size(); ++i) {
    const auto& p = host.params[i];
    if (auto* nd = std::get_if<runtime::NDArray>(&args[i])) {
      buffer_index[p.get()] = int(buffers.size());
      buffers.emplace_back(nd->data(), nd->nbytes());
      if (Ref<tir::Buffer> b = host.buffer_of(p))
        for (size_t d = 0; d < b->shape.size(); ++d)
          if (auto* v = b->shape[d].as<tir::Var>()) env[v] = nd->shape()[d];
    } else if (auto* iv = std::get_if<int64_t>(&args[i])) {
      env[p.get()] = *iv;
    }
  }
  std::vector<const tir::Call*> launches;
  std::vector<Workspace> workspaces;
  std::string why;
  if (!collect(host.body, env, launches, workspaces, why)) return why;
  std::vector<std::vector<char>> workspace_memory;
  for (const Workspace& w : workspaces) {
    workspace_memory.emplace_back(w.bytes, char(0));
    buffer_index[w.var] = int(buffers.size());
    buffers.emplace_back(workspace_memory.back().data(), w.bytes);
  }
  if (launches.size() != program.kernels.size()) return "launches and kernels differ";
  std::vector<Dispatch> ds;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const tir::GpuKernel& kernel = program.kernels[k];
    SpirvKernel sk = compile_kernel(kernel, features);
    Dispatch d;
    d.code = sk.words;
    d.entry = kernel.name;
    for (int i = 0; i < 3; ++i) {
      int64_t g;
      if (!eval(kernel.grid[size_t(i)], env, &g)) return "a launch size it cannot evaluate";
      if (g <= 0) return "";  // nothing to run
      d.grid[size_t(i)] = uint32_t(g);
    }
    Env kenv = env;
    const tir::PrimFunc& f = *kernel.func;
    for (size_t j = 0; j < f.params.size() && j < kernel.args.size(); ++j) {
      const tir::KernelArg& a = kernel.args[j];
      if (a.buffer.defined()) {
        auto it = buffer_index.find(a.buffer.get());
        if (it == buffer_index.end()) return "a kernel buffer that is not a parameter";
        d.buffers.push_back(it->second);
      } else {
        int64_t v;
        if (!eval(a.scalar, env, &v)) return "a scalar argument it cannot evaluate";
        kenv[f.params[j].get()] = v;
      }
    }
    std::vector<Ref<tir::Var>> scalars = kernel_scalars(kernel);
    ParamBlockLayout layout = param_block_layout(sk.scalar_dtypes, d.buffers.size());
    d.params.assign(layout.size, 0);
    d.uniform = layout.uses_uniform_buffer();
    for (size_t s = 0; s < scalars.size(); ++s) {
      auto it = kenv.find(scalars[s].get());
      if (it == kenv.end()) return "no value for the scalar " + scalars[s]->name;
      if (scalars[s]->dtype.bits == 64)
        std::memcpy(&d.params[layout.scalar_offsets[s]], &it->second, 8);
      else {
        auto v = int32_t(it->second);
        std::memcpy(&d.params[layout.scalar_offsets[s]], &v, 4);
      }
    }
    ds.push_back(std::move(d));
  }
  runner.run(buffers, ds);
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
