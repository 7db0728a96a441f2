// The C ABI: C packed functions in both directions, errors as status codes, a device
// runtime table and a module loader table, and the header compiled as C99 by a C client.
#include "relax/runtime/c_abi.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "relax/runtime/device_api.h"
#include "relax/runtime/module.h"
#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

using testing::error_of;
using testing::f32;
using testing::values_of;

// ---- C packed functions -------------------------------------------------------------------

/// Sums int arguments and the elements of float32 tensor arguments; counts calls in *self.
extern "C" int c_sum(void* self, const RxAny* args, int32_t nargs, RxAny* ret) {
  ++*static_cast<int*>(self);
  double total = 0;
  for (int32_t i = 0; i < nargs; ++i) {
    if (args[i].type_code == kRxInt) {
      total += double(args[i].value.v_int64);
    } else if (args[i].type_code == kRxDLTensor) {
      const DLTensor* t = args[i].value.v_tensor;
      int64_t n = 1;
      for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
      const float* p =
          reinterpret_cast<const float*>(static_cast<const char*>(t->data) + t->byte_offset);
      for (int64_t k = 0; k < n; ++k) total += p[k];
    } else {
      RxSetLastError("c_sum: unsupported argument");
      return kRxBadArgument;
    }
  }
  *ret = RxAnyFloat(total);
  return 0;
}

/// Returns its first argument (an object) with a reference for the caller.
extern "C" int c_identity_object(void*, const RxAny* args, int32_t nargs, RxAny* ret) {
  if (nargs != 1 || args[0].type_code != kRxObject) {
    RxSetLastError("c_identity_object: expected one object");
    return kRxBadArgument;
  }
  RxObjectRetain(args[0].value.v_object);
  ret->type_code = kRxObject;
  ret->value.v_object = args[0].value.v_object;
  return 0;
}

/// Returns the rank plus the sum of the dims of a shape argument.
extern "C" int c_shape_summary(void*, const RxAny* args, int32_t, RxAny* ret) {
  int32_t ndim = 0;
  const int64_t* dims = nullptr;
  if (RxShapeGetData(args[0].value.v_object, &ndim, &dims) != 0) return kRxError;
  int64_t s = ndim * 1000;
  for (int32_t i = 0; i < ndim; ++i) s += dims[i];
  *ret = RxAnyInt(s);
  return 0;
}

void count_delete(void* self) { ++*static_cast<int*>(self); }

TEST(CAbi, VersionAndSizes) {
  EXPECT_EQ(RxGetABIVersion(), uint32_t(RX_ABI_VERSION));
  EXPECT_EQ(sizeof(RxAny), 16u);
  RxAny v = RxAnyInt(5);
  EXPECT_EQ(v.struct_size, sizeof(RxAny));
  EXPECT_EQ(RX_ABI_MAJOR_OF(v.abi_version), RX_ABI_VERSION_MAJOR);
}

TEST(CAbi, WrappedCFunctionSeesIntsAndTensors) {
  int calls = 0;
  {
    // The deleter runs on `self` (here the call counter) when the last handle goes.
    PackedFunc f = PackedFunc::from_c("c.sum", c_sum, &calls, count_delete);
    NDArray t = f32({2, 2}, {1, 2, 3, 4});
    EXPECT_EQ(f.call(int64_t(5), t, t.view({2}, DataType::Float(32), 8)).as_float(), 5 + 10 + 7);
    std::string msg = error_of([&] { f.call("text"); });
    EXPECT_NE(msg.find("c.sum: c_sum: unsupported argument"), std::string::npos) << msg;
    EXPECT_EQ(calls, 2);
    PackedFunc copy = f;
  }
  EXPECT_EQ(calls, 2 + 1);
}

TEST(CAbi, ObjectsCrossWithReferenceCounts) {
  PackedFunc identity = PackedFunc::from_c("c.identity", c_identity_object, nullptr);
  Shape s({3, 4});
  int before = s.node()->use_count();
  Value back = identity.call(s);
  EXPECT_TRUE(back.as_object() == Ref<Object>(s.node()));
  EXPECT_EQ(s.node()->use_count(), before + 1);  // `back` holds exactly one more
  back = Value();
  EXPECT_EQ(s.node()->use_count(), before);
  PackedFunc summary = PackedFunc::from_c("c.summary", c_shape_summary, nullptr);
  EXPECT_EQ(summary.call(s).as_int(), 2007);
  EXPECT_NE(error_of([&] { summary.call(Tuple()); }).find("RxShapeGetData: not a shape"),
            std::string::npos);
}

TEST(CAbi, GlobalCFunctionCalledFromBytecode) {
  int calls = 0;
  ASSERT_EQ(RxRegisterGlobalFunc("c_abi_test.sum", c_sum, &calls, nullptr, 1), 0);
  EXPECT_EQ(RxRegisterGlobalFunc("c_abi_test.sum", c_sum, &calls, nullptr, 0), kRxError);
  EXPECT_NE(std::string(RxGetLastError()).find("already registered"), std::string::npos);
  ExecBuilder b;
  b.begin_function("main", {"x"});
  b.emit_call("c_abi_test.sum", {Arg::reg(0), Arg::imm(100)}, 1);
  b.emit_ret(1);
  b.end_function();
  auto vm = VirtualMachine::create(b.get());
  EXPECT_EQ(vm->invoke("main", {f32({3}, {1, 2, 3})}).as_float(), 106.0);
  EXPECT_EQ(calls, 1);
  Registry::remove("c_abi_test.sum");
}

TEST(CAbi, CallingCppFunctionsFromC) {
  Registry::register_func(
      "c_abi_test.describe",
      [](Args a) -> Value {
        RX_CHECK(a.size() == 3) << "describe wants 3 arguments";
        NDArray t = a[2].as_tensor();
        NDArray out = t.copy();
        out.data_as<float>()[0] = float(a[0].as_int()) + float(a[1].as_string().size());
        return out;
      },
      true);
  RxObjectHandle f = nullptr;
  ASSERT_EQ(RxGetGlobalFunc("c_abi_test.describe", &f), 0);
  float data[2] = {0, 9};
  int64_t shape[1] = {2};
  DLTensor t{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  RxAny args[3] = {RxAnyInt(40), RxAnyString("ab"), RxAnyTensor(&t)};
  RxAny ret = RxAnyNull();
  ASSERT_EQ(RxFuncCall(f, args, 3, &ret), 0) << RxGetLastError();
  ASSERT_EQ(ret.type_code, kRxDLManagedTensor);
  DLManagedTensor* m = ret.value.v_managed;
  EXPECT_EQ(static_cast<float*>(m->dl_tensor.data)[0], 42.0f);
  EXPECT_EQ(static_cast<float*>(m->dl_tensor.data)[1], 9.0f);
  m->deleter(m);
  // A C++ exception becomes a status code and a message; nothing is thrown through C.
  EXPECT_EQ(RxFuncCall(f, args, 1, &ret), kRxError);
  EXPECT_NE(std::string(RxGetLastError()).find("describe wants 3 arguments"), std::string::npos);
  RxAny bad = RxAnyInt(1);
  bad.struct_size = 8;
  EXPECT_EQ(RxFuncCall(f, &bad, 1, &ret), kRxError);
  EXPECT_NE(std::string(RxGetLastError()).find("struct_size 8"), std::string::npos);
  EXPECT_EQ(RxObjectRelease(f), 0);
  RxObjectHandle missing = &ret;
  EXPECT_EQ(RxGetGlobalFunc("c_abi_test.nothing", &missing), kRxNotFound);
  EXPECT_EQ(missing, nullptr);
  Registry::remove("c_abi_test.describe");
}

// ---- A device runtime through the C table --------------------------------------------------

/// A fake accelerator: "device memory" is host memory holding each byte XOR 0x5A, so only
/// copies through the runtime give the right bytes back.
struct FakeDevice {
  std::atomic<int> allocs{0}, frees{0}, copies{0};
};
FakeDevice fake;

extern "C" int fake_alloc(void* self, DLDevice, uint64_t nbytes, uint64_t alignment, void** out) {
  ++static_cast<FakeDevice*>(self)->allocs;
  *out = std::aligned_alloc(alignment, (nbytes + alignment) / alignment * alignment);
  return *out ? 0 : kRxError;
}
extern "C" int fake_free(void* self, DLDevice, void* ptr) {
  ++static_cast<FakeDevice*>(self)->frees;
  std::free(ptr);
  return 0;
}
extern "C" int fake_copy(void* self, const DLTensor* from, DLTensor* to) {
  ++static_cast<FakeDevice*>(self)->copies;
  size_t n = (from->dtype.bits * from->dtype.lanes + 7) / 8;
  for (int i = 0; i < from->ndim; ++i) n *= size_t(from->shape[i]);
  const auto* src = static_cast<const uint8_t*>(from->data) + from->byte_offset;
  auto* dst = static_cast<uint8_t*>(to->data) + to->byte_offset;
  bool flip = (from->device.device_type == kDLCPU) != (to->device.device_type == kDLCPU);
  for (size_t i = 0; i < n; ++i) dst[i] = flip ? uint8_t(src[i] ^ 0x5A) : src[i];
  return 0;
}
extern "C" int fake_sync(void*, DLDevice) { return 0; }
extern "C" int fake_attr(void*, DLDevice, int32_t attr, RxAny* ret) {
  if (attr == kRxDeviceName) *ret = RxAnyString("fake-accelerator");
  return 0;
}

void register_fake_device() {
  RxDeviceRuntime rt{sizeof(RxDeviceRuntime),
                     RX_ABI_VERSION,
                     kDLExtDev,
                     "fake",
                     &fake,
                     fake_alloc,
                     fake_free,
                     fake_copy,
                     fake_sync,
                     fake_attr};
  ASSERT_EQ(RxRegisterDeviceRuntime(&rt), 0) << RxGetLastError();
}

TEST(CAbi, DeviceRuntimeTableServesNDArraysAndBuiltins) {
  register_fake_device();
  const DLDevice ext{kDLExtDev, 0};
  EXPECT_EQ(device_to_string(ext), "fake:0");
  EXPECT_EQ(DeviceAPI::get(kDLExtDev).attribute(ext, kRxDeviceName).as_string(),
            "fake-accelerator");
  int allocs = fake.allocs, frees = fake.frees;
  {
    NDArray host = f32({4}, {1, 2, 3, 4});
    NDArray dev = host.copy_to(ext);
    EXPECT_EQ(dev.device().device_type, kDLExtDev);
    EXPECT_NE(std::memcmp(dev.data(), host.data(), 16), 0);  // stored transformed on the "device"
    EXPECT_EQ(values_of(dev.copy_to(kCPU)), (std::vector<float>{1, 2, 3, 4}));
    NDArray dev2 = dev.copy();  // device to device
    EXPECT_EQ(values_of(dev2.copy_to(kCPU)), (std::vector<float>{1, 2, 3, 4}));

    // to_device and alloc_storage on the VM's device 1.
    ExecBuilder b;
    Arg f32_name = b.add_constant("float32");
    b.begin_function("main", {"x"});
    b.emit_call("vm.builtin.to_device", {Arg::reg(0), Arg::imm(kDLExtDev), Arg::imm(0)}, 1);
    b.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), Arg::imm(64), Arg::imm(1)}, 2);
    b.emit_call("vm.builtin.shape_of", {Arg::reg(1)}, 3);
    b.emit_call("vm.builtin.alloc_tensor", {Arg::reg(2), Arg::imm(16), Arg::reg(3), f32_name}, 4);
    b.emit_call("vm.builtin.make_tuple", {Arg::reg(1), Arg::reg(4)}, 5);
    b.emit_ret(5);
    b.end_function();
    auto vm = VirtualMachine::create(b.get(), {kCPU, ext});
    Tuple out = vm->invoke("main", {host}).as_tuple();
    EXPECT_EQ(out[0].as_tensor().device().device_type, kDLExtDev);
    EXPECT_EQ(values_of(out[0].as_tensor().copy_to(kCPU)), (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(out[1].as_tensor().device().device_type, kDLExtDev);
    EXPECT_EQ(out[1].as_tensor().dltensor()->byte_offset, 16u);
  }
  EXPECT_EQ(fake.allocs - allocs, 4);
  EXPECT_EQ(fake.frees - frees, 4);  // everything allocated was freed through the table
  EXPECT_NE(error_of([&] {
              NDArray::empty({1}, DataType::Float(32), DLDevice{kDLVulkan, 0});
            }).find("no device runtime is registered for device type 7"),
            std::string::npos);
}

TEST(CAbi, TablesWithWrongVersionOrSizeAreRejected) {
  RxDeviceRuntime rt{sizeof(RxDeviceRuntime),
                     (RX_ABI_VERSION_MAJOR + 1) << 8,
                     kDLExtDev,
                     "future",
                     &fake,
                     fake_alloc,
                     fake_free,
                     fake_copy,
                     fake_sync,
                     fake_attr};
  EXPECT_EQ(RxRegisterDeviceRuntime(&rt), kRxBadVersion);
  EXPECT_NE(std::string(RxGetLastError()).find("ABI major version 2"), std::string::npos)
      << RxGetLastError();
  rt.abi_version = RX_ABI_VERSION;
  rt.struct_size = 8;
  EXPECT_EQ(RxRegisterDeviceRuntime(&rt), kRxBadVersion);
  EXPECT_NE(std::string(RxGetLastError()).find("struct_size 8"), std::string::npos);
  RxModuleLoader loader{};
  loader.struct_size = sizeof(RxModuleLoader);
  loader.abi_version = RX_ABI_VERSION;
  EXPECT_EQ(RxRegisterModuleLoader(&loader), kRxError);
  EXPECT_NE(std::string(RxGetLastError()).find("format, load and get_function are required"),
            std::string::npos);
}

// ---- A module loader through the C table ---------------------------------------------------

/// Format "test": the library bytes are "name=k;name=k;..."; function `name` adds k to an int.
struct TestModule {
  std::map<std::string, int64_t> addends;
};
std::atomic<int> modules_released{0};

extern "C" int test_load(void*, const uint8_t* bytes, uint64_t n, void** out) {
  std::string text(reinterpret_cast<const char*>(bytes), n);
  auto* m = new TestModule();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    std::string entry = text.substr(pos, end - pos);
    size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      delete m;
      RxSetLastError(("malformed entry '" + entry + "'").c_str());
      return kRxError;
    }
    m->addends[entry.substr(0, eq)] = std::atoll(entry.c_str() + eq + 1);
    pos = end + 1;
  }
  *out = m;
  return 0;
}
extern "C" int test_add_k(void* self, const RxAny* args, int32_t, RxAny* ret) {
  *ret = RxAnyInt(args[0].value.v_int64 + *static_cast<int64_t*>(self));
  return 0;
}
extern "C" int test_get_function(void*, void* module, const char* name, RxPackedCFunc* func,
                                 void** func_self) {
  auto* m = static_cast<TestModule*>(module);
  auto it = m->addends.find(name);
  *func = it == m->addends.end() ? nullptr : test_add_k;
  *func_self = it == m->addends.end() ? nullptr : &it->second;
  return 0;
}
extern "C" void test_release(void*, void* module) {
  ++modules_released;
  delete static_cast<TestModule*>(module);
}

void register_test_loader() {
  RxModuleLoader loader{sizeof(RxModuleLoader), RX_ABI_VERSION, "test", nullptr, test_load,
                        test_get_function,      test_release};
  ASSERT_EQ(RxRegisterModuleLoader(&loader), 0) << RxGetLastError();
}

Ref<Executable> build_library_caller(std::string format, std::string library) {
  ExecBuilder b;
  b.begin_function("main", {"x"});
  b.emit_call("plus_ten", {Arg::reg(0)}, 1);
  b.emit_call("plus_one", {Arg::reg(1)}, 1);
  b.emit_ret(1);
  b.end_function();
  b.add_library(std::move(format), std::vector<uint8_t>(library.begin(), library.end()));
  return b.get();
}

TEST(CAbi, ModuleLoaderProvidesKernelsToAnExecutable) {
  register_test_loader();
  EXPECT_TRUE(has_module_loader("test"));
  int released = modules_released;
  {
    Ref<Executable> exec =
        Executable::load(build_library_caller("test", "plus_one=1;plus_ten=10")->save());
    auto vm = VirtualMachine::create(exec);
    EXPECT_EQ(vm->invoke("main", {Value(int64_t(5))}).as_int(), 16);
    auto vm2 = VirtualMachine::create(exec);  // the library is loaded once per executable
    EXPECT_EQ(vm2->invoke("main", {Value(int64_t(0))}).as_int(), 11);
    EXPECT_EQ(exec->modules().size(), 1u);
  }
  EXPECT_EQ(modules_released - released, 1);
  std::string missing =
      error_of([&] { VirtualMachine::create(build_library_caller("test", "plus_one=1")); });
  EXPECT_NE(
      missing.find(
          "function 'plus_ten' is not defined: neither the executable's kernel libraries (test)"),
      std::string::npos)
      << missing;
  std::string malformed =
      error_of([&] { VirtualMachine::create(build_library_caller("test", "plus_one")); });
  EXPECT_NE(malformed.find("module loader 'test' failed: malformed entry 'plus_one'"),
            std::string::npos)
      << malformed;
  std::string unknown =
      error_of([&] { VirtualMachine::create(build_library_caller("spirv-x", "")); });
  EXPECT_NE(unknown.find("no module loader is registered for kernel library format 'spirv-x'"),
            std::string::npos)
      << unknown;
}

// ---- The header as C ----------------------------------------------------------------------

TEST(CAbi, HeaderCompilesAsC99AndACClientRuns) {
  // The C client (c_abi_client.c, next to this file) includes only c_abi.h, registers a C
  // function, finds and calls it and a C++ builtin through the ABI.
  std::string src = std::string(RELAX_SOURCE_DIR) + "/tests/unit/runtime/c_abi_client.c";
  std::string exe = ::testing::TempDir() + "/relax_c_abi_client";
  std::string flags = "-std=c99 -pedantic -Wall -Wextra -Werror";
#if defined(__SANITIZE_ADDRESS__)
  flags += " -fsanitize=address,undefined";
#endif
  std::string cc = std::getenv("CC") ? std::getenv("CC") : "cc";
  std::string compile =
      cc + " " + flags + " -I" RELAX_SOURCE_DIR "/core/include " + src + " -o " + exe +
      " -L" RELAX_BINARY_DIR "/lib -lrelax_runtime -Wl,-rpath," RELAX_BINARY_DIR "/lib 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0) << compile;
  std::string out_file = exe + ".out";
  ASSERT_EQ(std::system((exe + " > " + out_file).c_str()), 0);
  std::FILE* f = std::fopen(out_file.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[256] = {};
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  EXPECT_EQ(std::string(buf, n), "c client: 7 3 not-found ok\n");
}

}  // namespace
}  // namespace relax::runtime
