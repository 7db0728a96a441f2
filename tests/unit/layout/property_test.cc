// Property test of layout planning: random chains of rewrites (tiling, fusing, permutations)
// and element-wise, broadcast and reduction ops, run in the interpreter (relax-driver run
// --target tir-interp) unplanned (legalize-ops) and planned (flow-layout, cost-checked or
// greedy, fold-layout, dead-code-elimination, then legalize-ops) on the same random inputs:
// the numbers agree.
// Also checks that planning removes rewrites on programs built to need none.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "../../common/driver_runner.h"
#include "../../common/tensor_compare.h"
#include "relax/runtime/tensor_io.h"

namespace relax {
namespace {

using Shape = std::vector<int64_t>;

std::string shape_text(const Shape& s) {
  std::string t = "(";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");
}

/// A random program over one input `x`, as .rx text.
class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  std::string program(int steps) {
    Shape in;
    int rank = pick(3, 4);
    for (int k = 0; k < rank; ++k) in.push_back(pick(0, 1) ? 2 : 4);
    shape_ = in;
    std::string cur = "x";
    for (int s = 0; s < steps; ++s) cur = step(cur);
    std::ostringstream os;
    os << "@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor(" << shape_text(in)
       << ", \"float32\")) -> R.Tensor(" << shape_text(shape_) << ", \"float32\"):\n";
    for (int v = 0; v < vars_; ++v) os << "        v" << v << " = T.int64()\n";
    os << "        with R.dataflow():\n" << body_.str() << "            R.output(" << cur
       << ")\n        return " << cur << "\n";
    return os.str();
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::vector<std::string> fresh_vars(size_t n) {
    std::vector<std::string> v;
    for (size_t k = 0; k < n; ++k) v.push_back("v" + std::to_string(vars_++));
    return v;
  }

  std::string bind(const std::string& value) {
    std::string name = "t" + std::to_string(bindings_++);
    body_ << "            " << name << " = " << value << "\n";
    return name;
  }

  static std::string list(const std::vector<std::string>& xs) {
    std::string t = "[";
    for (size_t k = 0; k < xs.size(); ++k) t += (k ? ", " : "") + xs[k];
    return t + "]";
  }

  std::string transform(const std::string& x, const std::vector<std::string>& vars,
                        const std::vector<std::string>& results) {
    return bind("R.layout_transform(" + x + ", index_vars=" + list(vars) +
                ", index_map=" + list(results) + ")");
  }

  std::string step(const std::string& x) {
    size_t rank = shape_.size();
    switch (pick(0, 6)) {
      case 0: {  // tile an even axis by 2
        std::vector<size_t> even;
        for (size_t k = 0; k < rank; ++k)
          if (shape_[k] % 2 == 0 && shape_[k] > 2) even.push_back(k);
        if (even.empty() || rank >= 5) break;
        size_t a = even[size_t(pick(0, int(even.size()) - 1))];
        auto v = fresh_vars(rank);
        std::vector<std::string> r = v;
        r[a] = v[a] + " // 2";
        r.push_back(v[a] + " % 2");
        shape_[a] /= 2;
        shape_.push_back(2);
        return transform(x, v, r);
      }
      case 1: {  // fuse the last axis into another
        if (rank < 3) break;
        size_t a = size_t(pick(0, int(rank) - 2));
        auto v = fresh_vars(rank);
        std::vector<std::string> r(v.begin(), v.end() - 1);
        r[a] = v[a] + " * " + std::to_string(shape_.back()) + " + " + v.back();
        shape_[a] *= shape_.back();
        shape_.pop_back();
        return transform(x, v, r);
      }
      case 2: {  // permute
        std::vector<std::string> axes;
        Shape perm(rank), next;
        for (size_t k = 0; k < rank; ++k) perm[k] = int64_t(k);
        std::shuffle(perm.begin(), perm.end(), rng_);
        for (int64_t p : perm) {
          axes.push_back(std::to_string(p));
          next.push_back(shape_[size_t(p)]);
        }
        shape_ = next;
        return bind("R.permute_dims(" + x + ", axes=" + list(axes) + ")");
      }
      case 3:
        return bind("R.nn.relu(" + x + ")");
      case 4: {  // broadcast add of a constant along one axis
        size_t a = size_t(pick(0, int(rank) - 1));
        Shape bshape{shape_[a]};
        for (size_t k = a + 1; k < rank; ++k) bshape.push_back(1);
        std::string c = "R.const(" + nested(bshape, 0) + ", \"float32\")";
        return bind("R.add(" + x + ", " + c + ")");
      }
      case 5: {  // reduce one axis
        if (rank < 3) break;
        size_t a = size_t(pick(0, int(rank) - 1));
        shape_.erase(shape_.begin() + long(a));
        return bind("R.sum(" + x + ", axis=[" + std::to_string(a) + "])");
      }
      default:
        return bind("R.multiply(" + x + ", R.const(0.5, \"float32\"))");
    }
    return bind("R.nn.relu(" + x + ")");
  }

  std::string nested(const Shape& s, size_t d) {
    if (d == s.size()) return std::to_string(pick(-4, 4)) + ".0";
    std::string t = "[";
    for (int64_t k = 0; k < s[d]; ++k) t += (k ? ", " : "") + nested(s, d + 1);
    return t + "]";
  }

  std::mt19937 rng_;
  Shape shape_;
  int vars_ = 0, bindings_ = 0;
  std::ostringstream body_;
};

class LayoutProperty : public test::DriverTest {
 protected:
  const std::string kDriver = "--plugin-dir " RELAX_PLUGIN_DIR " --plugin layout --plugin cleanup";

  runtime::NDArray run_with(const std::string& file, const std::string& passes,
                            const std::string& out) {
    test::DriverResult r = run(kDriver + " run " + file + " --target tir-interp --seed 7 -q" +
                               " --passes '" + passes + "' --output-dir " + out);
    EXPECT_EQ(r.rc, 0) << passes << "\n" << r.err << "\n" << test::read_text_file(dir_ / file);
    if (r.rc != 0) return runtime::NDArray();
    return runtime::load_npy((dir_ / out / "output_0.npy").string());
  }
};

TEST_F(LayoutProperty, PlannedAndUnplannedAgreeOnRandomChains) {
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    Generator g(seed);
    std::string file = "p" + std::to_string(seed) + ".rx";
    std::ofstream(dir_ / file) << g.program(6);
    runtime::NDArray base = run_with(file, "legalize-ops", "base" + std::to_string(seed));
    // Cost-checked planning, and greedy flow (every rewrite that can move moves: more flows
    // through element-wise, broadcast and reduction PrimFuncs).
    for (const char* flow : {"flow-layout", "flow-layout{greedy=true}"}) {
      runtime::NDArray planned =
          run_with(file, std::string(flow) + ",fold-layout,dead-code-elimination,legalize-ops",
                   "plan" + std::to_string(seed) + (flow[11] ? "g" : ""));
      if (!base.defined() || !planned.defined()) continue;
      EXPECT_TRUE(test::tensors_close(planned, base, 1e-5, 1e-5))
          << "seed " << seed << " " << flow << "\n" << test::read_text_file(dir_ / file);
    }
  }
}

TEST_F(LayoutProperty, ATileAroundElementwiseOpsDisappears) {
  // tile -> untile around relu and a broadcast add: planning leaves no rewrite at all.
  std::ofstream(dir_ / "m.rx") << R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((2, 8), "float32"):
        i = T.int64()
        j = T.int64()
        p = T.int64()
        q = T.int64()
        r = T.int64()
        with R.dataflow():
            y = R.add(x, b)
            z = R.nn.relu(y)
            t = R.layout_transform(z, index_vars=[i, j], index_map=[j // 4, i, j % 4])
            u = R.layout_transform(t, index_vars=[p, q, r], index_map=[q, p * 4 + r])
            R.output(u)
        return u
)";
  test::DriverResult r =
      run(kDriver + " opt m.rx --passes flow-layout,fold-layout,dead-code-elimination");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("layout_transform"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("permute_dims"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace relax
