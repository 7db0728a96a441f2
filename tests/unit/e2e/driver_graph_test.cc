// relax-driver graph: a model's dataflow graph in Graphviz DOT, as imported or after a
// pipeline or after one pass of it, for one function or all, as DOT or rendered by Graphviz;
// a function or pass that does not exist is named.
#include <gtest/gtest.h>

#include "../../common/driver_runner.h"

namespace relax {
namespace {

const std::string kMlp = RELAX_SOURCE_DIR "/examples/mlp/mlp.rx";

class DriverGraph : public test::DriverTest {};

TEST_F(DriverGraph, ImportedModelAsDot) {
  test::DriverResult r = run("graph " + kMlp);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph relax {", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("subgraph cluster_0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"main\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("= matmul\\n"), std::string::npos) << r.out;       // an op's node
  EXPECT_NE(r.out.find("[shape=note, label=\"const\\n"), std::string::npos) << r.out;  // elided
  EXPECT_NE(r.out.find("label=\"return\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" -> f0_return;"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
}

TEST_F(DriverGraph, AfterAPipelineAndToAFile) {
  test::DriverResult r = run("graph " + kMlp + " -O0 --function main -o g.dot");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string dot = test::read_text_file(dir_ / "g.dot");
  EXPECT_NE(dot.find("vm.call_dps"), std::string::npos) << dot;  // lowered calls of kernels
}

TEST_F(DriverGraph, UnknownFunctionIsNamed) {
  test::DriverResult r = run("graph " + kMlp + " --function nosuch");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no Relax function 'nosuch'; its Relax functions: main"),
            std::string::npos)
      << r.err;
}

TEST_F(DriverGraph, AfterOnePassFusedKernelsAreClusters) {
  test::DriverResult r = run("graph " + kMlp + " --after fuse-ops -o g.dot");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string dot = test::read_text_file(dir_ / "g.dot");
  EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos) << dot;
  EXPECT_NE(dot.find("fused_"), std::string::npos) << "fused functions after fuse-ops: " << dot;
  // A pass the pipeline does not run is named with the ones it does.
  r = run("graph " + kMlp + " --after fuse-opz");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("--after fuse-opz: the pipeline does not run this pass; it runs "),
            std::string::npos)
      << r.err;
}

TEST_F(DriverGraph, PicturesRenderWithDot) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) GTEST_SKIP() << "Graphviz not installed";
  test::DriverResult r = run("graph " + kMlp + " -o g.svg");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::string svg = test::read_text_file(dir_ / "g.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos) << svg.substr(0, 200);
  EXPECT_FALSE(test::fs::exists(dir_ / "g.svg.dot.tmp"));
  // And dot accepts the DOT text itself.
  ASSERT_EQ(run("graph " + kMlp + " -o g.dot").rc, 0);
  EXPECT_EQ(std::system(("dot -Tsvg " + (dir_ / "g.dot").string() + " -o /dev/null").c_str()), 0);
}

}  // namespace
}  // namespace relax
