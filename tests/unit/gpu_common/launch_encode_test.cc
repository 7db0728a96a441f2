// The compiler half of the GPU kernel library (launch_encode.h) on real lowered programs
// (legalised ops scheduled by the default GPU rules): the launch tables of a static, a
// symbolic and a workspace-allocating function checked structurally, the encoder's errors,
// and an end-to-end run on a fake device — build_library, serialise, execute() with a launch
// callback that runs each kernel in the reference interpreter over host memory at element
// offsets — against the unscheduled function.
#include "launch_encode.h"

#include <map>

#include "../ops/op_test_util.h"
#include "relax/kernel/gpu_rules.h"
#include "relax/op/nn.h"
#include "relax/text/parser.h"

namespace relax::gpu {
namespace {

using ops_test::kF32;
using ops_test::OpRunner;
using ops_test::random;

/// A legalised op: its PrimFunc, inputs and the unscheduled function's outputs.
struct OpCase {
  std::string name;
  Ref<tir::PrimFunc> func;
  std::vector<runtime::NDArray> inputs, outputs;
};

OpCase op_case(const std::string& name, OpRunner& r, const relax::Expr& call,
               const std::vector<std::pair<Ref<relax::Var>, runtime::NDArray>>& inputs) {
  OpCase c{name, {}, {}, r.run(call, inputs)};
  c.func = r.prim_func;
  for (const auto& [v, a] : inputs) c.inputs.push_back(a);
  return c;
}

Ref<tir::Var> sym_n() { return tir::var("n"); }

OpCase add_case(bool symbolic, int64_t rows) {
  OpRunner r;
  PrimExpr d0 = symbolic ? PrimExpr(sym_n()) : tir::int_imm(rows);
  auto x = r.param("x", {d0, tir::int_imm(4)}, kF32);
  auto y = r.param("y", {d0, tir::int_imm(4)}, kF32);
  return op_case("add", r, op::add(x, y),
                 {{x, random({rows, 4}, kF32, 1)}, {y, random({rows, 4}, kF32, 2)}});
}

OpCase sum_case() {
  OpRunner r;
  auto x = r.param("x", std::vector<int64_t>{4, 300}, kF32);
  return op_case("sum", r, op::sum(x, std::vector<int64_t>{1}, false),
                 {{x, random({4, 300}, kF32, 3)}});
}

OpCase softmax_case(int64_t rows) {
  OpRunner r;
  auto x = r.param("x", {PrimExpr(sym_n()), tir::int_imm(40)}, kF32);
  return op_case("softmax", r, op::softmax(x, -1), {{x, random({rows, 40}, kF32, 4)}});
}

OpCase matmul_case() {
  OpRunner r;
  auto x = r.param("x", std::vector<int64_t>{8, 16}, kF32);
  auto w = r.param("w", std::vector<int64_t>{16, 8}, kF32);
  return op_case("matmul", r, op::matmul(x, w),
                 {{x, random({8, 16}, kF32, 5)}, {w, random({16, 8}, kF32, 6)}});
}

/// The message of the std::exception `f` throws ("" when none).
std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

tir::GpuProgram lowered(const OpCase& c) {
  tir::GpuLimits limits;
  return tir::lower_for_gpu(tir::apply_default_gpu_schedule(c.func, limits, c.name).func, limits,
                            c.name);
}

size_t count_steps(const FunctionTable& f, Step::Kind kind) {
  size_t n = 0;
  for (const Step& s : f.steps) n += s.kind == kind;
  return n;
}

TEST(GpuLaunchEncode, StaticReduction) {
  tir::GpuProgram p = lowered(sum_case());
  FunctionTable f = encode_host(p, "sum", 3);
  EXPECT_EQ(f.name, "sum");
  ASSERT_EQ(f.params.size(), 2u);
  EXPECT_EQ(f.params[0].kind, ParamSpec::Kind::kBuffer);
  EXPECT_EQ(f.params[0].shape.size(), 2u);
  EXPECT_EQ(f.params[0].shape[0].slot, -1);
  EXPECT_EQ(f.params[0].shape[1].value, 300);
  EXPECT_EQ(f.params[1].shape[0].value, 4);
  EXPECT_EQ(f.num_slots, 0);
  ASSERT_EQ(f.steps.size(), 1u);
  const Step& l = f.steps[0];
  EXPECT_EQ(l.kind, Step::Kind::kLaunch);
  EXPECT_EQ(l.kernel, 3);  // first_kernel + 0
  EXPECT_EQ(eval(l.grid[0], {}), 4);
  ASSERT_EQ(l.args.size(), 2u);
  EXPECT_EQ(l.args[0].kind, LaunchArg::Kind::kParam);
  EXPECT_EQ(l.args[1].index, 1);
  KernelInfo k = kernel_info(p.kernels[0]);
  EXPECT_EQ(k.name, "sum_kernel0");
  EXPECT_EQ(k.block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(k.shared_bytes, 1024u);
  EXPECT_EQ(k.buffer_dtypes.size(), 2u);
  EXPECT_TRUE(k.scalar_dtypes.empty());
  EXPECT_TRUE(k.code.empty());
}

TEST(GpuLaunchEncode, SymbolicShape) {
  FunctionTable f = encode_host(lowered(add_case(true, 3)), "add", 0);
  ASSERT_EQ(f.num_slots, 1);
  EXPECT_EQ(f.slot_names[0], "n");
  for (const ParamSpec& p : f.params) {
    EXPECT_EQ(p.shape[0].slot, 0);
    EXPECT_EQ(p.shape[1].value, 4);
  }
  // The narrowing and grid checks hold for n = 3 and the 32-bit ones fail for n = 2^30.
  EXPECT_GE(count_steps(f, Step::Kind::kAssert), 3u);
  for (const Step& s : f.steps)
    if (s.kind == Step::Kind::kAssert) {
      EXPECT_EQ(eval(s.value, {3}), 1) << s.message;
    }
  bool caught = false;
  for (const Step& s : f.steps)
    if (s.kind == Step::Kind::kAssert && eval(s.value, {int64_t(1) << 30}) == 0) caught = true;
  EXPECT_TRUE(caught);
  const Step& l = f.steps.back();
  ASSERT_EQ(l.kind, Step::Kind::kLaunch);
  EXPECT_EQ(eval(l.grid[0], {3}), 1);
  EXPECT_EQ(eval(l.grid[0], {1000}), 16);  // (4000 + 255) // 256
}

TEST(GpuLaunchEncode, Workspaces) {
  FunctionTable f = encode_host(lowered(softmax_case(5)), "softmax", 0);
  EXPECT_EQ(f.num_workspaces, 2);
  ASSERT_EQ(count_steps(f, Step::Kind::kAlloc), 2u);
  for (const Step& s : f.steps)
    if (s.kind == Step::Kind::kAlloc) {
      EXPECT_EQ(eval(s.value, {5}), 20);  // n float32s
    }
  ASSERT_EQ(count_steps(f, Step::Kind::kLaunch), 3u);
  const Step& last = f.steps.back();
  // Buffers, workspaces, then the shape variable n the kernel reads (kernel/gpu_lower.h).
  ASSERT_EQ(last.args.size(), 5u);
  EXPECT_EQ(last.args[2].kind, LaunchArg::Kind::kWorkspace);
  EXPECT_EQ(last.args[3].kind, LaunchArg::Kind::kWorkspace);
  EXPECT_NE(last.args[2].index, last.args[3].index);
  ASSERT_EQ(last.args[4].kind, LaunchArg::Kind::kScalar);
  EXPECT_EQ(eval(last.args[4].value, {5}), 5);
}

TEST(GpuLaunchEncode, Errors) {
  Ref<tir::PrimFunc> host = parse_prim_func(R"(
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
)");
  std::string e = test::error_of([&] { encode_host(tir::GpuProgram{host, {}}, "f", 0); });
  EXPECT_NE(e.find("GPU launch table of function \"f\": statement"), std::string::npos) << e;
  EXPECT_NE(e.find("outside any kernel"), std::string::npos) << e;
  Ref<tir::PrimFunc> scalar = parse_prim_func(R"(
@T.prim_func
def g(A: T.Buffer((4,), "float32"), x: T.float32):
    T.evaluate(0)
)");
  e = test::error_of([&] { encode_host(tir::GpuProgram{scalar, {}}, "g", 0); });
  EXPECT_NE(e.find("scalar parameter x has dtype float32"), std::string::npos) << e;
  tir::GpuProgram p = lowered(sum_case());
  tir::GpuKernel k = p.kernels[0];
  k.block[1] = sym_n();
  e = test::error_of([&] { kernel_info(k); });
  EXPECT_NE(e.find("kernel sum_kernel0: block dimension 1 is n"), std::string::npos) << e;
}

// ---- the fake device -------------------------------------------------------------------

/// "Device" memory: host NDArrays, a tensor placed `offset` elements into its allocation.
class FakeDevice {
 public:
  struct Tensor {
    runtime::NDArray backing;  ///< offset + numel elements
    std::vector<int64_t> shape;
    DLTensor t{};
  };

  /// A device tensor holding a copy of `a` (or 0xFF bytes when `fill` is false).
  Tensor& upload(const runtime::NDArray& a, int64_t offset, bool fill = true) {
    auto& t = tensors_.emplace_back(std::make_unique<Tensor>());
    t->shape = a.shape();
    size_t elem = size_t(a.dtype().bytes());
    t->backing = runtime::NDArray::empty({offset + a.numel()}, a.dtype());
    std::memset(t->backing.data(), 0xFF, t->backing.nbytes());
    if (fill)
      std::memcpy(static_cast<char*>(t->backing.data()) + offset * elem, a.data(), a.nbytes());
    t->t.data = t->backing.data();
    t->t.device = {kDLVulkan, 0};
    t->t.ndim = int32_t(t->shape.size());
    t->t.dtype = runtime::to_dl(a.dtype());
    t->t.shape = t->shape.data();
    t->t.byte_offset = uint64_t(offset) * elem;
    by_data_[t->t.data] = t.get();
    return *t;
  }

  ExecCallbacks callbacks(const std::vector<tir::GpuKernel>& kernels) {
    ExecCallbacks cb;
    cb.alloc_workspace = [this](uint64_t n) {
      runtime::NDArray w = runtime::NDArray::empty({int64_t(n)}, DataType::UInt(8));
      workspaces_[w.data()] = w;
      return w.data();
    };
    cb.free_workspace = [this](void* p) { workspaces_.erase(p); };
    cb.launch = [this, &kernels](const Launch& l) { run(kernels.at(size_t(l.kernel)), l); };
    return cb;
  }
  size_t live_workspaces() const { return workspaces_.size(); }

 private:
  void run(const tir::GpuKernel& k, const Launch& l) {
    std::vector<tir::InterpArg> args;
    size_t b = 0;
    for (const Ref<tir::Var>& p : k.func->params) {
      Ref<tir::Buffer> buf = k.func->buffer_of(p);
      if (!buf.defined()) continue;
      const BufferArg& a = l.buffers.at(b++);
      int64_t elem = buf->dtype.bytes();
      if (auto it = by_data_.find(a.data); it != by_data_.end()) {
        args.push_back(
            it->second->backing.view(it->second->shape, buf->dtype, a.elem_offset * elem));
      } else {
        const runtime::NDArray& w = workspaces_.at(a.data);
        args.push_back(w.view({int64_t(a.nbytes) / elem}, buf->dtype, 0));
      }
    }
    ASSERT_EQ(b, l.buffers.size());
    for (int64_t s : l.scalars) args.push_back(s);
    tir::interpret(k.func, args);
  }

  std::vector<std::unique_ptr<Tensor>> tensors_;
  std::map<void*, Tensor*> by_data_;
  std::map<void*, runtime::NDArray> workspaces_;
};

/// Builds `c` into a library (a codegen that keeps the kernels aside), serialises it, runs it
/// on the fake device with every tensor `offset` elements into its allocation, and compares
/// with the unscheduled function's outputs.
void run_on_fake_device(const OpCase& c, int64_t offset) {
  tir::GpuLimits limits;
  Ref<tir::PrimFunc> scheduled = tir::apply_default_gpu_schedule(c.func, limits, c.name).func;
  std::vector<tir::GpuKernel> kernels;
  Library built = build_library(
      "fake", {{c.name, scheduled}}, limits,
      [&](const tir::GpuKernel& k, KernelInfo& info, Library&) { kernels.push_back(k); });
  ASSERT_EQ(kernels.size(), built.kernels.size());
  std::vector<uint8_t> bytes = serialize(built);
  Library lib = deserialize(bytes.data(), bytes.size());
  FakeDevice dev;
  std::vector<RxAny> args;
  for (const runtime::NDArray& a : c.inputs) args.push_back(RxAnyTensor(&dev.upload(a, offset).t));
  std::vector<FakeDevice::Tensor*> outs;
  for (const runtime::NDArray& o : c.outputs) {
    outs.push_back(&dev.upload(o, offset, false));
    args.push_back(RxAnyTensor(&outs.back()->t));
  }
  execute(lib, lib.functions[0], args.data(), int32_t(args.size()), kDLVulkan,
          dev.callbacks(kernels));
  EXPECT_EQ(dev.live_workspaces(), 0u);
  for (size_t i = 0; i < outs.size(); ++i) {
    runtime::NDArray got = outs[i]->backing.view(outs[i]->shape, c.outputs[i].dtype(),
                                                 offset * c.outputs[i].dtype().bytes());
    EXPECT_TRUE(test::tensors_close(got, c.outputs[i], 1e-5, 1e-5))
        << c.name << " output " << i << " at offset " << offset;
  }
}

TEST(GpuLaunchFakeDevice, MatchesTheInterpreter) {
  for (int64_t offset : {0, 3}) {
    run_on_fake_device(add_case(false, 5), offset);
    run_on_fake_device(add_case(true, 7), offset);
    run_on_fake_device(sum_case(), offset);
    run_on_fake_device(softmax_case(6), offset);
    run_on_fake_device(matmul_case(), offset);
  }
}

// A compound dimension (B: n * 2) binds a slot of its own, checked by an assert.
TEST(GpuLaunchFakeDevice, CompoundDimension) {
  Ref<tir::PrimFunc> f = parse_prim_func(R"(
@T.prim_func
def dup(a: T.handle, b: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n * 2,), "float32")
    for bx in T.thread_binding((n * 2 + 63) // 64, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            if bx * 64 + tx < n * 2:
                B[bx * 64 + tx] = A[(bx * 64 + tx) // 2]
)");
  FunctionTable t = encode_host(tir::lower_for_gpu(f, tir::GpuLimits{}, "dup"), "dup", 0);
  ASSERT_EQ(t.params.size(), 2u);
  ASSERT_EQ(t.params[1].shape[0].slot, 1);
  EXPECT_EQ(t.slot_names[1], "B.shape[0]");
  ASSERT_EQ(t.steps[0].kind, Step::Kind::kAssert);
  EXPECT_EQ(eval(t.steps[0].value, {3, 6}), 1);
  EXPECT_EQ(eval(t.steps[0].value, {3, 5}), 0);
  EXPECT_EQ(t.steps[0].message, "B.shape[0] must equal n * 2");

  OpCase c{"dup", f, {ops_test::random({5}, kF32, 9)}, {runtime::NDArray::empty({10}, kF32)}};
  tir::interpret(tir::lower(f), {c.inputs[0], c.outputs[0]});
  run_on_fake_device(c, 2);

  Library lib = build_library("fake", {{"dup", f}}, tir::GpuLimits{}, nullptr);
  FakeDevice dev;
  FakeDevice::Tensor& a = dev.upload(c.inputs[0], 0);
  FakeDevice::Tensor& bad = dev.upload(c.inputs[0], 0);  // 5 elements, not 10
  std::vector<RxAny> args = {RxAnyTensor(&a.t), RxAnyTensor(&bad.t)};
  std::vector<tir::GpuKernel> none;
  EXPECT_EQ(what_of([&] {
              execute(lib, lib.functions[0], args.data(), 2, kDLVulkan, dev.callbacks(none));
            }),
            "function \"dup\": assertion failed: B.shape[0] must equal n * 2");
}

TEST(GpuLaunchFakeDevice, RequirementsAndErrors) {
  tir::GpuLimits limits;
  OpCase c = matmul_case();
  Library lib =
      build_library("fake", {{"mm", tir::apply_default_gpu_schedule(c.func, limits, "mm").func}},
                    limits, nullptr);
  EXPECT_EQ(lib.requirements.at("max-threads-per-block"), "256");
  EXPECT_EQ(lib.requirements.at("shared-bytes"), "2048");
  FakeDevice dev;
  std::vector<tir::GpuKernel> none;
  FakeDevice::Tensor& x = dev.upload(c.inputs[0], 0);
  FakeDevice::Tensor& w = dev.upload(c.inputs[1], 0);
  std::vector<RxAny> args = {RxAnyTensor(&x.t), RxAnyTensor(&w.t), RxAnyTensor(&x.t)};
  std::string e = what_of(
      [&] { execute(lib, lib.functions[0], args.data(), 3, kDLVulkan, dev.callbacks(none)); });
  EXPECT_EQ(e, "function \"mm\": argument 2 (\"matmul\") has shape [8, 16], expected [8, 8]");
}

}  // namespace
}  // namespace relax::gpu
