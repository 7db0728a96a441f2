// relax-driver on inputs that once crashed it or compiled into damaged executables (issue 25,
// ../shared/reliability/): negative and oversized tensor dimensions, int64 literals at and
// beyond the edge of the range, and a .npy input whose shape has an empty entry. Each is a
// clean user error (exit 1) naming the file, the place and what was expected.
#include "../../common/driver_runner.h"

namespace relax::test {
namespace {

class DriverReliability : public DriverTest {
 protected:
  /// Writes `text` to `name` in the test directory and compiles it for tir-interp.
  DriverResult compile(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return run("compile " + name + " --target tir-interp -o " + name + ".rxe");
  }
};

TEST_F(DriverReliability, NegativeTensorDimensionIsAnErrorAtTheDimension) {
  DriverResult r = compile("neg.rx",
                           "@R.function\n"
                           "def main(x: R.Tensor((-4, 3), \"float32\")):\n"
                           "    y = R.nn.relu(x)\n"
                           "    return y\n");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("neg.rx:2:23: error: dimension 0 of R.Tensor is -4; a tensor dimension "
                       "must be >= 0"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "neg.rx.rxe"));
}

TEST_F(DriverReliability, TensorTooLargeForInt64IsAnError) {
  DriverResult r = compile("huge.rx",
                           "@R.function\n"
                           "def main(x: R.Tensor((9223372036854775807, 9223372036854775807), "
                           "\"float32\")):\n"
                           "    y = R.nn.relu(x)\n"
                           "    return y\n");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("huge.rx:2:22: error: R.Tensor((9223372036854775807, "
                       "9223372036854775807), \"float32\") is too large"),
            std::string::npos)
      << r.err;
}

TEST_F(DriverReliability, Int64LiteralsAtTheEdgeOfTheRange) {
  auto module = [](const std::string& literal) {
    return "@R.function\n"
           "def main(x: R.Tensor((4,), \"float32\")):\n"
           "    y = R.prim_value(" +
           literal + ")\n    return x\n";
  };
  DriverResult min = compile("min.rx", module("-9223372036854775808"));
  EXPECT_EQ(min.rc, 0) << min.err;
  DriverResult max = compile("max.rx", module("9223372036854775807"));
  EXPECT_EQ(max.rc, 0) << max.err;
  DriverResult over = compile("over.rx", module("9223372036854775808"));
  EXPECT_EQ(over.rc, 1) << over.err;
  EXPECT_NE(over.err.find("over.rx:3:22: error: integer literal 9223372036854775808 is out of "
                          "range: an int64 is at most 9223372036854775807"),
            std::string::npos)
      << over.err;
  DriverResult far = compile("far.rx", module("-9223372036854775809"));
  EXPECT_EQ(far.rc, 1) << far.err;
  EXPECT_NE(far.err.find("integer literal 9223372036854775809 is out of range"), std::string::npos)
      << far.err;
  DriverResult twice = compile("twice.rx", module("-(-9223372036854775808)"));
  EXPECT_EQ(twice.rc, 1) << twice.err;
  EXPECT_NE(twice.err.find("negating -9223372036854775808 overflows int64"), std::string::npos)
      << twice.err;
}

TEST_F(DriverReliability, NpyShapeWithAnEmptyEntryIsAnError) {
  DriverResult c = compile("relu.rx",
                           "@R.function\n"
                           "def main(x: R.Tensor((3, 64), \"float32\")):\n"
                           "    y = R.nn.relu(x)\n"
                           "    return y\n");
  ASSERT_EQ(c.rc, 0) << c.err;
  // What numpy writes for a (3, 64) float32 array, with the shape damaged to (3,,64).
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,,64), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream(dir_ / "bad.npy", std::ios::binary)
      << std::string("\x93NUMPY\x01\x00", 8) << char(header.size()) << char(0) << header
      << std::string(3 * 64 * 4, '\0');
  DriverResult r = run("run relu.rx.rxe --input x=bad.npy");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("bad.npy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("malformed shape (3,,64) in .npy header (dimension 1 is empty)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("'shape': (3,,64)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace relax::test
