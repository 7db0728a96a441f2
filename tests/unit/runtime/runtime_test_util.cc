#include "runtime_test_util.h"

#include <mutex>

namespace relax::runtime::testing {

void register_test_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Like compiled kernels, each checks its argument count (damaged bytecode may call any
    // function with any arguments).
    auto reg = [](const char* name, size_t num_args, PackedFuncObj::Body body) {
      auto checked = [name, num_args, body](Args a) {
        check_num_args(name, a, num_args);
        return body(a);
      };
      Registry::register_func(name, checked, /*override_existing=*/true);
    };
    // Integer kernels wrap on overflow (two's complement), like compiled int64 code.
    auto i64 = [](const Value& v) { return uint64_t(v.as_int()); };
    auto wrap = [](uint64_t v) { return Value(int64_t(v)); };
    reg("test.add_int", 2, [=](Args a) { return wrap(i64(a[0]) + i64(a[1])); });
    reg("test.sub_int", 2, [=](Args a) { return wrap(i64(a[0]) - i64(a[1])); });
    reg("test.mul_int", 2, [=](Args a) { return wrap(i64(a[0]) * i64(a[1])); });
    reg("test.lt_int", 2, [](Args a) -> Value { return a[0].as_int() < a[1].as_int(); });
    reg("test.le_int", 2, [](Args a) -> Value { return a[0].as_int() <= a[1].as_int(); });
    reg("test.empty", 0, [](Args) -> Value { return {}; });
    // DPS kernel: out = a + b, elementwise float32.
    reg("test.add_f32", 3, [](Args a) -> Value {
      NDArray x = a[0].as_tensor(), y = a[1].as_tensor(), out = a[2].as_tensor();
      RX_CHECK(x.shape() == y.shape() && x.shape() == out.shape()) << "test.add_f32: shapes differ";
      for (int64_t i = 0; i < x.numel(); ++i)
        out.data_as<float>()[i] = x.data_as<float>()[i] + y.data_as<float>()[i];
      return {};
    });
    // The shape function VM shape lowering would generate: heap[dst] = heap[a] * heap[b] * k.
    reg("test.heap_mul", 5, [](Args a) -> Value {
      int64_t* heap = a[0].as_tensor().data_as<int64_t>();
      heap[a[1].as_int()] = heap[a[2].as_int()] * heap[a[3].as_int()] * a[4].as_int();
      return {};
    });
  });
}

Ref<Executable> build_symbolic_add() {
  register_test_kernels();
  ExecBuilder b;
  Arg f32 = b.add_constant("float32");
  Arg ctx_x = b.add_constant("main: parameter x: R.Tensor((n, m), \"float32\")");
  Arg ctx_y = b.add_constant("main: parameter y: R.Tensor((n, m), \"float32\")");
  auto store = Arg::imm(int64_t(MatchShapeMode::kStoreToHeap));
  auto load = Arg::imm(int64_t(MatchShapeMode::kAssertEqualToLoad));
  auto use_heap = Arg::imm(int64_t(MakeShapeMode::kLoadShape));
  b.begin_function("main", {"x", "y"});
  b.emit_call("vm.builtin.check_tensor_info", {Arg::reg(0), Arg::imm(2), f32, ctx_x});
  b.emit_call("vm.builtin.check_tensor_info", {Arg::reg(1), Arg::imm(2), f32, ctx_y});
  b.emit_call("vm.builtin.alloc_shape_heap", {Arg::imm(3)}, 2);
  b.emit_call("vm.builtin.match_shape", {Arg::reg(0), Arg::reg(2), Arg::imm(2), store, Arg::imm(0),
                                         store, Arg::imm(1), ctx_x});
  b.emit_call("vm.builtin.match_shape",
              {Arg::reg(1), Arg::reg(2), Arg::imm(2), load, Arg::imm(0), load, Arg::imm(1), ctx_y});
  b.emit_call("test.heap_mul", {Arg::reg(2), Arg::imm(2), Arg::imm(0), Arg::imm(1), Arg::imm(4)});
  b.emit_call("vm.builtin.make_shape", {Arg::reg(2), Arg::imm(1), use_heap, Arg::imm(2)}, 3);
  b.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), Arg::reg(3), Arg::imm(0)}, 4);
  b.emit_call("vm.builtin.make_shape",
              {Arg::reg(2), Arg::imm(2), use_heap, Arg::imm(0), use_heap, Arg::imm(1)}, 5);
  b.emit_call("vm.builtin.alloc_tensor", {Arg::reg(4), Arg::imm(0), Arg::reg(5), f32}, 6);
  b.emit_call("test.add_f32", {Arg::reg(0), Arg::reg(1), Arg::reg(6)});
  b.emit_ret(6);
  b.end_function();
  return b.get();
}

Ref<Executable> build_int_programs() {
  register_test_kernels();
  ExecBuilder b;
  // fact(n) = n <= 1 ? 1 : n * fact(n - 1)   (raw jump offsets)
  b.begin_function("fact", {"n"});
  b.emit_call("test.le_int", {Arg::reg(0), Arg::imm(1)}, 1);
  b.emit_if(1, 3);
  b.emit_call("vm.builtin.copy", {Arg::imm(1)}, 2);
  b.emit_ret(2);
  b.emit_call("test.sub_int", {Arg::reg(0), Arg::imm(1)}, 3);
  b.emit_call("fact", {Arg::reg(3)}, 4);
  b.emit_call("test.mul_int", {Arg::reg(0), Arg::reg(4)}, 5);
  b.emit_ret(5);
  b.end_function();
  // fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)   (labels)
  b.begin_function("fib", {"n"});
  Label recurse = b.new_label();
  b.emit_call("test.lt_int", {Arg::reg(0), Arg::imm(2)}, 1);
  b.emit_if(1, recurse);
  b.emit_ret(0);
  b.bind(recurse);
  b.emit_call("test.sub_int", {Arg::reg(0), Arg::imm(1)}, 2);
  b.emit_call("fib", {Arg::reg(2)}, 3);
  b.emit_call("test.sub_int", {Arg::reg(0), Arg::imm(2)}, 2);
  b.emit_call("fib", {Arg::reg(2)}, 4);
  b.emit_call("test.add_int", {Arg::reg(3), Arg::reg(4)}, 5);
  b.emit_ret(5);
  b.end_function();
  // sum_to(n) = 0 + 1 + ... + (n - 1), a loop with a backward goto.
  b.begin_function("sum_to", {"n"});
  Label loop = b.new_label(), done = b.new_label();
  b.emit_call("vm.builtin.copy", {Arg::imm(0)}, 1);  // i
  b.emit_call("vm.builtin.copy", {Arg::imm(0)}, 2);  // acc
  b.bind(loop);
  b.emit_call("test.lt_int", {Arg::reg(1), Arg::reg(0)}, 3);
  b.emit_if(3, done);
  b.emit_call("test.add_int", {Arg::reg(2), Arg::reg(1)}, 2);
  b.emit_call("test.add_int", {Arg::reg(1), Arg::imm(1)}, 1);
  b.emit_goto(loop);
  b.bind(done);
  b.emit_ret(2);
  b.end_function();
  return b.get();
}

Ref<Executable> build_single_call(const std::string& name, std::vector<Arg> args, int num_params,
                                  std::vector<Value> constants) {
  register_test_kernels();
  ExecBuilder b;
  for (Value& c : constants) b.add_constant(std::move(c));
  std::vector<std::string> params;
  for (int i = 0; i < num_params; ++i) params.push_back("p" + std::to_string(i));
  b.begin_function("main", params);
  RegName dst = num_params;
  b.emit_call(name, std::move(args), dst);
  b.emit_ret(dst);
  b.end_function();
  return b.get();
}

}  // namespace relax::runtime::testing
