// The GPU kernel library's binary form and the integer expressions of its launch tables
// (launch_table.h): serialize, deserialize (untrusted input: every read bounds-checked, every
// count checked against the bytes left before anything is allocated, every index validated
// after parsing), eval and the dtype helpers. The executor is in launch_exec.cc.
//
// Layout (little-endian): "RXGPU\0", u32 version (1), then the Library's fields in declaration
// order. A string or byte vector is a u32 length then the bytes; a vector is a u32 count then
// its elements; a DLDataType is u8 code, u8 bits, u16 lanes; an Expr is a vector of
// (u8 op, i64 value). Nothing may follow the last field.
#include "launch_table.h"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace relax::gpu {

namespace {

constexpr char kMagic[6] = {'R', 'X', 'G', 'P', 'U', '\0'};
constexpr uint32_t kVersion = 1;
/// Upper bounds on the per-function counts that size allocations at execute time.
constexpr int32_t kMaxSlots = 1 << 20;
constexpr int32_t kMaxWorkspaces = 1 << 16;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("GPU kernel library: " + what);
}

// ---- writing ----------------------------------------------------------------------------

class Writer {
 public:
  std::vector<uint8_t> out;

  template <typename T>
  void pod(T v) {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    U u = U(v);
    for (size_t i = 0; i < sizeof(T); ++i) out.push_back(uint8_t(u >> (8 * i)));
  }
  void count(size_t n) {
    if (n > std::numeric_limits<uint32_t>::max()) fail("a vector longer than 2^32 elements");
    pod(uint32_t(n));
  }
  void bytes(const void* p, size_t n) {
    count(n);
    const uint8_t* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  void dtype(DLDataType t) {
    pod(uint8_t(t.code));
    pod(uint8_t(t.bits));
    pod(uint16_t(t.lanes));
  }
  void expr(const Expr& e) {
    count(e.code.size());
    for (const ExprInstr& i : e.code) {
      pod(uint8_t(i.op));
      pod(int64_t(i.value));
    }
  }
};

// ---- reading ----------------------------------------------------------------------------

class Reader {
 public:
  Reader(const uint8_t* p, uint64_t n) : p_(p), n_(n) {}

  uint64_t left() const { return n_ - at_; }

  template <typename T>
  T pod(const char* field) {
    static_assert(std::is_integral_v<T>);
    need(sizeof(T), field);
    using U = std::make_unsigned_t<T>;
    U u = 0;
    for (size_t i = 0; i < sizeof(T); ++i) u = U(u | (U(p_[at_ + i]) << (8 * i)));
    at_ += sizeof(T);
    return T(u);
  }
  /// A count of elements each at least `min_bytes` long: never more than the bytes left allow.
  size_t count(const char* field, uint64_t min_bytes) {
    uint32_t n = pod<uint32_t>(field);
    if (uint64_t(n) * min_bytes > left())
      fail(std::string("truncated at ") + field + ": " + std::to_string(n) +
           " elements do not fit in the " + std::to_string(left()) + " bytes left");
    return n;
  }
  std::string str(const char* field) {
    size_t n = count(field, 1);
    std::string s(reinterpret_cast<const char*>(p_ + at_), n);
    at_ += n;
    return s;
  }
  std::vector<uint8_t> bytes(const char* field) {
    size_t n = count(field, 1);
    std::vector<uint8_t> v(p_ + at_, p_ + at_ + n);
    at_ += n;
    return v;
  }
  DLDataType dtype(const char* field) {
    DLDataType t;
    t.code = pod<uint8_t>(field);
    t.bits = pod<uint8_t>(field);
    t.lanes = pod<uint16_t>(field);
    return t;
  }
  Expr expr(const char* field) {
    Expr e;
    e.code.resize(count(field, 9));
    for (ExprInstr& i : e.code) {
      uint8_t op = pod<uint8_t>(field);
      if (op > uint8_t(ExprOp::kSelect))
        fail(std::string("bad expression operation ") + std::to_string(op) + " in " + field);
      i.op = ExprOp(op);
      i.value = pod<int64_t>(field);
    }
    return e;
  }
  template <typename E>
  E kind(const char* field, uint8_t max) {
    uint8_t k = pod<uint8_t>(field);
    if (k > max) fail(std::string("bad ") + field + " " + std::to_string(k));
    return E(k);
  }
  void need(uint64_t bytes, const char* field) {
    if (bytes > left()) fail(std::string("truncated at ") + field);
  }

 private:
  const uint8_t* p_;
  uint64_t n_;
  uint64_t at_ = 0;
};

// ---- validation -------------------------------------------------------------------------

/// Operands each operation pops (kConst/kSlot push without popping).
int arity(ExprOp op) {
  switch (op) {
    case ExprOp::kConst:
    case ExprOp::kSlot:
      return 0;
    case ExprOp::kNot:
    case ExprOp::kNeg:
      return 1;
    case ExprOp::kSelect:
      return 3;
    default:
      return 2;
  }
}

/// Checks that `e` is well formed (one result, no underflow) and reads slots below num_slots.
void check_expr(const Expr& e, int32_t num_slots, const std::string& where) {
  int64_t depth = 0;
  for (const ExprInstr& i : e.code) {
    if (i.op == ExprOp::kSlot && (i.value < 0 || i.value >= num_slots))
      fail(where + ": slot " + std::to_string(i.value) + " out of range (" +
           std::to_string(num_slots) + " slots)");
    int n = arity(i.op);
    if (depth < n) fail(where + ": malformed expression (stack underflow)");
    depth += 1 - n;
  }
  if (depth != 1) fail(where + ": malformed expression (" + std::to_string(depth) + " results)");
}

bool is_index_dtype(DLDataType t) {
  return t.code == kDLInt && (t.bits == 32 || t.bits == 64) && t.lanes == 1;
}

void validate_kernel(const KernelInfo& k, size_t index) {
  std::string where = "kernel " + std::to_string(index) + " (\"" + k.name + "\")";
  for (uint32_t b : k.block)
    if (b == 0) fail(where + ": a block dimension of 0");
  for (DLDataType t : k.scalar_dtypes)
    if (!is_index_dtype(t))
      fail(where + ": scalar of dtype " + dtype_name(t) + ", expected int32 or int64");
  for (DLDataType t : k.buffer_dtypes)
    if (t.bits == 0 || t.lanes == 0) fail(where + ": a buffer of dtype " + dtype_name(t));
}

void validate_launch(const Library& lib, const FunctionTable& f, const Step& s,
                     const std::string& where) {
  if (s.kernel < 0 || size_t(s.kernel) >= lib.kernels.size())
    fail(where + ": kernel " + std::to_string(s.kernel) + " out of range (" +
         std::to_string(lib.kernels.size()) + " kernels)");
  const KernelInfo& k = lib.kernels[size_t(s.kernel)];
  size_t nbuf = k.buffer_dtypes.size();
  if (s.args.size() != nbuf + k.scalar_dtypes.size())
    fail(where + ": " + std::to_string(s.args.size()) + " arguments for kernel \"" + k.name +
         "\", which takes " + std::to_string(nbuf + k.scalar_dtypes.size()));
  for (int d = 0; d < 3; ++d) check_expr(s.grid[size_t(d)], f.num_slots, where + " grid");
  for (size_t i = 0; i < s.args.size(); ++i) {
    const LaunchArg& a = s.args[i];
    std::string at = where + " argument " + std::to_string(i);
    if ((i < nbuf) == (a.kind == LaunchArg::Kind::kScalar))
      fail(at + ": a " + (i < nbuf ? "scalar where a buffer" : "buffer where a scalar") +
           " is expected");
    if (a.kind == LaunchArg::Kind::kParam) {
      if (a.index < 0 || size_t(a.index) >= f.params.size() ||
          f.params[size_t(a.index)].kind != ParamSpec::Kind::kBuffer)
        fail(at + ": parameter " + std::to_string(a.index) + " is not a buffer parameter");
    } else if (a.kind == LaunchArg::Kind::kWorkspace) {
      if (a.index < 0 || a.index >= f.num_workspaces)
        fail(at + ": workspace " + std::to_string(a.index) + " out of range");
    } else {
      check_expr(a.value, f.num_slots, at);
    }
  }
}

void validate_function(const Library& lib, const FunctionTable& f) {
  std::string where = "function \"" + f.name + "\"";
  if (f.num_slots < 0 || f.num_slots > kMaxSlots)
    fail(where + ": " + std::to_string(f.num_slots) + " slots");
  if (f.num_workspaces < 0 || f.num_workspaces > kMaxWorkspaces)
    fail(where + ": " + std::to_string(f.num_workspaces) + " workspaces");
  if (f.slot_names.size() > size_t(f.num_slots)) fail(where + ": more slot names than slots");
  auto check_slot = [&](int32_t slot, const std::string& at) {
    if (slot < 0 || slot >= f.num_slots)
      fail(at + ": slot " + std::to_string(slot) + " out of range");
  };
  for (size_t i = 0; i < f.params.size(); ++i) {
    const ParamSpec& p = f.params[i];
    std::string at = where + " parameter " + std::to_string(i);
    if (p.kind == ParamSpec::Kind::kScalar) {
      check_slot(p.slot, at);
      continue;
    }
    if (p.shape.size() > 64) fail(at + ": rank " + std::to_string(p.shape.size()));
    for (const DimSpec& d : p.shape)
      if (d.slot >= 0) check_slot(d.slot, at);
  }
  for (size_t i = 0; i < f.steps.size(); ++i) {
    const Step& s = f.steps[i];
    std::string at = where + " step " + std::to_string(i);
    switch (s.kind) {
      case Step::Kind::kAssert:
        check_expr(s.value, f.num_slots, at);
        break;
      case Step::Kind::kLet:
        check_slot(s.slot, at);
        check_expr(s.value, f.num_slots, at);
        break;
      case Step::Kind::kAlloc:
        if (s.slot < 0 || s.slot >= f.num_workspaces)
          fail(at + ": workspace " + std::to_string(s.slot) + " out of range");
        check_expr(s.value, f.num_slots, at);
        break;
      case Step::Kind::kLaunch:
        validate_launch(lib, f, s, at);
        break;
    }
  }
}

// ---- evaluation -------------------------------------------------------------------------

int64_t wrap(uint64_t u) { return int64_t(u); }  // two's complement (C++20)

int64_t trunc_div(int64_t a, int64_t b) {
  if (b == 0) throw std::runtime_error("integer division by zero");
  if (b == -1) return wrap(0 - uint64_t(a));  // INT64_MIN / -1 wraps to INT64_MIN
  return a / b;
}
int64_t trunc_mod(int64_t a, int64_t b) {
  if (b == 0) throw std::runtime_error("integer division by zero");
  if (b == -1) return 0;
  return a % b;
}
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = trunc_div(a, b);
  if (b != -1 && a % b != 0 && ((a % b < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  int64_t r = trunc_mod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace

int64_t eval(const Expr& e, const std::vector<int64_t>& slots) {
  std::vector<int64_t> stack;
  stack.reserve(e.code.size());
  auto pop = [&]() {
    if (stack.empty()) throw std::runtime_error("malformed launch-table expression (underflow)");
    int64_t v = stack.back();
    stack.pop_back();
    return v;
  };
  for (const ExprInstr& i : e.code) {
    switch (i.op) {
      case ExprOp::kConst:
        stack.push_back(i.value);
        continue;
      case ExprOp::kSlot:
        if (i.value < 0 || uint64_t(i.value) >= slots.size())
          throw std::runtime_error("launch-table expression reads slot " + std::to_string(i.value) +
                                   " of " + std::to_string(slots.size()));
        stack.push_back(slots[size_t(i.value)]);
        continue;
      case ExprOp::kNot:
        stack.push_back(pop() == 0 ? 1 : 0);
        continue;
      case ExprOp::kNeg:
        stack.push_back(wrap(0 - uint64_t(pop())));
        continue;
      case ExprOp::kSelect: {
        int64_t f = pop(), t = pop(), c = pop();
        stack.push_back(c != 0 ? t : f);
        continue;
      }
      default:
        break;
    }
    int64_t b = pop(), a = pop();
    int64_t r = 0;
    switch (i.op) {
      case ExprOp::kAdd:
        r = wrap(uint64_t(a) + uint64_t(b));
        break;
      case ExprOp::kSub:
        r = wrap(uint64_t(a) - uint64_t(b));
        break;
      case ExprOp::kMul:
        r = wrap(uint64_t(a) * uint64_t(b));
        break;
      case ExprOp::kDiv:
        r = trunc_div(a, b);
        break;
      case ExprOp::kMod:
        r = trunc_mod(a, b);
        break;
      case ExprOp::kFloorDiv:
        r = floor_div(a, b);
        break;
      case ExprOp::kFloorMod:
        r = floor_mod(a, b);
        break;
      case ExprOp::kMin:
        r = a < b ? a : b;
        break;
      case ExprOp::kMax:
        r = a > b ? a : b;
        break;
      case ExprOp::kEQ:
        r = a == b;
        break;
      case ExprOp::kNE:
        r = a != b;
        break;
      case ExprOp::kLT:
        r = a < b;
        break;
      case ExprOp::kLE:
        r = a <= b;
        break;
      case ExprOp::kGT:
        r = a > b;
        break;
      case ExprOp::kGE:
        r = a >= b;
        break;
      case ExprOp::kAnd:
        r = (a != 0) && (b != 0);
        break;
      case ExprOp::kOr:
        r = (a != 0) || (b != 0);
        break;
      default:
        throw std::runtime_error("bad launch-table expression operation " +
                                 std::to_string(int(i.op)));
    }
    stack.push_back(r);
  }
  if (stack.size() != 1)
    throw std::runtime_error("malformed launch-table expression (" + std::to_string(stack.size()) +
                             " results)");
  return stack[0];
}

std::vector<uint8_t> serialize(const Library& lib) {
  Writer w;
  w.out.insert(w.out.end(), kMagic, kMagic + sizeof(kMagic));
  w.pod(kVersion);
  w.str(lib.format);
  w.count(lib.requirements.size());
  for (const auto& [k, v] : lib.requirements) {
    w.str(k);
    w.str(v);
  }
  w.count(lib.kernels.size());
  for (const KernelInfo& k : lib.kernels) {
    w.str(k.name);
    for (uint32_t b : k.block) w.pod(b);
    w.pod(k.shared_bytes);
    w.count(k.buffer_dtypes.size());
    for (DLDataType t : k.buffer_dtypes) w.dtype(t);
    w.count(k.scalar_dtypes.size());
    for (DLDataType t : k.scalar_dtypes) w.dtype(t);
    w.bytes(k.code.data(), k.code.size());
  }
  w.count(lib.functions.size());
  for (const FunctionTable& f : lib.functions) {
    w.str(f.name);
    w.count(f.params.size());
    for (const ParamSpec& p : f.params) {
      w.pod(uint8_t(p.kind));
      w.str(p.name);
      w.dtype(p.dtype);
      w.count(p.shape.size());
      for (const DimSpec& d : p.shape) {
        w.pod(d.slot);
        w.pod(d.value);
      }
      w.pod(p.slot);
    }
    w.pod(f.num_slots);
    w.count(f.slot_names.size());
    for (const std::string& s : f.slot_names) w.str(s);
    w.pod(f.num_workspaces);
    w.count(f.steps.size());
    for (const Step& s : f.steps) {
      w.pod(uint8_t(s.kind));
      w.expr(s.value);
      w.str(s.message);
      w.pod(s.slot);
      w.pod(s.kernel);
      for (const Expr& g : s.grid) w.expr(g);
      w.count(s.args.size());
      for (const LaunchArg& a : s.args) {
        w.pod(uint8_t(a.kind));
        w.pod(a.index);
        w.expr(a.value);
      }
    }
  }
  w.bytes(lib.module_code.data(), lib.module_code.size());
  return std::move(w.out);
}

Library deserialize(const uint8_t* bytes, uint64_t nbytes) {
  if (!bytes && nbytes) fail("null bytes");
  if (nbytes < sizeof(kMagic) || std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0)
    fail("bad magic (not an RXGPU library)");
  Reader r(bytes + sizeof(kMagic), nbytes - sizeof(kMagic));
  uint32_t version = r.pod<uint32_t>("version");
  if (version != kVersion)
    fail("unsupported version " + std::to_string(version) + " (this runtime reads " +
         std::to_string(kVersion) + ")");
  Library lib;
  lib.format = r.str("format");
  size_t nreq = r.count("requirements", 8);
  for (size_t i = 0; i < nreq; ++i) {
    std::string k = r.str("requirement name");
    lib.requirements[k] = r.str("requirement value");
  }
  // Minimum encoded sizes bound each count: a kernel is at least 36 bytes, a parameter 17, ...
  lib.kernels.resize(r.count("kernels", 36));
  for (KernelInfo& k : lib.kernels) {
    k.name = r.str("kernel name");
    for (uint32_t& b : k.block) b = r.pod<uint32_t>("kernel block");
    k.shared_bytes = r.pod<uint64_t>("kernel shared bytes");
    k.buffer_dtypes.resize(r.count("kernel buffer dtypes", 4));
    for (DLDataType& t : k.buffer_dtypes) t = r.dtype("kernel buffer dtype");
    k.scalar_dtypes.resize(r.count("kernel scalar dtypes", 4));
    for (DLDataType& t : k.scalar_dtypes) t = r.dtype("kernel scalar dtype");
    k.code = r.bytes("kernel code");
  }
  lib.functions.resize(r.count("functions", 24));
  for (FunctionTable& f : lib.functions) {
    f.name = r.str("function name");
    f.params.resize(r.count("parameters", 17));
    for (ParamSpec& p : f.params) {
      p.kind = r.kind<ParamSpec::Kind>("parameter kind", 1);
      p.name = r.str("parameter name");
      p.dtype = r.dtype("parameter dtype");
      p.shape.resize(r.count("parameter shape", 12));
      for (DimSpec& d : p.shape) {
        d.slot = r.pod<int32_t>("dimension slot");
        d.value = r.pod<int64_t>("dimension value");
      }
      p.slot = r.pod<int32_t>("parameter slot");
    }
    f.num_slots = r.pod<int32_t>("slot count");
    f.slot_names.resize(r.count("slot names", 4));
    for (std::string& s : f.slot_names) s = r.str("slot name");
    f.num_workspaces = r.pod<int32_t>("workspace count");
    f.steps.resize(r.count("steps", 33));
    for (Step& s : f.steps) {
      s.kind = r.kind<Step::Kind>("step kind", 3);
      s.value = r.expr("step expression");
      s.message = r.str("step message");
      s.slot = r.pod<int32_t>("step slot");
      s.kernel = r.pod<int32_t>("step kernel");
      for (Expr& g : s.grid) g = r.expr("launch grid");
      s.args.resize(r.count("launch arguments", 9));
      for (LaunchArg& a : s.args) {
        a.kind = r.kind<LaunchArg::Kind>("launch argument kind", 2);
        a.index = r.pod<int32_t>("launch argument index");
        a.value = r.expr("launch argument expression");
      }
    }
  }
  lib.module_code = r.bytes("module code");
  if (r.left() != 0) fail(std::to_string(r.left()) + " unexpected bytes after the last field");
  for (size_t i = 0; i < lib.kernels.size(); ++i) validate_kernel(lib.kernels[i], i);
  for (const FunctionTable& f : lib.functions) validate_function(lib, f);
  return lib;
}

uint64_t dtype_bytes(DLDataType t) {
  if (t.code == kDLUInt && t.bits == 1) return uint64_t(t.lanes ? t.lanes : 1);  // bool: a byte
  return (uint64_t(t.bits) * t.lanes + 7) / 8;
}

std::string dtype_name(DLDataType t) {
  std::string s;
  if (t.code == kDLUInt && t.bits == 1) {
    s = "bool";
  } else {
    switch (t.code) {
      case kDLInt:
        s = "int";
        break;
      case kDLUInt:
        s = "uint";
        break;
      case kDLFloat:
        s = "float";
        break;
      case kDLBfloat:
        s = "bfloat";
        break;
      case kDLOpaqueHandle:
        s = "handle";
        break;
      case kDLComplex:
        s = "complex";
        break;
      default:
        s = "code" + std::to_string(int(t.code)) + "_";
        break;
    }
    s += std::to_string(int(t.bits));
  }
  if (t.lanes != 1) s += "x" + std::to_string(int(t.lanes));
  return s;
}

}  // namespace relax::gpu
