// The VM: every instruction and argument kind, recursion, If, closures, packed functions
// registered from C++, symbolic shapes with several shapes, and argument errors.
#include "relax/runtime/vm.h"

#include <chrono>
#include <thread>

#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

using testing::error_of;
using testing::f32;
using testing::iota_f32;
using testing::values_of;

TEST(VM, SymbolicAddRunsWithSeveralShapes) {
  auto vm = VirtualMachine::create(testing::build_symbolic_add());
  for (std::vector<int64_t> shape : {std::vector<int64_t>{2, 3}, {1, 1}, {4, 5}, {7, 1}, {0, 3}}) {
    NDArray x = iota_f32(shape, 0), y = iota_f32(shape, 100);
    NDArray out = vm->invoke("main", {x, y}).as_tensor();
    ASSERT_EQ(out.shape(), shape);
    EXPECT_EQ(out.dtype(), DataType::Float(32));
    for (int64_t i = 0; i < out.numel(); ++i)
      EXPECT_EQ(out.data_as<float>()[i], 100.0f + 2.0f * float(i));
    EXPECT_FALSE(out.data() == x.data() || out.data() == y.data());
  }
}

TEST(VM, ShapeMismatchAgainstBoundSymbolNamesParameterAndBothShapes) {
  auto vm = VirtualMachine::create(testing::build_symbolic_add());
  std::string msg = error_of([&] { vm->invoke("main", {iota_f32({2, 3}), iota_f32({5, 3})}); });
  EXPECT_NE(msg.find("parameter y"), std::string::npos) << msg;
  EXPECT_NE(msg.find("R.Tensor((n, m), \"float32\")"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dimension 0 is 5 but 2 was expected"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected shape (2, 3), actual shape (5, 3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in function 'main', instruction 4 (call vm.builtin.match_shape)"),
            std::string::npos)
      << msg;
}

TEST(VM, WrongRankAndDtypeNameParameterAndShapes) {
  auto vm = VirtualMachine::create(testing::build_symbolic_add());
  std::string rank = error_of([&] { vm->invoke("main", {iota_f32({2, 3, 4}), iota_f32({2, 3})}); });
  EXPECT_NE(rank.find("parameter x: R.Tensor((n, m), \"float32\"): expected a tensor of rank 2 and "
                      "dtype float32, "
                      "got a tensor of shape (2, 3, 4) and dtype float32"),
            std::string::npos)
      << rank;
  NDArray ints = NDArray::empty({2, 3}, DataType::Int(32));
  std::string dtype = error_of([&] { vm->invoke("main", {iota_f32({2, 3}), ints}); });
  EXPECT_NE(dtype.find("parameter y"), std::string::npos) << dtype;
  EXPECT_NE(dtype.find("got a tensor of shape (2, 3) and dtype int32"), std::string::npos) << dtype;
  std::string kind = error_of([&] { vm->invoke("main", {Value(int64_t(3)), iota_f32({2, 3})}); });
  EXPECT_NE(kind.find("parameter x"), std::string::npos) << kind;
  EXPECT_NE(kind.find("got int 3"), std::string::npos) << kind;
}

TEST(VM, WrongArgumentCountAndUnknownFunction) {
  auto vm = VirtualMachine::create(testing::build_symbolic_add());
  std::string count = error_of([&] { vm->invoke("main", {iota_f32({2, 3})}); });
  EXPECT_NE(count.find("function 'main' takes 2 arguments (x, y), got 1"), std::string::npos)
      << count;
  std::string name = error_of([&] { vm->invoke("nope", {}); });
  EXPECT_NE(name.find("no function named 'nope'"), std::string::npos) << name;
}

TEST(VM, RecursiveBytecodeFunctions) {
  auto vm = VirtualMachine::create(testing::build_int_programs());
  EXPECT_EQ(vm->invoke("fact", {Value(int64_t(1))}).as_int(), 1);
  EXPECT_EQ(vm->invoke("fact", {Value(int64_t(10))}).as_int(), 3628800);
  EXPECT_EQ(vm->invoke("fact", {Value(int64_t(20))}).as_int(), 2432902008176640000LL);
  int64_t expected[] = {0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55};
  for (int64_t n = 0; n <= 10; ++n) EXPECT_EQ(vm->invoke("fib", {Value(n)}).as_int(), expected[n]);
  EXPECT_EQ(vm->invoke("fib", {Value(int64_t(20))}).as_int(), 6765);
}

TEST(VM, LoopWithGotoAndIf) {
  auto vm = VirtualMachine::create(testing::build_int_programs());
  EXPECT_EQ(vm->invoke("sum_to", {Value(int64_t(0))}).as_int(), 0);
  EXPECT_EQ(vm->invoke("sum_to", {Value(int64_t(1))}).as_int(), 0);
  EXPECT_EQ(vm->invoke("sum_to", {Value(int64_t(101))}).as_int(), 5050);
}

TEST(VM, RunawayRecursionAndLoopsBecomeErrors) {
  auto exec = testing::build_int_programs();
  VMOptions options;
  options.max_call_depth = 100;
  auto shallow = VirtualMachine::create(exec, {{kDLCPU, 0}}, options);
  EXPECT_EQ(shallow->invoke("fact", {Value(int64_t(50))}).as_int() != 0, true);
  std::string deep = error_of([&] { shallow->invoke("fact", {Value(int64_t(500))}); });
  EXPECT_NE(deep.find("call stack overflow"), std::string::npos) << deep;
  EXPECT_NE(deep.find("called from 'fact'"), std::string::npos) << deep;
  // The VM is reusable after an error.
  EXPECT_EQ(shallow->invoke("fact", {Value(int64_t(5))}).as_int(), 120);
  options.max_instructions = 1000;
  auto limited = VirtualMachine::create(exec, {{kDLCPU, 0}}, options);
  std::string steps = error_of([&] { limited->invoke("sum_to", {Value(int64_t(1000000))}); });
  EXPECT_NE(steps.find("instruction limit of 1000 exceeded"), std::string::npos) << steps;
  EXPECT_EQ(limited->invoke("sum_to", {Value(int64_t(10))}).as_int(), 45);
}

TEST(VM, IfRejectsNonIntegerCondition) {
  ExecBuilder b;
  b.begin_function("main", {"c"});
  b.emit_if(0, 2);
  b.emit_ret(0);
  b.emit_ret(0);
  b.end_function();
  auto vm = VirtualMachine::create(b.get());
  EXPECT_EQ(vm->invoke("main", {Value(true)}).as_bool(), true);
  EXPECT_EQ(vm->invoke("main", {Value(int64_t(0))}).as_int(), 0);
  std::string msg = error_of([&] { vm->invoke("main", {Value("yes")}); });
  EXPECT_NE(msg.find("the condition must be an int or a bool, got string \"yes\""),
            std::string::npos)
      << msg;
}

TEST(VM, ClosuresCaptureValuesAndReenterTheVM) {
  testing::register_test_kernels();
  ExecBuilder b;
  b.begin_function("add_captured", {"c", "x"});
  b.emit_call("test.add_int", {Arg::reg(0), Arg::reg(1)}, 2);
  b.emit_ret(2);
  b.end_function();
  b.begin_function("main", {"x"});
  b.emit_call("vm.builtin.make_closure", {b.function_arg("add_captured"), Arg::imm(10)}, 1);
  b.emit_call("vm.builtin.invoke_closure", {Arg::reg(1), Arg::reg(0)}, 2);
  b.emit_ret(2);
  b.end_function();
  b.begin_function("make", {"c"});
  b.emit_call("vm.builtin.make_closure", {b.function_arg("add_captured"), Arg::reg(0)}, 1);
  b.emit_ret(1);
  b.end_function();
  auto vm = VirtualMachine::create(b.get());
  EXPECT_EQ(vm->invoke("main", {Value(int64_t(5))}).as_int(), 15);
  // A closure returned to C++ stays callable while its VM lives.
  PackedFunc add7 = vm->invoke("make", {Value(int64_t(7))}).as_function();
  EXPECT_EQ(add7.call(int64_t(1)).as_int(), 8);
  EXPECT_EQ(vm->get_function("add_captured").call(int64_t(2), int64_t(3)).as_int(), 5);
  vm.reset();
  std::string msg = error_of([&] { add7.call(int64_t(1)); });
  EXPECT_NE(msg.find("after its VirtualMachine was destroyed"), std::string::npos) << msg;
}

TEST(VM, CallsPackedFunctionRegisteredFromCpp) {
  int calls = 0;
  Registry::register_func(
      "vm_test.scale",
      [&calls](Args a) -> Value {
        ++calls;
        NDArray t = a[0].as_tensor();
        NDArray out = t.copy();
        for (int64_t i = 0; i < out.numel(); ++i) out.data_as<float>()[i] *= float(a[1].as_float());
        return out;
      },
      true);
  ExecBuilder b;
  Arg three = b.add_constant(3.0);
  b.begin_function("main", {"x"});
  b.emit_call("vm_test.scale", {Arg::reg(0), three}, 1);
  b.emit_ret(1);
  b.end_function();
  Ref<Executable> exec = b.get();
  auto vm = VirtualMachine::create(exec);
  NDArray out = vm->invoke("main", {f32({3}, {1, 2, 3})}).as_tensor();
  EXPECT_EQ(values_of(out), (std::vector<float>{3, 6, 9}));
  EXPECT_EQ(calls, 1);
  // Names are resolved at creation: a function registered later is not seen by this VM,
  // and re-registering does not change the one it resolved.
  Registry::register_func(
      "vm_test.scale", [](Args) -> Value { return int64_t(-1); }, true);
  EXPECT_TRUE(vm->invoke("main", {f32({1}, {1})}).is(ValueKind::kTensor));
  EXPECT_EQ(VirtualMachine::create(exec)->invoke("main", {f32({1}, {1})}).as_int(), -1);
  Registry::remove("vm_test.scale");
}

TEST(VM, ProfileTimesPackedCallsByNameSlowestFirst) {
  Registry::register_func(
      "vm_test.slow",
      [](Args a) -> Value {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return a[0];
      },
      true);
  Registry::register_func("vm_test.fast", [](Args a) -> Value { return a[0]; }, true);
  ExecBuilder b;
  b.begin_function("main", {"x"});
  b.emit_call("vm_test.fast", {Arg::reg(0)}, 1);
  b.emit_call("vm_test.slow", {Arg::reg(1)}, 2);
  b.emit_call("vm_test.slow", {Arg::reg(2)}, 3);
  b.emit_ret(3);
  b.end_function();
  Ref<Executable> exec = b.get();
  // Off by default: nothing is recorded.
  auto plain = VirtualMachine::create(exec);
  plain->invoke("main", {Value(int64_t(7))});
  EXPECT_TRUE(plain->profile().empty());
  EXPECT_EQ(plain->profiled_runs(), 0);

  VMOptions options;
  options.profile = true;
  auto vm = VirtualMachine::create(exec, {{kDLCPU, 0}}, options);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(vm->invoke("main", {Value(int64_t(7))}).as_int(), 7);
  std::vector<CallProfile> p = vm->profile();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].name, "vm_test.slow");  // two call sites, one entry
  EXPECT_EQ(p[0].calls, 6);
  EXPECT_GE(p[0].seconds, 6 * 0.002);
  EXPECT_EQ(p[1].name, "vm_test.fast");
  EXPECT_EQ(p[1].calls, 3);
  EXPECT_LT(p[1].seconds, p[0].seconds);
  EXPECT_EQ(vm->profiled_runs(), 3);
  vm->reset_profile();
  EXPECT_TRUE(vm->profile().empty());
  EXPECT_EQ(vm->profiled_runs(), 0);
  vm->invoke("main", {Value(int64_t(7))});
  EXPECT_EQ(vm->profile()[0].calls, 2);
  Registry::remove("vm_test.slow");
  Registry::remove("vm_test.fast");
}

TEST(VM, MissingPackedFunctionFailsAtCreation) {
  ExecBuilder b;
  b.begin_function("main", {});
  b.emit_call("vm_test.does_not_exist", {}, 0);
  b.emit_ret(0);
  b.end_function();
  std::string msg = error_of([&] { VirtualMachine::create(b.get()); });
  EXPECT_NE(msg.find("function 'vm_test.does_not_exist' is not defined"), std::string::npos) << msg;
}

TEST(VM, ArgumentKindsRegisterImmediateConstantFunction) {
  testing::register_test_kernels();
  ExecBuilder b;
  Arg shape = b.add_constant(Shape({4, 5}));
  Arg tensor = b.add_constant(f32({2}, {1.5f, 2.5f}));
  b.begin_function("helper", {});
  b.emit_call("vm.builtin.null_value", {}, 0);
  b.emit_ret(0);
  b.end_function();
  b.begin_function("main", {"r"});
  b.emit_call("vm.builtin.make_tuple",
              {Arg::reg(0), Arg::imm(-42), Arg::imm(kMaxImmediate), shape, tensor,
               b.function_arg("helper"), b.function_arg("test.add_int"), Arg::vm_state()},
              1);
  b.emit_ret(1);
  b.end_function();
  auto vm = VirtualMachine::create(b.get());
  Tuple t = vm->invoke("main", {Value("reg")}).as_tuple();
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[0].as_string(), "reg");
  EXPECT_EQ(t[1].as_int(), -42);
  EXPECT_EQ(t[2].as_int(), kMaxImmediate);
  EXPECT_EQ(t[3].as_shape().dims(), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(values_of(t[4].as_tensor()), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_TRUE(t[5].as_function()(Args()).is_null());
  EXPECT_EQ(t[6].as_function().call(int64_t(2), int64_t(40)).as_int(), 42);
  EXPECT_TRUE(t[7].as_object_of<VMContextObj>().defined());
}

TEST(VM, ErrorsInsideNestedCallsCarryATraceback) {
  testing::register_test_kernels();
  ExecBuilder b;
  b.begin_function("inner", {"t"});
  b.emit_call("vm.builtin.tuple_getitem", {Arg::reg(0), Arg::imm(5)}, 1);
  b.emit_ret(1);
  b.end_function();
  b.begin_function("main", {"t"});
  b.emit_call("vm.builtin.null_value", {}, 1);
  b.emit_call("inner", {Arg::reg(0)}, 1);
  b.emit_ret(1);
  b.end_function();
  auto vm = VirtualMachine::create(b.get());
  std::string msg = error_of([&] { vm->invoke("main", {Tuple({Value(int64_t(1))})}); });
  EXPECT_NE(
      msg.find(
          "in function 'inner', instruction 0 (call vm.builtin.tuple_getitem), called from 'main', "
          "instruction 1 (call inner): vm.builtin.tuple_getitem: index 5 is out of range for a "
          "tuple of 1"),
      std::string::npos)
      << msg;
}

}  // namespace
}  // namespace relax::runtime
