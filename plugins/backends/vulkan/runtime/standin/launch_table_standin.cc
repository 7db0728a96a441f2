// A minimal stand-in for gpu_common/launch_table.cc, compiled into the Vulkan runtime (and its
// tests) only while relax_gpu_runtime_common does not exist. It implements the header's
// functions simply: its byte format is its own ("RXGPS"), so libraries built by the real
// container are not readable by it. Remove it when the real implementation lands.
#include <cstring>
#include <stdexcept>

#include "gpu_common/launch_table.h"

namespace relax::gpu {
namespace {

struct Writer {
  std::vector<uint8_t> out;
  void u64(uint64_t v) {
    out.insert(out.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 8);
  }
  void str(const std::string& s) {
    u64(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  void bytes(const std::vector<uint8_t>& b) {
    u64(b.size());
    out.insert(out.end(), b.begin(), b.end());
  }
  void dtype(DLDataType t) {
    u64(t.code);
    u64(t.bits);
    u64(t.lanes);
  }
  void expr(const Expr& e) {
    u64(e.code.size());
    for (auto& i : e.code) {
      u64(uint64_t(i.op));
      u64(uint64_t(i.value));
    }
  }
};

struct Reader {
  const uint8_t* p;
  uint64_t n, at = 0;
  uint64_t u64() {
    if (n - at < 8) throw std::runtime_error("gpu library: truncated");
    uint64_t v;
    std::memcpy(&v, p + at, 8);
    at += 8;
    return v;
  }
  uint64_t count() {
    uint64_t c = u64();
    if (c > n) throw std::runtime_error("gpu library: bad count");
    return c;
  }
  std::string str() {
    uint64_t c = count();
    if (n - at < c) throw std::runtime_error("gpu library: truncated");
    std::string s(reinterpret_cast<const char*>(p + at), c);
    at += c;
    return s;
  }
  std::vector<uint8_t> bytes() {
    std::string s = str();
    return {s.begin(), s.end()};
  }
  DLDataType dtype() {
    DLDataType t;
    t.code = uint8_t(u64());
    t.bits = uint8_t(u64());
    t.lanes = uint16_t(u64());
    return t;
  }
  Expr expr() {
    Expr e;
    uint64_t c = count();
    for (uint64_t i = 0; i < c; ++i) {
      ExprInstr x;
      x.op = ExprOp(u64());
      x.value = int64_t(u64());
      e.code.push_back(x);
    }
    return e;
  }
};

int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

int64_t eval(const Expr& e, const std::vector<int64_t>& slots) {
  std::vector<int64_t> st;
  auto pop = [&] {
    if (st.empty()) throw std::runtime_error("expression: stack underflow");
    int64_t v = st.back();
    st.pop_back();
    return v;
  };
  for (const ExprInstr& i : e.code) {
    if (i.op == ExprOp::kConst) {
      st.push_back(i.value);
      continue;
    }
    if (i.op == ExprOp::kSlot) {
      if (i.value < 0 || size_t(i.value) >= slots.size())
        throw std::runtime_error("expression: slot out of range");
      st.push_back(slots[size_t(i.value)]);
      continue;
    }
    if (i.op == ExprOp::kNot) {
      st.push_back(!pop());
      continue;
    }
    if (i.op == ExprOp::kNeg) {
      st.push_back(int64_t(0 - uint64_t(pop())));
      continue;
    }
    if (i.op == ExprOp::kSelect) {
      int64_t f = pop(), t = pop(), c = pop();
      st.push_back(c ? t : f);
      continue;
    }
    int64_t b = pop(), a = pop();
    bool div = i.op == ExprOp::kDiv || i.op == ExprOp::kMod || i.op == ExprOp::kFloorDiv ||
               i.op == ExprOp::kFloorMod;
    if (div && b == 0) throw std::runtime_error("expression: division by zero");
    switch (i.op) {
      case ExprOp::kAdd:
        st.push_back(int64_t(uint64_t(a) + uint64_t(b)));
        break;
      case ExprOp::kSub:
        st.push_back(int64_t(uint64_t(a) - uint64_t(b)));
        break;
      case ExprOp::kMul:
        st.push_back(int64_t(uint64_t(a) * uint64_t(b)));
        break;
      case ExprOp::kDiv:
        st.push_back(a / b);
        break;
      case ExprOp::kMod:
        st.push_back(a % b);
        break;
      case ExprOp::kFloorDiv:
        st.push_back(fdiv(a, b));
        break;
      case ExprOp::kFloorMod:
        st.push_back(a - fdiv(a, b) * b);
        break;
      case ExprOp::kMin:
        st.push_back(std::min(a, b));
        break;
      case ExprOp::kMax:
        st.push_back(std::max(a, b));
        break;
      case ExprOp::kEQ:
        st.push_back(a == b);
        break;
      case ExprOp::kNE:
        st.push_back(a != b);
        break;
      case ExprOp::kLT:
        st.push_back(a < b);
        break;
      case ExprOp::kLE:
        st.push_back(a <= b);
        break;
      case ExprOp::kGT:
        st.push_back(a > b);
        break;
      case ExprOp::kGE:
        st.push_back(a >= b);
        break;
      case ExprOp::kAnd:
        st.push_back(a && b);
        break;
      case ExprOp::kOr:
        st.push_back(a || b);
        break;
      default:
        throw std::runtime_error("expression: bad op");
    }
  }
  if (st.size() != 1) throw std::runtime_error("expression: not exactly one result");
  return st[0];
}

std::vector<uint8_t> serialize(const Library& lib) {
  Writer w;
  w.str("RXGPS");
  w.str(lib.format);
  w.u64(lib.requirements.size());
  for (auto& [k, v] : lib.requirements) {
    w.str(k);
    w.str(v);
  }
  w.u64(lib.kernels.size());
  for (auto& k : lib.kernels) {
    w.str(k.name);
    for (uint32_t b : k.block) w.u64(b);
    w.u64(k.shared_bytes);
    w.u64(k.buffer_dtypes.size());
    for (auto t : k.buffer_dtypes) w.dtype(t);
    w.u64(k.scalar_dtypes.size());
    for (auto t : k.scalar_dtypes) w.dtype(t);
    w.bytes(k.code);
  }
  w.u64(lib.functions.size());
  for (auto& f : lib.functions) {
    w.str(f.name);
    w.u64(f.params.size());
    for (auto& p : f.params) {
      w.u64(uint64_t(p.kind));
      w.str(p.name);
      w.dtype(p.dtype);
      w.u64(p.shape.size());
      for (auto& d : p.shape) {
        w.u64(uint64_t(int64_t(d.slot)));
        w.u64(uint64_t(d.value));
      }
      w.u64(uint64_t(int64_t(p.slot)));
    }
    w.u64(uint64_t(f.num_slots));
    w.u64(uint64_t(f.num_workspaces));
    w.u64(f.steps.size());
    for (auto& s : f.steps) {
      w.u64(uint64_t(s.kind));
      w.expr(s.value);
      w.str(s.message);
      w.u64(uint64_t(int64_t(s.slot)));
      w.u64(uint64_t(int64_t(s.kernel)));
      for (auto& g : s.grid) w.expr(g);
      w.u64(s.args.size());
      for (auto& a : s.args) {
        w.u64(uint64_t(a.kind));
        w.u64(uint64_t(int64_t(a.index)));
        w.expr(a.value);
      }
    }
  }
  w.bytes(lib.module_code);
  return w.out;
}

Library deserialize(const uint8_t* bytes, uint64_t nbytes) {
  Reader r{bytes, nbytes};
  if (r.str() != "RXGPS") throw std::runtime_error("gpu library: bad magic");
  Library lib;
  lib.format = r.str();
  for (uint64_t i = 0, n = r.count(); i < n; ++i) {
    std::string k = r.str();
    lib.requirements[k] = r.str();
  }
  for (uint64_t i = 0, n = r.count(); i < n; ++i) {
    KernelInfo k;
    k.name = r.str();
    for (auto& b : k.block) b = uint32_t(r.u64());
    k.shared_bytes = r.u64();
    for (uint64_t j = 0, m = r.count(); j < m; ++j) k.buffer_dtypes.push_back(r.dtype());
    for (uint64_t j = 0, m = r.count(); j < m; ++j) k.scalar_dtypes.push_back(r.dtype());
    k.code = r.bytes();
    lib.kernels.push_back(std::move(k));
  }
  for (uint64_t i = 0, n = r.count(); i < n; ++i) {
    FunctionTable f;
    f.name = r.str();
    for (uint64_t j = 0, m = r.count(); j < m; ++j) {
      ParamSpec p;
      p.kind = ParamSpec::Kind(r.u64());
      p.name = r.str();
      p.dtype = r.dtype();
      for (uint64_t d = 0, nd = r.count(); d < nd; ++d) {
        DimSpec s;
        s.slot = int32_t(int64_t(r.u64()));
        s.value = int64_t(r.u64());
        p.shape.push_back(s);
      }
      p.slot = int32_t(int64_t(r.u64()));
      f.params.push_back(std::move(p));
    }
    f.num_slots = int32_t(r.u64());
    f.num_workspaces = int32_t(r.u64());
    for (uint64_t j = 0, m = r.count(); j < m; ++j) {
      Step s;
      s.kind = Step::Kind(r.u64());
      s.value = r.expr();
      s.message = r.str();
      s.slot = int32_t(int64_t(r.u64()));
      s.kernel = int32_t(int64_t(r.u64()));
      for (auto& g : s.grid) g = r.expr();
      for (uint64_t a = 0, na = r.count(); a < na; ++a) {
        LaunchArg x;
        x.kind = LaunchArg::Kind(r.u64());
        x.index = int32_t(int64_t(r.u64()));
        x.value = r.expr();
        s.args.push_back(std::move(x));
      }
      if (s.kind == Step::Kind::kLaunch && (s.kernel < 0 || size_t(s.kernel) >= lib.kernels.size()))
        throw std::runtime_error("gpu library: kernel index out of range");
      f.steps.push_back(std::move(s));
    }
    lib.functions.push_back(std::move(f));
  }
  lib.module_code = r.bytes();
  return lib;
}

uint64_t dtype_bytes(DLDataType t) {
  return t.bits == 1 ? 1 : (uint64_t(t.bits) * t.lanes + 7) / 8;
}

std::string dtype_name(DLDataType t) {
  std::string base = t.code == kDLFloat  ? "float"
                     : t.code == kDLInt  ? "int"
                     : t.code == kDLUInt ? "uint"
                                         : "bfloat";
  if (t.bits == 1)
    base = "bool";
  else
    base += std::to_string(t.bits);
  if (t.lanes > 1) base += "x" + std::to_string(t.lanes);
  return base;
}

void execute(const Library& lib, const FunctionTable& fn, const RxAny* args, int32_t nargs,
             int32_t device_type, const ExecCallbacks& cb) {
  auto err = [&](const std::string& m) {
    throw std::runtime_error("function \"" + fn.name + "\": " + m);
  };
  if (nargs != int32_t(fn.params.size()))
    err("expected " + std::to_string(fn.params.size()) + " arguments, got " +
        std::to_string(nargs));
  std::vector<int64_t> slots(size_t(std::max(fn.num_slots, 0)), 0);
  std::vector<bool> bound(slots.size(), false);
  std::vector<BufferArg> buffers(fn.params.size());
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ParamSpec& p = fn.params[i];
    const RxAny& a = args[i];
    if (p.kind == ParamSpec::Kind::kScalar) {
      if (a.type_code != kRxInt)
        err("argument " + std::to_string(i) + " (\"" + p.name + "\") expected an integer scalar");
      slots.at(size_t(p.slot)) = a.value.v_int64;
      continue;
    }
    if (a.type_code != kRxDLTensor || a.value.v_tensor == nullptr)
      err("argument " + std::to_string(i) + " (\"" + p.name + "\") expected a tensor");
    const DLTensor& t = *a.value.v_tensor;
    if (t.device.device_type != device_type)
      err("argument " + std::to_string(i) + " (\"" + p.name + "\") the tensor is on device type " +
          std::to_string(t.device.device_type) + ", expected " + std::to_string(device_type));
    if (t.dtype.code != p.dtype.code || t.dtype.bits != p.dtype.bits ||
        t.dtype.lanes != p.dtype.lanes)
      err("argument " + std::to_string(i) + " (\"" + p.name + "\") dtype " + dtype_name(t.dtype) +
          ", expected " + dtype_name(p.dtype));
    if (t.ndim != int32_t(p.shape.size()))
      err("argument " + std::to_string(i) + " (\"" + p.name + "\") rank " + std::to_string(t.ndim) +
          ", expected " + std::to_string(p.shape.size()));
    uint64_t n = dtype_bytes(t.dtype);
    for (size_t d = 0; d < p.shape.size(); ++d) {
      const DimSpec& s = p.shape[d];
      int64_t v = t.shape[d];
      if (s.slot >= 0) {
        if (!bound.at(size_t(s.slot))) {
          slots[size_t(s.slot)] = v;
          bound[size_t(s.slot)] = true;
        } else if (slots[size_t(s.slot)] != v)
          err("argument " + std::to_string(i) + " (\"" + p.name + "\") has shape dimension " +
              std::to_string(d) + " is " + std::to_string(v) + ", expected " +
              std::to_string(slots[size_t(s.slot)]));
      } else if (s.value != v) {
        err("argument " + std::to_string(i) + " (\"" + p.name + "\") has shape dimension " +
            std::to_string(d) + " is " + std::to_string(v) + ", expected " +
            std::to_string(s.value));
      }
      n *= uint64_t(v);
    }
    uint64_t es = dtype_bytes(t.dtype);
    if (t.byte_offset % es != 0)
      err("argument " + std::to_string(i) + " (\"" + p.name +
          "\") byte offset not a multiple of the element size");
    buffers[i] = BufferArg{t.data, int64_t(t.byte_offset / es), n, t.dtype};
  }
  std::vector<void*> workspaces(size_t(std::max(fn.num_workspaces, 0)), nullptr);
  std::vector<uint64_t> ws_bytes(workspaces.size(), 0);
  try {
    for (const Step& s : fn.steps) {
      switch (s.kind) {
        case Step::Kind::kAssert:
          if (!eval(s.value, slots)) err(s.message);
          break;
        case Step::Kind::kLet:
          slots.at(size_t(s.slot)) = eval(s.value, slots);
          break;
        case Step::Kind::kAlloc:
          ws_bytes.at(size_t(s.slot)) = uint64_t(eval(s.value, slots));
          workspaces.at(size_t(s.slot)) = cb.alloc_workspace(ws_bytes[size_t(s.slot)]);
          break;
        case Step::Kind::kLaunch: {
          Launch l;
          l.kernel = s.kernel;
          for (int d = 0; d < 3; ++d) l.grid[d] = uint32_t(eval(s.grid[d], slots));
          const KernelInfo& k = lib.kernels.at(size_t(s.kernel));
          for (const LaunchArg& a : s.args) {
            if (a.kind == LaunchArg::Kind::kParam)
              l.buffers.push_back(buffers.at(size_t(a.index)));
            else if (a.kind == LaunchArg::Kind::kWorkspace)
              l.buffers.push_back(BufferArg{workspaces.at(size_t(a.index)), 0, 0,
                                            k.buffer_dtypes.at(l.buffers.size())});
            else
              l.scalars.push_back(eval(a.value, slots));
          }
          cb.launch(l);
          break;
        }
      }
    }
  } catch (...) {
    for (void* w : workspaces)
      if (w) cb.free_workspace(w);
    throw;
  }
  for (void* w : workspaces)
    if (w) cb.free_workspace(w);
}

}  // namespace relax::gpu
