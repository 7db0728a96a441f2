// VM overhead: time per Call instruction of an empty packed function, of a bytecode function,
// and per builtin. Each benchmark runs a bytecode function that repeats one Call kRepeat times;
// the `per_call` counter is the time of one Call (setup instructions are amortised over kRepeat).
//
//   build/bin/relax_vm_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <functional>

#include "relax/runtime/builtins.h"
#include "relax/runtime/exec_builder.h"
#include "relax/runtime/registry.h"
#include "relax/runtime/vm.h"

namespace relax::runtime {
namespace {

constexpr int kRepeat = 256;

/// main(p0..pk): setup(b), then kRepeat × call `name`(args) → dst, then ret.
Ref<Executable> repeated(const std::string& name, std::vector<Arg> args, int num_params,
                         const std::function<void(ExecBuilder&)>& setup = {}) {
  ExecBuilder b;
  Arg f32 = b.add_constant("float32");
  (void)f32;                      // constant 0 is "float32" for the builtins below
  b.add_constant(Shape({4, 8}));  // constant 1
  std::vector<std::string> params;
  for (int i = 0; i < num_params; ++i) params.push_back("p" + std::to_string(i));
  b.begin_function("main", params);
  if (setup) setup(b);
  for (int i = 0; i < kRepeat; ++i) b.emit_call(name, args, 15);
  b.emit_ret(15);
  b.end_function();
  return b.get();
}

void run(benchmark::State& state, const Ref<Executable>& exec, std::vector<Value> params) {
  auto vm = VirtualMachine::create(exec);
  for (auto _ : state) benchmark::DoNotOptimize(vm->invoke("main", params));
  state.counters["per_call"] = benchmark::Counter(
      kRepeat, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void register_bench_functions() {
  Registry::register_func(
      "bench.empty", [](Args) -> Value { return {}; }, true);
}

void BM_EmptyPackedCall(benchmark::State& state) {
  register_bench_functions();
  run(state, repeated("bench.empty", {}, 0), {});
}
BENCHMARK(BM_EmptyPackedCall);

void BM_EmptyPackedCall3Args(benchmark::State& state) {
  register_bench_functions();
  run(state, repeated("bench.empty", {Arg::reg(0), Arg::imm(7), Arg::const_index(1)}, 1),
      {NDArray::empty({4}, DataType::Float(32))});
}
BENCHMARK(BM_EmptyPackedCall3Args);

void BM_BytecodeCall(benchmark::State& state) {
  ExecBuilder b;
  b.begin_function("identity", {"x"});
  b.emit_ret(0);
  b.end_function();
  b.begin_function("main", {"x"});
  for (int i = 0; i < kRepeat; ++i) b.emit_call("identity", {Arg::reg(0)}, 1);
  b.emit_ret(1);
  b.end_function();
  run(state, b.get(), {Value(int64_t(1))});
}
BENCHMARK(BM_BytecodeCall);

void BM_Builtin_make_shape(benchmark::State& state) {
  auto load = Arg::imm(int64_t(MakeShapeMode::kLoadShape));
  run(state,
      repeated(
          "vm.builtin.make_shape", {Arg::reg(0), Arg::imm(2), load, Arg::imm(0), load, Arg::imm(1)},
          0, [](ExecBuilder& b) { b.emit_call("vm.builtin.alloc_shape_heap", {Arg::imm(2)}, 0); }),
      {});
}
BENCHMARK(BM_Builtin_make_shape);

void BM_Builtin_match_shape(benchmark::State& state) {
  auto store = Arg::imm(int64_t(MatchShapeMode::kStoreToHeap));
  run(state,
      repeated(
          "vm.builtin.match_shape",
          {Arg::reg(0), Arg::reg(1), Arg::imm(2), store, Arg::imm(0), store, Arg::imm(1),
           Arg::const_index(0)},
          1, [](ExecBuilder& b) { b.emit_call("vm.builtin.alloc_shape_heap", {Arg::imm(2)}, 1); }),
      {NDArray::empty({4, 8}, DataType::Float(32))});
}
BENCHMARK(BM_Builtin_match_shape);

void BM_Builtin_alloc_storage(benchmark::State& state) {
  run(state, repeated("vm.builtin.alloc_storage", {Arg::vm_state(), Arg::imm(128), Arg::imm(0)}, 0),
      {});
}
BENCHMARK(BM_Builtin_alloc_storage);

void BM_Builtin_alloc_tensor(benchmark::State& state) {
  run(state,
      repeated("vm.builtin.alloc_tensor",
               {Arg::reg(0), Arg::imm(0), Arg::const_index(1), Arg::const_index(0)}, 0,
               [](ExecBuilder& b) {
                 b.emit_call("vm.builtin.alloc_storage",
                             {Arg::vm_state(), Arg::imm(128), Arg::imm(0)}, 0);
               }),
      {});
}
BENCHMARK(BM_Builtin_alloc_tensor);

void BM_Builtin_check_tensor_info(benchmark::State& state) {
  run(state,
      repeated("vm.builtin.check_tensor_info",
               {Arg::reg(0), Arg::imm(2), Arg::const_index(0), Arg::const_index(0)}, 1),
      {NDArray::empty({4, 8}, DataType::Float(32))});
}
BENCHMARK(BM_Builtin_check_tensor_info);

void BM_Builtin_shape_of(benchmark::State& state) {
  run(state, repeated("vm.builtin.shape_of", {Arg::reg(0)}, 1),
      {NDArray::empty({4, 8}, DataType::Float(32))});
}
BENCHMARK(BM_Builtin_shape_of);

void BM_Builtin_reshape(benchmark::State& state) {
  run(state, repeated("vm.builtin.reshape", {Arg::reg(0), Arg::const_index(1)}, 1),
      {NDArray::empty({32}, DataType::Float(32))});
}
BENCHMARK(BM_Builtin_reshape);

void BM_Builtin_tuple_getitem(benchmark::State& state) {
  run(state, repeated("vm.builtin.tuple_getitem", {Arg::reg(0), Arg::imm(1)}, 1),
      {Tuple({Value(1), Value(2), Value(3)})});
}
BENCHMARK(BM_Builtin_tuple_getitem);

}  // namespace
}  // namespace relax::runtime

BENCHMARK_MAIN();
