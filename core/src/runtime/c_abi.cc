// The C ABI entry points (c_abi.h) and the conversions between Values and RxAny.
//
// Every extern "C" function catches all exceptions and turns them into a status code plus
// the thread-local error message: exceptions never cross the ABI.
#include "relax/runtime/c_abi.h"

#include <memory>
#include <string>
#include <vector>

#include "relax/runtime/builtins.h"
#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "relax/runtime/packed_func.h"
#include "relax/runtime/registry.h"
#include "relax/support/diagnostic.h"

namespace relax::runtime {

namespace {

thread_local std::string last_error;
thread_local std::string returned_string;  // backs kRxString results of RxFuncCall

// Runs `body`, converting exceptions to a status code and the thread-local message.
template <class F>
int guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown C++ exception";
  }
  return kRxError;
}

int fail(int status, std::string message) noexcept {
  try {
    last_error = std::move(message);
  } catch (...) {
  }
  return status;
}

void check_any_header(const RxAny& a, const char* what) {
  RX_CHECK(a.struct_size == sizeof(RxAny) && RX_ABI_MAJOR_OF(a.abi_version) == RX_ABI_VERSION_MAJOR)
      << what << ": RxAny with struct_size " << a.struct_size << " and ABI version "
      << a.abi_version << " (expected " << sizeof(RxAny) << " and major " << RX_ABI_VERSION_MAJOR
      << ")";
}

// A C argument as a Value: scalars by value, tensors and objects borrowed.
Value from_c_arg(const RxAny& a) {
  check_any_header(a, "argument");
  switch (a.type_code) {
    case kRxNull:
      return {};
    case kRxInt:
      return a.value.v_int64;
    case kRxFloat:
      return a.value.v_float64;
    case kRxBool:
      return a.value.v_int64 != 0;
    case kRxString:
      RX_CHECK(a.value.v_str != nullptr) << "null string argument";
      return std::string(a.value.v_str);
    case kRxDLTensor:
      RX_CHECK(a.value.v_tensor != nullptr) << "null tensor argument";
      return NDArray::borrow(*a.value.v_tensor);
    case kRxObject:
    case kRxFunc:
      RX_CHECK(a.value.v_object != nullptr) << "null object argument";
      return Value::from_object(Ref<Object>(static_cast<const Object*>(a.value.v_object)));
    default:
      RX_THROW() << "argument of type code " << a.type_code << " cannot be passed to C++";
  }
  __builtin_unreachable();
}

// A Value as a C return value: the caller owns objects and managed tensors.
void to_c_return(const Value& v, RxAny* ret) {
  *ret = RxAnyNull();
  switch (v.kind()) {
    case ValueKind::kNull:
      break;
    case ValueKind::kInt:
      *ret = RxAnyInt(v.as_int());
      break;
    case ValueKind::kFloat:
      *ret = RxAnyFloat(v.as_float());
      break;
    case ValueKind::kBool:
      ret->type_code = kRxBool;
      ret->value.v_int64 = v.as_bool();
      break;
    case ValueKind::kString:
      returned_string = v.as_string();
      *ret = RxAnyString(returned_string.c_str());
      break;
    case ValueKind::kTensor:
      ret->type_code = kRxDLManagedTensor;
      ret->value.v_managed = v.as_tensor().to_dlpack();
      break;
    default: {
      Ref<Object> obj = v.as_object();
      ret->type_code = v.kind() == ValueKind::kFunction ? kRxFunc : kRxObject;
      ret->value.v_object = const_cast<Object*>(obj.release_object());
      break;
    }
  }
}

}  // namespace

RxAny to_c_arg(const Value& v) {
  RxAny a = RxAnyNull();
  switch (v.kind()) {
    case ValueKind::kNull:
      break;
    case ValueKind::kInt:
      a = RxAnyInt(v.as_int());
      break;
    case ValueKind::kFloat:
      a = RxAnyFloat(v.as_float());
      break;
    case ValueKind::kBool:
      a.type_code = kRxBool;
      a.value.v_int64 = v.as_bool();
      break;
    case ValueKind::kString:
      a = RxAnyString(v.as_string().c_str());
      break;
    case ValueKind::kTensor:
      a = RxAnyTensor(v.as_tensor().mutable_dltensor());
      break;
    case ValueKind::kFunction:
      a.type_code = kRxFunc;
      a.value.v_object = const_cast<Object*>(v.as_object().get());
      break;
    default:
      a.type_code = kRxObject;
      a.value.v_object = const_cast<Object*>(v.as_object().get());
      break;
  }
  return a;
}

Value from_c_return(RxAny* ret) {
  check_any_header(*ret, "return value");
  switch (ret->type_code) {
    case kRxNull:
      return {};
    case kRxInt:
      return ret->value.v_int64;
    case kRxFloat:
      return ret->value.v_float64;
    case kRxBool:
      return ret->value.v_int64 != 0;
    case kRxString:
      return std::string(ret->value.v_str ? ret->value.v_str : "");
    case kRxDLManagedTensor:
      RX_CHECK(ret->value.v_managed != nullptr) << "null managed tensor returned";
      return NDArray::from_dlpack(ret->value.v_managed);
    case kRxObject:
    case kRxFunc: {
      RX_CHECK(ret->value.v_object != nullptr) << "null object returned";
      const auto* obj = static_cast<const Object*>(ret->value.v_object);
      Ref<Object> ref(obj);
      obj->dec_ref();  // adopt the reference the callee handed over
      return Value::from_object(std::move(ref));
    }
    case kRxDLTensor:
      RX_THROW() << "a C function returned a borrowed DLTensor; return a DLManagedTensor instead";
      break;
    default:
      RX_THROW() << "a C function returned type code " << ret->type_code;
  }
  __builtin_unreachable();
}

void check_num_args(std::string_view func_name, Args args, size_t min_args, size_t max_args) {
  if (args.size() >= min_args && args.size() <= max_args) return;
  std::string expected = std::to_string(min_args);
  if (max_args == size_t(-1)) {
    expected = "at least " + expected;
  } else if (max_args != min_args) {
    expected += " to " + std::to_string(max_args);
  }
  RX_THROW() << func_name << ": expected " << expected << " arguments, got " << args.size();
}

PackedFunc PackedFunc::from_c(std::string name, RxPackedCFunc func, void* self,
                              void (*self_deleter)(void*)) {
  RX_CHECK(func != nullptr) << "PackedFunc::from_c: null function '" << name << "'";
  std::shared_ptr<void> state(self, [self_deleter](void* p) {
    if (self_deleter) self_deleter(p);
  });
  std::string label = name;
  return PackedFunc(std::move(name), [func, state, label](Args args) -> Value {
    constexpr size_t kInline = 8;
    RxAny inline_args[kInline];
    std::vector<RxAny> heap_args;
    RxAny* c_args = inline_args;
    if (args.size() > kInline) {
      heap_args.resize(args.size());
      c_args = heap_args.data();
    }
    for (size_t i = 0; i < args.size(); ++i) c_args[i] = to_c_arg(args[i]);
    RxAny ret = RxAnyNull();
    int status = func(state.get(), c_args, int32_t(args.size()), &ret);
    RX_CHECK(status == 0) << label << ": " << RxGetLastError();
    return from_c_return(&ret);
  });
}

}  // namespace relax::runtime

using namespace relax::runtime;  // NOLINT: the C entry points below are thin wrappers

extern "C" {

uint32_t RxGetABIVersion(void) { return RX_ABI_VERSION; }

const char* RxGetLastError(void) { return last_error.c_str(); }

void RxSetLastError(const char* message) {
  try {
    last_error = message ? message : "";
  } catch (...) {
  }
}

int RxObjectRetain(RxObjectHandle object) {
  if (!object) return fail(kRxBadArgument, "RxObjectRetain: null handle");
  static_cast<const relax::Object*>(object)->inc_ref();
  return kRxOk;
}

int RxObjectRelease(RxObjectHandle object) {
  if (!object) return fail(kRxBadArgument, "RxObjectRelease: null handle");
  static_cast<const relax::Object*>(object)->dec_ref();
  return kRxOk;
}

int RxShapeGetData(RxObjectHandle shape, int32_t* ndim, const int64_t** dims) {
  const auto* obj = static_cast<const relax::Object*>(shape);
  if (!relax::is_instance<ShapeObj>(obj) || !ndim || !dims)
    return fail(kRxBadArgument, "RxShapeGetData: not a shape");
  const auto* s = static_cast<const ShapeObj*>(obj);
  *ndim = int32_t(s->dims.size());
  *dims = s->dims.data();
  return kRxOk;
}

int RxRegisterGlobalFunc(const char* name, RxPackedCFunc func, void* self,
                         void (*self_deleter)(void*), int override_existing) {
  if (!name || !func) return fail(kRxBadArgument, "RxRegisterGlobalFunc: null name or function");
  return guarded([&] {
    Registry::register_func(name, PackedFunc::from_c(name, func, self, self_deleter),
                            override_existing != 0);
    return kRxOk;
  });
}

int RxGetGlobalFunc(const char* name, RxObjectHandle* out) {
  if (!name || !out) return fail(kRxBadArgument, "RxGetGlobalFunc: null argument");
  return guarded([&] {
    *out = nullptr;
    register_builtins();  // C clients may look builtins up without creating a VM
    PackedFunc f = Registry::get(name);
    if (!f.defined())
      return fail(kRxNotFound, std::string("no global function named '") + name + "'");
    relax::Ref<PackedFuncObj> node = f.node();
    *out = const_cast<PackedFuncObj*>(static_cast<const PackedFuncObj*>(node.release_object()));
    return int(kRxOk);
  });
}

int RxFuncCall(RxObjectHandle func, const RxAny* args, int32_t nargs, RxAny* ret) {
  const auto* obj = static_cast<const relax::Object*>(func);
  if (!relax::is_instance<PackedFuncObj>(obj))
    return fail(kRxBadArgument, "RxFuncCall: not a function");
  if (nargs < 0 || (nargs > 0 && !args) || !ret)
    return fail(kRxBadArgument, "RxFuncCall: bad arguments");
  return guarded([&] {
    std::vector<Value> values;
    values.reserve(size_t(nargs));
    for (int32_t i = 0; i < nargs; ++i) values.push_back(from_c_arg(args[i]));
    Value result = static_cast<const PackedFuncObj*>(obj)->body(Args(values));
    to_c_return(result, ret);
    return kRxOk;
  });
}

int RxRegisterDeviceRuntime(const RxDeviceRuntime* runtime) {
  if (!runtime) return fail(kRxBadArgument, "RxRegisterDeviceRuntime: null table");
  bool bad_version = runtime->struct_size < sizeof(RxDeviceRuntime) ||
                     RX_ABI_MAJOR_OF(runtime->abi_version) != RX_ABI_VERSION_MAJOR;
  int status = guarded([&] {
    DeviceAPI::register_c_runtime(*runtime);
    return kRxOk;
  });
  return status != kRxOk && bad_version ? kRxBadVersion : status;
}

int RxRegisterModuleLoader(const RxModuleLoader* loader) {
  if (!loader) return fail(kRxBadArgument, "RxRegisterModuleLoader: null table");
  bool bad_version = loader->struct_size < sizeof(RxModuleLoader) ||
                     RX_ABI_MAJOR_OF(loader->abi_version) != RX_ABI_VERSION_MAJOR;
  int status = guarded([&] {
    register_c_module_loader(*loader);
    return kRxOk;
  });
  return status != kRxOk && bad_version ? kRxBadVersion : status;
}

}  // extern "C"
