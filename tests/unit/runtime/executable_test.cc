// The .rxe format: round trips, the text form, validation, and damaged files (every
// truncation, random corruptions with and without a valid checksum).
#include "relax/runtime/executable.h"

#include <cstdio>
#include <cstring>
#include <random>

#include "runtime_test_util.h"

namespace relax::runtime {
namespace {

using testing::error_of;
using testing::iota_f32;

constexpr size_t kHeaderSize = 32;

/// An executable using every section: strings, bytecode and packed functions, every constant
/// kind, and a kernel library (of a format nobody loads: VMs are not created from it).
Ref<Executable> build_everything() {
  testing::register_test_kernels();
  ExecBuilder b;
  b.add_constant(int64_t(-7));
  b.add_constant(0.25);
  b.add_constant("float32");
  b.add_constant(Shape({2, 0, 5}));
  b.add_constant(iota_f32({2, 2}));
  b.begin_function("main", {"a", "b"});
  b.emit_call("test.add_int", {Arg::reg(0), Arg::reg(1)}, 2);
  b.emit_if(2, 2);
  b.emit_goto(1);
  b.emit_call("vm.builtin.make_tuple",
              {Arg::const_index(0), Arg::const_index(4), b.function_arg("main"), Arg::vm_state(),
               Arg::imm(-3)},
              kVoidRegister);
  b.emit_ret(2);
  b.end_function();
  b.add_library("opaque-format", {1, 2, 3, 4, 5});
  return b.get();
}

void expect_same(const Executable& a, const Executable& b) {
  EXPECT_EQ(a.functions, b.functions);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(a.args, b.args);
  EXPECT_EQ(a.libraries, b.libraries);
  ASSERT_EQ(a.constants.size(), b.constants.size());
  for (size_t i = 0; i < a.constants.size(); ++i) {
    if (a.constants[i].is(ValueKind::kTensor)) {
      NDArray x = a.constants[i].as_tensor(), y = b.constants[i].as_tensor();
      EXPECT_EQ(x.shape(), y.shape());
      EXPECT_EQ(x.dtype(), y.dtype());
      EXPECT_EQ(std::memcmp(x.data(), y.data(), x.nbytes()), 0);
    } else {
      EXPECT_EQ(a.constants[i], b.constants[i]) << i;
    }
  }
}

TEST(Executable, SaveLoadRoundTripKeepsEverything) {
  Ref<Executable> exec = build_everything();
  std::vector<uint8_t> bytes = exec->save();
  Ref<Executable> loaded = Executable::load(bytes);
  expect_same(*exec, *loaded);
  EXPECT_EQ(loaded->save(), bytes);  // deterministic
}

TEST(Executable, SaveLoadRunGivesTheSameResults) {
  Ref<Executable> original = testing::build_symbolic_add();
  Ref<Executable> loaded = Executable::load(original->save());
  auto a = VirtualMachine::create(original), b = VirtualMachine::create(loaded);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 2}, {1, 8}}) {
    NDArray x = iota_f32(shape, 1), y = iota_f32(shape, -4);
    EXPECT_EQ(testing::values_of(a->invoke("main", {x, y}).as_tensor()),
              testing::values_of(b->invoke("main", {x, y}).as_tensor()));
  }
  auto ints = VirtualMachine::create(Executable::load(testing::build_int_programs()->save()));
  EXPECT_EQ(ints->invoke("fact", {Value(int64_t(12))}).as_int(), 479001600);
  EXPECT_EQ(ints->invoke("fib", {Value(int64_t(15))}).as_int(), 610);
  EXPECT_EQ(ints->invoke("sum_to", {Value(int64_t(10))}).as_int(), 45);
}

TEST(Executable, SaveToFileAndLoadFromFile) {
  std::string path = ::testing::TempDir() + "/relax_exec_test.rxe";
  testing::build_int_programs()->save_to_file(path);
  auto vm = VirtualMachine::create(Executable::load_from_file(path));
  EXPECT_EQ(vm->invoke("fact", {Value(int64_t(6))}).as_int(), 720);
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  std::fputc('X', f);  // break the magic
  std::fclose(f);
  std::string msg = error_of([&] { Executable::load_from_file(path); });
  EXPECT_NE(msg.find(path + ": not a Relax executable (bad magic number)"), std::string::npos)
      << msg;
  std::remove(path.c_str());
  EXPECT_NE(error_of([&] { Executable::load_from_file(path); }).find("cannot open executable"),
            std::string::npos);
}

TEST(Executable, AsTextPrintsTheBytecode) {
  std::string text = testing::build_int_programs()->as_text();
  EXPECT_NE(text.find("@fact(n):  ; 6 registers\n"
                      "    0: call  test.le_int in: %0, i1 dst: %1\n"
                      "    1: if    %1, 3\n"
                      "    2: call  vm.builtin.copy in: i1 dst: %2\n"
                      "    3: ret   %2\n"
                      "    4: call  test.sub_int in: %0, i1 dst: %3\n"
                      "    5: call  fact in: %3 dst: %4\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    6: goto  -4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("packed test.le_int\n"), std::string::npos) << text;
  std::string everything = build_everything()->as_text();
  EXPECT_NE(everything.find("; c[3] = shape (2, 0, 5)\n"), std::string::npos) << everything;
  EXPECT_NE(everything.find("; library 0: opaque-format (5 bytes)\n"), std::string::npos)
      << everything;
  EXPECT_NE(everything.find("in: c[0], c[4], f[main], %vm, i-3 dst: %void"), std::string::npos)
      << everything;
}

TEST(Executable, ValidationRejectsBadPrograms) {
  auto message = [](auto&& build) {
    return error_of([&] {
      ExecBuilder b;
      build(b);
      b.get();
    });
  };
  EXPECT_NE(message([](ExecBuilder& b) {
              b.begin_function("f", {});
              b.emit_call("vm.builtin.null_value", {Arg::const_index(2)}, 0);
              b.emit_ret(0);
              b.end_function();
            }).find("function 'f', instruction 0: constant index 2 is outside the 0 constants"),
            std::string::npos);
  EXPECT_NE(message([](ExecBuilder& b) {
              b.begin_function("f", {"x"});
              b.emit_goto(5);
              b.end_function();
            }).find("function 'f', instruction 0: jump by 5 leaves the function"),
            std::string::npos);
  EXPECT_NE(message([](ExecBuilder& b) {
              b.begin_function("f", {"x"});
              b.emit_call("vm.builtin.null_value", {}, 0);
              b.end_function();
            }).find("function 'f' does not end with ret or goto"),
            std::string::npos);
  EXPECT_NE(message([](ExecBuilder& b) {
              b.begin_function("g", {"a", "b"});
              b.emit_ret(0);
              b.end_function();
              b.begin_function("f", {"x"});
              b.emit_call("g", {Arg::reg(0)}, 0);
              b.emit_ret(0);
              b.end_function();
            }).find("calls 'g' with 1 arguments, it takes 2"),
            std::string::npos);
  EXPECT_NE(message([](ExecBuilder& b) {
              b.begin_function("f", {});
              b.emit_call("x", {Arg::imm(kMaxImmediate + 1)}, 0);
              b.emit_ret(0);
              b.end_function();
            }).find("does not fit in 56 bits"),
            std::string::npos);
  // A register outside the file can only come from a damaged file: build one by hand.
  Ref<Executable> exec = testing::build_int_programs();
  Executable& e = const_cast<Executable&>(*exec);
  e.instructions[0].reg = 99;
  EXPECT_NE(error_of([&] { e.validate(); })
                .find("function 'fact', instruction 0: destination register 99 is outside "
                      "the 6 registers"),
            std::string::npos);
}

TEST(Executable, HeaderDamageHasClearMessages) {
  std::vector<uint8_t> good = testing::build_int_programs()->save();
  auto load_error = [](std::vector<uint8_t> bytes) {
    return error_of([&] { Executable::load(bytes); });
  };
  std::vector<uint8_t> v = good;
  v[8] = 9;
  EXPECT_NE(load_error(v).find(
                "unsupported executable format version 9 (this runtime reads versions 1 to 3)"),
            std::string::npos);
  v[8] = 0;
  EXPECT_NE(load_error(v).find("unsupported executable format version 0"), std::string::npos);
  v = good;
  v[kHeaderSize + 40] ^= 1;
  EXPECT_NE(load_error(v).find("checksum mismatch"), std::string::npos);
  v = good;
  v.push_back(0);
  EXPECT_NE(load_error(v).find("announces"), std::string::npos);
  EXPECT_NE(load_error({1, 2, 3}).find("shorter than the 32-byte header"), std::string::npos);
}

/// Rewrites the header checksum so that damage reaches the structural checks.
void refresh_checksum(std::vector<uint8_t>& bytes) {
  uint64_t sum = fnv1a64(std::span<const uint8_t>(bytes).subspan(kHeaderSize));
  std::memcpy(bytes.data() + 24, &sum, 8);
}

TEST(Executable, EveryTruncationIsRejected) {
  std::vector<uint8_t> good = build_everything()->save();
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    EXPECT_THROW(Executable::load(cut), Error) << "truncated to " << n << " bytes";
  }
}

TEST(Executable, EveryTruncationWithFixedHeaderIsRejectedByTheReader) {
  // Patch the payload size and checksum to match the cut, so the section reader sees it.
  std::vector<uint8_t> good = build_everything()->save();
  for (size_t n = kHeaderSize; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    uint64_t payload = n - kHeaderSize;
    std::memcpy(cut.data() + 16, &payload, 8);
    refresh_checksum(cut);
    std::string msg = error_of([&] { Executable::load(cut); });
    EXPECT_NE(msg.find("damaged executable"), std::string::npos) << "cut at " << n << ": " << msg;
  }
}

/// Applies one random damage: overwrite, bit flip, insertion or deletion of bytes.
std::vector<uint8_t> corrupt(std::vector<uint8_t> bytes, std::mt19937& rng, size_t from) {
  std::uniform_int_distribution<size_t> pos(from, bytes.size() - 1);
  switch (rng() % 5) {
    case 0:
      bytes[pos(rng)] = uint8_t(rng());
      break;
    case 1:
      bytes[pos(rng)] ^= uint8_t(1u << (rng() % 8));
      break;
    case 2:
      for (int i = 0; i < 4; ++i) bytes[pos(rng)] = uint8_t(rng());
      break;
    case 3:
      bytes.insert(bytes.begin() + long(pos(rng)), uint8_t(rng()));
      break;
    case 4:
      bytes.erase(bytes.begin() + long(pos(rng)));
      break;
  }
  return bytes;
}

TEST(Executable, RandomCorruptionsAreRejectedByTheChecksum) {
  std::vector<uint8_t> good = testing::build_int_programs()->save();
  std::mt19937 rng(1234);
  for (int i = 0; i < 1000; ++i) {
    std::vector<uint8_t> bad = corrupt(good, rng, 0);
    if (bad == good) continue;
    EXPECT_THROW(Executable::load(bad), Error) << "corruption " << i;
  }
}

TEST(Executable, RandomCorruptionsBehindAValidChecksumAreRejectedOrRunSafely) {
  // The checksum is recomputed after each damage, so every case exercises the reader and
  // the validator; what they accept must run without crashing (errors are fine).
  std::vector<uint8_t> good = testing::build_int_programs()->save();
  std::mt19937 rng(20240611);
  VMOptions limits;
  limits.max_instructions = 100000;
  limits.max_call_depth = 200;
  int rejected = 0, ran = 0;
  for (int i = 0; i < 1000; ++i) {
    std::vector<uint8_t> bad = corrupt(good, rng, kHeaderSize);
    if (bad.size() != good.size()) {
      uint64_t payload = bad.size() - kHeaderSize;
      std::memcpy(bad.data() + 16, &payload, 8);
    }
    refresh_checksum(bad);
    Ref<Executable> exec;
    try {
      exec = Executable::load(bad);
    } catch (const Error& e) {
      ++rejected;
      continue;
    }
    ++ran;
    try {
      auto vm = VirtualMachine::create(exec, {{kDLCPU, 0}}, limits);
      for (const FunctionInfo& f : exec->functions) {
        if (f.kind != FunctionKind::kBytecode) continue;
        std::vector<Value> args(size_t(f.num_params), Value(int64_t(6)));
        try {
          vm->invoke(f.name, args);
        } catch (const Error&) {
        }
      }
    } catch (const Error&) {
    }
  }
  std::printf("corruptions behind a valid checksum: %d rejected, %d loaded and ran\n", rejected,
              ran);
  EXPECT_GT(rejected, 300) << "the structural checks should catch most damage";
  EXPECT_GT(ran, 0) << "some damage (e.g. to an immediate) is harmless and must run";
  EXPECT_EQ(rejected + ran, 1000);
}

}  // namespace
}  // namespace relax::runtime
