// Every vm.builtin.*, called through the VM's Call instruction.
#include "relax/runtime/builtins.h"

#include <cstring>

#include "relax/runtime/device_api.h"
#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

using testing::build_single_call;
using testing::error_of;
using testing::f32;
using testing::iota_f32;
using testing::values_of;

Value run(const Ref<Executable>& exec, std::vector<Value> params) {
  return VirtualMachine::create(exec)->invoke("main", params);
}

Arg imm(int64_t v) { return Arg::imm(v); }
Arg mode(MatchShapeMode m) { return Arg::imm(int64_t(m)); }
Arg mode(MakeShapeMode m) { return Arg::imm(int64_t(m)); }

TEST(Builtins, AllAreRegistered) {
  register_builtins();
  for (const char* name :
       {"alloc_storage", "alloc_tensor", "alloc_shape_heap", "match_shape", "make_shape",
        "check_tensor_info", "check_shape_info", "check_tuple_info", "shape_of", "tuple_getitem",
        "make_tuple", "reshape", "copy", "to_device", "null_value", "read_if_cond", "make_closure",
        "invoke_closure", "print", "tensor_to_shape", "check_tensor_value"}) {
    EXPECT_TRUE(Registry::get(std::string("vm.builtin.") + name).defined()) << name;
  }
}

TEST(Builtins, AllocStorageAndTensorsAtOffsets) {
  ExecBuilder b;
  Arg f32_name = b.add_constant("float32");
  Arg i32_name = b.add_constant("int32");
  Arg shape23 = b.add_constant(Shape({2, 3}));
  Arg shape4 = b.add_constant(Shape({4}));
  b.begin_function("main", {});
  b.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), imm(64), imm(0)}, 0);
  b.emit_call("vm.builtin.alloc_tensor", {Arg::reg(0), imm(0), shape23, f32_name}, 1);
  b.emit_call("vm.builtin.alloc_tensor", {Arg::reg(0), imm(32), shape4, i32_name}, 2);
  b.emit_call("vm.builtin.make_tuple", {Arg::reg(0), Arg::reg(1), Arg::reg(2)}, 3);
  b.emit_ret(3);
  b.end_function();
  Tuple t = run(b.get(), {}).as_tuple();
  auto storage = t[0].as_object_of<StorageObj>();
  ASSERT_TRUE(storage.defined());
  EXPECT_EQ(storage->buffer.nbytes(), 64u);
  NDArray a = t[1].as_tensor(), c = t[2].as_tensor();
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(c.dtype(), DataType::Int(32));
  EXPECT_EQ(static_cast<char*>(c.data()) - static_cast<char*>(storage->buffer.data()), 32);
  EXPECT_EQ(a.data(), storage->buffer.data());
}

TEST(Builtins, AllocTensorTakesAnOffsetComputedAsAShapeOfOneValue) {
  // A symbolic offset (a scaled arena of static-plan-block-memory) arrives as a shape.
  ExecBuilder b;
  Arg f32_name = b.add_constant("float32");
  Arg shape4 = b.add_constant(Shape({4}));
  Arg offset = b.add_constant(Shape({48}));
  b.begin_function("main", {});
  b.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), imm(64), imm(0)}, 0);
  b.emit_call("vm.builtin.alloc_tensor", {Arg::reg(0), offset, shape4, f32_name}, 1);
  b.emit_call("vm.builtin.make_tuple", {Arg::reg(0), Arg::reg(1)}, 2);
  b.emit_ret(2);
  b.end_function();
  Tuple t = run(b.get(), {}).as_tuple();
  auto storage = t[0].as_object_of<StorageObj>();
  ASSERT_TRUE(storage.defined());
  EXPECT_EQ(static_cast<char*>(t[1].as_tensor().data()) -
                static_cast<char*>(storage->buffer.data()),
            48);
  ExecBuilder bad;
  Arg bad_f32 = bad.add_constant("float32");
  Arg bad_shape = bad.add_constant(Shape({4}));
  Arg bad_offset = bad.add_constant(Shape({16, 16}));
  bad.begin_function("main", {});
  bad.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), imm(64), imm(0)}, 0);
  bad.emit_call("vm.builtin.alloc_tensor", {Arg::reg(0), bad_offset, bad_shape, bad_f32}, 1);
  bad.emit_ret(1);
  bad.end_function();
  std::string msg = error_of([&] { run(bad.get(), {}); });
  EXPECT_NE(msg.find("argument 1 (offset) must be an integer or a shape of one value, got a "
                     "shape of 2"),
            std::string::npos)
      << msg;
}

TEST(Builtins, AllocTensorThatDoesNotFitIsAnError) {
  auto exec = build_single_call("vm.builtin.alloc_tensor",
                                {Arg::reg(0), imm(40), Arg::const_index(0), Arg::const_index(1)}, 1,
                                {Shape({4}), "float32"});
  ExecBuilder b;
  b.begin_function("main", {});
  b.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), imm(48), imm(0)}, 0);
  b.emit_ret(0);
  b.end_function();
  Value storage = run(b.get(), {});
  std::string msg = error_of([&] { run(exec, {storage}); });
  EXPECT_NE(msg.find("does not fit in 48 bytes"), std::string::npos) << msg;
  std::string device = error_of([&] {
    run(build_single_call("vm.builtin.alloc_storage", {Arg::vm_state(), imm(8), imm(3)}, 0), {});
  });
  EXPECT_NE(device.find("device index 3 is outside the VM's 1 devices"), std::string::npos)
      << device;
}

TEST(Builtins, AllocStorageOverTheVMsAllocationLimitIsAnError) {
  auto exec = build_single_call("vm.builtin.alloc_storage",
                                {Arg::vm_state(), imm(int64_t(1) << 33), imm(0)}, 0);
  VMOptions limited;
  limited.max_alloc_bytes = 1 << 20;
  auto vm = VirtualMachine::create(exec, {}, limited);
  std::string msg = error_of([&] { vm->invoke("main", {}); });
  EXPECT_NE(msg.find("8589934592 bytes exceed the VM's allocation limit of 1048576 bytes"),
            std::string::npos)
      << msg;
  auto small = build_single_call("vm.builtin.alloc_storage",
                                 {Arg::vm_state(), imm(1 << 20), imm(0)}, 0);
  auto storage = VirtualMachine::create(small, {}, limited)->invoke("main", {});
  EXPECT_EQ(storage.as_object_of<StorageObj>()->buffer.nbytes(), size_t(1) << 20);
}

TEST(Builtins, AllocStorageReusesTheStorageOfEarlierRuns) {
  // main(n) allocates n bytes. A storage released after one run serves the next request of
  // its size from the VM's pool (the same memory), while a request of another size gets other
  // memory; a storage outliving its VM stays valid and is freed with its last handle.
  ExecBuilder b;
  b.begin_function("main", {"n"});
  b.emit_call("vm.builtin.alloc_storage", {Arg::vm_state(), Arg::reg(0), imm(0)}, 1);
  b.emit_ret(1);
  b.end_function();
  Ref<Executable> exec = b.get();
  auto data_of = [](const Value& v) { return v.as_object_of<StorageObj>()->buffer.data(); };
  auto vm = VirtualMachine::create(exec);
  Value first = vm->invoke("main", {Value(int64_t(1) << 20)});
  void* p = data_of(first);
  std::memset(p, 7, size_t(1) << 20);
  first = Value();
  Value other = vm->invoke("main", {Value(int64_t(1) << 19)});
  EXPECT_NE(data_of(other), p);
  Value again = vm->invoke("main", {Value(int64_t(1) << 20)});
  EXPECT_EQ(data_of(again), p);
  EXPECT_EQ(again.as_object_of<StorageObj>()->buffer.nbytes(), size_t(1) << 20);
  vm.reset();
  std::memset(data_of(again), 1, size_t(1) << 20);  // after its VM: still valid (ASan checks)
  // Pooling off: every storage is a new allocation (nothing to compare but that it works).
  VMOptions fresh;
  fresh.pool_storage = false;
  auto plain = VirtualMachine::create(exec, {}, fresh);
  Value s = plain->invoke("main", {Value(int64_t(4096))});
  EXPECT_EQ(s.as_object_of<StorageObj>()->buffer.nbytes(), 4096u);
}

TEST(Builtins, ShapeHeapMatchAndMakeShape) {
  ExecBuilder b;
  Arg ctx = b.add_constant("f: parameter x");
  b.begin_function("main", {"x", "s"});
  b.emit_call("vm.builtin.alloc_shape_heap", {imm(4)}, 2);
  // x: (n, 4, m) → heap[0] = n, assert dim1 == 4, heap[1] = m
  b.emit_call("vm.builtin.match_shape",
              {Arg::reg(0), Arg::reg(2), imm(3), mode(MatchShapeMode::kStoreToHeap), imm(0),
               mode(MatchShapeMode::kAssertEqualToImm), imm(4), mode(MatchShapeMode::kStoreToHeap),
               imm(1), ctx});
  // s: shape (m, _) → dim0 == heap[1], dim1 unchecked
  b.emit_call("vm.builtin.match_shape",
              {Arg::reg(1), Arg::reg(2), imm(2), mode(MatchShapeMode::kAssertEqualToLoad), imm(1),
               mode(MatchShapeMode::kNoOp), imm(0), ctx});
  // (m, 7, n)
  b.emit_call("vm.builtin.make_shape",
              {Arg::reg(2), imm(3), mode(MakeShapeMode::kLoadShape), imm(1),
               mode(MakeShapeMode::kUseImm), imm(7), mode(MakeShapeMode::kLoadShape), imm(0)},
              3);
  b.emit_ret(3);
  b.end_function();
  auto vm = VirtualMachine::create(b.get());
  for (auto [n, m] : {std::pair<int64_t, int64_t>{2, 3}, {5, 1}, {1, 9}}) {
    Value out =
        vm->invoke("main", {NDArray::empty({n, 4, m}, DataType::Float(32)), Shape({m, 123})});
    EXPECT_EQ(out.as_shape().dims(), (std::vector<int64_t>{m, 7, n}));
  }
  std::string imm_msg = error_of([&] {
    vm->invoke("main", {NDArray::empty({2, 5, 3}, DataType::Float(32)), Shape({3, 0})});
  });
  EXPECT_NE(
      imm_msg.find(
          "f: parameter x: dimension 1 is 5 but 4 was expected; expected shape (2, 4, _), actual "
          "shape (2, 5, 3)"),
      std::string::npos)
      << imm_msg;
  std::string load_msg = error_of([&] {
    vm->invoke("main", {NDArray::empty({2, 4, 3}, DataType::Float(32)), Shape({8, 0})});
  });
  EXPECT_NE(load_msg.find(
                "dimension 0 is 8 but 3 was expected; expected shape (3, _), actual shape (8, 0)"),
            std::string::npos)
      << load_msg;
  std::string rank_msg = error_of([&] {
    vm->invoke("main", {NDArray::empty({2, 4}, DataType::Float(32)), Shape({1})});
  });
  EXPECT_NE(rank_msg.find(
                "f: parameter x: expected rank 3, got a tensor of shape (2, 4) and dtype float32"),
            std::string::npos)
      << rank_msg;
  std::string slot = error_of([&] {
    run(build_single_call("vm.builtin.make_shape",
                          {Arg::reg(0), imm(1), mode(MakeShapeMode::kLoadShape), imm(9)}, 1),
        {NDArray::empty({4}, DataType::Int(64))});
  });
  EXPECT_NE(slot.find("shape heap slot 9 is outside the heap of 4"), std::string::npos) << slot;
}

NDArray i64_tensor(std::vector<int64_t> v) {
  NDArray t = NDArray::empty({int64_t(v.size())}, DataType::Int(64));
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return t;
}

TEST(Builtins, TensorToShape) {
  auto exec = build_single_call("vm.builtin.tensor_to_shape", {Arg::reg(0)}, 1);
  EXPECT_EQ(run(exec, {i64_tensor({2, 3, 0})}).as_shape(), Shape({2, 3, 0}));
  NDArray i32 = NDArray::empty({2}, DataType::Int(32));
  i32.data_as<int32_t>()[0] = 7;
  i32.data_as<int32_t>()[1] = -1;
  EXPECT_EQ(run(exec, {i32}).as_shape(), Shape({7, -1}));
  std::string bad = error_of([&] { run(exec, {iota_f32({2})}); });
  EXPECT_NE(bad.find("vm.builtin.tensor_to_shape: needs a contiguous rank-1 integer CPU tensor, "
                     "got tensor (2,) float32"),
            std::string::npos)
      << bad;
}

TEST(Builtins, CheckTensorValue) {
  auto exec = build_single_call("vm.builtin.check_tensor_value",
                                {Arg::reg(0), Arg::const_index(0), Arg::const_index(1)}, 1,
                                {Value(i64_tensor({0, -2})), "main: input 'axes'"});
  EXPECT_TRUE(run(exec, {i64_tensor({0, -2})}).is_null());
  std::string msg = error_of([&] { run(exec, {i64_tensor({1})}); });
  EXPECT_NE(msg.find("main: input 'axes': the program was specialised to the value [0, -2] "
                     "(int64) but got [1] (int64)"),
            std::string::npos)
      << msg;
}

TEST(Builtins, CheckInfoMessages) {
  auto tensor_check =
      build_single_call("vm.builtin.check_tensor_info",
                        {Arg::reg(0), imm(-1), Arg::const_index(0), Arg::const_index(1)}, 1,
                        {"int64", "g: parameter w"});
  EXPECT_TRUE(run(tensor_check, {NDArray::empty({3, 3, 3}, DataType::Int(64))}).is_null());
  std::string dtype = error_of([&] { run(tensor_check, {iota_f32({3})}); });
  EXPECT_NE(dtype.find("g: parameter w: expected a tensor of dtype int64, got a tensor of shape "
                       "(3,) and dtype float32"),
            std::string::npos)
      << dtype;
  auto shape_check =
      build_single_call("vm.builtin.check_shape_info", {Arg::reg(0), imm(2), Arg::const_index(0)},
                        1, {"g: parameter s"});
  EXPECT_TRUE(run(shape_check, {Shape({1, 2})}).is_null());
  std::string shape = error_of([&] { run(shape_check, {Shape({1, 2, 3})}); });
  EXPECT_NE(shape.find("g: parameter s: expected a shape of rank 2, got shape (1, 2, 3)"),
            std::string::npos)
      << shape;
  std::string not_shape = error_of([&] { run(shape_check, {iota_f32({2})}); });
  EXPECT_NE(
      not_shape.find("expected a shape of rank 2, got a tensor of shape (2,) and dtype float32"),
      std::string::npos)
      << not_shape;
  auto tuple_check =
      build_single_call("vm.builtin.check_tuple_info", {Arg::reg(0), imm(2), Arg::const_index(0)},
                        1, {"g: parameter t"});
  EXPECT_TRUE(run(tuple_check, {Tuple({Value(1), Value(2)})}).is_null());
  std::string tuple = error_of([&] { run(tuple_check, {Tuple({Value(1)})}); });
  EXPECT_NE(tuple.find("g: parameter t: expected a tuple of 2 fields, got one of 1"),
            std::string::npos)
      << tuple;
}

TEST(Builtins, ShapeOfReshapeCopy) {
  NDArray x = iota_f32({2, 6});
  EXPECT_EQ(run(build_single_call("vm.builtin.shape_of", {Arg::reg(0)}, 1), {x}).as_shape().dims(),
            (std::vector<int64_t>{2, 6}));
  auto reshape = build_single_call("vm.builtin.reshape", {Arg::reg(0), Arg::reg(1)}, 2);
  NDArray view = run(reshape, {x, Shape({3, 4})}).as_tensor();
  EXPECT_EQ(view.shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(view.data(), x.data());  // a view, not a copy
  std::string bad = error_of([&] { run(reshape, {x, Shape({5, 2})}); });
  EXPECT_NE(
      bad.find("cannot view a tensor of shape (2, 6) (12 elements) as shape (5, 2) (10 elements)"),
      std::string::npos)
      << bad;
  NDArray copied = run(build_single_call("vm.builtin.copy", {Arg::reg(0)}, 1), {x}).as_tensor();
  EXPECT_NE(copied.data(), x.data());
  EXPECT_EQ(values_of(copied), values_of(x));
  x.data_as<float>()[0] = 99;
  EXPECT_EQ(copied.data_as<float>()[0], 0.0f);
}

TEST(Builtins, TuplesNullAndConditions) {
  auto make = build_single_call("vm.builtin.make_tuple", {Arg::reg(0), imm(7), Arg::const_index(0)},
                                1, {"s"});
  Tuple t = run(make, {Value(2.5)}).as_tuple();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].as_float(), 2.5);
  EXPECT_EQ(t[1].as_int(), 7);
  EXPECT_EQ(t[2].as_string(), "s");
  auto get = build_single_call("vm.builtin.tuple_getitem", {Arg::reg(0), Arg::reg(1)}, 2);
  EXPECT_EQ(run(get, {t, Value(int64_t(1))}).as_int(), 7);
  EXPECT_NE(error_of([&] {
              run(get, {t, Value(int64_t(3))});
            }).find("index 3 is out of range for a tuple of 3"),
            std::string::npos);
  EXPECT_TRUE(run(build_single_call("vm.builtin.null_value", {}, 0), {}).is_null());
  auto cond = build_single_call("vm.builtin.read_if_cond", {Arg::reg(0)}, 1);
  EXPECT_EQ(run(cond, {Value(int64_t(3))}).as_bool(), true);
  EXPECT_EQ(run(cond, {Value(false)}).as_bool(), false);
  NDArray flag = NDArray::empty({}, DataType::Bool());
  *flag.data_as<uint8_t>() = 1;
  EXPECT_EQ(run(cond, {flag}).as_bool(), true);
  *flag.data_as<uint8_t>() = 0;
  EXPECT_EQ(run(cond, {flag}).as_bool(), false);
  EXPECT_EQ(run(cond, {f32({}, {0.5f})}).as_bool(), true);
  EXPECT_NE(
      error_of([&] { run(cond, {iota_f32({2})}); }).find("the condition tensor has 2 elements"),
      std::string::npos);
}

TEST(Builtins, PrintWritesOneLine) {
  auto print = build_single_call(
      "vm.builtin.print", {Arg::const_index(0), Arg::reg(0), imm(5), Arg::reg(1)}, 2, {"value:"});
  ::testing::internal::CaptureStdout();
  Value r = run(print, {f32({2}, {1.5f, -2}), Shape({3, 4})});
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(r.is_null());
  EXPECT_EQ(out, "value: tensor (2,) float32 [1.5, -2] int 5 shape (3, 4)\n");
}

TEST(Builtins, ClosureBuiltinsOnPackedFunctions) {
  testing::register_test_kernels();
  auto make = build_single_call("vm.builtin.make_closure", {Arg::reg(0), Arg::reg(1)}, 2);
  PackedFunc sub = Registry::get("test.sub_int");
  PackedFunc from100 = run(make, {sub, Value(int64_t(100))}).as_function();
  EXPECT_EQ(from100.call(int64_t(1)).as_int(), 99);
  auto invoke = build_single_call("vm.builtin.invoke_closure", {Arg::reg(0), imm(30)}, 1);
  EXPECT_EQ(run(invoke, {from100}).as_int(), 70);
  EXPECT_NE(
      error_of([&] { run(invoke, {Value(int64_t(1))}); }).find("expected a closure, got int 1"),
      std::string::npos);
}

TEST(Builtins, WrongArgumentTypesNameTheBuiltinAndArgument) {
  auto alloc = build_single_call("vm.builtin.alloc_shape_heap", {Arg::reg(0)}, 1);
  std::string msg = error_of([&] { run(alloc, {Value("big")}); });
  EXPECT_NE(
      msg.find(
          "vm.builtin.alloc_shape_heap: argument 0 (size): expected an int, got string \"big\""),
      std::string::npos)
      << msg;
  auto count = build_single_call("vm.builtin.shape_of", {Arg::reg(0), Arg::reg(0)}, 1);
  EXPECT_NE(error_of([&] {
              run(count, {iota_f32({1})});
            }).find("vm.builtin.shape_of: expected 1 arguments, got 2"),
            std::string::npos);
  auto vm_arg = build_single_call("vm.builtin.alloc_storage", {Arg::reg(0), imm(4), imm(0)}, 1);
  EXPECT_NE(error_of([&] { run(vm_arg, {Value(int64_t(0))}); }).find("must be the VM state (%vm)"),
            std::string::npos);
}

}  // namespace
}  // namespace relax::runtime
