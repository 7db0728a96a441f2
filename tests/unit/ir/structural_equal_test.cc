// Structural equality and hashing (ir/structural_equal.h): equal up to variable renaming,
// hashes consistent with equality, and the first difference reported as an access path.

#include "relax/ir/structural_equal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <unordered_set>

#include "relax/ir/op.h"
#include "relax/ir/prim_func.h"

namespace relax {
namespace {

constexpr DataType kF32 = DataType::Float(32);

/// Variations of one function, so each test changes one thing.
struct FuncSpec {
  bool dataflow = true;
  bool swap_last_args = false;  // gv = add(lv0, y) instead of add(lv0, x)
  bool gv_dataflow_var = false;
  DataType gv_dtype = kF32;
  bool square_y = false;  // y: (n, n) instead of (n, 4)
};

/// def f(x: R.Tensor((n, 4)), y: R.Tensor((n, 4))):
///   with R.dataflow():
///     lv0 = R.add(x, y)
///     gv = R.add(lv0, x)
///     R.output(gv)
///   return gv
/// Every call builds fresh variables named with `suffix`.
Ref<Function> add_func(const std::string& suffix, const FuncSpec& spec = {}) {
  Ref<tir::Var> n = tir::var("n" + suffix);
  StructInfo s = tensor_sinfo({n, tir::int_imm(4)}, kF32);
  StructInfo sy = spec.square_y ? tensor_sinfo({n, n}, kF32) : s;
  Ref<Var> x = make_var("x" + suffix, s);
  Ref<Var> y = make_var("y" + suffix, sy);
  Ref<VarNode> lv0 = spec.dataflow ? Ref<VarNode>(make_dataflow_var("lv0" + suffix, s))
                                   : Ref<VarNode>(make_var("lv0" + suffix, s));
  StructInfo sg = tensor_sinfo({n, tir::int_imm(4)}, spec.gv_dtype);
  Ref<VarNode> gv = spec.gv_dataflow_var ? Ref<VarNode>(make_dataflow_var("gv" + suffix, sg))
                                         : Ref<VarNode>(make_var("gv" + suffix, sg));
  const Ref<Op>& add = get_op("relax.add");
  Expr second = spec.swap_last_args ? Expr(y) : Expr(x);
  std::vector<Binding> bindings{
      make_ref<VarBinding>(
          lv0, make_ref<Call>(add, std::vector<Expr>{x, y}, Attrs(), std::vector<StructInfo>{}, s)),
      make_ref<VarBinding>(gv, make_ref<Call>(add, std::vector<Expr>{lv0, second}, Attrs(),
                                              std::vector<StructInfo>{}, s))};
  Block block = make_block(std::move(bindings), spec.dataflow);
  Expr body = make_ref<SeqExpr>(std::vector<Block>{block}, gv);
  return make_ref<Function>(std::vector<Ref<Var>>{x, y}, body, s);
}

std::string path_of(const Ref<Object>& a, const Ref<Object>& b, bool map_free_vars = true) {
  StructuralEqualResult r = structural_compare(a, b, map_free_vars);
  EXPECT_FALSE(r.equal) << "expected a difference";
  return r.path;
}

// ---- Functions.

TEST(StructuralEqual, AlphaEquivalentFunctionsAreEqualAndHashEqual) {
  Ref<Function> f = add_func("_a"), g = add_func("_b");
  EXPECT_TRUE(structural_equal(f, g));
  EXPECT_TRUE(structural_equal(f, g, /*map_free_vars=*/false));  // everything is defined inside
  EXPECT_EQ(structural_hash(f), structural_hash(g));
  EXPECT_EQ(structural_hash(f, false), structural_hash(g, false));
  EXPECT_FALSE(structural_diff(f, g).has_value());
  EXPECT_NO_THROW(assert_structural_equal(f, g));
}

TEST(StructuralEqual, DifferentArgumentReportsItsPath) {
  Ref<Function> f = add_func("_a"), g = add_func("_b", {.swap_last_args = true});
  EXPECT_FALSE(structural_equal(f, g));
  EXPECT_NE(structural_hash(f), structural_hash(g));
  StructuralEqualResult r = structural_compare(f, g);
  EXPECT_EQ(r.path, "body.blocks[0].bindings[1].value.args[1]");
  EXPECT_EQ(r.lhs, "'x_a'");
  EXPECT_EQ(r.rhs, "'y_b'");
  EXPECT_EQ(r.reason, "'x_a' already corresponds to 'x_b' on the right");
}

TEST(StructuralEqual, VarStructInfoMatters) {
  Ref<Function> f = add_func("_a"), g = add_func("_b", {.gv_dtype = DataType::Float(16)});
  StructuralEqualResult r = structural_compare(f, g);
  EXPECT_FALSE(r.equal);
  EXPECT_EQ(r.path, "body.blocks[0].bindings[1].var.struct_info.dtype");
  EXPECT_EQ(r.lhs, "float32");
  EXPECT_EQ(r.rhs, "float16");
}

TEST(StructuralEqual, DataflowBlockDiffersFromBindingBlock) {
  Ref<Function> f = add_func("_a"), g = add_func("_b", {.dataflow = false});
  StructuralEqualResult r = structural_compare(f, g);
  EXPECT_FALSE(r.equal);
  EXPECT_EQ(r.path, "body.blocks[0]");
  EXPECT_EQ(r.reason, "different kinds: DataflowBlock vs BindingBlock");
  EXPECT_NE(structural_hash(f), structural_hash(g));
}

TEST(StructuralEqual, VarNeverEqualsDataflowVar) {
  Ref<Function> f = add_func("_a"), g = add_func("_b", {.gv_dataflow_var = true});
  StructuralEqualResult r = structural_compare(f, g);
  EXPECT_FALSE(r.equal);
  EXPECT_EQ(r.path, "body.blocks[0].bindings[1].var");
  EXPECT_EQ(r.reason, "different kinds: Var vs DataflowVar");
}

TEST(StructuralEqual, SymbolicShapesInParamsMapConsistently) {
  // (n, 4) vs (m, 4): n stands for m.
  Ref<tir::Var> n = tir::var("n"), m = tir::var("m");
  auto one_param = [](StructInfo s) {
    Ref<Var> x = make_var("x", s);
    return make_ref<Function>(std::vector<Ref<Var>>{x}, x, s);
  };
  Ref<Function> fn = one_param(tensor_sinfo({n, tir::int_imm(4)}, kF32));
  Ref<Function> fm = one_param(tensor_sinfo({m, tir::int_imm(4)}, kF32));
  EXPECT_TRUE(structural_equal(fn, fm, /*map_free_vars=*/false));
  EXPECT_EQ(structural_hash(fn, false), structural_hash(fm, false));

  // (n, n) vs (n, m): the second n would have to stand for m as well.
  Ref<Function> fnn = one_param(tensor_sinfo({n, n}, kF32));
  Ref<Function> fnm = one_param(tensor_sinfo({n, m}, kF32));
  StructuralEqualResult r = structural_compare(fnn, fnm);
  EXPECT_FALSE(r.equal);
  EXPECT_EQ(r.path, "params[0].struct_info.shape[1]");
  EXPECT_EQ(r.lhs, "n");
  EXPECT_EQ(r.rhs, "m");
  EXPECT_NE(structural_hash(fnn), structural_hash(fnm));
  // And the other way round: m cannot also stand for n.
  EXPECT_EQ(path_of(fnm, fnn), "params[0].struct_info.shape[1]");

  // Across parameters: y's shape must use the same n as x's.
  EXPECT_TRUE(
      structural_equal(add_func("_a", {.square_y = true}), add_func("_b", {.square_y = true})));
  EXPECT_EQ(path_of(add_func("_a"), add_func("_b", {.square_y = true})),
            "params[1].struct_info.shape[1]");
}

TEST(StructuralEqual, MatchCastDefinesSymbolicVars) {
  // def f(x: R.Tensor(ndim=2)): y = R.match_cast(x, R.Tensor((n, m))); return y
  auto make = [](bool square) {
    Ref<tir::Var> n = tir::var("n"), m = tir::var("m");
    Ref<Var> x = make_var("x", tensor_sinfo(kF32, 2));
    StructInfo cast = tensor_sinfo({n, square ? PrimExpr(n) : PrimExpr(m)}, kF32);
    Ref<Var> y = make_var("y", cast);
    Block b = make_block({make_ref<MatchCast>(y, x, cast)}, false);
    return make_ref<Function>(std::vector<Ref<Var>>{x}, make_ref<SeqExpr>(std::vector<Block>{b}, y),
                              cast);
  };
  EXPECT_TRUE(structural_equal(make(false), make(false), /*map_free_vars=*/false));
  EXPECT_EQ(structural_hash(make(false), false), structural_hash(make(false), false));
  EXPECT_EQ(path_of(make(true), make(false)), "body.blocks[0].bindings[0].struct_info.shape[1]");
}

TEST(StructuralEqual, FreeVarsMapOnlyWhenAllowed) {
  // A function whose body uses a variable defined outside it.
  Ref<Var> outer = make_var("outer", tensor_sinfo({tir::int_imm(2)}, kF32));
  Ref<Var> outer2 = make_var("outer2", tensor_sinfo({tir::int_imm(2)}, kF32));
  auto make = [](const Ref<Var>& free) {
    Ref<Var> x = make_var("x", tensor_sinfo({tir::int_imm(2)}, kF32));
    Expr body = make_ref<Call>(get_op("relax.add"), std::vector<Expr>{x, free});
    return make_ref<Function>(std::vector<Ref<Var>>{x}, body,
                              tensor_sinfo({tir::int_imm(2)}, kF32));
  };
  EXPECT_TRUE(structural_equal(make(outer), make(outer2)));
  EXPECT_TRUE(structural_equal(make(outer), make(outer), /*map_free_vars=*/false));
  EXPECT_EQ(structural_hash(make(outer), false), structural_hash(make(outer), false));
  StructuralEqualResult r = structural_compare(make(outer), make(outer2), /*map_free_vars=*/false);
  EXPECT_FALSE(r.equal);
  EXPECT_EQ(r.path, "body.args[1]");
  EXPECT_EQ(r.lhs, "'outer'");
  EXPECT_EQ(r.rhs, "'outer2'");
}

TEST(StructuralEqual, CalleesCompareByName) {
  auto call = [](Expr callee) {
    return make_ref<Call>(std::move(callee), std::vector<Expr>{make_prim_value(1)});
  };
  EXPECT_TRUE(structural_equal(call(make_ref<GlobalVar>("f")), call(make_ref<GlobalVar>("f"))));
  EXPECT_TRUE(structural_equal(call(make_extern("vm.print")), call(make_extern("vm.print"))));
  StructuralEqualResult r =
      structural_compare(call(make_ref<GlobalVar>("f")), call(make_ref<GlobalVar>("g")));
  EXPECT_EQ(r.path, "op");
  EXPECT_EQ(r.lhs, "@f");
  EXPECT_EQ(r.rhs, "@g");
  EXPECT_EQ(path_of(call(get_op("relax.add")), call(get_op("relax.subtract"))), "op");
  EXPECT_EQ(structural_compare(call(make_extern("a")), call(make_ref<GlobalVar>("a"))).reason,
            "different kinds: ExternFunc vs GlobalVar");
}

TEST(StructuralEqual, ListsOfDifferentLengths) {
  Expr a = make_tuple({make_prim_value(1), make_prim_value(2)});
  Expr b = make_tuple({make_prim_value(1)});
  StructuralEqualResult r = structural_compare(a, b);
  EXPECT_EQ(r.path, "fields[1]");
  EXPECT_EQ(r.lhs, "R.prim_value(2)");
  EXPECT_EQ(r.rhs, "(nothing)");
  EXPECT_EQ(r.reason, "lists of different lengths: 2 vs 1");
}

// ---- Constants, scalars, attributes.

runtime::NDArray floats(std::vector<float> v, std::vector<int64_t> shape) {
  return runtime::NDArray::from_bytes(shape, kF32, v.data());
}

TEST(StructuralEqual, ConstantsCompareDtypeShapeAndBytes) {
  Expr c1 = make_constant(floats({1, 2, 3, 4}, {2, 2}));
  Expr c2 = make_constant(floats({1, 2, 3, 4}, {2, 2}));
  EXPECT_TRUE(structural_equal(c1, c2));
  EXPECT_EQ(structural_hash(c1), structural_hash(c2));

  StructuralEqualResult r = structural_compare(c1, make_constant(floats({1, 2, 3, 5}, {2, 2})));
  EXPECT_EQ(r.path, "data");
  EXPECT_EQ(r.reason, "contents differ first at element 3 (flat index)");
  EXPECT_NE(structural_hash(c1), structural_hash(make_constant(floats({1, 2, 3, 5}, {2, 2}))));

  EXPECT_EQ(path_of(c1, make_constant(floats({1, 2, 3, 4}, {4, 1}))), "shape[0]");
  std::vector<int32_t> ints{1, 2, 3, 4};
  Expr ci = make_constant(runtime::NDArray::from_bytes({2, 2}, DataType::Int(32), ints.data()));
  EXPECT_EQ(path_of(c1, ci), "dtype");
}

TEST(StructuralEqual, FloatsAreBitwiseWithNaNEqualToNaN) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(structural_equal(tir::float_imm(nan), tir::float_imm(-nan)));
  EXPECT_EQ(structural_hash(tir::float_imm(nan)), structural_hash(tir::float_imm(-nan)));
  EXPECT_TRUE(structural_equal(tir::float_imm(1.5), tir::float_imm(1.5)));
  EXPECT_FALSE(structural_equal(tir::float_imm(0.0), tir::float_imm(-0.0)));
  EXPECT_FALSE(structural_equal(tir::float_imm(1.0), tir::float_imm(1.0, DataType::Float(64))));
}

TEST(StructuralEqual, Float32ConstantsCompareAtTheirOwnPrecision) {
  // 1e-5 as a double (an attribute's value) and as the float32 the printer writes back.
  EXPECT_TRUE(structural_equal(tir::float_imm(1e-5), tir::float_imm(double(1e-5f))));
  EXPECT_EQ(structural_hash(tir::float_imm(1e-5)), structural_hash(tir::float_imm(double(1e-5f))));
  EXPECT_FALSE(structural_equal(tir::float_imm(1e-5, DataType::Float(64)),
                                tir::float_imm(double(1e-5f), DataType::Float(64))));
  EXPECT_FALSE(structural_equal(tir::float_imm(1e-5), tir::float_imm(1.1e-5)));
}

TEST(StructuralEqual, AttrsAreKeyValueSets) {
  Attrs a = make_attrs({{"axis", int64_t(1)}, {"keepdims", true}});
  Attrs b = make_attrs({{"keepdims", true}, {"axis", int64_t(1)}});
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));

  Attrs c = make_attrs({{"keepdims", true}, {"axis", int64_t(2)}});
  StructuralEqualResult r = structural_compare(a, c);
  EXPECT_EQ(r.path, "axis");
  EXPECT_EQ(r.lhs, "1");
  EXPECT_EQ(r.rhs, "2");

  Attrs d = make_attrs({{"axis", int64_t(1)}});
  r = structural_compare(a, d);
  EXPECT_EQ(r.path, "keepdims");
  EXPECT_EQ(r.rhs, "(absent)");

  Attrs lists1 = make_attrs({{"axes", std::vector<int64_t>{0, 2}}});
  Attrs lists2 = make_attrs({{"axes", std::vector<int64_t>{0, 3}}});
  EXPECT_EQ(path_of(lists1, lists2), "axes[1]");
  // On a call, null attributes and empty attributes are the same thing.
  Expr with_empty = make_ref<Call>(make_extern("f"), std::vector<Expr>{}, make_attrs({}));
  Expr with_null = make_ref<Call>(make_extern("f"), std::vector<Expr>{});
  EXPECT_TRUE(structural_equal(with_empty, with_null));
  EXPECT_EQ(structural_hash(with_empty), structural_hash(with_null));
}

TEST(StructuralEqual, CallAttrsPath) {
  Ref<Var> x = make_var("x", tensor_sinfo(kF32, 2));
  auto call = [&](int64_t axis) {
    return make_ref<Call>(make_extern("f"), std::vector<Expr>{x}, make_attrs({{"axis", axis}}));
  };
  EXPECT_TRUE(structural_equal(call(1), call(1)));
  EXPECT_EQ(path_of(call(1), call(0)), "attrs.axis");
}

// ---- PrimExprs.

TEST(StructuralEqual, PrimExprsUpToRenaming) {
  Ref<tir::Var> n = tir::var("n"), m = tir::var("m");
  using tir::operator*;
  using tir::operator+;
  EXPECT_TRUE(structural_equal(n * 4, n * 4));
  EXPECT_TRUE(structural_equal(n * 4, m * 4));  // free vars map by default
  EXPECT_EQ(structural_hash(n * 4), structural_hash(m * 4));
  EXPECT_TRUE(structural_equal(n * 4, n * 4, /*map_free_vars=*/false));
  EXPECT_EQ(structural_hash(n * 4, false), structural_hash(n * 4, false));
  EXPECT_FALSE(structural_equal(n * 4, m * 4, /*map_free_vars=*/false));
  EXPECT_FALSE(structural_equal(n * 4, 4 * n));  // no commutativity
  EXPECT_FALSE(structural_equal(n + m, n + n));  // one-to-one
  EXPECT_FALSE(structural_equal(n + n, n + m));
  EXPECT_NE(structural_hash(n + m), structural_hash(n + n));
  EXPECT_EQ(path_of(n * 4, n * 8), "b");
  // Variables of different dtypes never match.
  Ref<tir::Var> k32 = tir::var("k", DataType::Int(32));
  EXPECT_FALSE(structural_equal(PrimExpr(n), PrimExpr(k32)));
}

TEST(StructuralEqual, HashFunctorsKeepFreeVarsApart) {
  Ref<Var> x = make_var("x", tensor_sinfo(kF32, 1)), y = make_var("y", tensor_sinfo(kF32, 1));
  auto add = [](Expr a, Expr b) {
    return Expr(make_ref<Call>(get_op("relax.add"), std::vector<Expr>{a, b}));
  };
  std::unordered_set<Ref<Object>, StructuralHash, StructuralEqual> seen;
  seen.insert(add(x, y));
  EXPECT_TRUE(seen.count(add(x, y)));   // a different node, the same structure
  EXPECT_FALSE(seen.count(add(y, x)));  // not a renaming of the same variables
}

// ---- TIR.

/// for i in range(n): Y[i] = exp(X[i]), over (n,) float32 buffers (Y's dim `m` when given).
Ref<tir::PrimFunc> exp_func(tir::ForKind kind = tir::ForKind::kSerial, bool y_own_dim = false) {
  Ref<tir::Var> n = tir::var("n");
  Ref<tir::Buffer> x = tir::decl_buffer({n}, kF32, "X");
  Ref<tir::Buffer> y =
      tir::decl_buffer({y_own_dim ? PrimExpr(tir::var("m")) : PrimExpr(n)}, kF32, "Y");
  Ref<tir::Var> i = tir::var("i");
  PrimExpr e = make_ref<tir::Call>(kF32, tir::Intrinsic::kExp,
                                   std::vector<PrimExpr>{tir::buffer_load(x, {i})});
  tir::Stmt body = make_ref<tir::For>(i, tir::int_imm(0), n, kind, tir::buffer_store(y, e, {i}));
  return tir::make_prim_func({x, y}, body);
}

TEST(StructuralEqual, PrimFuncsUpToRenaming) {
  EXPECT_TRUE(structural_equal(exp_func(), exp_func(), /*map_free_vars=*/false));
  EXPECT_EQ(structural_hash(exp_func(), false), structural_hash(exp_func(), false));
  EXPECT_EQ(path_of(exp_func(), exp_func(tir::ForKind::kParallel)), "body.kind");
  // Y's dimension must be the n that X's shape defined.
  StructuralEqualResult r = structural_compare(exp_func(), exp_func(tir::ForKind::kSerial, true));
  EXPECT_EQ(r.path, "buffer_map[1].buffer.shape[0]");
  EXPECT_EQ(r.lhs, "n");
  EXPECT_EQ(r.rhs, "m");
}

/// One reduction block: for i, k: with T.block: vi, vk = remap("S" + reduce_letter); ...
tir::Stmt sum_rows(tir::IterVarType k_type) {
  Ref<tir::Buffer> a = tir::decl_buffer({tir::int_imm(4), tir::int_imm(8)}, kF32, "A");
  Ref<tir::Buffer> b = tir::decl_buffer({tir::int_imm(4)}, kF32, "B");
  Ref<tir::Var> i = tir::var("i"), k = tir::var("k"), vi = tir::var("vi"), vk = tir::var("vk");
  tir::Stmt init = tir::buffer_store(b, tir::float_imm(0.0), {vi});
  tir::Stmt update =
      tir::buffer_store(b, tir::buffer_load(b, {vi}) + tir::buffer_load(a, {vi, vk}), {vi});
  auto block = make_ref<tir::Block>(
      "sum",
      std::vector<Ref<tir::IterVar>>{
          tir::make_iter_var(vi, tir::int_imm(4), tir::IterVarType::kSpatial),
          tir::make_iter_var(vk, tir::int_imm(8), k_type)},
      std::vector<tir::BufferRegion>{tir::BufferRegion::from_point(a, {vi, vk})},
      std::vector<tir::BufferRegion>{tir::BufferRegion::from_point(b, {vi})}, update, init);
  tir::Stmt body = tir::block_realize({i, k}, block);
  body = make_ref<tir::For>(k, tir::int_imm(0), tir::int_imm(8), tir::ForKind::kSerial, body);
  return make_ref<tir::For>(i, tir::int_imm(0), tir::int_imm(4), tir::ForKind::kSerial, body);
}

TEST(StructuralEqual, BlocksWithIterVarsAndBuffers) {
  tir::Stmt s1 = sum_rows(tir::IterVarType::kReduce), s2 = sum_rows(tir::IterVarType::kReduce);
  EXPECT_TRUE(structural_equal(s1, s2));  // free buffers map on first sight
  EXPECT_EQ(structural_hash(s1), structural_hash(s2));
  EXPECT_FALSE(structural_equal(s1, s2, /*map_free_vars=*/false));  // the buffers are free here
  EXPECT_EQ(path_of(s1, sum_rows(tir::IterVarType::kSpatial)), "body.body.block.iter_vars[1].type");
}

TEST(StructuralEqual, IfBranchesAndReturnStructInfo) {
  // def f(c: R.Prim("bool"), x: R.Tensor((2,))) -> ret: if c: x else: x
  auto make = [](StructInfo ret, bool else_is_call) {
    Ref<Var> c = make_var("c", prim_sinfo(DataType::Bool()));
    Ref<Var> x = make_var("x", tensor_sinfo({tir::int_imm(2)}, kF32));
    Expr else_value =
        else_is_call ? Expr(make_ref<Call>(make_extern("id"), std::vector<Expr>{x})) : Expr(x);
    Expr body = make_ref<If>(c, make_ref<SeqExpr>(std::vector<Block>{}, x),
                             make_ref<SeqExpr>(std::vector<Block>{}, else_value));
    return make_ref<Function>(std::vector<Ref<Var>>{c, x}, body, ret);
  };
  StructInfo t2 = tensor_sinfo({tir::int_imm(2)}, kF32);
  EXPECT_TRUE(structural_equal(make(t2, false), make(t2, false)));
  EXPECT_EQ(path_of(make(t2, false), make(t2, true)), "body.else_branch.body");
  EXPECT_EQ(path_of(make(t2, false), make(object_sinfo(), false)), "ret_struct_info");
}

TEST(StructuralEqual, HashIsConsistentWithEquality) {
  // Every pair of these that is equal must hash equal; most pairs differ.
  Ref<tir::Var> n = tir::var("n"), m = tir::var("m");
  std::vector<Ref<Object>> objects{add_func("_a"),
                                   add_func("_b"),
                                   add_func("_c", {.swap_last_args = true}),
                                   add_func("_d", {.dataflow = false}),
                                   add_func("_e", {.square_y = true}),
                                   exp_func(),
                                   exp_func(),
                                   exp_func(tir::ForKind::kParallel),
                                   tensor_sinfo({n, n}, kF32),
                                   tensor_sinfo({m, m}, kF32),
                                   tensor_sinfo({n, m}, kF32),
                                   make_shape({n, tir::int_imm(4)}),
                                   make_shape({m, tir::int_imm(4)}),
                                   make_attrs({{"axis", int64_t(1)}})};
  for (bool map_free_vars : {true, false}) {
    for (size_t i = 0; i < objects.size(); ++i) {
      for (size_t j = 0; j < objects.size(); ++j) {
        if (structural_equal(objects[i], objects[j], map_free_vars)) {
          EXPECT_EQ(structural_hash(objects[i], map_free_vars),
                    structural_hash(objects[j], map_free_vars))
              << i << " vs " << j << " map_free_vars=" << map_free_vars;
        } else if (i == j) {
          ADD_FAILURE() << "object " << i << " differs from itself";
        }
      }
    }
  }
  EXPECT_TRUE(structural_equal(objects[8], objects[9]));
  EXPECT_FALSE(structural_equal(objects[8], objects[9], /*map_free_vars=*/false));
  EXPECT_FALSE(structural_equal(objects[8], objects[10]));
}

// ---- Modules.

IRModule module_of(const std::string& suffix, bool reversed = false, FuncSpec spec = {}) {
  IRModule m;
  if (reversed) {
    m.add("exp", exp_func());
    m.add("main", add_func(suffix, spec));
  } else {
    m.add("main", add_func(suffix, spec));
    m.add("exp", exp_func());
  }
  return m;
}

TEST(StructuralEqual, ModulesMatchFunctionsByName) {
  IRModule a = module_of("_a"), b = module_of("_b", /*reversed=*/true);
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_NO_THROW(assert_structural_equal(a, b));

  StructuralEqualResult r = structural_compare(a, module_of("_b", false, {.swap_last_args = true}));
  EXPECT_EQ(r.path, "main.body.blocks[0].bindings[1].value.args[1]");

  IRModule missing;
  missing.add("main", add_func("_c"));
  r = structural_compare(a, missing);
  EXPECT_EQ(r.path, "exp");
  EXPECT_EQ(r.rhs, "(missing)");
  r = structural_compare(missing, a);
  EXPECT_EQ(r.path, "exp");
  EXPECT_EQ(r.lhs, "(missing)");
}

TEST(StructuralEqual, ModuleAttrsAreCompared) {
  IRModule a = module_of("_a"), b = module_of("_b");
  a.set_attr("system_lib_prefix", std::string("lib_"));
  EXPECT_EQ(structural_compare(a, b).path, "module.attrs.system_lib_prefix");
  b.set_attr("system_lib_prefix", std::string("lib_"));
  EXPECT_TRUE(structural_equal(a, b));
}

TEST(StructuralEqual, AssertThrowsWithTheReport) {
  Ref<Function> f = add_func("_a"), g = add_func("_b", {.swap_last_args = true});
  try {
    assert_structural_equal(f, g);
    FAIL() << "expected relax::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.message()),
              "structurally different at body.blocks[0].bindings[1].value.args[1]: 'x_a' vs 'y_b' "
              "('x_a' already corresponds to 'x_b' on the right)");
  }
}

}  // namespace
}  // namespace relax
