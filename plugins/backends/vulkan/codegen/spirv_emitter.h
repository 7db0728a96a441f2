// The SPIR-V emitter of one kernel (spirv_codegen.h), internal to the codegen: a walk over the
// lowered kernel that appends instructions to the function body through SpirvBuilder.
//
// Values are SSA ids with the TIR dtype they hold. Each TIR dtype has a *compute* type (what
// arithmetic uses: bool -> OpTypeBool, bfloat16 and float16 without the float16 feature ->
// float32) and a *storage* type (the element of a storage buffer: bool -> uint8, bfloat16 ->
// uint16, float16 -> 16-bit float); shared and local arrays hold compute types. Loop counters
// live in Function variables (no OpPhi); the only OpPhi is the merge of a two-way branch that
// computes a value (if_then_else or && / || whose untaken operand reads memory), first in its
// block. Control flow is structured: every loop has OpLoopMerge, every branch OpSelectionMerge.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <spirv/unified1/GLSL.std.450.h>

#include "relax/tir/expr_functor.h"
#include "relax/tir/stmt.h"
#include "spirv_builder.h"
#include "spirv_codegen.h"

namespace relax::vulkan::detail {

/// An SSA value and the TIR dtype it holds (in that dtype's compute type).
struct Value {
  uint32_t id = 0;
  DataType t;
};

/// Memory a buffer's data var names.
struct Slot {
  enum Kind { kStorage, kWorkgroup, kFunction } kind = kStorage;
  uint32_t var = 0;        ///< the OpVariable
  DataType dtype;          ///< the TIR element dtype
  uint32_t elem_type = 0;  ///< the SPIR-V element type as stored
  spv::StorageClass sc = spv::StorageClass::StorageBuffer;
  uint32_t offset = 0;  ///< kStorage: the int32 element offset (an SSA id loaded at entry)
};

class Emitter : public tir::ExprFunctor<Value(const PrimExpr&)> {
 public:
  Emitter(const tir::GpuKernel& kernel, const SpirvFeatures& features)
      : k_(kernel), f_(features) {}
  SpirvKernel run();

  // ---- expressions (spirv_emit_expr.cc)
  using ExprFunctor::visit_;
  Value visit_(const tir::IntImm* op) override;
  Value visit_(const tir::FloatImm* op) override;
  Value visit_(const tir::Var* op) override;
  Value visit_(const tir::Add* op) override;
  Value visit_(const tir::Sub* op) override;
  Value visit_(const tir::Mul* op) override;
  Value visit_(const tir::Div* op) override;
  Value visit_(const tir::Mod* op) override;
  Value visit_(const tir::FloorDiv* op) override;
  Value visit_(const tir::FloorMod* op) override;
  Value visit_(const tir::Min* op) override;
  Value visit_(const tir::Max* op) override;
  Value visit_(const tir::EQ* op) override;
  Value visit_(const tir::NE* op) override;
  Value visit_(const tir::LT* op) override;
  Value visit_(const tir::LE* op) override;
  Value visit_(const tir::GT* op) override;
  Value visit_(const tir::GE* op) override;
  Value visit_(const tir::And* op) override;
  Value visit_(const tir::Or* op) override;
  Value visit_(const tir::Not* op) override;
  Value visit_(const tir::Select* op) override;
  Value visit_(const tir::Cast* op) override;
  Value visit_(const tir::Let* op) override;
  Value visit_(const tir::Call* op) override;
  Value visit_(const tir::BufferLoad* op) override;
  Value visit_expr_default(const tir::PrimExprNode* op) override;

  // ---- casts and intrinsics (spirv_emit_intrin.cc)
  Value cast(Value v, DataType to);
  Value intrinsic(const tir::Call* op);

 private:
  // ---- setup and statements (spirv_emitter.cc)
  void emit_stmt(const tir::Stmt& s);
  void emit_for(const tir::For* op);
  void emit_if(const tir::IfThenElse* op);
  void emit_allocate(const tir::Allocate* op);
  void emit_store(const tir::BufferStore* op);
  void setup_interface();

 public:
  // ---- helpers shared by the files
  /// Throws relax::Error "vulkan: kernel <name>: <what>".
  [[noreturn]] void fail(const std::string& what) const;
  /// Marks a spirv_abi.h feature used; fails when the target disables it.
  void need(const char* feature, bool enabled, const std::string& why);
  /// The compute type of `t` (scalar only).
  uint32_t ctype(DataType t);
  /// The storage-buffer element type of `t`.
  uint32_t stype(DataType t);
  /// Bits of the integer compute type of `t`: with int64=0, int64 and uint64 are *demoted* to
  /// 32 bits (index arithmetic: the host asserts every buffer holds fewer than 2^31
  /// elements), while int64 buffers and constants beyond 32 bits are errors.
  int ibits(DataType t) const;
  /// Bits of the float compute type of float dtype `t`.
  int fbits(DataType t) const;
  /// True when `t` is float16 computed in float32.
  bool f16_emulated(DataType t) const { return t.code == DataType::kFloat && t.bits == 16 && !f_.float16; }
  uint32_t cint(DataType t, int64_t v);
  uint32_t cfloat(DataType t, double v);
  uint32_t u32(uint32_t v) { return b_.const_int(b_.type_int(32, false), 32, false, v); }
  uint32_t i32(int32_t v) { return b_.const_int(b_.type_int(32, true), 32, true, uint64_t(v)); }
  uint32_t f32(float v) { return b_.const_float(b_.type_float(32), 32, v); }
  /// Emits `op` with a fresh result of `type`; returns the id.
  uint32_t op(spv::Op op, uint32_t type, const std::vector<uint32_t>& args);
  /// Emits an instruction without a result.
  void op0(spv::Op op, const std::vector<uint32_t>& args);
  /// A GLSL.std.450 instruction.
  uint32_t ext(GLSLstd450 inst, uint32_t type, const std::vector<uint32_t>& args);
  uint32_t new_label() { return b_.fresh_id(); }
  void start_block(uint32_t label);
  /// A two-way structured branch on bool `cond` computing a value of dtype `t` on each side.
  Value branch_value(uint32_t cond, DataType t, const std::function<Value()>& then_fn,
                     const std::function<Value()>& else_fn);
  /// `v` as a bool (ints and floats: != 0).
  uint32_t truthy(Value v);
  /// An int32 element index from an index value of any integer dtype.
  uint32_t index32(Value v);
  /// The pointer to element `index` (int32 id) of `slot`.
  uint32_t element_ptr(const Slot& slot, uint32_t index);
  Slot& slot_of(const tir::Buffer& b, const char* what);
  /// The flat element index of `b[indices]`.
  uint32_t flat_index(const tir::Buffer& b, const std::vector<PrimExpr>& indices);
  /// float32 bits rounded to bfloat16 (round to nearest even, NaN kept quiet): a uint32 with
  /// the low 16 bits zero.
  uint32_t bf16_round_bits(uint32_t f32_value);
  /// A float32 value rounded to float16 precision (the emulated float16).
  uint32_t f16_round(uint32_t f32_value);

  // The state, public to the math helpers of spirv_emit_math.cc (an internal class: the
  // plugin's files are its only users).
  const tir::GpuKernel& k_;
  SpirvFeatures f_;
  SpirvBuilder b_;
  SpirvKernel out_;
  std::vector<uint32_t> body_;   ///< the function's instructions after its first label
  std::vector<uint32_t> fvars_;  ///< its Function variables (they open the first block)
  uint32_t cur_label_ = 0;
  std::unordered_map<const tir::Var*, Value> vars_;
  std::unordered_map<const tir::Var*, Slot> slots_;
  uint32_t workgroup_id_ = 0, local_id_ = 0;  ///< the uvec3 builtin values, loaded at entry
  std::array<uint32_t, 2> builtin_vars_{};    ///< their Input variables
};

// ---- math (spirv_emit_math.cc): each takes and returns SPIR-V ids
/// `fn` (on float32 ids) applied to `args` of float dtype `t`, converting when `t` computes
/// in another width.
uint32_t on_float32(Emitter& e, DataType t, const std::vector<uint32_t>& args,
                    uint32_t (*fn)(Emitter&, const std::vector<uint32_t>&));
uint32_t erf_f32(Emitter& e, const std::vector<uint32_t>& args);
uint32_t atan_f32(Emitter& e, const std::vector<uint32_t>& args);
uint32_t atan2_f32(Emitter& e, const std::vector<uint32_t>& args);  ///< (y, x)
uint32_t asin_f32(Emitter& e, const std::vector<uint32_t>& args);
uint32_t acos_f32(Emitter& e, const std::vector<uint32_t>& args);
/// std::pow semantics on dtype `t`.
uint32_t pow_std(Emitter& e, DataType t, uint32_t x, uint32_t y);
/// std::fmod (sign of the dividend, exact where the quotient is below 2^24).
uint32_t float_fmod(Emitter& e, DataType t, uint32_t a, uint32_t b);
/// The interpreter's float FloorDiv (floor of the double quotient) or FloorMod.
uint32_t float_floor_div(Emitter& e, DataType t, uint32_t a, uint32_t b, bool mod);

/// True when `e` reads memory (a BufferLoad anywhere in it).
bool reads_memory(const PrimExpr& e);

}  // namespace relax::vulkan::detail
