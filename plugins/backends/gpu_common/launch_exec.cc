// The runtime half of a launch table (launch_table.h: execute): checks the VM's arguments
// against a function's parameters, binds the shape and scalar slots, then runs the host steps
// (asserts, lets, workspace allocations, launches) through the device runtime's callbacks.
// Every failure is a std::runtime_error naming the function and the argument, assert or
// kernel, and what was expected; workspaces are freed on every path.
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "launch_table.h"

namespace relax::gpu {

namespace {

const char* device_name(int32_t type) {
  switch (type) {
    case kDLCPU:
      return "cpu";
    case kDLCUDA:
      return "cuda";
    case kDLCUDAHost:
      return "cuda_host";
    case kDLOpenCL:
      return "opencl";
    case kDLVulkan:
      return "vulkan";
    case kDLMetal:
      return "metal";
    case kDLVPI:
      return "vpi";
    case kDLROCM:
      return "rocm";
    case kDLROCMHost:
      return "rocm_host";
    case kDLExtDev:
      return "ext_dev";
    case kDLCUDAManaged:
      return "cuda_managed";
    default:
      return nullptr;
  }
}

std::string device_str(int32_t type) {
  const char* n = device_name(type);
  return n ? n : "type " + std::to_string(type);
}

const char* kind_name(int16_t code) {
  switch (code) {
    case kRxNull:
      return "null";
    case kRxInt:
      return "an integer";
    case kRxFloat:
      return "a float";
    case kRxBool:
      return "a bool";
    case kRxString:
      return "a string";
    case kRxHandle:
      return "a handle";
    case kRxDLTensor:
      return "a tensor";
    case kRxDLManagedTensor:
      return "a managed tensor";
    case kRxObject:
      return "an object";
    case kRxFunc:
      return "a function";
    default:
      return "an unknown value";
  }
}

/// The running state of one execute() call.
class Executor {
 public:
  Executor(const Library& lib, const FunctionTable& fn, const ExecCallbacks& cb)
      : lib_(lib),
        fn_(fn),
        cb_(cb),
        slots_(size_t(fn.num_slots), 0),
        bound_from_(size_t(fn.num_slots), -1),
        workspaces_(size_t(fn.num_workspaces)) {}

  ~Executor() {
    for (const Workspace& w : workspaces_) {
      if (!w.handle) continue;
      try {
        cb_.free_workspace(w.handle);
      } catch (...) {  // a destructor must not throw; the first error is already on its way
      }
    }
  }

  void bind_args(const RxAny* args, int32_t nargs, int32_t device_type) {
    if (nargs < 0 || size_t(nargs) != fn_.params.size() || (!args && nargs))
      fail("expected " + std::to_string(fn_.params.size()) + " arguments, got " +
           std::to_string(nargs));
    tensors_.assign(fn_.params.size(), nullptr);
    for (size_t i = 0; i < fn_.params.size(); ++i) {
      const ParamSpec& p = fn_.params[i];
      const RxAny& a = args[i];
      if (p.kind == ParamSpec::Kind::kScalar) {
        bind_scalar(i, p, a);
        continue;
      }
      if (a.type_code != kRxDLTensor || !a.value.v_tensor)
        fail_arg(i, std::string("is ") + kind_name(a.type_code) + ", expected a tensor");
      const DLTensor& t = *a.value.v_tensor;
      if (t.device.device_type != device_type)
        fail_arg(i, "is on device " + device_str(t.device.device_type) + ", expected " +
                        device_str(device_type));
      if (t.dtype.code != p.dtype.code || t.dtype.bits != p.dtype.bits ||
          t.dtype.lanes != p.dtype.lanes)
        fail_arg(i, "has dtype " + dtype_name(t.dtype) + ", expected " + dtype_name(p.dtype));
      bind_shape(i, p, t);
      check_compact(i, t);
      if (t.byte_offset % dtype_bytes(t.dtype) != 0)
        fail_arg(i, "has byte offset " + std::to_string(t.byte_offset) +
                        ", not a multiple of its element size " +
                        std::to_string(dtype_bytes(t.dtype)));
      tensors_[i] = &t;
    }
  }

  void run_steps() {
    for (size_t i = 0; i < fn_.steps.size(); ++i) {
      const Step& s = fn_.steps[i];
      switch (s.kind) {
        case Step::Kind::kAssert:
          if (eval_at(s.value, "an assert") == 0) fail("assertion failed: " + s.message);
          break;
        case Step::Kind::kLet:
          slots_.at(size_t(s.slot)) = eval_at(s.value, "a let");
          break;
        case Step::Kind::kAlloc:
          alloc(s);
          break;
        case Step::Kind::kLaunch:
          launch(s);
          break;
      }
    }
  }

 private:
  struct Workspace {
    void* handle = nullptr;
    uint64_t nbytes = 0;
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("function \"" + fn_.name + "\": " + what);
  }
  [[noreturn]] void fail_arg(size_t i, const std::string& what) const {
    fail("argument " + std::to_string(i) + " (\"" + fn_.params[i].name + "\") " + what);
  }

  std::string slot_name(int32_t slot) const {
    if (size_t(slot) < fn_.slot_names.size() && !fn_.slot_names[size_t(slot)].empty())
      return fn_.slot_names[size_t(slot)];
    return "s" + std::to_string(slot);
  }

  int64_t eval_at(const Expr& e, const char* what) const {
    try {
      return eval(e, slots_);
    } catch (const std::runtime_error& err) {
      fail(std::string("evaluating ") + what + ": " + err.what());
    }
  }

  void bind_scalar(size_t i, const ParamSpec& p, const RxAny& a) {
    if (a.type_code != kRxInt && a.type_code != kRxBool)
      fail_arg(i, std::string("is ") + kind_name(a.type_code) + ", expected an integer");
    int64_t v = a.value.v_int64;
    if (p.dtype.code == kDLInt && p.dtype.bits == 32 &&
        (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))
      fail_arg(i, "is " + std::to_string(v) + ", which does not fit int32");
    size_t s = size_t(p.slot);
    if (bound_from_[s] >= 0 && slots_[s] != v)
      fail_arg(i, "is " + std::to_string(v) + ", expected " + slot_name(p.slot) + " = " +
                      std::to_string(slots_[s]) + " from argument " +
                      std::to_string(bound_from_[s]));
    slots_[s] = v;
    if (bound_from_[s] < 0) bound_from_[s] = int32_t(i);
  }

  /// "[4, ?n] with n = 3 from argument 0" for a shape mismatch of argument `arg`.
  std::string expected_shape(const ParamSpec& p) const {
    std::ostringstream os, with;
    os << "[";
    const char* sep = "";
    const char* wsep = " with ";
    std::vector<bool> said(slots_.size(), false);
    for (size_t k = 0; k < p.shape.size(); ++k) {
      const DimSpec& d = p.shape[k];
      os << (k ? ", " : "");
      if (d.slot < 0) {
        os << d.value;
        continue;
      }
      os << "?" << slot_name(d.slot);
      if (bound_from_[size_t(d.slot)] >= 0 && !said[size_t(d.slot)]) {
        said[size_t(d.slot)] = true;
        with << wsep << sep << slot_name(d.slot) << " = " << slots_[size_t(d.slot)]
             << " from argument " << bound_from_[size_t(d.slot)];
        wsep = "";
        sep = ", ";
      }
    }
    os << "]" << with.str();
    return os.str();
  }

  void bind_shape(size_t i, const ParamSpec& p, const DLTensor& t) {
    if (t.ndim < 0 || (t.ndim > 0 && !t.shape)) fail_arg(i, "has a malformed shape");
    std::ostringstream got;
    got << "[";
    for (int32_t k = 0; k < t.ndim; ++k) got << (k ? ", " : "") << t.shape[k];
    got << "]";
    auto mismatch = [&]() {
      fail_arg(i, "has shape " + got.str() + ", expected " + expected_shape(p));
    };
    if (size_t(t.ndim) != p.shape.size()) mismatch();
    for (size_t k = 0; k < p.shape.size(); ++k) {
      const DimSpec& d = p.shape[k];
      int64_t v = t.shape[k];
      if (v < 0) mismatch();
      if (d.slot < 0) {
        if (v != d.value) mismatch();
        continue;
      }
      size_t s = size_t(d.slot);
      if (bound_from_[s] < 0) {
        bound_from_[s] = int32_t(i);
        slots_[s] = v;
      } else if (slots_[s] != v) {
        mismatch();
      }
    }
  }

  void check_compact(size_t i, const DLTensor& t) const {
    uint64_t elems = 1;
    for (int32_t k = t.ndim; k-- > 0;) {
      if (t.strides && t.shape[k] != 1 && uint64_t(t.strides[k]) != elems)
        fail_arg(i, "has non-compact strides");
      if (__builtin_mul_overflow(elems, uint64_t(t.shape[k]), &elems))
        fail_arg(i, "has more elements than fit in 64 bits");
    }
  }

  uint64_t tensor_bytes(const DLTensor& t) const {
    uint64_t n = dtype_bytes(t.dtype);
    for (int32_t k = 0; k < t.ndim; ++k) n *= uint64_t(t.shape[k]);  // checked by check_compact
    return n;
  }

  void alloc(const Step& s) {
    int64_t n = eval_at(s.value, "a workspace size");
    if (n < 0)
      fail("workspace " + std::to_string(s.slot) + " of negative size " + std::to_string(n));
    if (!cb_.alloc_workspace || !cb_.free_workspace)
      fail("the device runtime cannot allocate workspaces");
    Workspace& w = workspaces_.at(size_t(s.slot));
    if (w.handle) {
      void* old = w.handle;
      w.handle = nullptr;
      cb_.free_workspace(old);
    }
    w.handle = cb_.alloc_workspace(uint64_t(n));
    w.nbytes = uint64_t(n);
  }

  BufferArg buffer_arg(const KernelInfo& k, size_t b, const LaunchArg& a) const {
    BufferArg out;
    out.dtype = k.buffer_dtypes[b];
    if (a.kind == LaunchArg::Kind::kWorkspace) {
      const Workspace& w = workspaces_.at(size_t(a.index));
      if (!w.handle)
        fail("kernel \"" + k.name + "\" uses workspace " + std::to_string(a.index) +
             " before its allocation");
      out.data = w.handle;
      out.nbytes = w.nbytes;
      return out;
    }
    size_t i = size_t(a.index);
    const DLTensor& t = *tensors_.at(i);
    uint64_t size = dtype_bytes(out.dtype);
    if (t.byte_offset % size != 0)
      fail_arg(i, "has byte offset " + std::to_string(t.byte_offset) +
                      ", not a multiple of the element size " + std::to_string(size) +
                      " of kernel \"" + k.name + "\"");
    uint64_t elems = t.byte_offset / size;
    if (elems > uint64_t(std::numeric_limits<int32_t>::max()))
      fail_arg(i, "has element offset " + std::to_string(elems) + ", past int32");
    out.data = t.data;
    out.elem_offset = int64_t(elems);
    out.nbytes = tensor_bytes(t);
    return out;
  }

  void launch(const Step& s) {
    const KernelInfo& k = lib_.kernels.at(size_t(s.kernel));
    Launch l;
    l.kernel = s.kernel;
    bool empty = false;
    for (size_t d = 0; d < 3; ++d) {
      int64_t g = eval_at(s.grid[d], "a grid size");
      if (g < 0 || uint64_t(g) > std::numeric_limits<uint32_t>::max())
        fail("kernel \"" + k.name + "\": grid dimension " + std::to_string(d) + " is " +
             std::to_string(g) + ", expected 0 to 2^32-1");
      if (g == 0) empty = true;
      l.grid[d] = uint32_t(g);
    }
    size_t nbuf = k.buffer_dtypes.size();
    for (size_t b = 0; b < nbuf; ++b) l.buffers.push_back(buffer_arg(k, b, s.args.at(b)));
    for (size_t j = 0; j < k.scalar_dtypes.size(); ++j) {
      int64_t v = eval_at(s.args.at(nbuf + j).value, "a kernel scalar");
      if (k.scalar_dtypes[j].bits == 32 &&
          (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))
        fail("kernel \"" + k.name + "\": scalar " + std::to_string(j) + " is " + std::to_string(v) +
             ", which does not fit int32");
      l.scalars.push_back(v);
    }
    if (empty) return;  // no work-groups: a zero-size tensor
    if (!cb_.launch) fail("the device runtime has no launch function");
    cb_.launch(l);
  }

  const Library& lib_;
  const FunctionTable& fn_;
  const ExecCallbacks& cb_;
  std::vector<int64_t> slots_;
  std::vector<int32_t> bound_from_;  ///< the argument that bound each slot, -1 when unbound
  std::vector<Workspace> workspaces_;
  std::vector<const DLTensor*> tensors_;
};

}  // namespace

void execute(const Library& lib, const FunctionTable& fn, const RxAny* args, int32_t nargs,
             int32_t device_type, const ExecCallbacks& cb) {
  Executor ex(lib, fn, cb);
  ex.bind_args(args, nargs, device_type);
  ex.run_steps();
}

}  // namespace relax::gpu
