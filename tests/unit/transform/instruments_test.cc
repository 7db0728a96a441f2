// The standard instruments: timing, IR dumps, verify-each and the failure reproducer.
#include "relax/transform/instruments.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../common/error_of.h"
#include "relax/ir/structural_equal.h"
#include "relax/target/compile.h"
#include "relax/text/parser.h"
#include "relax/transform/pipeline.h"
#include "transform_test_util.h"

namespace relax::transform {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("relax-transform-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// The core passes plus two test passes: one breaking well-formedness, one failing.
PassRegistry test_registry() {
  PassRegistry reg = make_core_registry();
  reg.add({"break-wf", "", Granularity::kModule, {}},
          ModuleTransform([](const IRModule& m, const PassOptions&, PassContext&) {
            IRModule out = m;
            auto* f = m.functions()[0].func.as<Function>();
            out.update(m.functions()[0].gv->name,
                       make_ref<Function>(f->params,
                                          make_ref<SeqExpr>(std::vector<Block>{},
                                                            make_var("ghost", f->ret_struct_info)),
                                          f->ret_struct_info));
            return out;
          }));
  reg.add({"explode", "", Granularity::kFunction, {{"limit", OptionType::kInt, int64_t(3), ""}}},
          FunctionTransform([](const Ref<Function>&, const PassArgs& a) -> Ref<Function> {
            RX_THROW() << "explode: limit " << a.options.get_int("limit") << " reached";
          }));
  return reg;
}

TEST(Instruments, TimingRecordsEveryPassInOrder) {
  PassRegistry reg = test_registry();
  PassContext ctx;
  auto timing = std::make_shared<TimingInstrument>();
  ctx.add_instrument(timing);
  run_passes(
      parse_pipeline_line("normalize,remove-unused-functions,to-non-dataflow", reg).build(reg),
      test::make_chain_module(4), ctx);
  ASSERT_EQ(timing->entries().size(), 3u);
  EXPECT_EQ(timing->entries()[1].pass, "remove-unused-functions{entry=main}");
  std::ostringstream os;
  timing->report(os);
  EXPECT_EQ(os.str().rfind("===- Pass execution timing report -===\n  Total: ", 0), 0u) << os.str();
  EXPECT_NE(os.str().find("%)  to-non-dataflow\n"), std::string::npos) << os.str();
}

TEST(Instruments, DumpAfterNamedPassToStreamAndDirectory) {
  PassRegistry reg = test_registry();
  auto passes = parse_pipeline_line("normalize,to-non-dataflow", reg).build(reg);
  IRModule mod = test::make_chain_module(1);

  std::ostringstream os;
  PassContext ctx;
  ctx.add_instrument(std::make_shared<IRDumpInstrument>(
      IRDumpInstrument::Options{{}, {"to-non-dataflow"}, "", &os}));
  IRModule out = run_passes(passes, mod, ctx);
  EXPECT_EQ(os.str().rfind("# -----// IR Dump After to-non-dataflow //----- #\n", 0), 0u)
      << os.str();
  EXPECT_EQ(os.str().find("IR Dump After normalize"), std::string::npos);
  EXPECT_EQ(os.str().find("R.dataflow"), std::string::npos);  // dumped after the pass

  fs::path dir = fresh_dir("dump");
  PassContext ctx2;
  auto dump = std::make_shared<IRDumpInstrument>(
      IRDumpInstrument::Options{{"all"}, {"all"}, dir.string(), nullptr});
  ctx2.add_instrument(dump);
  run_passes(passes, mod, ctx2);
  std::vector<std::string> names;
  for (const auto& f : dump->files()) names.push_back(fs::path(f).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"00-normalize-before.rx", "01-normalize-after.rx",
                                             "02-to-non-dataflow-before.rx",
                                             "03-to-non-dataflow-after.rx"}));
  // A dump is a module the parser reads back.
  EXPECT_TRUE(
      structural_equal(parse_module_file((dir / "03-to-non-dataflow-after.rx").string()), out));
  fs::remove_all(dir);
}

TEST(Instruments, VerifyEachNamesThePassThatBrokeTheModule) {
  PassRegistry reg = test_registry();
  auto passes = parse_pipeline_line("normalize,break-wf,to-non-dataflow", reg).build(reg);
  PassContext ctx;
  ctx.add_instrument(std::make_shared<VerifyInstrument>());
  std::string msg = test::error_of([&] { run_passes(passes, test::make_chain_module(2), ctx); });
  EXPECT_EQ(msg.rfind("error: the module is not well formed after pass 'break-wf' (1 violation):\n "
                      " error: in function "
                      "'f0': variable 'ghost' is used before it is defined",
                      0),
            0u)
      << msg;
  // Without the instrument the broken module goes through.
  PassContext plain;
  EXPECT_NO_THROW(run_passes(passes, test::make_chain_module(2), plain));
}

TEST(Instruments, ReproducerHoldsTheInputAndTheFailingPass) {
  PassRegistry reg = test_registry();
  auto passes = parse_pipeline_line("to-non-dataflow,explode{limit=7}", reg).build(reg);
  fs::path dir = fresh_dir("repro");
  auto repro = std::make_shared<ReproducerInstrument>((dir / "repro.rx").string());
  PassContext ctx;
  ctx.add_instrument(repro);
  IRModule mod = test::make_chain_module(2);
  EXPECT_EQ(test::error_of([&] { run_passes(passes, mod, ctx); }),
            "error: explode: limit 7 reached");
  ASSERT_TRUE(repro->written());
  std::string text = read_file(dir / "repro.rx");
  EXPECT_EQ(
      text.rfind("# relax-reproducer: pass 'explode' failed: error: explode: limit 7 reached\n"
                 "# pipeline: to-non-dataflow,explode{limit=7}\n"
                 "# relax-reproducer: --passes='explode{limit=7}'\n",
                 0),
      0u)
      << text;
  // The module in it is the failing pass's input (after to-non-dataflow), and re-running the
  // recorded pipeline on it fails the same way.
  PassContext plain;
  IRModule input = parse_module(text, "repro.rx");
  EXPECT_TRUE(structural_equal(input, run_passes({passes[0]}, mod, plain)));
  auto line = text.substr(text.find("--passes='") + 10);
  line = line.substr(0, line.find('\''));
  EXPECT_EQ(
      test::error_of([&] { run_passes(parse_pipeline_line(line, reg).build(reg), input, plain); }),
      "error: explode: limit 7 reached");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace relax::transform
