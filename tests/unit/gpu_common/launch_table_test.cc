// The GPU kernel library container (plugins/backends/gpu_common/launch_table.h): the postfix
// integer expressions (every operation, floor division of negatives, wrapping), the binary
// format (round trip; every truncation and random byte flips are std::runtime_errors, never
// crashes), and the executor's argument checks and steps on a hand-written table.
#include "launch_table.h"

#include <gtest/gtest.h>

#include <climits>
#include <random>

namespace relax::gpu {
namespace {

Expr post(std::vector<ExprInstr> code) { return Expr{std::move(code)}; }
ExprInstr c(int64_t v) { return {ExprOp::kConst, v}; }
ExprInstr s(int64_t i) { return {ExprOp::kSlot, i}; }
ExprInstr o(ExprOp op) { return {op, 0}; }

int64_t bin(ExprOp op, int64_t a, int64_t b) { return eval(post({c(a), c(b), o(op)}), {}); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(GpuLaunchExpr, EveryOperation) {
  EXPECT_EQ(bin(ExprOp::kAdd, 3, 4), 7);
  EXPECT_EQ(bin(ExprOp::kSub, 3, 4), -1);
  EXPECT_EQ(bin(ExprOp::kMul, -3, 4), -12);
  EXPECT_EQ(bin(ExprOp::kDiv, -7, 2), -3);
  EXPECT_EQ(bin(ExprOp::kMod, -7, 2), -1);
  EXPECT_EQ(bin(ExprOp::kFloorDiv, -7, 2), -4);
  EXPECT_EQ(bin(ExprOp::kFloorMod, -7, 2), 1);
  EXPECT_EQ(bin(ExprOp::kFloorDiv, 7, -2), -4);
  EXPECT_EQ(bin(ExprOp::kFloorMod, 7, -2), -1);
  EXPECT_EQ(bin(ExprOp::kFloorDiv, -8, 2), -4);
  EXPECT_EQ(bin(ExprOp::kFloorMod, -8, 2), 0);
  EXPECT_EQ(bin(ExprOp::kFloorDiv, -7, -2), 3);
  EXPECT_EQ(bin(ExprOp::kFloorMod, -7, -2), -1);
  EXPECT_EQ(bin(ExprOp::kMin, -7, 2), -7);
  EXPECT_EQ(bin(ExprOp::kMax, -7, 2), 2);
  EXPECT_EQ(bin(ExprOp::kEQ, 2, 2), 1);
  EXPECT_EQ(bin(ExprOp::kNE, 2, 2), 0);
  EXPECT_EQ(bin(ExprOp::kLT, 1, 2), 1);
  EXPECT_EQ(bin(ExprOp::kLE, 2, 2), 1);
  EXPECT_EQ(bin(ExprOp::kGT, 1, 2), 0);
  EXPECT_EQ(bin(ExprOp::kGE, 1, 2), 0);
  EXPECT_EQ(bin(ExprOp::kAnd, 5, 0), 0);
  EXPECT_EQ(bin(ExprOp::kAnd, 5, -1), 1);
  EXPECT_EQ(bin(ExprOp::kOr, 0, 0), 0);
  EXPECT_EQ(bin(ExprOp::kOr, 0, 9), 1);
  EXPECT_EQ(eval(post({c(0), o(ExprOp::kNot)}), {}), 1);
  EXPECT_EQ(eval(post({c(3), o(ExprOp::kNot)}), {}), 0);
  EXPECT_EQ(eval(post({c(3), o(ExprOp::kNeg)}), {}), -3);
  EXPECT_EQ(eval(post({c(1), c(10), c(20), o(ExprOp::kSelect)}), {}), 10);
  EXPECT_EQ(eval(post({c(0), c(10), c(20), o(ExprOp::kSelect)}), {}), 20);
  EXPECT_EQ(eval(post({s(1), s(0), o(ExprOp::kSub)}), {5, 7}), 2);
}

TEST(GpuLaunchExpr, WrapsWithoutTrapping) {
  EXPECT_EQ(bin(ExprOp::kAdd, LLONG_MAX, 1), LLONG_MIN);
  EXPECT_EQ(bin(ExprOp::kSub, LLONG_MIN, 1), LLONG_MAX);
  EXPECT_EQ(bin(ExprOp::kMul, LLONG_MAX, 2), -2);
  EXPECT_EQ(bin(ExprOp::kDiv, LLONG_MIN, -1), LLONG_MIN);
  EXPECT_EQ(bin(ExprOp::kMod, LLONG_MIN, -1), 0);
  EXPECT_EQ(bin(ExprOp::kFloorDiv, LLONG_MIN, -1), LLONG_MIN);
  EXPECT_EQ(bin(ExprOp::kFloorMod, LLONG_MIN, -1), 0);
  EXPECT_EQ(eval(post({c(LLONG_MIN), o(ExprOp::kNeg)}), {}), LLONG_MIN);
}

TEST(GpuLaunchExpr, Errors) {
  for (ExprOp op : {ExprOp::kDiv, ExprOp::kMod, ExprOp::kFloorDiv, ExprOp::kFloorMod})
    EXPECT_NE(error_of([&] { bin(op, 1, 0); }).find("division by zero"), std::string::npos);
  EXPECT_NE(error_of([] { eval(post({s(2)}), {1, 2}); }).find("slot 2 of 2"), std::string::npos);
  EXPECT_NE(error_of([] {
              eval(post({c(1), o(ExprOp::kAdd)}), {});
            }).find("underflow"),
            std::string::npos);
  EXPECT_NE(error_of([] { eval(post({c(1), c(2)}), {}); }).find("2 results"), std::string::npos);
  EXPECT_NE(error_of([] { eval(post({}), {}); }).find("0 results"), std::string::npos);
}

TEST(GpuLaunchDtype, NamesAndSizes) {
  EXPECT_EQ(dtype_name({kDLFloat, 32, 1}), "float32");
  EXPECT_EQ(dtype_name({kDLInt, 8, 1}), "int8");
  EXPECT_EQ(dtype_name({kDLUInt, 1, 1}), "bool");
  EXPECT_EQ(dtype_name({kDLFloat, 16, 4}), "float16x4");
  EXPECT_EQ(dtype_name({kDLBfloat, 16, 1}), "bfloat16");
  EXPECT_EQ(dtype_bytes({kDLUInt, 1, 1}), 1u);
  EXPECT_EQ(dtype_bytes({kDLFloat, 16, 4}), 8u);
  EXPECT_EQ(dtype_bytes({kDLInt, 64, 1}), 8u);
}

/// The table of `add(A: [4, n], B: [4, n], C: [4, n])` with one kernel of 3 buffers and the
/// scalar 4 * n (int32), grid (4 * n + 255) // 256, and an assert 4 * n < 2^31.
Library add_library() {
  Library lib;
  lib.format = "test";
  lib.requirements = {{"float16", "1"}, {"max-threads-per-block", "256"}};
  KernelInfo k;
  k.name = "add_kernel0";
  k.block = {256, 1, 1};
  k.shared_bytes = 16;
  k.buffer_dtypes = {{kDLFloat, 32, 1}, {kDLFloat, 32, 1}, {kDLFloat, 32, 1}};
  k.scalar_dtypes = {{kDLInt, 32, 1}};
  k.code = {1, 2, 3, 4};
  lib.kernels.push_back(k);
  FunctionTable f;
  f.name = "add";
  for (const char* n : {"A", "B", "C"})
    f.params.push_back({ParamSpec::Kind::kBuffer, n, {kDLFloat, 32, 1}, {{-1, 4}, {0, 0}}, -1});
  f.num_slots = 1;
  f.slot_names = {"n"};
  Step a;
  a.kind = Step::Kind::kAssert;
  a.value = post({c(4), s(0), o(ExprOp::kMul), c(int64_t(1) << 31), o(ExprOp::kLT)});
  a.message = "4 * n must fit int32";
  Step l;
  l.kind = Step::Kind::kLaunch;
  l.kernel = 0;
  l.grid = {
      post({c(4), s(0), o(ExprOp::kMul), c(255), o(ExprOp::kAdd), c(256), o(ExprOp::kFloorDiv)}),
      post({c(1)}), post({c(1)})};
  l.args = {{LaunchArg::Kind::kParam, 0, {}},
            {LaunchArg::Kind::kParam, 1, {}},
            {LaunchArg::Kind::kParam, 2, {}},
            {LaunchArg::Kind::kScalar, 0, post({c(4), s(0), o(ExprOp::kMul)})}};
  f.steps = {a, l};
  lib.functions.push_back(f);
  lib.module_code = {'s', 'r', 'c'};
  return lib;
}

/// `lib` with a workspace of 4 * n bytes passed as the kernel's second buffer.
Library workspace_library() {
  Library lib = add_library();
  FunctionTable& f = lib.functions[0];
  f.num_workspaces = 1;
  Step w;
  w.kind = Step::Kind::kAlloc;
  w.slot = 0;
  w.value = post({c(4), s(0), o(ExprOp::kMul)});
  f.steps.insert(f.steps.begin() + 1, w);
  f.steps.back().args[1] = {LaunchArg::Kind::kWorkspace, 0, {}};
  return lib;
}

TEST(GpuLaunchFormat, RoundTrip) {
  Library lib = workspace_library();
  std::vector<uint8_t> bytes = serialize(lib);
  Library back = deserialize(bytes.data(), bytes.size());
  EXPECT_EQ(serialize(back), bytes);
  EXPECT_EQ(back.format, "test");
  EXPECT_EQ(back.requirements, lib.requirements);
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].name, "add_kernel0");
  EXPECT_EQ(back.kernels[0].block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(back.kernels[0].shared_bytes, 16u);
  EXPECT_EQ(back.kernels[0].code, lib.kernels[0].code);
  EXPECT_EQ(back.kernels[0].scalar_dtypes[0].bits, 32);
  ASSERT_EQ(back.functions.size(), 1u);
  const FunctionTable& f = back.functions[0];
  EXPECT_EQ(f.params[1].name, "B");
  EXPECT_EQ(f.params[1].shape[0].value, 4);
  EXPECT_EQ(f.params[1].shape[1].slot, 0);
  EXPECT_EQ(f.slot_names, std::vector<std::string>{"n"});
  EXPECT_EQ(f.num_workspaces, 1);
  ASSERT_EQ(f.steps.size(), 3u);
  EXPECT_EQ(f.steps[0].message, "4 * n must fit int32");
  EXPECT_EQ(f.steps[2].args[1].kind, LaunchArg::Kind::kWorkspace);
  EXPECT_EQ(eval(f.steps[2].grid[0], {3}), 1);
  EXPECT_EQ(back.module_code, lib.module_code);
}

TEST(GpuLaunchFormat, EveryTruncationIsAnError) {
  std::vector<uint8_t> bytes = serialize(workspace_library());
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));  // exact-size buffer
    EXPECT_THROW(deserialize(cut.data(), cut.size()), std::runtime_error) << "length " << n;
  }
  bytes.push_back(0);
  EXPECT_NE(error_of([&] { deserialize(bytes.data(), bytes.size()); }).find("unexpected bytes"),
            std::string::npos);
}

TEST(GpuLaunchFormat, ByteFlipsNeverCrash) {
  const std::vector<uint8_t> bytes = serialize(workspace_library());
  std::mt19937 rng(7);
  int rejected = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::vector<uint8_t> b = bytes;
    for (int k = 0; k < 1 + trial % 3; ++k) b[rng() % b.size()] ^= uint8_t(1 + rng() % 255);
    try {
      deserialize(b.data(), b.size());
    } catch (const std::runtime_error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
}

TEST(GpuLaunchFormat, Messages) {
  std::vector<uint8_t> bytes = serialize(add_library());
  EXPECT_NE(error_of([] {
              deserialize(reinterpret_cast<const uint8_t*>("RXGPX\0"), 6);
            }).find("bad magic"),
            std::string::npos);
  std::vector<uint8_t> v = bytes;
  v[6] = 9;
  EXPECT_NE(error_of([&] { deserialize(v.data(), v.size()); }).find("unsupported version 9"),
            std::string::npos);
  // The format string's length claims 2^32 - 1 bytes.
  v = bytes;
  for (int i = 10; i < 14; ++i) v[size_t(i)] = 0xFF;
  EXPECT_NE(error_of([&] { deserialize(v.data(), v.size()); }).find("truncated at format"),
            std::string::npos);
  // Indices are checked after parsing.
  Library lib = add_library();
  lib.functions[0].steps[1].kernel = 3;
  v = serialize(lib);
  EXPECT_NE(error_of([&] { deserialize(v.data(), v.size()); }).find("kernel 3 out of range"),
            std::string::npos);
  lib = add_library();
  lib.functions[0].params[0].shape[1].slot = 5;
  v = serialize(lib);
  EXPECT_NE(error_of([&] { deserialize(v.data(), v.size()); }).find("slot 5 out of range"),
            std::string::npos);
  lib = add_library();
  lib.functions[0].steps[1].args[3].value = post({c(1), o(ExprOp::kAdd)});
  v = serialize(lib);
  EXPECT_NE(error_of([&] { deserialize(v.data(), v.size()); }).find("stack underflow"),
            std::string::npos);
  lib = add_library();
  lib.functions[0].steps[1].args.pop_back();
  v = serialize(lib);
  EXPECT_NE(error_of([&] { deserialize(v.data(), v.size()); }).find("which takes 4"),
            std::string::npos);
}

// ---- execute ----------------------------------------------------------------------------

/// A fake device tensor over host memory.
struct FakeTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::vector<float> data;
  DLTensor t{};
  FakeTensor(std::vector<int64_t> s, int32_t device = kDLVulkan,
             DLDataType dtype = {kDLFloat, 32, 1})
      : shape(std::move(s)), data(64) {
    t.data = data.data();
    t.device = {DLDeviceType(device), 0};
    t.ndim = int32_t(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
  }
  RxAny any() { return RxAnyTensor(&t); }
};

struct Recorder {
  std::vector<Launch> launches;
  int allocs = 0, frees = 0;
  bool fail_launch = false;
  ExecCallbacks callbacks() {
    return {[this](uint64_t n) -> void* {
              ++allocs;
              return new char[n + 1];
            },
            [this](void* p) {
              ++frees;
              delete[] static_cast<char*>(p);
            },
            [this](const Launch& l) {
              if (fail_launch) throw std::runtime_error("device lost");
              launches.push_back(l);
            }};
  }
};

std::string exec_error(const Library& lib, std::vector<RxAny> args, Recorder& r) {
  return error_of([&] {
    execute(lib, lib.functions[0], args.data(), int32_t(args.size()), kDLVulkan, r.callbacks());
  });
}

TEST(GpuLaunchExecute, RunsStepsWithOffsets) {
  Library lib = add_library();
  FakeTensor a({4, 3}), b({4, 3}), out({4, 3});
  b.t.byte_offset = 8;
  std::vector<RxAny> args = {a.any(), b.any(), out.any()};
  Recorder r;
  execute(lib, lib.functions[0], args.data(), 3, kDLVulkan, r.callbacks());
  ASSERT_EQ(r.launches.size(), 1u);
  const Launch& l = r.launches[0];
  EXPECT_EQ(l.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  ASSERT_EQ(l.buffers.size(), 3u);
  EXPECT_EQ(l.buffers[1].data, b.data.data());
  EXPECT_EQ(l.buffers[1].elem_offset, 2);
  EXPECT_EQ(l.buffers[1].nbytes, 48u);
  EXPECT_EQ(l.scalars, std::vector<int64_t>{12});
}

TEST(GpuLaunchExecute, ArgumentErrors) {
  Library lib = add_library();
  Recorder r;
  FakeTensor a({4, 3}), b({4, 5}), out({4, 3});
  EXPECT_EQ(exec_error(lib, {a.any(), out.any()}, r),
            "function \"add\": expected 3 arguments, got 2");
  EXPECT_EQ(exec_error(lib, {a.any(), RxAnyInt(3), out.any()}, r),
            "function \"add\": argument 1 (\"B\") is an integer, expected a tensor");
  EXPECT_EQ(exec_error(lib, {a.any(), b.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") has shape [4, 5], expected [4, ?n] with n = 3 "
            "from argument 0");
  FakeTensor r3({4, 3, 1});
  EXPECT_EQ(exec_error(lib, {a.any(), r3.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") has shape [4, 3, 1], expected [4, ?n] with n = "
            "3 from argument 0");
  FakeTensor first({5, 3});
  EXPECT_EQ(exec_error(lib, {first.any(), a.any(), out.any()}, r),
            "function \"add\": argument 0 (\"A\") has shape [5, 3], expected [4, ?n]");
  FakeTensor cpu({4, 3}, kDLCPU);
  EXPECT_EQ(exec_error(lib, {a.any(), cpu.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") is on device cpu, expected vulkan");
  FakeTensor half({4, 3}, kDLVulkan, {kDLFloat, 16, 1});
  EXPECT_EQ(exec_error(lib, {a.any(), half.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") has dtype float16, expected float32");
  FakeTensor strided({4, 3});
  strided.strides = {1, 4};
  strided.t.strides = strided.strides.data();
  EXPECT_EQ(exec_error(lib, {a.any(), strided.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") has non-compact strides");
  strided.strides = {3, 1};  // compact strides spelled out are fine
  EXPECT_EQ(exec_error(lib, {a.any(), strided.any(), out.any()}, r), "");
  FakeTensor odd({4, 3});
  odd.t.byte_offset = 6;
  EXPECT_EQ(exec_error(lib, {a.any(), odd.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") has byte offset 6, not a multiple of its "
            "element size 4");
  FakeTensor far({4, 3});
  far.t.byte_offset = (uint64_t(1) << 31) * 4;
  EXPECT_EQ(exec_error(lib, {a.any(), far.any(), out.any()}, r),
            "function \"add\": argument 1 (\"B\") has element offset 2147483648, past int32");
}

TEST(GpuLaunchExecute, StepErrorsAndEmptyLaunches) {
  Recorder r;
  Library lib = add_library();
  lib.functions[0].steps[0].value = post({s(0), c(3), o(ExprOp::kLT)});
  lib.functions[0].steps[0].message = "n < 3";
  FakeTensor a({4, 3}), b({4, 3}), out({4, 3});
  EXPECT_EQ(exec_error(lib, {a.any(), b.any(), out.any()}, r),
            "function \"add\": assertion failed: n < 3");
  lib = add_library();
  lib.functions[0].steps[1].args[3].value = post({c(int64_t(1) << 40)});
  EXPECT_EQ(exec_error(lib, {a.any(), b.any(), out.any()}, r),
            "function \"add\": kernel \"add_kernel0\": scalar 0 is 1099511627776, which does not "
            "fit int32");
  lib = add_library();
  lib.functions[0].steps[1].grid[1] = post({c(-1)});
  EXPECT_NE(exec_error(lib, {a.any(), b.any(), out.any()}, r).find("grid dimension 1 is -1"),
            std::string::npos);
  // A zero-size tensor: no work-groups, no launch.
  FakeTensor za({4, 0}), zb({4, 0}), zo({4, 0});
  EXPECT_EQ(exec_error(add_library(), {za.any(), zb.any(), zo.any()}, r), "");
  EXPECT_TRUE(r.launches.empty());
}

TEST(GpuLaunchExecute, WorkspacesFreedOnEveryPath) {
  Library lib = workspace_library();
  FakeTensor a({4, 3}), b({4, 3}), out({4, 3});
  Recorder ok;
  EXPECT_EQ(exec_error(lib, {a.any(), b.any(), out.any()}, ok), "");
  EXPECT_EQ(ok.allocs, 1);
  EXPECT_EQ(ok.frees, 1);
  ASSERT_EQ(ok.launches.size(), 1u);
  EXPECT_EQ(ok.launches[0].buffers[1].nbytes, 12u);
  Recorder bad;
  bad.fail_launch = true;
  EXPECT_EQ(exec_error(lib, {a.any(), b.any(), out.any()}, bad), "device lost");
  EXPECT_EQ(bad.allocs, 1);
  EXPECT_EQ(bad.frees, 1);
}

}  // namespace
}  // namespace relax::gpu
