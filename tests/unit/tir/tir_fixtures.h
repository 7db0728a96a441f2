// Hand-built PrimFuncs shared by the TIR unit tests.
#pragma once

#include "relax/ir/prim_func.h"

namespace relax::tir::testing {

inline constexpr DataType kF32 = DataType::Float(32);

/// The RFC's tir_exp_func: `for i in T.serial(n): Y[i] = T.exp(X[i])` over (n,) float32 buffers.
struct ExpFunc {
  Ref<Var> n = var("n");
  Ref<Buffer> X = decl_buffer({n}, kF32, "X");
  Ref<Buffer> Y = decl_buffer({n}, kF32, "Y");
  Ref<Var> i = var("i");
  Ref<PrimFunc> func;

  ExpFunc() {
    PrimExpr exp =
        make_ref<Call>(kF32, Intrinsic::kExp, std::vector<PrimExpr>{buffer_load(X, {i})});
    Stmt body = make_ref<For>(i, int_imm(0), n, ForKind::kSerial, buffer_store(Y, exp, {i}));
    relax::Attrs attrs =
        make_ref<relax::AttrsNode>(std::vector<std::pair<std::string, relax::AttrValue>>{
            {kAttrGlobalSymbol, std::string("tir_exp_func")}, {kAttrNoAlias, true}});
    func = make_prim_func({X, Y}, body, {}, attrs);
  }
};

/// C[i, j] = sum_k A[i, k] * B[k, j] over 16x16 float32 buffers, as one reduction block:
///   for i, j, k in T.grid(16, 16, 16):
///     with T.block("matmul"):
///       vi, vj, vk = T.axis.remap("SSR", [i, j, k])
///       T.reads(A[vi, vk], B[vk, vj])
///       T.writes(C[vi, vj])
///       with T.init():
///         C[vi, vj] = T.float32(0)
///       C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
struct Matmul {
  Ref<Buffer> A = decl_buffer({int_imm(16), int_imm(16)}, kF32, "A");
  Ref<Buffer> B = decl_buffer({int_imm(16), int_imm(16)}, kF32, "B");
  Ref<Buffer> C = decl_buffer({int_imm(16), int_imm(16)}, kF32, "C");
  Ref<Var> i = var("i"), j = var("j"), k = var("k");
  Ref<Var> vi = var("vi"), vj = var("vj"), vk = var("vk");
  Stmt init;
  Stmt update;
  Ref<Block> block;
  Ref<PrimFunc> func;

  Matmul() {
    init = buffer_store(C, float_imm(0.0), {vi, vj});
    update = buffer_store(
        C, buffer_load(C, {vi, vj}) + buffer_load(A, {vi, vk}) * buffer_load(B, {vk, vj}),
        {vi, vj});
    block = make_ref<Block>(
        "matmul",
        std::vector<Ref<IterVar>>{make_iter_var(vi, int_imm(16), IterVarType::kSpatial),
                                  make_iter_var(vj, int_imm(16), IterVarType::kSpatial),
                                  make_iter_var(vk, int_imm(16), IterVarType::kReduce)},
        std::vector<BufferRegion>{BufferRegion::from_point(A, {vi, vk}),
                                  BufferRegion::from_point(B, {vk, vj})},
        std::vector<BufferRegion>{BufferRegion::from_point(C, {vi, vj})}, update, init);
    Stmt body = block_realize({i, j, k}, block);
    body = make_ref<For>(k, int_imm(0), int_imm(16), ForKind::kSerial, body);
    body = make_ref<For>(j, int_imm(0), int_imm(16), ForKind::kSerial, body);
    body = make_ref<For>(i, int_imm(0), int_imm(16), ForKind::kSerial, body);
    func = make_prim_func({A, B, C}, body);
  }
};

}  // namespace relax::tir::testing
