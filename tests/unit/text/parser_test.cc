// Parsing every construct of both dialects: each program parses, builds the expected IR, and
// print(parse(text)) is a fixed point after one step (parse(print(m)) == m along the way).
#include "relax/ir/well_formed.h"
#include "relax/runtime/ndarray.h"
#include "relax/tir/stmt.h"
#include "text_test_util.h"

namespace relax {
namespace {

using testing::expect_fixed_point;
using testing::expect_round_trip;

const char* kRelaxConstructs = R"(
@I.ir_module
class Module:
    I.module_attrs({"name": "constructs", "version": 2})

    @T.prim_func(private=True)
    def add_one(A: T.Buffer((n,), "float32"), B: T.Buffer((n,), "float32"), m: T.int64):
        for i in range(n):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def split(A: T.Buffer((4,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((2,), "float32")):
        for i in range(2):
            B[i] = A[i]
            C[i] = A[i + 2]

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor((4, 4), "float32"), flag: R.Tensor((), "bool"),
             s: R.Shape([2, 3]), p: R.Prim("int64"), o: R.Object, t: R.Tuple(R.Tensor((2,), "float32"), R.Object)) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        R.func_attr({"global_symbol": "main", "num_input": 1})
        with R.dataflow():
            lv0: R.Tensor((n, 4), dtype="float32") = R.matmul(x, y, out_dtype="float32")
            lv1 = R.permute_dims(lv0, axes=[1, 0])
            lv2 = R.nn.relu(lv0)
            lv3 = R.call_tir(cls.add_one, (R.flatten(lv2),), out_sinfo=R.Tensor((n * 4,), "float32"), tir_vars=R.shape([n]))
            lv4 = R.call_tir(cls.split, (R.const([1.5, 2, -3, 4e-3], "float32"),), out_sinfo=[R.Tensor((2,), "float32"), R.Tensor((2,), "float32")])
            lv5 = lv4[1]
            lv6 = R.add(lv2, R.const(0.5, "float32"))
            lv7 = R.call_dps_packed("my_dps", (lv6,), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            lv8 = R.call_pure_packed("my_pure", lv7, R.str("mode"), R.dtype("int8"), R.prim_value(n + 1), sinfo_args=R.Tensor((n, 4), "float32"))
            gv = R.reshape(lv8, R.shape([n, 4]))
            big = R.const([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17, 18, 19]], "int32")
            tup = (gv, lv5, big)
            R.output(gv, tup)
        if flag:
            z: R.Tensor((n, 4), "float32") = R.multiply(gv, gv)
            w = z
        else:
            w = R.subtract(gv, gv)
        k = R.match_cast(o, R.Tensor((m, 2), "float32"))
        u = t[0]
        res = cls.helper(w)
        return res

    @R.function
    def helper(a: R.Tensor((m, 4), "float32")) -> R.Tensor((m, 4), "float32"):
        b = R.exp(a)
        return b
)";

TEST(Parser, EveryRelaxConstructRoundTrips) {
  IRModule m = expect_fixed_point(kRelaxConstructs);
  EXPECT_TRUE(is_well_formed(m)) << well_formed_errors(m)[0].to_string();
  expect_round_trip(m);
  ASSERT_TRUE(m.attrs().defined());
  EXPECT_EQ(std::get<std::string>(*m.attrs()->find("name")), "constructs");
  // Source order is kept; the forward reference to helper went through its declared signature.
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m.functions()[2].gv->name, "main");
  auto main = m.lookup("main").as_ref<Function>();
  EXPECT_EQ(std::get<int64_t>(*main->attrs->find("num_input")), 1);
  auto* seq = main->body.as<SeqExpr>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  const auto& df = seq->blocks[0]->bindings;
  // Names are kept as written; the nested R.flatten became its own binding.
  EXPECT_EQ(df[0]->var->name, "lv0");
  EXPECT_TRUE(df[0]->var.is<DataflowVar>());
  bool found_gv = false;
  for (const auto& b : df) found_gv |= b->var->name == "gv" && b->var.is<Var>();
  EXPECT_TRUE(found_gv);
  // The if binding: a tensor condition, two SeqExpr branches.
  const auto& plain = seq->blocks[1]->bindings;
  auto* iff = plain[0]->value.as<If>();
  ASSERT_NE(iff, nullptr);
  EXPECT_EQ(plain[0]->var->name, "w");
  EXPECT_TRUE(plain[1].is<MatchCast>());
  std::string text = print_module(m);
  for (const char* piece :
       {"I.module_attrs({\"name\": \"constructs\", \"version\": 2})",
        "R.matmul(x, y, out_dtype=\"float32\")",
        "R.permute_dims(lv0, axes=[1, 0])",
        "R.nn.relu(lv0)",
        "R.call_tir(cls.add_one, (lv,), out_sinfo=R.Tensor((n * 4,), dtype=\"float32\"), "
        "tir_vars=R.shape([n]))",
        "out_sinfo=[R.Tensor((2,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\")]",
        "R.const([1.5, 2.0, -3.0, 0.004], \"float32\")",
        "R.const(0.5, \"float32\")",
        "R.call_dps_packed(\"my_dps\", (lv6,), out_sinfo=R.Tensor((n, 4), dtype=\"float32\"))",
        "R.call_pure_packed(\"my_pure\", lv7, R.str(\"mode\"), R.dtype(\"int8\"), R.prim_value(n + "
        "1), sinfo_args=",
        "metadata[\"relax.expr.Constant\"][0]",
        "if flag:",
        "else:",
        "R.match_cast(o, R.Tensor((m, 2), dtype=\"float32\"))",
        "res: R.Tensor((n, 4), dtype=\"float32\") = cls.helper(w)",
        "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Object)",
        "p: R.Prim(\"int64\")",
        "s: R.Shape([2, 3])",
        "R.output(gv, tup)",
        "@T.prim_func",
        "cls = Module",
        "metadata = {",
        "R.const([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17, 18, 19]], "
        "\"int32\"),"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
}

TEST(Parser, ConstantsKeepTheirBytes) {
  IRModule m = expect_fixed_point(R"(
@R.function
def f() -> R.Tensor((3,), "float64"):
    a = R.const([0.1, -2.5e-300, 1e300], "float64")
    b = R.const(True, "bool")
    c = R.const([[1], [2]], "int8")
    d = R.const([], "float32", shape=(0, 3))
    e = R.const(7)
    return a
)");
  auto* seq = m.lookup("f").as<Function>()->body.as<SeqExpr>();
  const auto& bs = seq->blocks[0]->bindings;
  const auto& a = bs[0]->value.as<Constant>()->data;
  EXPECT_EQ(a.data_as<double>()[0], 0.1);
  EXPECT_EQ(a.data_as<double>()[1], -2.5e-300);
  EXPECT_EQ(bs[1]->value.as<Constant>()->data.dtype(), DataType::Bool());
  EXPECT_EQ(bs[2]->value.as<Constant>()->data.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(bs[3]->value.as<Constant>()->data.shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(bs[4]->value.as<Constant>()->data.dtype(), DataType::Int(32));
  expect_round_trip(m);
}

TEST(Parser, RfcAndTvmSpellingsGiveTheSameIR) {
  // Old RFC spelling, today's spelling and TVM's string dims all read the same.
  IRModule a = parse_module(R"(
@R.function
def f(x: R.Tensor[(n, 4), "float32"], w: R.Tensor[_, "float32"]):
    with R.dataflow():
        lv = R.match_shape(w, (n, 4))
        gv = R.call_tir("k", [x, lv], (n, 4), dtype="float32")
        R.outputs(gv)
    return gv
)");
  IRModule b = parse_module(R"(
# a comment line
@R.function
def f(x: R.Tensor(("n", 4), dtype="float32"), w: R.Tensor(dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
    n = T.int64()
    with R.dataflow():
        lv: R.Tensor((n, 4), dtype="float32") = R.match_cast(w, R.Tensor((n, 4), dtype="float32"))
        gv: R.Tensor((n, 4), dtype="float32") = R.call_tir("k", (x, lv), out_sinfo=[R.Tensor((n, 4), "float32")])
        R.output(gv)
    return gv
)");
  EXPECT_FALSE(structural_diff(a, b).has_value()) << *structural_diff(a, b);
}

TEST(Parser, ImpureFunctionsPrintPureFalse) {
  IRModule m = expect_fixed_point(R"(
@R.function(pure=False)
def f(x: R.Tensor((2,), "float32")) -> R.Object:
    y = R.call_packed("print", x)
    z = R.call_packed("make", x, sinfo_args=[R.Tensor((2,), "float32")])
    e = R.ExternFunc("raw")(x, sinfo_args=R.Object)
    return y
)");
  std::string text = print_module(m);
  EXPECT_NE(text.find("@R.function(pure=False)"), std::string::npos) << text;
  EXPECT_NE(text.find("R.call_packed(\"make\", x, sinfo_args=R.Tensor((2,), dtype=\"float32\"))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("R.ExternFunc(\"raw\")(x, sinfo_args=R.Object)"), std::string::npos) << text;
}

TEST(Parser, OpsComeFromTheRegistry) {
  // Any registered op reads as R.<name without "relax.">; keywords that are argument names
  // are arguments, the others attributes checked against the op's AttrSpecs.
  IRModule m = expect_fixed_point(R"(
@R.function
def f(x: R.Tensor((2, 3), "float32")):
    a = R.permute_dims(x=x, axes=[1, 0])
    b = R.unique(a, sorted=False)
    c = R.shape_of(x)
    return c
)");
  auto* seq = m.lookup("f").as<Function>()->body.as<SeqExpr>();
  auto* call = seq->blocks[0]->bindings[1]->value.as<Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->op.as<Op>()->name, "relax.unique");
  EXPECT_FALSE(std::get<bool>(*call->attrs->find("sorted")));
}

TEST(Parser, SymbolicDtypesFromDeclarations) {
  IRModule m = expect_fixed_point(R"(
@R.function
def f(x: R.Tensor((n,), "float32")) -> R.Prim(value=n):
    n = T.int32()
    v = R.prim_value(n + T.int32(1) * 2)
    return R.prim_value(n)
)");
  auto f = m.lookup("f").as_ref<Function>();
  auto* t = f->params[0]->struct_info.as<TensorStructInfo>();
  EXPECT_EQ((*t->shape)[0]->dtype, DataType::Int(32));
}

const char* kTirConstructs = R"(
@T.prim_func
def kernel(a: T.handle, B: T.Buffer((n, 8), "float32"), C: T.Buffer((16,), "int32", scope="global"), s: T.int32):
    T.func_attr({"global_symbol": "kernel", "tir.noalias": True})
    n = T.int64()
    A = T.match_buffer(a, (n, 8), "float32", strides=(8, 1), elem_offset=0)
    with T.block("root"):
        L = T.alloc_buffer((8,), "float32", scope="local")
        for i in T.parallel(n):
            for j in T.vectorized(8):
                B[i, j] = T.exp(A[i, j]) + T.max(A[i, j], T.float32(0)) * T.float32(0.5)
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.unroll(2, 6):
                C[bx * 4 + tx] = T.Cast("int32", T.floor(B[0, tx])) // 2 + T.truncmod(s, 3) % 5
        for i, j, k in T.grid(n, 8, 8):
            with T.block("update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.where(vi < n)
                T.reads(A[vi, vk], B[vi, 0:8])
                T.writes(L[vj])
                T.block_attr({"tag": "x", "ratio": 0.25, "sizes": [1, 2]})
                with T.init():
                    L[vj] = T.float32(0)
                L[vj] = L[vj] + T.if_then_else(vi == 0 and not vk > 4, A[vi, vk], T.float32(-1.5))
        with T.block("scalar"):
            v = T.axis.opaque((2, 10), s * 2)
            x: T.int32 = v + 1
            if x > 3:
                C[x] = T.Select(x < 10, x, 0)
            else:
                T.evaluate(T.call_extern("int32", "trace", x, T.int64(7)))
            assert x >= 0, "negative"
            C[0] = T.Let(y * y, where={y: x})
        for i in range(T.int64(4)):
            L[i] = T.reinterpret("float32", C[i]) / T.float32(3) - T.Cast("float32", T.isnan(B[0, i]))
        buf = T.allocate([16], "float32", "shared")
        S = T.Buffer((4, 4), "float32", data=buf)
        S[1, 2] = T.sqrt(T.float32(2))
        C[T.Ramp(0, 1, 4)] = T.Broadcast(T.int32(1), 4)
)";

TEST(Parser, ScalarParametersAreInScopeForTheWholeSignature) {
  // create_prim_func puts the symbolic variables no buffer dimension binds last, after the
  // buffers whose shapes use them: the shape's `h` is the parameter, not a second variable.
  IRModule m = parse_module(R"(
@T.prim_func
def pad_rows(A: T.Buffer((n, (0 - h % 8) % 8), "float32"), h: T.int64):
    n = T.int64()
    for i, j in T.grid(n, (0 - h % 8) % 8):
        A[i, j] = T.float32(0)
)");
  auto pf = m.lookup("pad_rows").as_ref<tir::PrimFunc>();
  ASSERT_EQ(pf->params.size(), 2u);
  const tir::Var* h = pf->params[1].get();
  int uses = 0;
  tir::substitute(pf->buffer_map[0].second->shape[1], [&](const tir::Var* v) {
    uses += v == h;
    return tir::PrimExpr();
  });
  EXPECT_EQ(uses, 1);
  EXPECT_TRUE(is_well_formed(m)) << well_formed_errors(m)[0].to_string();
  expect_round_trip(m);
}

TEST(Parser, EveryTirConstructRoundTrips) {
  IRModule m = expect_fixed_point(kTirConstructs);
  expect_round_trip(m);
  auto pf = m.lookup("kernel").as_ref<tir::PrimFunc>();
  ASSERT_EQ(pf->params.size(), 4u);
  ASSERT_EQ(pf->buffer_map.size(), 3u);
  EXPECT_EQ(pf->buffer_map[0].second->name, "A");
  EXPECT_EQ(pf->buffer_map[0].second->strides.size(), 2u);
  EXPECT_EQ(pf->params[3]->dtype, DataType::Int(32));
  std::string text = print_prim_func(pf, "kernel");
  for (const char* piece : {"def kernel(a: T.handle, B: T.Buffer((n, 8), \"float32\"), C: "
                            "T.Buffer((16,), \"int32\"), s: T.int32):",
                            "T.func_attr({\"global_symbol\": \"kernel\", \"tir.noalias\": True})",
                            "n = T.int64()",
                            "A = T.match_buffer(a, (n, 8), \"float32\", strides=(8, 1))",
                            "L = T.alloc_buffer((8,), \"float32\", scope=\"local\")",
                            "for i in T.parallel(n):",
                            "for j in T.vectorized(8):",
                            "for bx in T.thread_binding(4, thread=\"blockIdx.x\"):",
                            "for tx in T.unroll(2, 6):",
                            "for i_1, j_1, k in T.grid(n, 8, 8):",
                            "vi, vj, vk = T.axis.remap(\"SSR\", [i_1, j_1, k])",
                            "T.where(vi < n)",
                            "T.reads(A[vi, vk], B[vi, 0:8])",
                            "with T.init():",
                            "v = T.axis.opaque((2, 10), s * 2)",
                            "x: T.int32 = v + 1",
                            "assert x >= 0, \"negative\"",
                            "T.call_extern(\"int32\", \"trace\", x, T.int64(7))",
                            "T.Let(y * y, where={y: x})",
                            "T.reinterpret(\"float32\", C[i_2])",
                            "buf = T.allocate([16], \"float32\", \"shared\")",
                            "S = T.Buffer((4, 4), \"float32\", data=buf)",
                            "T.Ramp(0, 1, 4)",
                            "vi == 0 and not vk > 4"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
}

TEST(Parser, TirLiteralsAndImplicitRegions) {
  // Regions are inferred when T.reads/T.writes are omitted; `+=` reads and writes.
  IRModule m = parse_module(R"(
@T.prim_func
def mm(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 4):
        with T.block("acc"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = 0.0
            C[vi] += A[vi, vk] * 2
)");
  auto pf = m.lookup("mm").as_ref<tir::PrimFunc>();
  auto* loop = pf->body.as<tir::For>();
  auto* realize = loop->body.as<tir::For>()->body.as<tir::BlockRealize>();
  ASSERT_NE(realize, nullptr);
  ASSERT_EQ(realize->block->reads.size(), 2u);
  EXPECT_EQ(realize->block->reads[0].buffer->name, "C");
  EXPECT_EQ(realize->block->writes.size(), 1u);
  EXPECT_TRUE(realize->block->init.defined());
  expect_round_trip(m);
}

TEST(Parser, TirNegationIsZeroOfTheOperandsDtypeMinusIt) {
  // -x is 0 - x with a zero of x's dtype: a float32 FloatImm here, an int32 IntImm for n. (The
  // zero was an IntImm of dtype float32, printed "0 - x[i]", which read back differently.)
  IRModule m = parse_module(R"(
@T.prim_func
def neg(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32"), n: T.int32):
    for i in range(4):
        with T.block("n"):
            vi = T.axis.spatial(4, i)
            y[vi] = -x[vi] * T.Cast("float32", -n)
)");
  std::string text = expect_round_trip(m);
  EXPECT_NE(text.find("(T.float32(0) - x[vi]) * T.Cast(\"float32\", 0 - n)"), std::string::npos) << text;
}

}  // namespace
}  // namespace relax
