// Robustness: mutations and truncations of valid programs (fixed seed) never crash, hang or
// throw anything but relax::Error; whatever parses also prints and parses back.
#include <chrono>
#include <random>
#include <vector>

#include "text_test_util.h"

namespace relax {
namespace {

const char* kSeeds[] = {
    R"(@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((n, 4), "float32"), B: T.Buffer((n, 4), "float32")):
        for i, j in T.grid(n, 4):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.exp(A[vi, vj]) + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor(("n", 4), dtype="float32"), c: R.Tensor((), "bool")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        with R.dataflow():
            lv = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n, 4), "float32"))
            gv = R.add(lv, R.const(1.5, "float32"))
            R.output(gv)
        if c:
            y = R.nn.relu(gv)
        else:
            y = R.permute_dims(gv, axes=[0, 1])
        _ = R.call_packed("log", y, sinfo_args=R.Object)
        t = (y, R.shape([n, 4]))
        z = R.match_cast(t[0], R.Tensor((m, 4), "float32"))
        return y
)",
    R"(@T.prim_func
def sum(input: T.Buffer[(8, 4), "float32"], output: T.Buffer[(8,), "float32"]) -> None:
    B_ = T.alloc_buffer([4], dtype="float32")
    for i0, i1 in T.grid(8, 4):
        with T.block("reduce"):
            ax0, k1 = T.axis.remap("SR", [i0, i1])
            T.reads(input[ax0, k1])
            T.writes(output[ax0])
            with T.init():
                output[ax0] = T.float32(0)
            output[ax0] = output[ax0] + input[ax0, k1] * T.if_then_else(k1 > 2, 1.0, 0.5)
    for i in T.serial(4):
        if i % 2 == 0:
            B_[i] = T.Cast("float32", i // 2)
        x: T.int64 = i + 1
        assert x > 0, "m"
)",
    R"(@R.function
def f(x: R.Tensor[(n, 2, 2), "float32"], w: R.Tensor[_, "float32"]):
    with R.dataflow():
        lv0: R.Tensor[(n, 4), "float32"] = R.reshape(x, (n, 4))
        lv1 = R.match_shape(w, (k, m))
        lv2 = R.call_tir("f", [lv0], (n, 4), dtype="float32")
        R.outputs(lv2)
    return lv2
)",
};

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::string kChars = "()[]{}:,.=\"' \n\t#@_-+*/%<>R.T.x0123456789\x01\xff\\";
  auto pick = [&](size_t n) { return n == 0 ? size_t(0) : size_t(rng() % n); };
  int edits = 1 + int(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0:
        s.resize(pick(s.size() + 1));
        break;   // truncate
      case 1: {  // delete a range
        size_t a = pick(s.size() + 1), n = pick(8);
        s.erase(a, n);
        break;
      }
      case 2:
        s.insert(pick(s.size() + 1), 1, kChars[pick(kChars.size())]);
        break;
      case 3:
        if (!s.empty()) s[pick(s.size())] = kChars[pick(kChars.size())];
        break;
      case 4: {  // duplicate a slice
        size_t a = pick(s.size() + 1), n = pick(40);
        s.insert(pick(s.size() + 1), s.substr(a, n));
        break;
      }
      case 5: {  // change a line's indentation
        size_t nl = s.find('\n', pick(s.size() + 1));
        if (nl != std::string::npos) s.insert(nl + 1, std::string(pick(6), ' '));
        break;
      }
      default: {  // random bytes
        size_t a = pick(s.size() + 1);
        for (int k = 0; k < 4; ++k) s.insert(s.begin() + long(a), char(rng() & 0xff));
      }
    }
  }
  return s;
}

TEST(Fuzz, MutatedProgramsOnlyThrowRelaxErrors) {
  std::mt19937 rng(20240531);
  int parsed = 0, rejected = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 2400; ++i) {
    std::string text = mutate(kSeeds[i % 3], rng);
    try {
      IRModule m = parse_module(text, "fuzz.rx");
      ++parsed;
      // What parses prints, and the print parses back.
      std::string printed = print_module(m);
      IRModule back = parse_module(printed, "printed.rx");
      EXPECT_FALSE(structural_diff(m, back).has_value()) << text << "\n---\n" << printed;
    } catch (const Error& e) {
      ++rejected;
      EXPECT_FALSE(e.diagnostics().empty());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "non-relax exception: " << e.what() << "\nfor input:\n" << text;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 1000);
  RecordProperty("parsed", parsed);
  RecordProperty("seconds", std::to_string(seconds));
}

TEST(Fuzz, PathologicalInputs) {
  std::vector<std::string> inputs;
  inputs.push_back(std::string(5000, '('));
  inputs.push_back(std::string(5000, '['));
  inputs.push_back("x = " + std::string(3000, '-') + "1");
  inputs.push_back(std::string(3000, ' ') + "x");
  inputs.push_back("@R.function\ndef f():\n" + std::string(300, ' ') + "pass\n");
  inputs.push_back(std::string("\0\0\0", 3));
  inputs.push_back("\xef\xbb\xbfx = 1");
  for (const char* t :
       {"\"\"\"", "'''abc", "\\", "@", ":", "def", "x = 1 + ", "R.const([[1], [2, 3]])"})
    inputs.push_back(t);
  inputs.push_back(
      "@R.function\ndef f(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n    "
      "return " +
      std::string(400, '(') + "x" + std::string(400, ')') + "\n");
  std::string chain = "@T.prim_func\ndef k(A: T.Buffer((4,), \"int64\")):\n    A[0] = 1";
  for (int i = 0; i < 30000; ++i) chain += " + 1";
  inputs.push_back(chain + "\n");
  for (const auto& text : inputs) {
    try {
      parse_module(text);
    } catch (const Error&) {
    }
  }
  // Deep nesting of blocks is rejected, not a stack overflow.
  std::string deep = "@T.prim_func\ndef k(A: T.Buffer((4,), \"float32\")):\n";
  for (int i = 0; i < 300; ++i)
    deep += std::string(size_t(4 * (i + 1)), ' ') + "for i" + std::to_string(i) + " in range(4):\n";
  deep += std::string(4 * 301, ' ') + "A[0] = T.float32(0)\n";
  EXPECT_THROW(parse_module(deep), Error);
}

}  // namespace
}  // namespace relax
